"""Operations on whole clips: resample to another frame rate, trim, anchor, and concatenate.

All return new `Motion`s and leave their inputs unchanged.
"""

from __future__ import annotations

import numpy as np

from stickgen.errors import StickgenError
from stickgen.figure import J
from stickgen.motion import Motion

CANONICAL_FPS = 25.0


def resample(motion: Motion, fps: float = CANONICAL_FPS) -> Motion:
    """Resample a clip to `fps` by linear interpolation of joints and camera.

    The new frames sit at times k / fps for every k with k / fps ≤ (T − 1) / old_fps, so the clip
    keeps its span; a linear motion is reproduced exactly. Action ids take the nearest old frame.
    """
    if fps <= 0:
        raise StickgenError(f"The target frame rate must be positive; got {fps}.")
    if fps == motion.fps:
        return motion.replace()
    old_t = np.arange(motion.num_frames) / motion.fps
    span = old_t[-1]
    # A small tolerance keeps the last frame when span·fps is a whole number up to rounding.
    new_t = np.arange(int(np.floor(span * fps + 1e-9)) + 1) / fps
    flat = motion.joints.reshape(motion.num_frames, -1)  # (T, 32)
    joints = interpolate_frames(old_t, flat, new_t).reshape(-1, *motion.joints.shape[1:])
    nearest = np.clip(np.rint(new_t * motion.fps).astype(np.int64), 0, motion.num_frames - 1)
    camera = None if motion.camera is None else interpolate_frames(old_t, motion.camera, new_t)
    return motion.replace(joints=joints, fps=float(fps), actions=motion.actions[nearest], camera=camera)


def interpolate_frames(old_t: np.ndarray, values: np.ndarray, new_t: np.ndarray) -> np.ndarray:
    """Linear interpolation of (T_old, C) values at new times → (T_new, C)."""
    if len(old_t) == 1:
        return np.repeat(values, len(new_t), axis=0)
    idx = np.clip(np.searchsorted(old_t, new_t, side="right") - 1, 0, len(old_t) - 2)
    w = ((new_t - old_t[idx]) / (old_t[idx + 1] - old_t[idx]))[:, None]
    return values[idx] * (1.0 - w) + values[idx + 1] * w


def trim(motion: Motion, start: int = 0, stop: int | None = None) -> Motion:
    """Frames start..stop−1 of a clip (Python slice rules, negative indices allowed)."""
    frames = range(motion.num_frames)[slice(start, stop)]
    if len(frames) == 0:
        raise StickgenError(
            f"Trimming frames {start}..{stop} of a {motion.num_frames}-frame clip leaves no frames."
        )
    sl = slice(frames.start, frames.stop)
    camera = None if motion.camera is None else motion.camera[sl]
    return motion.replace(joints=motion.joints[sl], actions=motion.actions[sl], camera=camera)


def anchor(motion: Motion) -> Motion:
    """Shift a clip along x so its pelvis starts at x = 0, the storage convention (DESIGN §1)."""
    dx = motion.joints[0, J["pelvis"], 0]
    joints = motion.joints.copy()
    joints[..., 0] -= dx
    camera = None
    if motion.camera is not None:
        camera = motion.camera.copy()
        camera[:, 0] -= dx
    return motion.replace(joints=joints, camera=camera)


def concatenate(first: Motion, second: Motion, *, crossfade: float = 0.2) -> Motion:
    """Play `second` after `first`, blended over `crossfade` seconds.

    `second` is resampled to the first clip's rate and shifted along x so that its first frame
    coincides with the first frame of the overlap (its height is kept: both stand on the same floor);
    both clips then move on through the overlap, so the blend neither stalls nor jumps. Over the
    overlap the joints blend with a smoothstep weight; action ids switch halfway through it.
    Texts join as "A, then B". Both clips must share an environment; the camera track is kept only
    when both have one.
    """
    if not np.allclose(first.environment, second.environment):
        raise StickgenError("Cannot concatenate clips from different environments.")
    second = resample(second, first.fps)
    k = int(round(crossfade * first.fps))
    k = max(0, min(k, first.num_frames - 1, second.num_frames - 1))

    dx = first.joints[first.num_frames - max(k, 1), J["pelvis"], 0] - second.joints[0, J["pelvis"], 0]
    b_joints = second.joints.copy()
    b_joints[..., 0] += dx
    b_camera = None
    if second.camera is not None:
        b_camera = second.camera.copy()
        b_camera[:, 0] += dx

    # The overlap: first's last k frames blend into second's first k frames.
    s = (np.arange(1, k + 1) / (k + 1))[:, None, None]
    w = s * s * (3.0 - 2.0 * s)
    blended = first.joints[first.num_frames - k :] * (1.0 - w) + b_joints[:k] * w
    joints = np.concatenate([first.joints[: first.num_frames - k], blended, b_joints[k:]])

    half = k // 2
    actions = np.concatenate([first.actions[: first.num_frames - k + half], second.actions[half:]])
    camera = None
    if first.camera is not None and b_camera is not None:
        cam_blend = first.camera[first.num_frames - k :] * (1.0 - w[:, :, 0]) + b_camera[:k] * w[:, :, 0]
        camera = np.concatenate([first.camera[: first.num_frames - k], cam_blend, b_camera[k:]])

    if first.texts and second.texts:
        texts = [f"{first.texts[0]}, then {second.texts[0]}"]
    else:
        texts = first.texts or second.texts
    source = {"concatenated": [first.source, second.source], "crossfade_frames": k}
    return first.replace(joints=joints, actions=actions, camera=camera, texts=texts, source=source)
