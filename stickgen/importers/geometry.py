"""From a 3D skeleton to the stored 2D figure: up axis, handedness, view, floor, frame rate, windows.

Every importer turns its source into `(T, 16, 3)` points of the 16 joints in metres, in a
right-handed frame with y up (`to_y_up` handles z-up sources). From there the steps are shared:

1. **Frame rate**: resampled to 25 fps by linear interpolation (`resample_points`).
2. **Handedness**: the body's own forward direction, left hip → right hip crossed with up, is checked
   against where its toes point (or, without toes, where its knees bend). Where they disagree the
   source's left and right are swapped or its frame is mirrored, and the clip is mirrored so the
   figure's left limbs are its left (`fix_handedness`).
3. **View** (`choose_view`, `--view auto|side|front`): the clip is seen along a horizontal direction,
   so the screen's x axis is a horizontal unit vector `e` and its y axis is up.
   - `auto`: if the pelvis travels at least 0.5 m (start to end, or along the main axis of its
     path), the side view of that travel: `e` is the travel direction, so the figure moves towards
     +x. Otherwise the plane in which the limbs (elbows, wrists, knees, ankles, relative to the
     pelvis) move most: `e` is the main axis of their horizontal motion. Seen this way a wave faces
     the viewer and a kick is seen from the side. A figure that hardly moves (under 2 cm) is seen
     from the front.
   - `side`: `e` is the travel direction, or the body's forward direction for a clip in place.
   - `front`: the figure faces the viewer, its left limbs on the +x side (as the synthesizer draws
     front views).
   A main axis has no sign; it is chosen so the figure faces +x when `e` is closer to its forward
   direction, and faces the viewer otherwise.
4. **Floor**: y = 0 at the lowest ankle over the clip (the ankles are the figure's feet).
5. **Position**: the pelvis starts at x = 0. Lengths stay in metres and are never rescaled, and bones
   keep their projected lengths (a bone pointing at the viewer looks short), DESIGN §7.
"""

from __future__ import annotations

import math

import numpy as np

from stickgen.clip_ops import CANONICAL_FPS, interpolate_frames
from stickgen.errors import StickgenError
from stickgen.figure import J

VIEWS = ("auto", "side", "front")
UP_AXES = ("y", "z", "-y", "-z", "x", "-x")
TRAVEL_MIN = 0.5  # m: a pelvis that moves this far is travelling, and is seen from the side
STILL_MAX = 0.02  # m: limbs moving less than this (standard deviation) leave the plane undecided
CHEST_FRACTION = 0.6  # the chest sits this far along the spine from the pelvis to the neck
_LIMBS = [
    J[n] for n in ("l_elbow", "l_wrist", "r_elbow", "r_wrist", "l_knee", "l_ankle", "r_knee", "r_ankle")
]
_UP = np.array([0.0, 1.0, 0.0])


def check_options(up: str, scale: float | None, fps: float | None) -> None:
    """One sentence for an unknown up axis or a scale or frame rate that is not a positive number."""
    if up not in UP_AXES:
        raise StickgenError(f"Unknown up axis {up!r}; choose one of: {', '.join(UP_AXES)}.")
    if scale is not None and not (math.isfinite(scale) and scale > 0):
        raise StickgenError(f"The scale must be a positive number of metres per unit; got {scale}.")
    if fps is not None and not (math.isfinite(fps) and fps > 0):
        raise StickgenError(f"The frame rate must be a positive number; got {fps}.")


def to_y_up(points: np.ndarray, up: str) -> np.ndarray:
    """Points (..., 3) with `up` ("y", "z", "-z", ...) turned to +y by a proper rotation."""
    if up not in UP_AXES:
        raise StickgenError(f"Unknown up axis {up!r}; choose one of: {', '.join(UP_AXES)}.")
    x, y, z = points[..., 0], points[..., 1], points[..., 2]
    turned = {
        "y": (x, y, z),
        "-y": (x, -y, -z),
        "z": (x, z, -y),
        "-z": (x, -z, y),
        "x": (-y, x, z),
        "-x": (y, -x, z),
    }[up]
    return np.stack(turned, axis=-1)


