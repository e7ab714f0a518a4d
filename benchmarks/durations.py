"""How long the synthesizer's clips of each action last: the tables behind `generate`'s durations.

    python benchmarks/durations.py [--data data/synth] [--split train|val|test]

For every action it takes the dataset's clips on earth whose frames all carry that one action and
prints the 10th, 25th and 50th percentile of their length in seconds, then the table of
`stickgen.generation.TYPICAL_SECONDS` (the median, to the nearest 0.5 s) as it would be written from
this dataset, so the shipped table can be checked against, or rewritten from, a new dataset.
A model asked for an action in much less time than its training clips of that action took draws a
squeezed version of it (push-ups in 3 s: down to the floor and straight back up, no push-up), so
`generate` gives a prompt that names an action at least this long.

Then the table of `stickgen.generation.CHAINED_SECONDS`: the median length of each action's runs in
the earth clips that chain several actions (a walk before a sit lasts less than a clip of walking), and
`UNKNOWN_PART_SECONDS`, the median over all of those runs. A chained prompt's actions share its clip in
proportion to these (`split_by_length`). It also says how often the action with the longest share is
the clip's majority action (the label the evaluation's action accuracy uses) on the chained clips of
the val split, under each table. The tables are made from all the dataset's clips, or from one split
with `--split` (`TYPICAL_SECONDS` was made from all of them, `CHAINED_SECONDS` from the train split, so
that the val and test clips it is measured on are not in it).
"""

from __future__ import annotations

import argparse

import numpy as np

from stickgen.dataset import Dataset
from stickgen.labels import ACTIONS, environment_vector


def action_runs(actions: np.ndarray) -> list[tuple[int, int]]:
    """(action id, frames) of each run of one action in a per-frame timeline; −1 frames skipped."""
    out: list[list[int]] = []
    for value in actions.tolist():
        if value >= 0 and out and out[-1][0] == value:
            out[-1][1] += 1
        elif value >= 0:
            out.append([value, 1])
    return [(a, n) for a, n in out]


def earth_clips(data: Dataset, split: str | None = None) -> list[np.ndarray]:
    """The per-frame action ids of the dataset's earth clips (of one split, or all)."""
    arrays = data.arrays()
    earth = environment_vector("earth")
    indices = range(len(arrays.offsets) - 1) if split is None else data.split(split)
    return [
        arrays.actions[arrays.offsets[i] : arrays.offsets[i + 1]]
        for i in indices
        if np.allclose(arrays.environment[i], earth, atol=1e-3)
    ]


def single_action_seconds(data: Dataset, split: str | None = None) -> dict[int, np.ndarray]:
    """Per action id, the lengths (s) of the dataset's earth clips that show only that action."""
    lengths: dict[int, list[float]] = {}
    for actions in earth_clips(data, split):
        named = np.unique(actions)
        if len(named) == 1 and named[0] >= 0:
            lengths.setdefault(int(named[0]), []).append(len(actions) / data.fps)
    return {k: np.asarray(v) for k, v in lengths.items()}


def chained_run_seconds(data: Dataset, split: str | None = None) -> dict[int, np.ndarray]:
    """Per action id, the lengths (s) of its runs in the earth clips that show several actions."""
    lengths: dict[int, list[float]] = {}
    for actions in earth_clips(data, split):
        runs = action_runs(actions)
        if len({a for a, _ in runs}) > 1:
            for a, n in runs:
                lengths.setdefault(a, []).append(n / data.fps)
    return {k: np.asarray(v) for k, v in lengths.items()}


def longest_share_is_majority(data: Dataset, seconds, split: str = "val") -> float:
    """How often, over the split's chained clips (every environment), the action whose runs get the
    most time under `seconds` (action id → s) is the clip's majority action."""
    from stickgen.evaluator import majority_action

    arrays = data.arrays()
    hits = []
    for i in data.split(split):
        actions = arrays.actions[arrays.offsets[i] : arrays.offsets[i + 1]]
        named = [a for a, _ in action_runs(actions)]
        if len(set(named)) > 1:
            guess = max(sorted(set(named)), key=lambda a: seconds(a) * named.count(a))
            hits.append(guess == majority_action(actions))
    return float(np.mean(hits)) if hits else float("nan")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="data/synth", help="a dataset folder (default data/synth)")
    parser.add_argument("--split", default=None, choices=("train", "val", "test"),
                        help="only this split's clips make the tables (default: all clips)")
    args = parser.parse_args(argv)
    from stickgen.errors import StickgenError
    from stickgen.generation import chained_seconds, typical_seconds

    try:
        data = Dataset(args.data)
        lengths = single_action_seconds(data, args.split)
        chained = chained_run_seconds(data, args.split)
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
    print("\nCHAINED_SECONDS = {")
    for k in sorted(chained):
        median = round(2 * float(np.median(chained[k]))) / 2
        print(f'    "{ACTIONS[k]}": {median:g},  # {len(chained[k])} runs')
    print("}")
    every_run = np.concatenate(list(chained.values())) if chained else np.zeros(0)
    print(f"UNKNOWN_PART_SECONDS = {round(2 * float(np.median(every_run))) / 2:g}" if len(every_run) else "")
    if args.split != "val":
        print("\nthe action with the longest share is the majority of a val chained clip:")
        tables = (("TYPICAL_SECONDS (at least 3 s)", typical_seconds), ("CHAINED_SECONDS", chained_seconds))
        for name, seconds in tables:
            print(f"  shipped {name} {longest_share_is_majority(data, seconds):.3f}")


if __name__ == "__main__":
    main()
