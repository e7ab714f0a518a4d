"""Which actions the model draws from their descriptions, action by action, on a dataset's val split.

    python benchmarks/actions.py [--checkpoint DIR] [--data data/synth] [--per-action 24]
                                 [--plans none,auto] [--checks] [--weights FILE]

For every action it takes up to N clips of the val split in which that action fills at least 80 % of
the frames, gives each one of its own descriptions (as the evaluation does: the dataset's grammar,
not the prompt suite), generates a clip of the same length from the description under each plan
(`none`: the text alone; `auto`: with the action timeline `stickgen generate` adds) and asks the
bundled evaluator's action classifier what the real and the generated clips show. It prints the
share recognised per action, worst first, and overall.

`--checks` also asks each clip, real and generated, for its action's physical check where the prompt
suite checks that action with detectors alone (`prompts.yaml`'s first single-action prompt on earth:
`turns_head` for look_around, `travels` and `airborne` for a run, ...; 33 of the 60 actions). The
classifier recognises a look-around by the whole figure; the check asks whether the head turns.

`--weights FILE` writes YAML `action_weights` for a training config (`stickgen.trainer.TrainConfig`)
from the first plan's shares, each taken relative to the real clips' (the classifier misses some real
dances and idles too): 1 + 2 × (1 − min(1, generated / real)) per action, so an action the text alone
never brings out is drawn three times as often and one it brings out as often as in real motion once.
With `--checks`, an action's share is the lower of the two relative shares, the classifier's and the
check's. The val split decides them: the suite lends its checks, never its prompts' texts or results.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
import yaml
from prompts import check_motion, load_suite  # benchmarks/prompts.py: the suite's checks

from stickgen.checkpoint import load_checkpoint
from stickgen.clip_ops import CANONICAL_FPS
from stickgen.errors import StickgenError
from stickgen.evaluate import BUNDLED_EVALUATOR, generate_like
from stickgen.evaluator import load_evaluator, load_split, majority_action
from stickgen.files import bundled_asset
from stickgen.generation import PLANS, default_checkpoint, generate_motions
from stickgen.labels import ACTIONS

SHARE = 0.8  # the least share of a clip's frames its action must fill


def physical_checks() -> dict[int, tuple]:
    """The prompt suite's check of each action it checks with detectors alone, by action id: the check
    of its first single-action prompt on earth (`prompts.load_suite`)."""
    checks = {}
    for prompt in load_suite():
        action = ACTIONS.index(prompt.actions[0])
        if len(prompt.actions) == 1 and prompt.environment == "earth" and action not in checks:
            checks[action] = tuple(prompt.check)
    return {a: check for a, check in checks.items() if all(item.detector for item in check)}


def relative_shares(columns: dict[str, dict[int, float]], plan: str) -> dict[int, float]:
    """Per action: the plan's share over the real clips' share (at most 1), the lower of the
    classifier's and, where the action has one, the physical check's."""
    out = {}
    for a, share in columns[plan].items():
        ratios = [min(1.0, share / max(columns["real"][a], 1e-9))]
        if a in columns.get(f"{plan} check", {}):
            ratios.append(min(1.0, columns[f"{plan} check"][a] / max(columns["real check"][a], 1e-9)))
        out[a] = min(ratios)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=None, help="model folder (default: the bundled model)")
    parser.add_argument("--data", default="data/synth", help="a dataset folder with a val split")
    parser.add_argument("--per-action", type=int, default=24, help="val clips per action, at most")
    parser.add_argument("--plans", default="none,auto", help="comma-separated plans: " + ", ".join(PLANS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--checks", action="store_true", help="also ask each action's physical check")
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

    checks = physical_checks() if args.checks else {}

    def checked(motions: list) -> np.ndarray:
        """Per clip: whether it passes its action's physical check (False where the action has none)."""
        pairs = zip(motions, labels, strict=True)
        return np.array([a in checks and all(check_motion(m, checks[a])) for m, a in pairs])

    recognised = {"real": scorer.encode_motions(clips)[1] == labels}
    if checks:
        recognised["real check"] = checked(clips)
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
        if checks:
            recognised[f"{plan} check"] = checked(motions)
        print(f"plan {plan}: {time.perf_counter() - began:.0f} s")

    shares = {
        key: {a: float(hits[labels == a].mean()) for a in actions if "check" not in key or a in checks}
        for key, hits in recognised.items()
    }
    columns = ["real", *plans] + (["real check", *(f"{p} check" for p in plans)] if checks else [])
    print("\n| action | clips | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    relative = relative_shares(shares, plans[0])
    for a in sorted(actions, key=lambda a: (relative[a], ACTIONS[a])):
        cells = " | ".join(f"{shares[c][a]:.2f}" if a in shares[c] else "—" for c in columns)
        print(f"| {ACTIONS[a]} | {int(np.sum(labels == a))} | {cells} |")
    checked_clips = np.isin(labels, list(checks))
    cells = " | ".join(
        f"{recognised[c][checked_clips if 'check' in c else slice(None)].mean():.3f}" for c in columns
    )
    print(f"| all | {len(clips)} | {cells} |")
    if checks:
        print(f"(checks: the {int(checked_clips.sum())} clips of the {len(checks)} actions with one)")

    if args.weights:
        weights = {ACTIONS[a]: round(1.0 + 2.0 * (1.0 - relative[a]), 2) for a in actions}
        Path(args.weights).write_text(yaml.safe_dump({"action_weights": weights}, sort_keys=False))
        print(f"wrote {args.weights}")


if __name__ == "__main__":
    main()
