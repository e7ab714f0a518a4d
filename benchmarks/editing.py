"""Editing with the bundled model (issue 16): kept parts, seams and text, seed by seed.

    python benchmarks/editing.py [--checkpoint DIR] [--seeds 5]

For each row, over seeds 0 .. N−1 and default settings: the largest error of what must be kept (the
input's frames for continue, the given poses for in-between, the kept joints and frames for part
edits); the seam ratio, the issue's rule: the largest joint speed across a seam (for an edit, of the
edited joints across a span edge) over the 99th percentile of the other joint speeds, so that at most
1 passes (`detectors.seam_speed`); and whether the new part does what its text says, by the prompt
suite's detectors. The inputs are generated clips (continue, in-between, with seed 0 / 1) and
synthesized walks (`stickgen.synth`, 5 s, earth, side view) for part edits; each edit row also says in
how many walks the rule holds with no edit at all (a span edge mid-stride can break it by itself).
docs/editing.md has the figures.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import stickgen
from stickgen import detectors, editing
from stickgen.figure import J
from stickgen.synth.sampler import ClipPlan, synthesize
from stickgen.synth.style import STYLES

CONTINUE = (("walk → jumps", "a person walks forward", "a person jumps", detectors.rises),
            ("wave → sits down", "a person waves", "a person sits down", detectors.ends_lower),
            ("jump → walks forward", "a person jumps", "a person walks forward", detectors.travels),
            ("sit → stands up", "a person sits down", "a person stands up", detectors.ends_higher),
            )  # fmt: skip
EDITS = (("upper", "a person waves", 1.0, 4.0), ("right_arm", "a person waves", 1.0, 4.0),
         ("arms", "a person waves", 1.0, 4.0), ("legs", "a person kicks", 1.0, 3.0),
         ("lower", "a person kicks", 1.0, 3.0))  # fmt: skip
STORY = ((5.0, "a person walks forward"), (3.0, "a person jumps"), (4.0, "a person sits down"))


def walk(seed: int, seconds: float = 5.0):
    plan = ClipPlan(seed=3, index=seed, environment="earth", view="side", facing=1 if seed % 2 else -1,
                    style=STYLES[seed % len(STYLES)].name, actions=("walk",), seconds=(seconds,),
                    start_state="standing", camera="static", texts=1)  # fmt: skip
    return synthesize(plan)


def cut(motion, a: int, b: int):
    return motion.replace(joints=motion.joints[a:b], actions=motion.actions[a:b], camera=None)


def relative(joints: np.ndarray) -> np.ndarray:
    return joints - joints[..., J["pelvis"] : J["pelvis"] + 1, :]


def row(name: str, kept: list[float], ratios: list[float], text: str, seconds: float) -> str:
    passing = sum(r <= 1.0 for r in ratios)
    return (f"| {name} | {max(kept):.1e} m | {statistics.median(ratios):.2f} / {max(ratios):.2f}, "
            f"{passing} of {len(ratios)} | {text} | {seconds:.2f} s |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None, help="a checkpoint folder (default: the bundled model)")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    seeds, options = range(args.seeds), {"checkpoint": args.checkpoint}
    n = len(seeds)
    columns = ("what", "kept parts, largest error", "seam ratio (median / max, passing)", "text followed",
               "time per call")  # fmt: skip
    print("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")

    kept, ratios, texts, started = [], [], [], time.perf_counter()
    for _, first, then, check in CONTINUE:
        clip = stickgen.generate(first, seed=0, checkpoint=args.checkpoint)
        hits = 0
        for seed in seeds:
            out = editing.continue_motion(clip, then, seconds=4.0, seed=seed, **options)
            kept.append(float(np.abs(out.joints[: clip.num_frames] - clip.joints).max()))
            across, p99 = detectors.seam_speed(out.joints, [clip.num_frames])
            ratios.append(across / p99)
            hits += check(cut(out, clip.num_frames, out.num_frames))
        texts.append(f"{check.__name__} {hits}/{n}")
    pairs = ", ".join(label for label, *_ in CONTINUE)
    seconds = (time.perf_counter() - started) / (len(CONTINUE) * n)
    print(row(f"continue 4 s: {pairs}", kept, ratios, ", ".join(texts), seconds))

    start = stickgen.generate("a person waves", seed=0, checkpoint=args.checkpoint)
    end = stickgen.generate("a person sits down", seed=1, checkpoint=args.checkpoint)
    kept, ratios, started = [], [], time.perf_counter()
    for seed in seeds:
        out = editing.inbetween(
            "a person walks forward", start=start, end=end, seconds=3.0, seed=seed, **options
        )
        first = np.abs(relative(out.joints[0]) - relative(start.joints[-1])).max()
        last = np.abs(relative(out.joints[-1]) - relative(end.joints[0])).max()
        kept.append(float(max(first, last)))
        across, p99 = detectors.seam_speed(out.joints, [1, out.num_frames - 1])
        ratios.append(across / p99)
    seconds = (time.perf_counter() - started) / n
    print(row('in-between "walks forward", 3 s, wave → sitting pose', kept, ratios, "—", seconds))

    walks = [walk(seed) for seed in seeds]
    for name, text, a_s, b_s in EDITS:
        edited = editing.part_joints(name)
        others = [j for j in range(16) if j not in edited]
        frame = relative if J["pelvis"] in edited else np.asarray  # kept relative to a moving pelvis
        label = "waves" if "waves" in text else "kicks"
        kept, ratios, hits, control, started = [], [], 0, 0, time.perf_counter()
        for seed, clip in zip(seeds, walks, strict=True):
            out = editing.edit_motion(clip, text, part=name, start=a_s, stop=b_s, seed=seed, **options)
            # the span's edges as the edit moved them (inward, to where the part moves slowest)
            a, b = (round(out.source["edited"][key] * 25) for key in ("from", "to"))
            # The control: the rule on the unedited walk, across the same edges and joints.
            control += float(np.divide(*detectors.seam_speed(clip.joints, [a, b], edited))) <= 1.0
            outside = np.r_[0:a, b : clip.num_frames]
            joints = np.abs(frame(out.joints)[:, others] - frame(clip.joints)[:, others]).max()
            frames = np.abs(out.joints[outside] - clip.joints[outside]).max()
            kept.append(float(max(joints, frames)))
            across, p99 = detectors.seam_speed(out.joints, [a, b], edited)
            ratios.append(across / p99)
            new = cut(out, a, b)
            hits += detectors.waves(new, max_move=None) if label == "waves" else detectors.kicks(new)
        seconds = (time.perf_counter() - started) / n
        followed = f"{label} {hits}/{n} (the unedited walk passes the seam rule in {control} of {n})"
        print(row(f'edit `{name}`, {a_s:g}–{b_s:g} s, "{label}"', kept, ratios, followed, seconds))

    ratios, hits, started = [], [0, 0, 0], time.perf_counter()
    for seed in seeds:
        out = editing.tell_story(STORY, seed=seed, **options)
        for seam in (125, 200):
            across, p99 = detectors.seam_speed(out.joints, [seam])
            ratios.append(across / p99)
        checks = (detectors.travels(cut(out, 0, 125)), detectors.rises(cut(out, 125, 200)),
                  detectors.ends_lower(cut(out, 200, 300)))  # fmt: skip
        hits = [h + ok for h, ok in zip(hits, checks, strict=True)]
    followed = f"travels {hits[0]}/{n}, rises {hits[1]}/{n}, ends lower {hits[2]}/{n}"
    seconds = (time.perf_counter() - started) / n
    print(row("story walks forward 5 s / jumps 3 s / sits down 4 s", [0.0], ratios, followed, seconds))


if __name__ == "__main__":
    main()
