"""Does "jumps three times" show three jumps? The model's tempo, and the lengths `generate` gives counts.

    python benchmarks/counts.py [--checkpoint DIR] [--fit-seeds 0-4] [--seeds 5-14] [--counts 1-6]

The model does not count: asked for "a person jumps three times" or "a person jumps" in a clip of the
same length, it draws as many jumps, at its own steady tempo. So `generate` gives a prompt that says
how many times it does one of the actions of `stickgen.generation.COUNT_SECONDS` the length in which
the model draws that many (`default_seconds`).

First the tempo: for each of those actions, "a person <does it> three times" at 2 … 8 s with the fit
seeds, the repetitions counted in each clip (`detectors.count_jumps`: the pelvis up 10 cm and down
again; for jumping jacks `detectors.count_arm_raises`, both hands over the head), and the table
`lead` + `each` × count fitted to them (least squares of the length on the mean count), a start for
`COUNT_SECONDS` with new weights (read the row too: a hop's tempo quickens in longer clips). Then,
with the other seeds, for each action and count: how often the clip `generate` makes shows exactly
that many, with the length the table gives and with the length the prompt got before counts were read
(its action's `TYPICAL_SECONDS`).
"""

from __future__ import annotations

import argparse

import numpy as np

import stickgen
from stickgen import detectors
from stickgen.generation import COUNT_SECONDS, default_seconds, typical_seconds
from stickgen.labels import action_id

SAYS = {
    "jump": "a person jumps {}",
    "jump_forward": "a person jumps forward {}",
    "jumping_jacks": "a person does jumping jacks {}",
    "hop": "a person hops on one foot {}",
}
TIMES = {1: "once", 2: "twice"}
# How a repetition is counted: the pelvis up and down, or for jumping jacks both hands over the head.
COUNTERS = {"jumping_jacks": detectors.count_arm_raises}


def _count(name: str, motion) -> int:
    return COUNTERS.get(name, detectors.count_jumps)(motion)


def _span(text: str) -> range:
    first, _, last = text.partition("-")
    return range(int(first), int(last or first) + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None, help="a checkpoint folder (default: the bundled model)")
    parser.add_argument("--fit-seeds", default="0-4", help="seeds the tempo is measured with (default 0-4)")
    parser.add_argument("--seeds", default="5-14", help="seeds the counts are checked with (default 5-14)")
    parser.add_argument("--counts", default="1-6", help="counts to check (default 1-6)")
    args = parser.parse_args()
    fit_seeds, seeds, counts = _span(args.fit_seeds), _span(args.seeds), _span(args.counts)
    assert set(SAYS) == set(COUNT_SECONDS), "every action with a count length needs a prompt here"

    print("The model's tempo: repetitions drawn in a clip of each length (mean over the fit seeds)\n")
    lengths = (2, 3, 4, 5, 6, 7, 8)
    print("| action | " + " | ".join(f"{s} s" for s in lengths) + " | fitted lead + each × count | shipped |")
    print("|---" * (len(lengths) + 3) + "|")
    for name, says in SAYS.items():
        text = says.format("three times")
        means = [np.mean([_count(name, stickgen.generate(text, seed=s, seconds=float(length),
                                                          checkpoint=args.checkpoint))
                          for s in fit_seeds]) for length in lengths]  # fmt: skip
        each, lead = np.polyfit(means, lengths, 1)
        cells = " | ".join(f"{m:.1f}" for m in means)
        print(f"| {name} | {cells} | {lead:.2f} + {each:.2f} × count | {COUNT_SECONDS[name]} |")

    print(
        f"\nClips showing exactly the count said, seeds {args.seeds}: with the count's length / with "
        "the action's typical length\n"
    )
    print("| action | " + " | ".join(f"{n}×" for n in counts) + " | all |")
    print("|---" * (len(counts) + 2) + "|")
    for name, says in SAYS.items():
        cells, totals = [], np.zeros(2, dtype=int)
        for n in counts:
            text = says.format(TIMES.get(n, f"{n} times"))
            right = np.zeros(2, dtype=int)
            for k, seconds in enumerate((default_seconds(text), typical_seconds(action_id(name)))):
                for s in seeds:
                    motion = stickgen.generate(text, seed=s, seconds=seconds, checkpoint=args.checkpoint)
                    right[k] += _count(name, motion) == n
            totals += right
            cells.append(f"{right[0]} / {right[1]} ({default_seconds(text):g} s)")
        total = f"{totals[0]} / {totals[1]} of {len(seeds) * len(counts)}"
        print(f"| {name} | " + " | ".join(cells) + f" | {total} |")


if __name__ == "__main__":
    main()
