"""The kinematic figure: a root trajectory plus 2D joint angles, turned into joints by forward kinematics.

Angles are radians in the canonical frame, where a side-view figure faces +x (the clip sampler turns
it round afterwards when it faces left). A limb angle is measured from straight down, positive toward
+x, so a bone at angle θ points along (sin θ, −cos θ); a torso angle is measured from straight up,
positive toward +x, so it points along (sin θ, cos θ).

`Track` channels, each with T frames:

| channel | shape | meaning |
|---|---|---|
| root | (T, 2) | pelvis position (m) |
| spine | (T, 3) | lower-torso lean from vertical (absolute); upper-torso bend and head tilt (relative) |
| arms | (T, 2, 2) | [left, right] × [upper-arm angle (absolute), elbow flexion: forearm = upper arm + it] |
| legs | (T, 2, 2) | [left, right] × [thigh angle (absolute), knee flexion: shin = thigh − it] |

Seen from the side, positive knee flexion bends the knee forward and positive elbow flexion lifts the
forearm forward. Seen from the front, the figure's left limbs hang on the +x side and the right limbs
are their mirror image, so a symmetric pose uses opposite signs for the two sides (`mirrored`).

`two_bone_ik` is the analytic inverse: it plants an ankle or reaches a hand target exactly whenever
the target is within reach, and otherwise stretches the limb straight toward it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from stickgen.figure import NUM_JOINTS, J
from stickgen.synth.body import Body

LEFT, RIGHT = 0, 1


@dataclass(frozen=True)
class Track:
    """One stretch of motion as root positions and joint angles (see the module table)."""

    root: np.ndarray  # (T, 2)
    spine: np.ndarray  # (T, 3)
    arms: np.ndarray  # (T, 2, 2)
    legs: np.ndarray  # (T, 2, 2)

    @property
    def num_frames(self) -> int:
        return int(self.root.shape[0])

    def with_(self, **channels: np.ndarray) -> Track:
        """A copy with some channels replaced."""
        return replace(self, **channels)

    def slice(self, start: int, stop: int) -> Track:
        """Frames start..stop−1."""
        return Track(
            self.root[start:stop], self.spine[start:stop], self.arms[start:stop], self.legs[start:stop]
        )


def concat_tracks(tracks: list[Track]) -> Track:
    """Tracks played one after the other, frame arrays concatenated (no blending)."""
    return Track(
        *(np.concatenate([getattr(t, c) for t in tracks]) for c in ("root", "spine", "arms", "legs"))
    )


def _down(angle: np.ndarray) -> np.ndarray:
    """Unit vectors (..., 2) of bones at `angle` (...) from straight down."""
    return np.stack([np.sin(angle), -np.cos(angle)], axis=-1)


def _up(angle: np.ndarray) -> np.ndarray:
    """Unit vectors (..., 2) at `angle` (...) from straight up."""
    return np.stack([np.sin(angle), np.cos(angle)], axis=-1)


def _across(angle: np.ndarray) -> np.ndarray:
    """Unit vectors (..., 2) perpendicular to a torso at `angle` from up: +x when it is upright."""
    return np.stack([np.cos(angle), -np.sin(angle)], axis=-1)


def hip_positions(root: np.ndarray, lean: np.ndarray, body: Body) -> np.ndarray:
    """Left and right hip (T, 2, 2) of a pelvis at `root` (T, 2) with the lower torso at `lean` (T,)."""
    across = _across(lean) * body.hip_half_width  # (T, 2)
    return np.stack([root + across, root - across], axis=1)


def leg_drop(reach: float, dx: np.ndarray) -> np.ndarray:
    """How far below its hip a leg of length `reach` gets at horizontal offset `dx`; 0 at or beyond reach.

    Clamped at 0, not NaN: where |dx| equals the reach, reach**2 (a Python float) and dx**2 (numpy) can
    differ in the last bit (a −1e-16 made clip 31,888 of seed 1 NaN).
    """
    return np.sqrt(np.maximum(reach**2 - dx**2, 0.0))


def shoulder_positions(neck: np.ndarray, upper: np.ndarray, body: Body) -> np.ndarray:
    """Left and right shoulder (T, 2, 2) below a neck (T, 2) on an upper torso at angle `upper` (T,)."""
    base = neck - _up(upper) * body.shoulder_drop
    across = _across(upper) * body.shoulder_half_width
    return np.stack([base + across, base - across], axis=1)


def forward_kinematics(track: Track, body: Body) -> np.ndarray:
    """Joints (T, 16, 2) in metres of a track driven by `body`'s segment lengths."""
    t = track.num_frames
    joints = np.empty((t, NUM_JOINTS, 2))
    lean = track.spine[:, 0]
    upper = lean + track.spine[:, 1]
    head = upper + track.spine[:, 2]
    joints[:, J["pelvis"]] = track.root
    joints[:, J["chest"]] = track.root + _up(lean) * body.lower_torso
    joints[:, J["neck"]] = joints[:, J["chest"]] + _up(upper) * body.upper_torso
    joints[:, J["head"]] = joints[:, J["neck"]] + _up(head) * body.head

    shoulders = shoulder_positions(joints[:, J["neck"]], upper, body)  # (T, 2, 2)
    elbows = shoulders + _down(track.arms[..., 0]) * body.upper_arm
    wrists = elbows + _down(track.arms[..., 0] + track.arms[..., 1]) * body.forearm
    hips = hip_positions(track.root, lean, body)
    knees = hips + _down(track.legs[..., 0]) * body.thigh
    ankles = knees + _down(track.legs[..., 0] - track.legs[..., 1]) * body.shin
    for side, prefix in ((LEFT, "l_"), (RIGHT, "r_")):
        joints[:, J[prefix + "shoulder"]] = shoulders[:, side]
        joints[:, J[prefix + "elbow"]] = elbows[:, side]
        joints[:, J[prefix + "wrist"]] = wrists[:, side]
        joints[:, J[prefix + "hip"]] = hips[:, side]
        joints[:, J[prefix + "knee"]] = knees[:, side]
        joints[:, J[prefix + "ankle"]] = ankles[:, side]
    return joints


