"""Small hand-made figures and clips that several test modules share."""

import numpy as np

from stickgen import figure as fg
from stickgen.labels import action_id, environment_vector
from stickgen.motion import Motion


def standing_pose(height: float = 1.75) -> np.ndarray:
    """A left/right-symmetric front-view figure standing on the floor, (16, 2) metres."""
    h = height
    pts = {  # fraction of height
        "pelvis": (0.0, 0.53 * h), "chest": (0.0, 0.72 * h), "neck": (0.0, 0.82 * h), "head": (0.0, 0.93 * h),
        "l_shoulder": (-0.13 * h, 0.81 * h), "l_elbow": (-0.15 * h, 0.64 * h),
        "l_wrist": (-0.16 * h, 0.49 * h),
        "r_shoulder": (0.13 * h, 0.81 * h), "r_elbow": (0.15 * h, 0.64 * h),
        "r_wrist": (0.16 * h, 0.49 * h),
        "l_hip": (-0.05 * h, 0.53 * h), "l_knee": (-0.055 * h, 0.28 * h), "l_ankle": (-0.06 * h, 0.0),
        "r_hip": (0.05 * h, 0.53 * h), "r_knee": (0.055 * h, 0.28 * h), "r_ankle": (0.06 * h, 0.0),
    }  # fmt: skip
    return np.array([pts[name] for name in fg.JOINTS])


def walking_clip(frames: int = 50, fps: float = 25.0, speed: float = 1.2, seed: int = 0) -> Motion:
    """A figure gliding along x with small noise: walk for half the clip, then 'jump', on the moon."""
    rng = np.random.default_rng(seed)
    t = np.arange(frames) / fps
    joints = standing_pose()[None] + np.stack([speed * t, np.zeros_like(t)], axis=1)[:, None, :]
    joints = joints + rng.normal(scale=0.01, size=joints.shape)
    actions = np.full(frames, action_id("walk"))
    actions[frames // 2 :] = action_id("jump")
    camera = np.stack([speed * t, np.full_like(t, 1.0), np.full_like(t, 1.2)], axis=1)
    return Motion(
        joints, fps=fps, texts=["a person walks, then jumps", "someone strolls"], actions=actions,
        camera=camera, environment=environment_vector("moon"), source={"generator": "test", "seed": seed},
    )  # fmt: skip
