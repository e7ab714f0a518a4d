"""The sampler: a few-step ODE solver for flow matching, with classifier-free guidance.

Sampling starts from Gaussian noise at t = 0 and follows the straight-path velocity
`v = (x̂1 − xt) / (1 − t)` to t = 1, where `x̂1` is the model's clean-sample prediction. With guidance
`g`, `x̂1 = x̂1(null) + g · (x̂1(cond) − x̂1(null))`; the conditional and unconditional passes run as
one batch. Guidance acts while t < `guidance_until` (`ranges.GUIDANCE_UNTIL`, 0.625): by then the
motion is settled, and the steps after it take the conditional pass alone. Euler takes one network
evaluation per step (two while guided), Heun two (four). The labels (action logits, physics,
environment) come from one last conditional evaluation on the clean result, so the default of 16
Euler steps (`ranges.DEFAULT_STEPS`), 10 of them guided, costs 27 network evaluations. 16 steps
follow prompts as 20 did and cost a fifth less; leaving the last 4 unguided followed them at least
as well (a little better, within noise) and cost an eighth less, and the last 6 follow them as the
last 4 did for two evaluations fewer (docs/prompt-suite.md).

`plan_actions` is the action head used as a planner: one guided evaluation at pure noise (t = 0),
where the model has seen nothing but the text, gives per-frame action logits; their argmax, cleaned of
flicker (`smooth_timeline`), is a per-frame action timeline for the sampler to follow. It reads
paraphrases the way the network learned them, and orders the parts of a chained prompt in time.

`plan_agreement` is the action head used as a judge: read on a finished clip at t = 1 with no text and
no actions, it recognises the motion alone; the mean log-probability it gives the planned actions says
how clearly a sample does what was planned, so `generate` can draw several candidates and keep the
clearest (`generation.candidates_for`).
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Literal

import numpy as np
import torch

from stickgen.model import FEATURE_DIM, POSE_DIM, ModelOutput, StickFigureTransformer
from stickgen.ranges import DEFAULT_GUIDANCE, DEFAULT_STEPS, GUIDANCE_UNTIL
from stickgen.threads import fitted_threads

Solver = Literal["euler", "heun"]


def _threads(device: torch.device):
    """On the CPU, no more threads than the cores other processes leave free (stickgen/threads.py)."""
    return fitted_threads() if device.type == "cpu" else nullcontext()


def _times(steps: int) -> list[float]:
    return torch.linspace(0.0, 1.0, steps + 1).tolist()


def network_evaluations(
    steps: int, guidance: float, solver: Solver, guidance_until: float = GUIDANCE_UNTIL
) -> int:
    """How many forward passes (per sample) one conditioned `sample` call costs."""
    times = _times(steps)
    # Euler evaluates at the start of each step; Heun also at its end, except at t = 1.
    points = times[:-1] + (times[1:-1] if solver == "heun" else [])
    guided = guidance != 1.0
    return sum(2 if guided and t < guidance_until else 1 for t in points) + 1


@torch.no_grad()
def sample(
    model: StickFigureTransformer,
    *,
    frames: int,
    batch: int = 1,
    text: torch.Tensor | None = None,
    actions: torch.Tensor | None = None,
    camera: torch.Tensor | None = None,
    steps: int = DEFAULT_STEPS,
    guidance: float = DEFAULT_GUIDANCE,
    guidance_until: float = GUIDANCE_UNTIL,
    solver: Solver = "euler",
    generator: torch.Generator | None = None,
    known: torch.Tensor | None = None,
    known_mask: torch.Tensor | None = None,
    noise: torch.Tensor | None = None,
) -> ModelOutput:
    """Draw `batch` clips of `frames` frames; returns the model's heads for the clean result.

    text: (B, text_dim) or None; actions: (B, T) long, −1 = unknown; camera: (B, T, 3) model input.
    The returned `pose`, `position` and `velocity` are the sampled clean features (normalised).
    The noise is drawn on the CPU from `generator`, so a seed gives the same motion on any device;
    `noise` (batch, frames, 52) gives it instead. Guidance acts at the evaluations with t <
    `guidance_until` (1.0: at every step; 0.0: at none, as with `guidance` 1.0).

    Inpainting: known (B, T, 52) normalised features and known_mask (B, T, 52) (or anything that
    broadcasts to it, e.g. (T, 52)), bool or weights in [0, 1], fix part of the motion. At every step
    the entries of weight 1 (True) in the clean prediction are replaced by their known values before
    the update, so they follow the straight path (1 − t) · noise + t · known exactly and end at those
    values; a weight w in (0, 1) pulls an entry that far towards its value, w · known + (1 − w) · x̂1
    (a soft constraint). editing.py uses both (docs/editing.md).
    """
    device = next(model.parameters()).device
    if noise is None:
        noise = torch.randn((batch, frames, FEATURE_DIM), generator=generator)
    elif noise.shape != (batch, frames, FEATURE_DIM):
        raise ValueError(f"noise has shape {tuple(noise.shape)}, not {(batch, frames, FEATURE_DIM)}")
    x = noise.to(device)
    conditions = {"text": text, "actions": actions, "camera": camera}
    guided = guidance != 1.0 and any(v is not None for v in conditions.values())

    def denoise(x: torch.Tensor, t: float) -> torch.Tensor:
        tt = torch.full((x.shape[0],), t, device=device)
        if not guided or t >= guidance_until:
            out = model(x, tt, **conditions)
            return torch.cat([out.pose, out.position, out.velocity], dim=-1)
        both = {k: None if v is None else torch.cat([v, v]) for k, v in conditions.items()}
        drop = torch.cat([torch.zeros(batch, dtype=torch.bool), torch.ones(batch, dtype=torch.bool)]).to(
            device
        )
        out = model(
            torch.cat([x, x]),
            torch.cat([tt, tt]),
            **both,
            drop_text=drop,
            drop_actions=drop,
            drop_camera=drop,
        )
        pred = torch.cat([out.pose, out.position, out.velocity], dim=-1)  # (2B, T, 52)
        cond, uncond = pred[:batch], pred[batch:]
        return uncond + guidance * (cond - uncond)

    if known is not None:
        weight = torch.broadcast_to(known_mask.to(device=device, dtype=x.dtype), x.shape)  # 1 = known
        known = torch.broadcast_to(known.to(device=device, dtype=x.dtype), x.shape)

    def predict(x: torch.Tensor, t: float) -> torch.Tensor:
        x1 = denoise(x, t)
        if known is None:
            return x1
        # inpainting: known entries fixed exactly; a weight in (0, 1) pulls an entry that far to its value
        return torch.where(weight >= 1.0, known, torch.lerp(x1, known, weight))

    times = _times(steps)
    with _threads(device):
        for t0, t1 in zip(times[:-1], times[1:], strict=True):
            x1 = predict(x, t0)
            if t1 >= 1.0:
                x = x1
                break
            v0 = (x1 - x) / (1.0 - t0)
            if solver == "heun":
                x_euler = x + (t1 - t0) * v0
                v1 = (predict(x_euler, t1) - x_euler) / (1.0 - t1)
                x = x + (t1 - t0) * 0.5 * (v0 + v1)
            else:
                x = x + (t1 - t0) * v0
        final = model(x, torch.ones(batch, device=device), **conditions)
    return final._replace(
        pose=x[..., :POSE_DIM], position=x[..., POSE_DIM : POSE_DIM + 2], velocity=x[..., POSE_DIM + 2 :]
    )


@torch.no_grad()
def plan_actions(
    model: StickFigureTransformer,
    *,
    frames: int,
    text: torch.Tensor,
    guidance: float = DEFAULT_GUIDANCE,
    min_seconds: float = 0.6,
    fps: float = 25.0,
    generator: torch.Generator | None = None,
) -> np.ndarray:
    """Per-frame action ids (B, frames) that the model's action head reads from the text alone.

    text: (B, text_dim) sentence embeddings. One evaluation at t = 0 on Gaussian noise (drawn on the
    CPU from `generator`), with and without the text; the logits are guided like the sampler's clean
    predictions (`uncond + guidance · (cond − uncond)`), so the text's own evidence counts more than
    the action prior. Runs shorter than `min_seconds` are merged into a neighbour (`smooth_timeline`).
    """
    device = next(model.parameters()).device
    batch = text.shape[0]
    noise = torch.randn((batch, frames, FEATURE_DIM), generator=generator).to(device)
    drop = torch.cat([torch.zeros(batch, dtype=torch.bool), torch.ones(batch, dtype=torch.bool)]).to(device)
    with _threads(device):
        out = model(
            torch.cat([noise, noise]), torch.zeros(2 * batch, device=device), text=torch.cat([text, text]),
            drop_text=drop,
        )  # fmt: skip
    cond, uncond = out.action_logits[:batch], out.action_logits[batch:]  # (B, T, 60) each
    logits = uncond + guidance * (cond - uncond)
    ids = logits.argmax(dim=-1).cpu().numpy()  # (B, T)
    min_frames = max(1, int(round(min_seconds * fps)))
    return np.stack([smooth_timeline(row, min_frames) for row in ids])


@torch.no_grad()
def plan_agreement(
    model: StickFigureTransformer, features: torch.Tensor, actions: torch.Tensor
) -> torch.Tensor:
    """(B,) how surely the model recognises the planned actions in finished clips.

    features: (B, T, 52) clean normalised features (`ModelOutput.features()` of `sample`); actions:
    (B, T) long, −1 = unknown. The action head reads each clip at t = 1 with the text and the actions
    left out (their nulls), so it judges the motion alone; the score is the mean log-probability of the
    planned action over the frames that have one (0 for a clip with none).
    """
    device = next(model.parameters()).device
    batch = features.shape[0]
    with _threads(device):
        out = model(features.to(device), torch.ones(batch, device=device))
    logp = torch.log_softmax(out.action_logits.float(), dim=-1)  # (B, T, 60)
    actions = actions.to(device)
    known = actions >= 0
    picked = logp.gather(-1, actions.clamp(min=0)[..., None])[..., 0]
    return ((picked * known).sum(dim=1) / known.sum(dim=1).clamp(min=1)).cpu()


def sample_best_of(
    model: StickFigureTransformer,
    count: int,
    *,
    frames: int,
    batch: int = 1,
    text: torch.Tensor | None = None,
    actions: torch.Tensor | None = None,
    judged: torch.Tensor | None = None,
    **options,
) -> ModelOutput:
    """`sample` `count` candidates of each of `batch` clips in one batch and keep, per clip, the one in
    which `plan_agreement` finds the `judged` actions (B, T) (default: `actions`) best.

    Candidate k of clip b is row k·batch + b of the batch: `noise`, if given, holds all count·batch
    rows; text and actions (B, ...) are repeated for each candidate. Ties keep the first candidate.
    Other options go to `sample`.
    """

    def repeat(v: torch.Tensor | None) -> torch.Tensor | None:
        return None if v is None else v.repeat(count, *([1] * (v.dim() - 1)))

    out = sample(
        model, frames=frames, batch=batch * count, text=repeat(text), actions=repeat(actions), **options
    )
    if count == 1:
        return out
    score = plan_agreement(model, out.features(), repeat(actions if judged is None else judged))
    return keep_best(out, score, count)


def keep_best(out: ModelOutput, score: torch.Tensor, count: int) -> ModelOutput:
    """The rows of `out` with the best `score` among each sample's `count` candidates.

    out, score: `count` blocks of B rows each (candidate k of sample b is row k·B + b); returns B rows.
    Ties keep the earliest candidate.
    """
    batch = score.shape[0] // count
    best = score.view(count, batch).argmax(dim=0)
    rows = (best * batch + torch.arange(batch)).to(out.pose.device)
    return ModelOutput(*(head[rows] for head in out))


def smooth_timeline(ids: np.ndarray, min_frames: int) -> np.ndarray:
    """A per-frame label sequence (T,) without runs shorter than `min_frames` (unless it is all one run).

    The shortest run is merged into the longer of its neighbours, repeatedly, so a flicker of a few
    frames inside an action disappears while two actions of a chained prompt keep their order.
    """
    values = [int(v) for v in ids]
    runs: list[list[int]] = []  # [label, length]
    for v in values:
        if runs and runs[-1][0] == v:
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    while len(runs) > 1:
        k = min(range(len(runs)), key=lambda i: runs[i][1])
        if runs[k][1] >= min_frames:
            break
        left = runs[k - 1] if k > 0 else None
        right = runs[k + 1] if k + 1 < len(runs) else None
        into = left if right is None or (left is not None and left[1] >= right[1]) else right
        into[1] += runs[k][1]
        del runs[k]
        merged: list[list[int]] = []  # neighbours with the same label join
        for run in runs:
            if merged and merged[-1][0] == run[0]:
                merged[-1][1] += run[1]
            else:
                merged.append(run)
        runs = merged
    return np.concatenate([np.full(n, v, dtype=np.int64) for v, n in runs])
