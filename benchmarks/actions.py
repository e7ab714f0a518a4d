"""Which actions the model draws from their descriptions, action by action, on a dataset's val split.

    python benchmarks/actions.py [--checkpoint DIR] [--data data/synth] [--per-action 24]
                                 [--plans none,auto] [--weights FILE]

For every action it takes up to N clips of the val split in which that action fills at least 80 % of
the frames, gives each one of its own descriptions (as the evaluation does: the dataset's grammar,
not the prompt suite), generates a clip of the same length from the description under each plan
(`none`: the text alone; `auto`: with the action timeline `stickgen generate` adds) and asks the
bundled evaluator's action classifier what the real and the generated clips show. It prints the
share recognised per action, worst first, and overall.

`--weights FILE` writes YAML `action_weights` for a training config (`stickgen.trainer.TrainConfig`)
from the first plan's shares, each taken relative to the real clips' (the classifier misses some real
dances and idles too): 1 + 2 × (1 − min(1, generated / real)) per action, so an action the text alone
never brings out is drawn three times as often and one it brings out as often as in real motion once.
The val split, not the suite, decides them.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
import yaml

from stickgen.checkpoint import load_checkpoint
from stickgen.clip_ops import CANONICAL_FPS
from stickgen.errors import StickgenError
from stickgen.evaluate import BUNDLED_EVALUATOR, generate_like
from stickgen.evaluator import load_evaluator, load_split, majority_action
from stickgen.files import bundled_asset
from stickgen.generation import PLANS, default_checkpoint, generate_motions
from stickgen.labels import ACTIONS

SHARE = 0.8  # the least share of a clip's frames its action must fill


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=None, help="model folder (default: the bundled model)")
    parser.add_argument("--data", default="data/synth", help="a dataset folder with a val split")
    parser.add_argument("--per-action", type=int, default=24, help="val clips per action, at most")
    parser.add_argument("--plans", default="none,auto", help="comma-separated plans: " + ", ".join(PLANS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weights", default=None, help="write action_weights YAML here")
    args = parser.parse_args()
    plans = [p.strip() for p in args.plans.split(",") if p.strip()]
    unknown = [p for p in plans if p not in PLANS]
    if unknown or not plans:
        raise SystemExit(f"Unknown plans {unknown}; use some of {', '.join(PLANS)}.")

    try:
        model = load_checkpoint(args.checkpoint or default_checkpoint())
        val = load_split(args.data, "val")
    except StickgenError as error:
        raise SystemExit(str(error)) from None
    mean, std = model.norm_mean.cpu().numpy(), model.norm_std.cpu().numpy()
    scorer = load_evaluator(bundled_asset(BUNDLED_EVALUATOR, "evaluator.safetensors"))
    chosen: dict[int, list] = {}
    for motion in val:
        action = majority_action(motion.actions)
        if action < 0 or not motion.texts or np.mean(motion.actions == action) < SHARE:
            continue
        if len(chosen.setdefault(action, [])) < args.per_action:
            chosen[action].append(motion)
    actions = sorted(chosen)
    clips = [m for a in actions for m in chosen[a]]
    labels = np.array([a for a in actions for _ in chosen[a]])
    rng = np.random.default_rng(args.seed)
    captions = [m.texts[int(rng.integers(len(m.texts)))] for m in clips]
    frames = [m.num_frames for m in clips]
    print(f"{len(clips)} val clips of {len(chosen)} actions from {args.data}, "
          f"checkpoint {args.checkpoint or 'bundled'}")  # fmt: skip

    recognised = {"real": scorer.encode_motions(clips)[1] == labels}
    for plan in plans:

        def generate(prompts: list[str], n: int, seed: int, plan: str = plan) -> list:
            return generate_motions(
                model.model, prompts, encoder=model.encoder["name"], mean=mean, std=std, seed=seed,
                seconds=n / CANONICAL_FPS, plan=plan,
            )  # fmt: skip

        began = time.perf_counter()
        with torch.inference_mode():
            motions, _ = generate_like(generate, captions, frames, args.seed, 32)
        recognised[plan] = scorer.encode_motions(motions)[1] == labels
        print(f"plan {plan}: {time.perf_counter() - began:.0f} s")

    shares = {key: {a: float(hits[labels == a].mean()) for a in actions} for key, hits in recognised.items()}
    columns = ["real", *plans]
    print("\n| action | clips | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for a in sorted(actions, key=lambda a: (shares[plans[0]][a], ACTIONS[a])):
        cells = " | ".join(f"{shares[c][a]:.2f}" for c in columns)
        print(f"| {ACTIONS[a]} | {int(np.sum(labels == a))} | {cells} |")
    cells = " | ".join(f"{recognised[c].mean():.3f}" for c in columns)
    print(f"| all | {len(clips)} | {cells} |")

    if args.weights:
        weights = {}
        for a in actions:
            relative = min(1.0, shares[plans[0]][a] / max(shares["real"][a], 1e-9))
            weights[ACTIONS[a]] = round(1.0 + 2.0 * (1.0 - relative), 2)
        Path(args.weights).write_text(yaml.safe_dump({"action_weights": weights}, sort_keys=False))
        print(f"wrote {args.weights}")


if __name__ == "__main__":
    main()
