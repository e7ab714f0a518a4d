"""The README's five promises, seed by seed: what `stickgen generate` does with the bundled model.

    python benchmarks/promises.py [--checkpoint DIR] [--seeds 5]

Generates the five prompts of `tests/test_generate.py` with seeds 0 .. N−1 exactly as the product does
and prints, per seed, the measured value behind each promise and whether it holds (the same
detectors and thresholds as the tests): the jump's rise above standing, the walk's distance, the sit's
drop, the wave (wrist above shoulder, swinging, pelvis within 20 cm) and the moon jump's airborne time
against the earth jump's. The tests need most seeds to keep each promise; the README reports all.
"""

from __future__ import annotations

import argparse

import numpy as np

import stickgen
from stickgen import detectors
from stickgen.figure import J

PROMPTS = ("a person jumps", "a person walks forward", "a person sits down", "a person waves",
           "a person jumps on the moon")  # fmt: skip


def _pelvis(motion) -> np.ndarray:
    return motion.joints[:, J["pelvis"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None, help="a checkpoint folder (default: the bundled model)")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    seeds = range(args.seeds)
    clips = {p: [stickgen.generate(p, seed=s, checkpoint=args.checkpoint) for s in seeds] for p in PROMPTS}
    rows = []
    for s in seeds:
        jump, walk, sit, wave, moon = (clips[p][s] for p in PROMPTS)
        rise = float(_pelvis(jump)[:, 1].max() - np.median(_pelvis(jump)[:5, 1]))
        travel = float(abs(_pelvis(walk)[-1, 0] - _pelvis(walk)[0, 0]))
        drop = float(_pelvis(sit)[0, 1] - _pelvis(sit)[-1, 1])
        air_moon, air_earth = detectors.airborne_seconds(moon), detectors.airborne_seconds(jump)
        rows.append([
            f"{rise:.2f} m {'yes' if detectors.rises(jump, min_m=0.15, back_m=0.1) else 'no'}",
            f"{travel:.2f} m {'yes' if detectors.travels(walk, min_m=1.0) else 'no'}",
            f"{drop:.2f} m {'yes' if detectors.ends_lower(sit, min_m=0.25) else 'no'}",
            "yes" if detectors.waves(wave, max_move=0.2) else "no",
            f"{air_moon:.1f} s vs {air_earth:.1f} s {'yes' if air_moon > 1.3 * air_earth else 'no'}",
        ])  # fmt: skip
    header = ["seed", "jump rises > 0.15 m", "walk travels > 1 m", "sit ends 0.25 m lower", "waves",
              "moon airborne > 1.3 × earth"]  # fmt: skip
    print("| " + " | ".join(header) + " |")
    print("|---" * len(header) + "|")
    for s, row in zip(seeds, rows, strict=True):
        print(f"| {s} | " + " | ".join(row) + " |")
    kept = [sum(row[k].endswith("yes") for row in rows) for k in range(len(header) - 1)]
    print("| kept | " + " | ".join(f"{k} of {len(rows)}" for k in kept) + " |")


if __name__ == "__main__":
    main()
