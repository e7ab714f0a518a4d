"""How long the synthesizer's clips of each action last: the table behind `generate`'s default duration.

    python benchmarks/durations.py [--data data/synth]

For every action it takes the dataset's clips on earth whose frames all carry that one action and
prints the 10th, 25th and 50th percentile of their length in seconds, then the table of
`stickgen.generation.TYPICAL_SECONDS` (the median, to the nearest 0.5 s) as it would be written from
this dataset, so the shipped table can be checked against, or rewritten from, a new dataset.
A model asked for an action in much less time than its training clips of that action took draws a
squeezed version of it (push-ups in 3 s: down to the floor and straight back up, no push-up), so
`generate` gives a prompt that names an action at least this long.
"""

from __future__ import annotations

import argparse

import numpy as np

from stickgen.dataset import Dataset
from stickgen.labels import ACTIONS, environment_vector


def single_action_seconds(data: Dataset) -> dict[int, np.ndarray]:
    """Per action id, the lengths (s) of the dataset's earth clips that show only that action."""
    arrays = data.arrays()
    earth = environment_vector("earth")
    lengths: dict[int, list[float]] = {}
    for i in range(len(arrays.offsets) - 1):
        if not np.allclose(arrays.environment[i], earth, atol=1e-3):
            continue
        a, b = arrays.offsets[i], arrays.offsets[i + 1]
        actions = np.unique(arrays.actions[a:b])
        if len(actions) == 1 and actions[0] >= 0:
            lengths.setdefault(int(actions[0]), []).append((b - a) / data.fps)
    return {k: np.asarray(v) for k, v in lengths.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="data/synth", help="a dataset folder (default data/synth)")
    args = parser.parse_args(argv)
    from stickgen.errors import StickgenError

    try:
        lengths = single_action_seconds(Dataset(args.data))
    except StickgenError as error:
        raise SystemExit(f"durations.py: {error}") from None
    print("| action | clips | p10 s | p25 s | median s |\n|---|---|---|---|---|")
    for k in sorted(lengths, key=lambda k: np.median(lengths[k])):
        p10, p25, p50 = np.percentile(lengths[k], [10, 25, 50])
        print(f"| {ACTIONS[k]} | {len(lengths[k])} | {p10:.1f} | {p25:.1f} | {p50:.1f} |")
    print("\nTYPICAL_SECONDS = {")
    for k in sorted(lengths):
        print(f'    "{ACTIONS[k]}": {round(2 * float(np.median(lengths[k]))) / 2:g},')
    print("}")


if __name__ == "__main__":
    main()