def two_bone_ik(
    base: np.ndarray, target: np.ndarray, upper: float, lower: float, bend: float | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Angles (from straight down) of a two-bone limb from `base` (..., 2) reaching `target` (..., 2).

    bend (a scalar, or one per limb broadcast over `...`): +1 puts the middle joint on the +x side of
    the base → target line when the limb points down (a knee facing +x), −1 on the −x side (an elbow
    pointing back). Targets out of reach get a straight limb pointing at them. Returns (upper-bone
    angle, lower-bone angle), each (...). Knee flexion is upper − lower; elbow flexion is lower − upper.
    """
    d = np.asarray(target, dtype=np.float64) - base
    dist = np.clip(np.linalg.norm(d, axis=-1), 1e-9, (upper + lower) * (1.0 - 1e-9))
    dist = np.maximum(dist, abs(upper - lower) + 1e-9)
    toward = np.arctan2(d[..., 0], -d[..., 1])
    cos_a = np.clip((upper**2 + dist**2 - lower**2) / (2.0 * upper * dist), -1.0, 1.0)
    first = toward + bend * np.arccos(cos_a)
    middle = base + _down(first) * upper
    rest = base + _down(toward) * dist[..., None] - middle
    second = np.arctan2(rest[..., 0], -rest[..., 1])
    return first, _unwrap_near(second, first)


def _unwrap_near(angle: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """`angle` shifted by multiples of 2π to lie within π of `reference` (keeps flexions small)."""
    return reference + (angle - reference + np.pi) % (2.0 * np.pi) - np.pi


def leg_ik(track: Track, body: Body, ankles: np.ndarray) -> np.ndarray:
    """Leg angles (T, 2, 2) that put the ankles at `ankles` (T, 2, 2) for the track's root and lean.

    The knees bend forward from the side and outward from the front (`Body.knee_bend`).
    """
    hips = hip_positions(track.root, track.spine[:, 0], body)
    thigh, shin = two_bone_ik(hips, ankles, body.thigh, body.shin, body.knee_bend)
    return np.stack([thigh, thigh - shin], axis=-1)


def arm_ik(track: Track, body: Body, wrists: np.ndarray, bend: float | np.ndarray = -1.0) -> np.ndarray:
    """Arm angles (T, 2, 2) that put the wrists at `wrists` (T, 2, 2) for the track's torso."""
    joints = forward_kinematics(track, body)
    shoulders = joints[:, [J["l_shoulder"], J["r_shoulder"]]]
    upper, fore = two_bone_ik(shoulders, wrists, body.upper_arm, body.forearm, bend)
    return np.stack([upper, fore - upper], axis=-1)


def mirrored(left: np.ndarray | float) -> np.ndarray:
    """A front-view left-limb value and its mirror image for the right limb, stacked on a new axis −1.

    Use for symmetric front-view poses: `arms[..., 0] = mirrored(abduction)`.
    """
    left = np.asarray(left, dtype=np.float64)
    return np.stack([left, -left], axis=-1)


def standing(body: Body, num_frames: int, x: float = 0.0) -> Track:
    """A figure standing still with its pelvis above `x`, arms hanging, ankles on the floor."""
    root = np.tile([x, body.stand_height], (num_frames, 1))
    spine = np.zeros((num_frames, 3))
    arms = np.zeros((num_frames, 2, 2))
    arms[..., 0] = [0.05, 0.05] if body.view == "side" else [0.12, -0.12]
    arms[..., 1] = [0.15, 0.15] if body.view == "side" else [-0.1, 0.1]
    track = Track(root, spine, arms, np.zeros((num_frames, 2, 2)))
    return track.with_(legs=leg_ik(track, body, standing_ankles(track, body)))


def standing_ankles(track: Track, body: Body) -> np.ndarray:
    """Ankle positions (T, 2, 2) on the floor straight below each hip (front view: a little wider)."""
    hips = hip_positions(track.root, track.spine[:, 0], body)
    ankles = hips.copy()
    ankles[..., 1] = 0.0
    ankles[:, :, 0] += np.array([1.0, -1.0]) * 0.25 * body.hip_half_width
    return ankles
