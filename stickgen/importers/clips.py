"""One source clip in 3D → stored dataset clips: the steps every importer shares (geometry.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stickgen.action_words import actions_from_texts
from stickgen.clip_ops import CANONICAL_FPS
from stickgen.errors import StickgenError
from stickgen.figure import NUM_JOINTS
from stickgen.importers.geometry import (
    choose_view,
    fix_handedness,
    project,
    resample_points,
    window_bounds,
)
from stickgen.motion import Motion
from stickgen.ranges import check_range
from stickgen.render.camera import auto_camera


class Skip(StickgenError):
    """A source file or clip that cannot be imported; its one sentence goes into the import report."""


@dataclass
class RawClip:
    """A clip as an importer reads it, before projection.

    points: (T, 16, 3) our joints in metres, right-handed, y up. toes: optional (T, 2, 3), left and
    right. texts: descriptions of all its frames. group: the source clip it comes from (clips of one
    group share a split). split: the source's split ("train", "val", "test") or None. axis: for a
    clip that is already a 2D figure in the plane of a known horizontal axis and y (a BVH written by
    stickgen), that axis; the clip is then projected onto it as it is, without a handedness check or
    a choice of view.
    """

    points: np.ndarray
    fps: float
    texts: list[str]
    group: str
    split: str | None = None
    toes: np.ndarray | None = None
    source: dict[str, Any] = field(default_factory=dict)
    axis: np.ndarray | None = None


@dataclass(frozen=True)
class ClipOptions:
    """How raw clips become stored clips."""

    view: str = "auto"
    min_seconds: float = 1.0
    max_seconds: float = 10.0

    def __post_init__(self) -> None:
        check_range("--min-seconds", self.min_seconds, 1 / CANONICAL_FPS, self.max_seconds)


def motions_from_raw(raw: RawClip, options: ClipOptions) -> tuple[list[Motion], dict[str, Any]]:
    """The stored clips of one raw clip and notes for the import report; `Skip` when it has none."""
    points = np.asarray(raw.points, dtype=np.float64)
    if points.ndim != 3 or points.shape[1:] != (NUM_JOINTS, 3) or len(points) == 0:
        raise Skip(f"has no frames of the 16 joints (shape {tuple(points.shape)})")
    if not np.isfinite(points).all():
        raise Skip("has NaN or infinite joint positions")
    texts = [t.strip() for t in raw.texts if t and t.strip()]
    if not texts:
        raise Skip("has no description (give a sidecar .txt or --text)")
    if not (math.isfinite(raw.fps) and raw.fps > 0):
        raise Skip(f"has an invalid frame rate ({raw.fps})")
    points = resample_points(points, raw.fps)
    toes = None if raw.toes is None else resample_points(np.asarray(raw.toes, dtype=np.float64), raw.fps)
    min_frames = max(1, math.ceil(options.min_seconds * CANONICAL_FPS - 1e-9))
    if len(points) < min_frames:
        raise Skip(f"is {len(points) / CANONICAL_FPS:.2f} s long, shorter than {options.min_seconds:g} s")
    mirrored = False
    if raw.axis is None:
        points, mirrored = fix_handedness(points, toes)
    actions = actions_from_texts(texts, len(points))
    max_frames = max(1, int(round(options.max_seconds * CANONICAL_FPS)))
    motions, views = [], []
    for a, b in window_bounds(len(points), max_frames):
        if raw.axis is None:
            axis, view = choose_view(points[a:b], options.view)
        else:
            axis, view = np.asarray(raw.axis, dtype=np.float64), "as written"
        joints = project(points[a:b], axis)
        source = {
            **raw.source,
            "group": raw.group,
            "frames": [a, b],
            "view": view,
            "mirrored": mirrored,
        }
        if raw.split:
            source["split"] = raw.split
        motions.append(
            Motion(
                joints,
                fps=CANONICAL_FPS,
                texts=texts,
                actions=actions[a:b],
                camera=auto_camera(joints, CANONICAL_FPS),
                source=source,
            )
        )
        views.append(view)
    notes = {"views": views, "mirrored": mirrored, "labelled": bool((actions >= 0).any())}
    return motions, notes
