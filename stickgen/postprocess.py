"""Clean-up after sampling (DESIGN §5): constant bone lengths, pinned feet, nothing below the floor.

Pure numpy functions on joints `(T, 16, 2)` in metres. `clean_up` applies them in order:

0. `smooth_over_time`: a Gaussian filter along time (σ = 1 frame). The network predicts motion in
   tokens of 4 frames, and its small errors jump where one token meets the next: on 96 validation
   captions, the jerk of raw output measured 51 m/s³ within a token and 430–844 m/s³ across its edges
   (real motion: 84). Filtered first, the cleaned output's jerk fell from 385 to 109 m/s³ with the same
   heights of jumps; filtering last would break the constant bone lengths.
1. `constant_bone_lengths`: rebuild the figure outward from the pelvis, keeping every bone's direction
   and giving it the clip's own length (the median over frames). Hips sit symmetrically about the
   pelvis (the pelvis is their midpoint), shoulders keep their direction from the neck at their
   median distance.
2. `follow_planted_feet`: where a foot in contact (as in step 3) creeps along the floor slower than
   0.15 m/s, move the whole figure back by its step, so standing figures stop drifting (the wave of
   "a person waves" drifted 19–25 cm in 3 s with its feet on the floor, 1–3 cm after); faster slides
   are the model's travel and are left to step 4. On the prompt suite (stage-3 model) 68.7 → 70.0 %
   of samples pass; "a person walks forward" travels about 0.1 m less in 5 s.
3. `ground_feet`: move the figure down (or up) so that its lowest foot in contact stands on the
   floor; contacts are the physics head's, or an ankle lower than 5 cm and slower than 0.6 m/s in any
   direction (`floor_contacts`). Generated figures otherwise hover a centimetre or two.
4. `pin_feet`: while a foot is in contact (the head's contacts, or, after grounding, any ankle below
   5 cm), hold its ankle where it stands (the mean of the run) on the floor, easing in and out
   horizontally over a few frames, and re-solve the knee with two-bone IK on the side the knee already
   was. This removes foot skating: a foot near the floor either stands or lifts.
5. `lift_above_floor`: raise any frame whose lowest joint dips below y = 0 (smoothly over time).

The 5 cm is also the height below which the evaluation counts a moving foot as skating
(`metrics.SKATE_HEIGHT`), so after clean-up that metric mostly measures it: `benchmarks/cleanup.py`
gives skating and floating of the model's raw output beside the cleaned one.
"""

from __future__ import annotations

import numpy as np

from stickgen import figure as fg
from stickgen.synth.kinematics import two_bone_ik

J = fg.J
# (parent, child) in the order a figure is rebuilt from the pelvis outward; the hips and the
# shoulders are placed separately.
_CHAINS = (
    ("pelvis", "chest"),
    ("chest", "neck"),
    ("neck", "head"),
    ("l_shoulder", "l_elbow"),
    ("l_elbow", "l_wrist"),
    ("r_shoulder", "r_elbow"),
    ("r_elbow", "r_wrist"),
    ("l_hip", "l_knee"),
    ("l_knee", "l_ankle"),
    ("r_hip", "r_knee"),
    ("r_knee", "r_ankle"),
)
_EASE_FRAMES = 3


SMOOTH_SIGMA = 1.0  # frames
FOLLOW_MAX_SPEED = 0.15  # m/s: a planted foot sliding slower than this is drift (`follow_planted_feet`)


def smooth_over_time(joints: np.ndarray, sigma: float = SMOOTH_SIGMA) -> np.ndarray:
    """Joints (T, ...) filtered along time with a Gaussian of `sigma` frames (edges held); σ 0 copies."""
    joints = np.asarray(joints, dtype=np.float64)
    if sigma <= 0 or len(joints) < 2:
        return joints.copy()
    radius = int(np.ceil(3 * sigma))
    kernel = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    kernel /= kernel.sum()
    padded = np.concatenate([np.repeat(joints[:1], radius, 0), joints, np.repeat(joints[-1:], radius, 0)])
    return sum(w * padded[i : i + len(joints)] for i, w in enumerate(kernel))


