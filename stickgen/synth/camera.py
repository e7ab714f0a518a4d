"""Camera tracks: static, follow, pan, zoom in, zoom out, always keeping the whole figure in view.

A camera frame is (centre x, centre y, zoom) with zoom 1 showing 3 m of height (DESIGN §2). Nothing
is assumed about the output's aspect ratio beyond it being at least as wide as it is tall, so the
figure is kept inside a square of half-size 1.5 / zoom around the centre, with a margin.
"""

from __future__ import annotations

import numpy as np

CAMERA_MODES = ("static", "follow", "pan", "zoom_in", "zoom_out")
_WEIGHTS = np.array([0.3, 0.35, 0.15, 0.1, 0.1])
MARGIN = 0.85  # the figure fills at most this share of the half-view
MAX_ZOOM = 2.0
MIN_ZOOM = 0.15
WIDE_ZOOM = 0.6  # a 5 m tall view: the widest a static or panning camera may go


def _fit_zoom(joints: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Largest zoom (T,) per frame that keeps every joint of frame t inside the view around centre[t]."""
    half = np.abs(joints - centre[:, None, :]).max(axis=(1, 2)) + 0.25  # + head radius and feet
    return np.clip(MARGIN * 1.5 / half, MIN_ZOOM, MAX_ZOOM)


def _smooth(x: np.ndarray, width: int) -> np.ndarray:
    """Moving average (T, C) with edge padding."""
    if len(x) < 3:
        return x.copy()
    width = max(1, min(width, len(x)) | 1)
    pad = np.pad(x, ((width // 2, width // 2), (0, 0)), mode="edge")
    return np.lib.stride_tricks.sliding_window_view(pad, width, axis=0).mean(axis=-1)


def camera_track(joints: np.ndarray, mode: str, fps: float) -> tuple[np.ndarray, str]:
    """A (T, 3) camera track of `mode` for joints (T, 16, 2), and the mode actually used.

    A static or panning camera that would have to zoom out below `WIDE_ZOOM` to keep a travelling
    figure in view (a tiny figure) becomes a following one.
    """
    track = _track(joints, mode, fps)
    if mode in ("static", "pan") and track[0, 2] < WIDE_ZOOM:
        return _track(joints, "follow", fps), "follow"
    return track, mode


def _track(joints: np.ndarray, mode: str, fps: float) -> np.ndarray:
    lo, hi = joints.min(axis=1), joints.max(axis=1)  # (T, 2)
    centre = 0.5 * (lo + hi)
    t_count = len(joints)
    if mode == "static":
        c = 0.5 * (lo.min(axis=0) + hi.max(axis=0))
        track = np.broadcast_to(c, (t_count, 2)).copy()
    elif mode == "pan":
        s = np.linspace(0.0, 1.0, t_count)[:, None]
        track = centre[0] * (1.0 - s) + centre[-1] * s
    else:  # follow and the zooms follow the figure smoothly
        track = _smooth(centre, int(fps * 0.6))
    zoom = _fit_zoom(joints, track).min() * np.ones(t_count)
    if mode in ("zoom_in", "zoom_out"):
        ramp = np.linspace(0.6, 1.0, t_count) if mode == "zoom_in" else np.linspace(1.0, 0.6, t_count)
        zoom = np.maximum(zoom * ramp, MIN_ZOOM)
    zoom = np.minimum(zoom, _fit_zoom(joints, track))  # never crop the figure
    return np.concatenate([track, zoom[:, None]], axis=1)


def sample_camera_mode(rng: np.random.Generator) -> str:
    return CAMERA_MODES[int(rng.choice(len(CAMERA_MODES), p=_WEIGHTS))]
