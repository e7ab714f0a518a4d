"""The training objective: conditional flow matching with clean-sample prediction, plus every head.

A clip's normalised features `x1` (B, T, 52) are mixed with Gaussian noise `x0` at a time t ∈ [0, 1]:
`xt = t·x1 + (1 − t)·x0` (t = 1 is clean). The model predicts the clean features from `xt`; the
sampler turns that prediction into the velocity `(x̂1 − xt) / (1 − t)` of the straight path.

Terms (each logged; weights in `LossWeights`):
- `flow`: mean squared error of the predicted clean features (normalised units).
- `action`: cross-entropy of the per-frame action logits (frames with a known action).
- `physics`: centre-of-mass velocity and acceleration, scaled to order one, mean squared error;
  `contact`: binary cross-entropy of the two foot-contact logits.
- `environment`: cross-entropy of the environment type plus the squared error of its parameters.
- geometric terms on the denormalised prediction, in metres: `bones` (segment lengths equal the clip's
  own), `connect` (shared joints coincide), `velocity` (the vertical velocity channel equals the finite
  difference of the pelvis height), `foot` (no horizontal ankle motion while a foot is in contact).

The horizontal pelvis path is the velocity channel's: generation integrates it (the absolute x position
of a clip that travels 10 m is a poorly scaled signal, and the model predicts it poorly), so the two
terms that involve horizontal motion read it from the velocity, not from the x position channel. Tying
the velocity to the finite difference of the predicted x, as an earlier version did, pulled every
predicted speed towards that channel's near-zero travel: the model trained so walked in place.

Conditions are dropped independently per sample for classifier-free guidance (`DropRates`); a clip
without a description or a camera track always uses that condition's null.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from stickgen import figure as fg
from stickgen import figure_torch as ft
from stickgen.batches import Batch, to_device
from stickgen.ranges import check_fields

FPS = 25.0
PHYSICS_SCALE = (2.0, 2.0, 20.0, 20.0)  # m/s, m/s, m/s², m/s²: centre-of-mass velocity and acceleration
_PHYSICS_SCALE = np.array(PHYSICS_SCALE)
LENGTH_SCALE = 0.1  # m: geometric errors are measured in units of 10 cm
SPEED_SCALE = 1.0  # m/s


@dataclass(frozen=True)
class LossWeights:
    """Weight of each loss term in the total."""

    flow: float = 1.0
    action: float = 0.1
    physics: float = 0.05
    contact: float = 0.1
    environment: float = 0.1
    bones: float = 0.1
    connect: float = 0.1
    velocity: float = 0.05
    foot: float = 0.1

    def __post_init__(self) -> None:
        check_fields(self, low=0.0)


@dataclass(frozen=True)
class DropRates:
    """Probability that each condition is replaced by its null in a training sample."""

    text: float = 0.1
    actions: float = 0.5
    camera: float = 0.5

    def __post_init__(self) -> None:
        check_fields(self, low=0.0, high=1.0)


@dataclass(frozen=True)
class Draws:
    """The random numbers of one training step, drawn for the global batch from a CPU generator (the
    noise on a CUDA device, from a generator seeded by it: see `draw`).

    Drawing them for the global batch and slicing per rank (`select`) makes a DDP step use exactly
    the numbers a single process would, and seeding them by step makes a resumed run exact.
    """

    noise: torch.Tensor  # (B, T, 52) standard normal
    t: torch.Tensor  # (B,) uniform denoising times
    uniforms: torch.Tensor  # (B, 4): condition dropout for text, actions, camera; the text choice

    @classmethod
    def draw(
        cls, batch: int, frames: int, generator: torch.Generator, device: torch.device | str = "cpu"
    ) -> Draws:
        """The draws of a step from the CPU `generator`. For a CUDA `device` the noise is drawn there,
        from a generator seeded by `generator`'s first draw (drawing millions of normals on the CPU
        takes longer than a GPU's whole step); the times and dropout draws stay on the CPU either way.
        """
        if torch.device(device).type != "cuda":
            return cls(
                noise=torch.randn((batch, frames, fg.FEATURE_DIM), generator=generator),
                t=torch.rand(batch, generator=generator),
                uniforms=torch.rand((batch, 4), generator=generator),
            )
        seed = int(torch.randint(0, 2**62, (1,), generator=generator))
        on_device = torch.Generator(device=device).manual_seed(seed)
        return cls(
            noise=torch.randn((batch, frames, fg.FEATURE_DIM), generator=on_device, device=device),
            t=torch.rand(batch, generator=generator),
            uniforms=torch.rand((batch, 4), generator=generator),
        )

    def select(self, rows: slice) -> Draws:
        return Draws(self.noise[rows], self.t[rows], self.uniforms[rows])


def _masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of `values` (B, T, ...) where `mask` (B, T, ...) is True: per clip first, then over clips.

    Every term is a mean over clips of per-clip means, so the loss of a batch is the average of the
    losses of any equal-sized parts of it: a DDP step equals the single-process step.
    """
    mask = mask.to(values.dtype)
    while mask.dim() < values.dim():
        mask = mask.unsqueeze(-1)
    per_frame = values * mask
    dims = tuple(range(1, values.dim()))
    count = mask.expand_as(values).sum(dim=dims).clamp(min=1.0)
    return (per_frame.sum(dim=dims) / count).mean()


