"""Foot skating and floating of generated motion before and after the clean-up (`stickgen.postprocess`).

    python benchmarks/cleanup.py --data DATASET [--checkpoint DIR] [--clips 64] [--plan words]

Generates one clip per validation caption of DATASET (its first description, at the clip's own length,
seed = its index) as `stickgen generate` does, and prints foot skating ratio, floating (cm) and
penetration (cm) of the real clips, of the model's raw output and of the cleaned output. The clean-up
pins feet below the same 5 cm at which the skating metric counts a moving foot, so the raw row is the
one that measures the model. The validation split is used, never the test split or the prompt suite.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from stickgen import figure as fg
from stickgen import metrics as mt
from stickgen.evaluator import load_split
from stickgen.generation import FPS, horizontal_from_velocity, load_generator_checkpoint, plan_timelines
from stickgen.postprocess import clean_up
from stickgen.sampling import sample
from stickgen.text import TextEncoder


def row(name: str, clips: list[np.ndarray]) -> str:
    skating = np.mean([mt.foot_skating_ratio(j, FPS) for j in clips])
    floating = np.nanmean([mt.floating(j) for j in clips]) * 100
    penetration = np.mean([mt.penetration(j) for j in clips]) * 100
    return f"| {name} | {skating:.4f} | {floating:.2f} | {penetration:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="a dataset folder (its val split is used)")
    parser.add_argument("--checkpoint", default=None, help="a checkpoint folder (default: the bundled model)")
    parser.add_argument("--clips", type=int, default=64)
    parser.add_argument("--plan", default="auto", help="none, words, model or auto (default: generate's)")
    args = parser.parse_args()
    ckpt = load_generator_checkpoint(args.checkpoint, "cpu")
    mean, std = ckpt.norm_mean.numpy(), ckpt.norm_std.numpy()
    encoder = TextEncoder(ckpt.encoder["name"])
    real = load_split(args.data, "val")[: args.clips]
    raw, cleaned = [], []
    for i, clip in enumerate(real):
        text = torch.from_numpy(encoder.encode([clip.texts[0]]))
        generator = torch.Generator().manual_seed(i)
        timeline = plan_timelines(ckpt.model, clip.texts[:1], text, clip.num_frames, args.plan,
                                  generator=generator, encoder=encoder)  # fmt: skip
        actions = None if timeline is None else torch.as_tensor(timeline)
        out = sample(ckpt.model, frames=clip.num_frames, text=text, actions=actions, generator=generator)
        x = torch.cat([out.pose, out.position, out.velocity], dim=-1).float().numpy()
        joints = fg.features_to_joints(horizontal_from_velocity(x * std + mean)[0])
        contacts = torch.sigmoid(out.physics[0, :, 4:]).float().numpy() > 0.5
        raw.append(joints)
        cleaned.append(clean_up(joints, contacts))
    print(f"{len(real)} validation captions, plan {args.plan}, checkpoint {args.checkpoint or 'bundled'}\n")
    print("| motion | foot skating ratio | floating (cm) | penetration (cm) |\n|---|---|---|---|")
    print(row("real", [m.joints for m in real]))
    print(row("generated, raw", raw))
    print(row("generated, cleaned", cleaned))


if __name__ == "__main__":
    main()
