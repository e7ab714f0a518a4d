"""How often each plan reads a prompt's actions right, without sampling any motion.

    python benchmarks/planner.py [--prompts FILE] [--checkpoint DIR] [--plans words,model,auto]
    python benchmarks/planner.py --prompts FILE --close 0.01,0.02,0.03   # close calls at those margins

For every prompt of FILE (default: `plan_dev.yaml` beside this file, the development set written apart
from the prompt suite, to choose a reader's settings on; `plan_check.yaml`, a second set written apart
from both and never tuned on, checks that a choice generalises; `prompts.yaml`, the suite, reads the
same way) it makes the action timeline
`stickgen generate` would condition on under each plan (`stickgen.generation.plan_timelines`, 5 s,
seed 0) and compares the order of its actions (runs of frames, each action once) with the prompt's
targets, as `generate` draws them: with the rise to the feet put in where an action that starts
standing follows a posture off the feet (`action_meaning.risen`: kneel, point is drawn kneel, get_up,
point). It prints, per plan, the share of prompts read exactly right, of single-action prompts whose
action is right, and of chained prompts whose actions are right in order, for plain and paraphrased
prompts where the file says which. A plan that gives no timeline counts as wrong.

With --close, it also tells how the meaning reader's close calls (`ActionMeaning.close_calls`) would
mark its readings at each margin given in place of the reader's own (`ActionMeaning.close`): over the
one-part, one-action prompts read by meaning, how many of the misread and of the right ones are marked,
and beside how many misread ones the right action is named.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
import yaml

from stickgen import action_meaning
from stickgen.generation import FPS, load_generator_checkpoint, plan_timelines
from stickgen.labels import ACTIONS
from stickgen.text import TextEncoder

DEV = Path(__file__).with_name("plan_dev.yaml")


def load_prompts(path: str | Path) -> list[tuple[str, tuple[str, ...], str]]:
    """(text, target actions, kind) per entry; kind is "all" where the file does not say."""
    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    out = []
    for entry in doc["prompts"]:
        actions = tuple(entry["actions"])
        unknown = [a for a in actions if a not in ACTIONS]
        if unknown:
            raise SystemExit(f"{path}: unknown actions {unknown} in {entry['text']!r}")
        drawn = tuple(ACTIONS[a] for a in action_meaning.risen([ACTIONS.index(a) for a in actions]))
        out.append((str(entry["text"]), drawn, str(entry.get("kind", "all"))))
    return out


def runs(timeline: np.ndarray) -> tuple[str, ...]:
    """The actions of a per-frame timeline in order, each run once ("walk", "sit_down"); −1 skipped."""
    out: list[str] = []
    for value in timeline:
        if value >= 0 and (not out or out[-1] != ACTIONS[value]):
            out.append(ACTIONS[value])
    return tuple(out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", default=str(DEV), help="a YAML file with prompts: [{text, actions}]")
    parser.add_argument("--checkpoint", default=None, help="model folder (default: the bundled model)")
    parser.add_argument("--plans", default="words,model,auto", help="comma-separated plans to compare")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--show", type=int, default=0, help="print the first N prompts each plan misses")
    parser.add_argument("--close", default=None, help="comma-separated margins to tell close calls at")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    prompts = load_prompts(args.prompts)
    ckpt = load_generator_checkpoint(args.checkpoint)
    encoder = TextEncoder(ckpt.encoder["name"])
    texts = [p[0] for p in prompts]
    embedded = torch.from_numpy(encoder.encode(texts))
    frames = int(round(args.seconds * FPS))
    print(f"{len(prompts)} prompts from {args.prompts}, checkpoint {args.checkpoint or 'bundled'}")
    for plan in args.plans.split(","):
        timelines = plan_timelines(
            ckpt.model, texts, embedded, frames, plan, generator=torch.Generator().manual_seed(0),
            encoder=encoder,
        )  # fmt: skip
        tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        missed = []
        for k, (text, targets, kind) in enumerate(prompts):
            got = () if timelines is None else runs(timelines[k])
            right = got == targets
            shape = "chained" if len(targets) > 1 else "single"
            for key in ("all", kind, shape, f"{kind} {shape}") if kind != "all" else ("all", shape):
                tally[key][0] += right
                tally[key][1] += 1
            if not right:
                missed.append(f"    {text!r}: {' → '.join(targets)}, read {' → '.join(got) or 'nothing'}")
        row = ", ".join(f"{key} {100 * a / n:.1f}% ({a}/{n})" for key, (a, n) in tally.items())
        print(f"{plan:>8}: {row}")
        for line in missed[: args.show]:
            print(line)
    if args.close:
        close_calls(prompts, encoder, [float(m) for m in args.close.split(",")])
    sys.stdout.flush()


def close_calls(prompts, encoder: TextEncoder, margins: Sequence[float]) -> None:
    """Print, per margin, how the reader's close calls mark its readings of the one-part, one-action
    prompts that it reads by meaning."""
    meaning = action_meaning.for_encoder(encoder)
    single = [(text, ACTIONS.index(targets[0])) for text, targets, _ in prompts
              if len(targets) == 1 and len(action_meaning.split_parts(text)) == 1
              and action_meaning.named_in_every_part(text) is None]  # fmt: skip
    read = [(meaning.actions(text) == [target], target, text) for text, target in single]
    right = sum(ok for ok, _, _ in read)
    print(f"close calls over {len(single)} one-part prompts read by meaning ({len(single) - right} misread):")
    for margin in margins:
        marked = [(ok, target, meaning.close_calls(text, margin)) for ok, target, text in read]
        wrong = sum(1 for ok, _, close in marked if close and not ok)
        fine = sum(1 for ok, _, close in marked if close and ok)
        named = sum(1 for ok, target, close in marked if close and not ok and target in close[0][1])
        print(f"  margin {margin:g}: marks {wrong} of {len(read) - right} misread and {fine} of {right} "
              f"right; names the right action beside {named} misread")


if __name__ == "__main__":
    main()