def resample_points(points: np.ndarray, fps: float, new_fps: float = CANONICAL_FPS) -> np.ndarray:
    """(T, ...) frames at `fps` resampled linearly to `new_fps`, keeping the clip's span."""
    if not (math.isfinite(fps) and fps > 0):
        raise StickgenError(f"The frame rate must be a positive number; got {fps}.")
    t = len(points)
    if fps == new_fps or t == 0:
        return np.array(points, dtype=np.float64)
    old_t = np.arange(t) / fps
    new_t = np.arange(int(np.floor(old_t[-1] * new_fps + 1e-9)) + 1) / new_fps
    flat = np.asarray(points, dtype=np.float64).reshape(t, -1)
    return interpolate_frames(old_t, flat, new_t).reshape(-1, *np.shape(points)[1:])


def point_on_chain(chain: np.ndarray, fraction: float) -> np.ndarray:
    """The point `fraction` of the way along a polyline, by arc length: chain (T, K, 3) → (T, 3)."""
    steps = np.linalg.norm(np.diff(chain, axis=1), axis=-1)  # (T, K−1)
    total = steps.sum(axis=1, keepdims=True)
    cum = np.concatenate([np.zeros_like(total), np.cumsum(steps, axis=1)], axis=1)  # (T, K)
    target = fraction * total  # (T, 1)
    k = np.clip((cum[:, 1:] < target).sum(axis=1), 0, chain.shape[1] - 2)  # segment index per frame
    rows = np.arange(len(chain))
    seg = np.maximum(steps[rows, k], 1e-12)
    w = np.clip((target[:, 0] - cum[rows, k]) / seg, 0.0, 1.0)[:, None]
    return chain[rows, k] * (1.0 - w) + chain[rows, k + 1] * w


def _horizontal(v: np.ndarray) -> np.ndarray:
    out = np.array(v, dtype=np.float64)
    out[..., 1] = 0.0
    return out


