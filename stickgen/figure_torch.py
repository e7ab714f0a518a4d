"""Torch twins of the figure functions that training losses and sampling need.

Each function matches its numpy original in `stickgen/figure.py` (tests check them equal) and works on
any leading batch shape, on any device and dtype, with gradients.
"""

from __future__ import annotations

import numpy as np
import torch

from stickgen import figure as fg

_ANKLES = np.array([fg.J["l_ankle"], fg.J["r_ankle"]])
_SEGMENT_JOINTS = fg.SEGMENT_JOINTS.reshape(-1)
# One copy of each constant table per (array, dtype, device): a table copied to a GPU at every call
# would make every training step wait for the GPU to finish the step before.
_TABLES: dict[tuple[int, torch.dtype | None, str], tuple[np.ndarray, torch.Tensor]] = {}


def constant(array: np.ndarray, device: torch.device, dtype: torch.dtype | None = None) -> torch.Tensor:
    """A module-level constant array as a tensor on `device`, copied there once."""
    key = (id(array), dtype, str(device))
    if key not in _TABLES:
        _TABLES[key] = (array, torch.as_tensor(array, dtype=dtype, device=device))
    return _TABLES[key][1]


def _table(array, like: torch.Tensor) -> torch.Tensor:
    return constant(array, like.device, like.dtype)


def joints_to_segments(joints: torch.Tensor) -> torch.Tensor:
    """Joints (..., 16, 2) → segments (..., 48). Twin of `figure.joints_to_segments`."""
    idx = constant(_SEGMENT_JOINTS, joints.device)
    seg = joints.index_select(-2, idx)  # (..., 24, 2)
    return seg.reshape(*joints.shape[:-2], fg.POSE_DIM)


def segments_to_joints(segments: torch.Tensor) -> torch.Tensor:
    """Segments (..., 48) → joints (..., 16, 2), averaging shared endpoints."""
    endpoints = segments.reshape(*segments.shape[:-1], 2 * fg.NUM_SEGMENTS, 2)  # (..., 24, 2)
    return torch.einsum("je,...ec->...jc", _table(fg.ENDPOINT_AVERAGE, segments), endpoints)


def segment_lengths(segments: torch.Tensor) -> torch.Tensor:
    """Length of each of the 12 segments of a 48-dim pose: (..., 48) → (..., 12)."""
    seg = segments.reshape(*segments.shape[:-1], fg.NUM_SEGMENTS, 2, 2)
    return torch.linalg.vector_norm(seg[..., 1, :] - seg[..., 0, :], dim=-1)


def connectivity_gap(segments: torch.Tensor) -> torch.Tensor:
    """Per-endpoint distance to its projected joint: (..., 48) → (..., 24); zero when connected."""
    back = joints_to_segments(segments_to_joints(segments))
    gap = (back - segments).reshape(*segments.shape[:-1], 2 * fg.NUM_SEGMENTS, 2)
    return torch.linalg.vector_norm(gap, dim=-1)


def velocity(position: torch.Tensor, fps: float) -> torch.Tensor:
    """Time derivative of a track (..., T, C): central differences inside, one-sided at the ends.

    Twin of `figure.velocity` (numpy.gradient); zeros when T = 1.
    """
    if position.shape[-2] < 2:
        return torch.zeros_like(position)
    return torch.gradient(position, spacing=1.0 / fps, dim=-2)[0]


def center_of_mass(joints: torch.Tensor) -> torch.Tensor:
    """Centre of mass (..., 2) of joints (..., 16, 2), Winter (2009) weights."""
    return torch.einsum("j,...jc->...c", _table(fg.COM_WEIGHTS, joints), joints)


def foot_contacts(
    joints: torch.Tensor, fps: float, *, height: float = fg.CONTACT_HEIGHT, speed: float = fg.CONTACT_SPEED
) -> torch.Tensor:
    """Bool (..., T, 2): left and right ankle below `height` m and slower than `speed` m/s along x."""
    idx = constant(_ANKLES, joints.device)
    ankles = joints.index_select(-2, idx)  # (..., T, 2, 2)
    vx = velocity(ankles[..., 0], fps)  # (..., T, 2)
    return (ankles[..., 1] < height) & (vx.abs() < speed)


def physics(joints: torch.Tensor, fps: float) -> torch.Tensor:
    """The 6-dim physics vector (..., T, 6) of joints (..., T, 16, 2). Twin of `figure.physics`."""
    vel = velocity(center_of_mass(joints), fps)
    acc = velocity(vel, fps)
    return torch.cat([vel, acc, foot_contacts(joints, fps).to(joints.dtype)], dim=-1)


def features_to_joints(features: torch.Tensor) -> torch.Tensor:
    """Features (..., T, 52) → joints (..., T, 16, 2). Twin of `figure.features_to_joints`."""
    local = segments_to_joints(features[..., : fg.POSE_DIM])
    pelvis = fg.J["pelvis"]
    local = local - local[..., pelvis : pelvis + 1, :]
    return local + features[..., None, fg.POSE_DIM : fg.POSE_DIM + 2]