def _unit(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    fallback = np.array([0.0, 1.0])
    return np.where(n > 1e-9, v / np.maximum(n, 1e-9), fallback)


def constant_bone_lengths(joints: np.ndarray, lengths: np.ndarray | None = None) -> np.ndarray:
    """Joints (T, 16, 2) with every bone at a constant length and the same directions.

    lengths: (12,) segment lengths in `figure.SEGMENTS` order; default the median over the clip.
    """
    joints = np.asarray(joints, dtype=np.float64)
    if lengths is None:
        lengths = np.median(fg.bone_lengths(joints), axis=0)
    seg_length = {(a, b): lengths[i] for i, (_, a, b) in enumerate(fg.SEGMENTS)}
    seg_length[("pelvis", "chest")] = seg_length[("chest", "pelvis")]
    seg_length[("chest", "neck")] = seg_length[("neck", "chest")]
    out = joints.copy()
    pelvis = joints[:, J["pelvis"]]
    across = _unit(joints[:, J["r_hip"]] - joints[:, J["l_hip"]])
    half = 0.5 * seg_length[("l_hip", "r_hip")]
    out[:, J["l_hip"]] = pelvis - half * across
    out[:, J["r_hip"]] = pelvis + half * across
    clavicles = np.median(fg.clavicle_lengths(joints), axis=0)
    for parent, child in _CHAINS:
        if parent == "l_shoulder" or parent == "r_shoulder":
            side = 0 if parent == "l_shoulder" else 1
            direction = _unit(joints[:, J[parent]] - joints[:, J["neck"]])
            out[:, J[parent]] = out[:, J["neck"]] + clavicles[side] * direction
        direction = _unit(joints[:, J[child]] - joints[:, J[parent]])
        out[:, J[child]] = out[:, J[parent]] + seg_length[(parent, child)] * direction
    return out


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of every run of True in a boolean (T,) array, stop exclusive."""
    padded = np.concatenate([[False], flags, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def pin_feet(joints: np.ndarray, contacts: np.ndarray) -> np.ndarray:
    """Hold each ankle still and on the floor through its contact runs; re-solve the knees.

    joints (T, 16, 2); contacts (T, 2) bool for the left and right foot.
    """
    joints = np.asarray(joints, dtype=np.float64)
    out = joints.copy()
    T = len(joints)
    for side, prefix in enumerate(("l_", "r_")):
        hip, knee, ankle = J[prefix + "hip"], J[prefix + "knee"], J[prefix + "ankle"]
        target = joints[:, ankle].copy()
        weight = np.zeros(T)
        for a, b in _runs(np.asarray(contacts[:, side], bool)):
            spot = np.array([joints[a:b, ankle, 0].mean(), 0.0])
            lo, hi = max(0, a - _EASE_FRAMES), min(T, b + _EASE_FRAMES)
            ramp = np.ones(hi - lo)
            ramp[: a - lo] = np.arange(1, a - lo + 1) / (a - lo + 1)
            ramp[b - lo :] = np.arange(hi - b, 0, -1) / (hi - b + 1)
            take = ramp > weight[lo:hi]
            weight[lo:hi] = np.where(take, ramp, weight[lo:hi])
            # Easing in and out moves the ankle towards the spot horizontally only: a foot about to land
            # or just lifted keeps its height instead of being dragged along the floor.
            spots = np.repeat(spot[None], hi - lo, axis=0)
            spots[:, 1] = np.where(ramp < 1.0, joints[lo:hi, ankle, 1], 0.0)
            target[lo:hi] = np.where(take[:, None], spots, target[lo:hi])
        moved = weight > 0
        if not moved.any():
            continue
        new_ankle = joints[:, ankle] + weight[:, None] * (target - joints[:, ankle])
        upper = np.linalg.norm(joints[:, knee] - joints[:, hip], axis=-1).mean()
        lower = np.linalg.norm(joints[:, ankle] - joints[:, knee], axis=-1).mean()
        knees = []
        for bend in (1.0, -1.0):
            first, _ = two_bone_ik(joints[:, hip], new_ankle, upper, lower, bend)
            knees.append(joints[:, hip] + upper * np.stack([np.sin(first), -np.cos(first)], axis=-1))
        closer = np.linalg.norm(knees[0] - joints[:, knee], axis=-1) <= np.linalg.norm(
            knees[1] - joints[:, knee], axis=-1
        )
        new_knee = np.where(closer[:, None], knees[0], knees[1])
        # Out of reach, IK straightens the leg towards the target: put the ankle at the leg's end.
        reach = _unit(new_ankle - new_knee)
        out[moved, knee] = new_knee[moved]
        out[moved, ankle] = (new_knee + lower * reach)[moved]
    return out


def lift_above_floor(joints: np.ndarray) -> np.ndarray:
    """Raise frames whose lowest joint is below y = 0, with a lift smoothed over neighbouring frames."""
    joints = np.asarray(joints, dtype=np.float64)
    lift = np.maximum(0.0, -joints[..., 1].min(axis=1))  # (T,)
    if not lift.any():
        return joints.copy()
    # A running maximum over ±2 frames keeps the lift from popping in and out.
    padded = np.pad(lift, 2, mode="edge")
    smooth = np.max(np.stack([padded[i : i + len(lift)] for i in range(5)]), axis=0)
    out = joints.copy()
    out[..., 1] += smooth[:, None]
    return out


CONTACT_HEIGHT_PIN = 0.05  # m: an ankle this low ...
CONTACT_SPEED_PIN = 0.6  # m/s: ... and this slow is on the floor, whatever the physics head says


def floor_contacts(
    joints: np.ndarray, contacts: np.ndarray, fps: float = 25.0, speed: float | None = None
) -> np.ndarray:
    """(T, 2) bool: the physics head's contacts, or an ankle that is low and slow (the head misses some
    frames of a planted foot, which then skate); runs of one frame are dropped."""
    joints = np.asarray(joints, dtype=np.float64)
    out = np.asarray(contacts, bool).copy()
    for side, prefix in enumerate(("l_", "r_")):
        ankle = joints[:, J[prefix + "ankle"]]
        moving = np.zeros(len(joints))
        if len(joints) > 1:
            step = np.linalg.norm(np.diff(ankle, axis=0), axis=-1) * fps  # a rising foot is not planted
            moving = np.maximum(np.concatenate([step[:1], step]), np.concatenate([step, step[-1:]]))
        out[:, side] |= (ankle[:, 1] < CONTACT_HEIGHT_PIN) & (moving < (speed or CONTACT_SPEED_PIN))
        for a, b in _runs(out[:, side]):
            if b - a < 2:
                out[a:b, side] = False
    return out


def ground_feet(joints: np.ndarray, contacts: np.ndarray) -> np.ndarray:
    """Move the figure down (or up) so that its lowest foot in contact stands on the floor.

    The offset is the height of the lowest contact ankle in frames with a contact, interpolated
    between them (a jump keeps its height over the take-off and landing), and smoothed over 5 frames.
    """
    joints = np.asarray(joints, dtype=np.float64)
    ankles = joints[:, [J["l_ankle"], J["r_ankle"]], 1]  # (T, 2)
    heights = np.where(contacts, ankles, np.inf).min(axis=1)
    known = np.isfinite(heights)
    if not known.any():
        return joints.copy()
    t = np.arange(len(joints))
    offset = np.interp(t, t[known], heights[known])
    padded = np.pad(offset, 2, mode="edge")
    offset = np.mean(np.stack([padded[i : i + len(offset)] for i in range(5)]), axis=0)
    out = joints.copy()
    out[..., 1] -= offset[:, None]
    return out


def follow_planted_feet(
    joints: np.ndarray, contacts: np.ndarray, fps: float = 25.0, max_speed: float = FOLLOW_MAX_SPEED
) -> np.ndarray:
    """The figure shifted along x, frame by frame, so that a foot in contact does not creep.

    Between two frames in which a foot is in contact in both and its ankle slides more slowly than
    `max_speed` (m/s), the whole figure moves back by that ankle's horizontal step (the mean step where
    both feet are down); every other step is kept. A slow slide of a planted foot is the bias of the
    integrated velocity channel (standing figures drifted 20 cm in 3 s, feet and all), while a fast one
    is the model's travel, which `pin_feet` then turns into steps. joints (T, 16, 2); contacts (T, 2).
    """
    joints = np.asarray(joints, dtype=np.float64)
    if len(joints) < 2:
        return joints.copy()
    contacts = np.asarray(contacts, bool)
    ankles = joints[:, [J["l_ankle"], J["r_ankle"]], 0]  # (T, 2)
    held = contacts[1:] & contacts[:-1]  # (T − 1, 2): down in both frames of a step
    count = held.sum(axis=1)
    slide = np.where(count > 0, (np.diff(ankles, axis=0) * held).sum(axis=1) / np.maximum(count, 1), 0.0)
    slide = np.where(np.abs(slide) * fps < max_speed, slide, 0.0)
    out = joints.copy()
    out[..., 0] -= np.concatenate([[0.0], np.cumsum(slide)])[:, None]
    return out


def clean_up(
    joints: np.ndarray, contacts: np.ndarray, fps: float = 25.0, smooth: float = SMOOTH_SIGMA
) -> np.ndarray:
    """The whole clean-up: smoothed over time, constant bones, feet on the floor, planted feet pinned,
    nothing below it.

    contacts: (T, 2) the physics head's foot contacts (the model's own reading of the motion).
    smooth: σ of the filter along time, in frames (0: none).
    """
    bones = constant_bone_lengths(smooth_over_time(joints, smooth))
    bones = follow_planted_feet(bones, floor_contacts(bones, contacts, fps), fps)
    grounded = ground_feet(bones, floor_contacts(bones, contacts, fps))
    # After grounding, every foot below the contact height is planted, however the model moved it.
    planted = floor_contacts(grounded, contacts, fps, speed=np.inf)
    return lift_above_floor(pin_feet(grounded, planted))