def _unit(v: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-9 else fallback


def forward_direction(points: np.ndarray) -> np.ndarray:
    """The body's mean horizontal forward direction (3,): (left − right of hips and shoulders) × up."""
    left = (points[:, J["l_hip"]] - points[:, J["r_hip"]]) + (
        points[:, J["l_shoulder"]] - points[:, J["r_shoulder"]]
    )
    return _unit(_horizontal(np.cross(left, _UP)).mean(axis=0), np.array([1.0, 0.0, 0.0]))


def upright_frames(points: np.ndarray) -> np.ndarray:
    """Boolean (T,): frames whose neck is well above the pelvis (the body's facing is meaningful)."""
    spine = points[:, J["neck"]] - points[:, J["pelvis"]]
    length = np.linalg.norm(spine, axis=-1)
    return spine[:, 1] > 0.7 * np.maximum(length, 1e-9)


def fix_handedness(points: np.ndarray, toes: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """Mirror a clip whose left and right disagree with the way its feet point; → (points, mirrored).

    toes: optional (T, 2, 3) left and right toe positions. Without them the knees decide: they bend
    forward. Only upright frames count; a clip with none, or without a clear answer, is kept.
    """
    up = upright_frames(points)
    if not up.any():
        return points, False
    p = points[up]
    left = (p[:, J["l_hip"]] - p[:, J["r_hip"]]) + (p[:, J["l_shoulder"]] - p[:, J["r_shoulder"]])
    forward = _horizontal(np.cross(left, _UP))
    forward /= np.maximum(np.linalg.norm(forward, axis=-1, keepdims=True), 1e-9)
    if toes is not None:
        ankles = p[:, [J["l_ankle"], J["r_ankle"]]]
        foot = _horizontal(toes[up] - ankles)  # (T', 2, 3)
        lead = np.einsum("tsc,tc->ts", foot, forward).mean()
        scale = np.linalg.norm(foot, axis=-1).mean()
        decided = scale > 1e-3 and abs(lead) > 0.3 * scale
    else:
        leads = []
        for side in ("l_", "r_"):
            hip, knee, ankle = (p[:, J[side + n]] for n in ("hip", "knee", "ankle"))
            leads.append(np.einsum("tc,tc->t", _horizontal(knee - 0.5 * (hip + ankle)), forward))
        lead = float(np.mean(leads))
        decided = abs(lead) > 0.01
    if decided and lead < 0:
        mirrored = np.array(points, dtype=np.float64)
        mirrored[..., 0] *= -1.0
        return mirrored, True
    return points, False


def choose_view(points: np.ndarray, view: str = "auto") -> tuple[np.ndarray, str]:
    """The screen's x axis (a horizontal unit vector (3,)) and the view's name ("side" or "front")."""
    if view not in VIEWS:
        raise StickgenError(f"Unknown view {view!r}; choose one of: {', '.join(VIEWS)}.")
    forward = forward_direction(points)
    facing_viewer = np.cross(_UP, forward)  # e with e × up = forward: the figure faces the viewer
    travel = _travel_direction(points)
    if view == "front":
        return facing_viewer, "front"
    if view == "side" or travel is not None:
        return (travel if travel is not None else forward), "side"
    limbs = _horizontal(points[:, _LIMBS] - points[:, [J["pelvis"]]])  # (T, 8, 3)
    limbs = (limbs - limbs.mean(axis=0)).reshape(-1, 3)[:, [0, 2]]
    cov = limbs.T @ limbs / max(len(limbs), 1)
    values, vectors = np.linalg.eigh(cov)
    if math.sqrt(max(values[-1], 0.0)) < STILL_MAX:
        return facing_viewer, "front"
    e = np.array([vectors[0, -1], 0.0, vectors[1, -1]])
    if abs(e @ forward) > abs(np.cross(e, _UP) @ forward):
        return (e if e @ forward > 0 else -e), "side"
    return (e if np.cross(e, _UP) @ forward > 0 else -e), "front"


def _travel_direction(points: np.ndarray) -> np.ndarray | None:
    """The pelvis's horizontal travel direction (3,), or None when it travels under TRAVEL_MIN."""
    path = _horizontal(points[:, J["pelvis"]])
    net = path[-1] - path[0]
    if np.linalg.norm(net) >= TRAVEL_MIN:
        return net / np.linalg.norm(net)
    centred = (path - path.mean(axis=0))[:, [0, 2]]
    values, vectors = np.linalg.eigh(centred.T @ centred)
    axis = np.array([vectors[0, -1], 0.0, vectors[1, -1]])
    extent = np.ptp(path @ axis)
    if extent < TRAVEL_MIN:
        return None
    # Point it the way the first half of the path goes.
    half = path[len(path) // 2] - path[0]
    return axis if half @ axis >= 0 else -axis


def project(points: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """(T, 16, 3) → (T, 16, 2): x along the horizontal `axis`, y up; floor at the lowest ankle,
    pelvis at x = 0 in the first frame."""
    x = points @ axis
    y = points[..., 1]
    joints = np.stack([x, y], axis=-1)
    joints[..., 1] -= joints[:, [J["l_ankle"], J["r_ankle"]], 1].min()
    joints[..., 0] -= joints[0, J["pelvis"], 0]
    return joints + 0.0


def window_bounds(frames: int, max_frames: int) -> list[tuple[int, int]]:
    """Split `frames` into the fewest windows of at most `max_frames`, as equal as possible."""
    count = max(1, math.ceil(frames / max_frames))
    edges = np.linspace(0, frames, count + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]
