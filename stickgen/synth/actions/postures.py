"""Postures: sit_down and stand_up, on a chair (invisible, at knee height) or on the floor.

Both use the same key poses, stand_up in reverse order: the feet stay planted (IK) while the pelvis
travels back and down, the torso leans forward to keep the balance over the feet, and the hands come
to rest on the thighs or the knees.
"""

from __future__ import annotations

import numpy as np

from stickgen.figure import J
from stickgen.synth.context import ActionContext, ActionOutput
from stickgen.synth.keyframes import keyframes
from stickgen.synth.kinematics import Track, arm_ik, forward_kinematics, leg_ik, standing_ankles

SEATS = ("chair", "floor")


def _keys(ctx: ActionContext, seat: str, base: Track) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Key times (K,) from standing to seated, and the root (K, 2) and spine (K, 3) at each key."""
    body, rng = ctx.body, ctx.rng
    x0, h = base.root[0, 0], base.root[0, 1]
    lean0 = base.spine[0]
    if seat == "chair":
        seat_y = body.shin + float(rng.uniform(0.0, 0.05))
        back = body.thigh * float(rng.uniform(0.85, 0.95))
        roots = [(x0, h), (x0 - 0.35 * back, 0.5 * (h + seat_y) + 0.05), (x0 - back, seat_y)]
        spines = [lean0, lean0 + [0.55, 0.1, -0.3], lean0 + [0.08, 0.0, 0.0]]
        times = [0.0, 0.55, 1.2]
    else:
        back = body.leg * float(rng.uniform(0.5, 0.6))
        roots = [(x0, h), (x0 - 0.15 * back, 0.45 * h), (x0 - 0.6 * back, 0.2 * h), (x0 - back, 0.1)]
        spines = [lean0, lean0 + [0.6, 0.1, -0.3], lean0 + [0.3, 0.1, -0.1], lean0 + [-0.12, 0.1, 0.1]]
        times = [0.0, 0.7, 1.3, 1.8]
    return np.array([ctx.dur(t) for t in times]), np.array(roots), np.array(spines)


def _seated_arms(track: Track, ctx: ActionContext, seat: str) -> np.ndarray:
    """Arms (T, 2, 2) resting the hands on the thighs (chair) or the knees (floor)."""
    joints = forward_kinematics(track, ctx.body)
    knees = joints[:, [J["l_knee"], J["r_knee"]]]
    hips = joints[:, [J["l_hip"], J["r_hip"]]]
    target = knees if seat == "floor" else 0.4 * hips + 0.6 * knees + [0.0, 0.03]
    return arm_ik(track, ctx.body, target, bend=-1.0)


def _posture(ctx: ActionContext, seat: str, rising: bool) -> Track:
    base = ctx.standing(1)
    key_t, key_root, key_spine = _keys(ctx, seat, base)
    hold = max(ctx.dur(0.4), ctx.seconds - key_t[-1])
    if rising:
        key_t = np.concatenate([[0.0], hold + key_t[-1] - key_t[::-1]])
        key_root = np.concatenate([key_root[-1:], key_root[::-1]])
        key_spine = np.concatenate([key_spine[-1:], key_spine[::-1]])
    n = ctx.frames(key_t[-1] + (0.3 if rising else hold))
    t = ctx.times(n)
    root = keyframes(t, key_t, key_root)
    spine = keyframes(t, key_t, key_spine)
    spine[:, 1] += 0.015 * np.sin(2.0 * np.pi * t / ctx.dur(3.5))  # breathing
    feet = np.broadcast_to(standing_ankles(base, ctx.body)[:1], (n, 2, 2))
    track = Track(root, spine, np.repeat(base.arms, n, axis=0), np.zeros((n, 2, 2)))
    track = track.with_(legs=leg_ik(track, ctx.body, feet))
    # Arms hang while standing and rest on the legs while seated, blended by how far down the pelvis is.
    seated = _seated_arms(track, ctx, seat)
    down = np.clip(
        (base.root[0, 1] - root[:, 1]) / (base.root[0, 1] - key_root[-1 if not rising else 0, 1]), 0, 1
    )
    w = (down**2)[:, None, None]
    return track.with_(arms=base.arms * (1.0 - w) + seated * w)


def sit_down(ctx: ActionContext) -> ActionOutput:
    """From standing to sitting on a chair or on the floor, then staying seated."""
    seat = SEATS[int(ctx.rng.integers(2))]
    return ActionOutput(_posture(ctx, seat, rising=False), {"seat": seat}, end_state=f"sit_{seat}")


def stand_up(ctx: ActionContext) -> ActionOutput:
    """From sitting (on the seat the previous action ended on) back to standing."""
    seat = ctx.start_state.removeprefix("sit_")
    if seat not in SEATS:  # the clip starts seated: choose the seat
        seat = SEATS[int(ctx.rng.integers(2))]
    return ActionOutput(_posture(ctx, seat, rising=True), {"seat": seat})
