"""The camera (DESIGN §2): an automatic camera track for any clip, and world → pixel mapping.

A camera state is `(x, y, zoom)`: the world point (m) at the centre of the view and a zoom where 1
shows a view 3 m tall and 2 shows 1.5 m. The view's width follows the image's aspect ratio.

`auto_camera` is a pure function of the joints and the frame rate, so it doubles as the default
camera label of clips that have none. It keeps the whole figure in view in every frame and moves
without jitter:

- The zoom is one number for the whole clip: the closest view (at most zoom 1) that fits the figure
  in its widest and tallest frame, with the floor in view. A jump therefore zooms out once, for the
  whole clip, instead of pumping in and out.
- The floor sits at a fixed height in the picture (`FLOOR_FRACTION` of the view above its bottom
  edge) while that keeps the figure in view; a figure far above the floor (a climb) is followed
  vertically instead of zooming out without end.
- A clip that fits in one view horizontally gets a still camera. Otherwise the horizontal centre
  follows the figure's bounding box through a Gaussian filter (σ = 0.5 s), so the swing of arms and
  legs does not shake the view; a clip that travels at constant speed is followed exactly, also at
  its ends.
- After smoothing, the centre is clamped so that every joint (plus a margin for the head circle and
  the stroke) lies inside the view: the guarantee that nothing is ever cut off.
"""

from __future__ import annotations

import numpy as np

VIEW_HEIGHT = 3.0  # m: the height of the view at zoom 1
MARGIN = 0.25  # m kept free around the joints: head circle, stroke width, breathing room
FLOOR_FRACTION = 0.14  # the floor's height in the view while it is shown, as a fraction of the view
MAX_FLOOR_VIEW = 8.0  # m: a taller view than this no longer keeps the floor in the picture
SMOOTHING = 0.5  # s: standard deviation of the Gaussian that smooths the camera path


def auto_camera(joints: np.ndarray, fps: float, aspect: float = 1.0) -> np.ndarray:
    """A smooth camera track that keeps the whole figure in view: joints (T, 16, 2) → (T, 3).

    `aspect` is the view's width / height; the default (a square view) is the camera label of a
    clip. A wider view than the one asked for still contains the figure.
    """
    joints = np.asarray(joints, dtype=np.float64)
    lo = joints.min(axis=1) - MARGIN  # (T, 2)
    hi = joints.max(axis=1) + MARGIN  # (T, 2)

    # Height of the view each frame needs: to fit the width, and to fit the figure with the floor
    # at FLOOR_FRACTION (or, far above the floor, the figure alone).
    need_w = (hi[:, 0] - lo[:, 0]) / aspect
    need_floor = np.maximum(hi[:, 1] / (1.0 - FLOOR_FRACTION), -lo[:, 1] / FLOOR_FRACTION)
    floor_shown = need_floor <= MAX_FLOOR_VIEW
    need_h = np.where(floor_shown, need_floor, hi[:, 1] - lo[:, 1])
    view_h = max(VIEW_HEIGHT, float(need_w.max()), float(need_h.max()))
    view_w = view_h * aspect

    target_y = np.where(floor_shown, view_h * (0.5 - FLOOR_FRACTION), 0.5 * (lo[:, 1] + hi[:, 1]))
    target_x = 0.5 * (lo[:, 0] + hi[:, 0])
    # Each frame's feasible centres: the figure's box must lie inside the view.
    x_range = (hi[:, 0] - 0.5 * view_w, lo[:, 0] + 0.5 * view_w)
    y_range = (hi[:, 1] - 0.5 * view_h, lo[:, 1] + 0.5 * view_h)
    if hi[:, 0].max() - lo[:, 0].min() <= view_w:
        x = np.full(len(joints), 0.5 * (hi[:, 0].max() + lo[:, 0].min()))
    else:
        x = _follow(target_x, x_range, SMOOTHING * fps)
    y = _follow(target_y, y_range, SMOOTHING * fps)
    return np.stack([x, y, np.full_like(x, VIEW_HEIGHT / view_h)], axis=1)


def _follow(target: np.ndarray, feasible: tuple[np.ndarray, np.ndarray], sigma: float) -> np.ndarray:
    """Smooth a (T,) target path and keep it inside [low, high] per frame.

    Smoothing then clamping can leave a kink where the clamp acts, so the clamped path is smoothed
    once more with a quarter of the width and clamped again; the final clamp is the guarantee.
    """
    low, high = feasible
    path = np.clip(gaussian_smooth(target, sigma), low, high)
    return np.clip(gaussian_smooth(path, 0.25 * sigma), low, high)


def gaussian_smooth(values: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian filter of a (T,) track with standard deviation `sigma` frames → (T,).

    The ends are padded by point reflection (2·v[0] − v[k]), which extends the track along its
    local slope, so a track that changes at a constant rate passes through unchanged.
    """
    values = np.asarray(values, dtype=np.float64)
    radius = int(np.ceil(3.0 * sigma))
    if sigma <= 0 or radius == 0 or len(values) < 2:
        return values.copy()
    kernel = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    kernel /= kernel.sum()
    # Reflection needs as many frames inside the clip as the padding; repeat the odd reflection
    # for clips shorter than the kernel radius.
    padded = values
    while len(padded) - len(values) < 2 * radius:
        n = min(radius, len(padded) - 1)
        head = 2.0 * padded[0] - padded[n:0:-1]
        tail = 2.0 * padded[-1] - padded[-2 : -n - 2 : -1]
        padded = np.concatenate([head, padded, tail])
    pad = (len(padded) - len(values)) // 2
    smooth = np.convolve(padded, kernel, mode="same")
    return smooth[pad : pad + len(values)]


def pixels_per_metre(camera: np.ndarray, view_height: float) -> np.ndarray:
    """Scale of the view in pixels per metre: camera (..., 3), view height in px → (...)."""
    return view_height * np.asarray(camera)[..., 2] / VIEW_HEIGHT


def world_to_pixels(points: np.ndarray, camera: np.ndarray, view_size: tuple[float, float]) -> np.ndarray:
    """Project world points (..., N, 2) in m through cameras (..., 3) onto a view → pixels (..., N, 2).

    `view_size` is (width, height) in pixels. Pixel (0, 0) is the top-left corner of the view and
    pixel centres sit at half-integers (Pillow's convention), so the camera centre maps to the
    middle of the view: (width / 2, height / 2).
    """
    camera = np.asarray(camera, dtype=np.float64)
    width, height = view_size
    scale = pixels_per_metre(camera, height)[..., None]  # (..., 1)
    px = 0.5 * width + (np.asarray(points)[..., 0] - camera[..., None, 0]) * scale
    py = 0.5 * height - (np.asarray(points)[..., 1] - camera[..., None, 1]) * scale
    return np.stack([px, py], axis=-1)