def flow_matching_losses(
    model: torch.nn.Module,
    batch: Batch,
    *,
    mean: torch.Tensor,
    std: torch.Tensor,
    weights: LossWeights,
    drop: DropRates,
    draws: Draws,
    train: bool = True,
) -> dict[str, torch.Tensor]:
    """All loss terms and their weighted `total` for one batch.

    mean, std: (52,) feature statistics the batch was normalised with. draws: the noise, times and
    dropout draws for this batch (see `Draws`). With `train=False` no condition is dropped.
    """
    x1 = batch.features  # (B, T, 52)
    B, T, _ = x1.shape
    device = x1.device
    mask = batch.mask
    noise, t, uniforms = (to_device(v, device) for v in (draws.noise[:, :T], draws.t, draws.uniforms))
    xt = t[:, None, None] * x1 + (1.0 - t[:, None, None]) * noise
    xt = torch.where(mask[:, :, None], xt, 0.0)
    rates = drop if train else DropRates(text=0.0, actions=0.0, camera=0.0)
    out = model(
        xt,
        t,
        mask=mask,
        text=batch.text,
        actions=batch.actions,
        camera=batch.camera,
        drop_text=(uniforms[:, 0] < rates.text) | ~batch.has_text,
        drop_actions=uniforms[:, 1] < rates.actions,
        drop_camera=(uniforms[:, 2] < rates.camera) | ~batch.has_camera,
    )
    pred = torch.cat([out.pose, out.position, out.velocity], dim=-1)  # (B, T, 52)
    terms: dict[str, torch.Tensor] = {"flow": _masked_mean((pred - x1) ** 2, mask)}

    known = mask & (batch.actions >= 0)
    action_ce = F.cross_entropy(
        out.action_logits.transpose(1, 2), batch.actions.clamp(min=0), reduction="none"
    )
    terms["action"] = _masked_mean(action_ce, known)

    scale = ft.constant(_PHYSICS_SCALE, device, x1.dtype)
    terms["physics"] = _masked_mean((out.physics[..., :4] - batch.physics[..., :4] / scale) ** 2, mask)
    contact_bce = F.binary_cross_entropy_with_logits(
        out.physics[..., 4:], batch.physics[..., 4:], reduction="none"
    )
    terms["contact"] = _masked_mean(contact_bce, mask)

    env_type = batch.environment[:, :8].argmax(dim=-1)
    terms["environment"] = F.cross_entropy(out.environment[:, :8], env_type) + F.mse_loss(
        out.environment[:, 8:13], batch.environment[:, 8:13]
    )

    feats = pred * std + mean  # (B, T, 52) in metres and m/s
    pose = feats[..., : fg.POSE_DIM]
    lengths = ft.segment_lengths(pose)  # (B, T, 12)
    terms["bones"] = _masked_mean(((lengths - batch.bones[:, None, :]) / LENGTH_SCALE) ** 2, mask)
    terms["connect"] = _masked_mean((ft.connectivity_gap(pose) / LENGTH_SCALE) ** 2, mask)

    # Consistency over pairs of consecutive real frames: forward differences avoid the padding.
    pair = mask[:, 1:] & mask[:, :-1]  # (B, T-1)
    height = feats[..., fg.POSE_DIM + 1]
    vel = feats[..., fg.POSE_DIM + 2 :]
    mid_vel = 0.5 * (vel[:, 1:] + vel[:, :-1])  # (B, T-1, 2): the trapezoid step of the integrated path
    rise = (height[:, 1:] - height[:, :-1]) * FPS
    terms["velocity"] = _masked_mean(((rise - mid_vel[..., 1]) / SPEED_SCALE) ** 2, pair)

    # A planted ankle's horizontal speed: the pelvis's (integrated velocity) plus the ankle's own
    # motion relative to the pelvis (the pose).
    relative = ft.segments_to_joints(pose)  # (B, T, 16, 2)
    relative = relative - relative[..., fg.J["pelvis"] : fg.J["pelvis"] + 1, :]
    ankles_x = relative[..., [fg.J["l_ankle"], fg.J["r_ankle"]], 0]  # (B, T, 2), pelvis-relative
    ankle_speed = (ankles_x[:, 1:] - ankles_x[:, :-1]) * FPS + mid_vel[..., :1]  # (B, T-1, 2)
    contact = batch.physics[..., 4:] > 0.5  # (B, T, 2)
    planted = contact[:, 1:] & contact[:, :-1] & pair[..., None]  # (B, T-1, 2)
    terms["foot"] = _masked_mean((ankle_speed / SPEED_SCALE) ** 2, planted)

    terms["total"] = sum(getattr(weights, name) * value for name, value in terms.items())
    return terms
