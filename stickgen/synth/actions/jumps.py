"""Jumps: jump (in place), jump_forward, hop (one leg, repeated) and leap (split-leg), on `flight`.

Every jump keeps its take-off speed in every environment (legs push about as hard anywhere, see
`physics.takeoff_speed`); gravity and drag alone decide how long and how high it flies.
"""

from __future__ import annotations

import numpy as np

from stickgen.synth.context import ActionContext, ActionOutput
from stickgen.synth.flight import Jump, Pose, jump_sequence
from stickgen.synth.kinematics import mirrored
from stickgen.synth.physics import flight_time, takeoff_speed

SIDE_NAMES = ("left", "right")
MIN_FLIGHT = 0.36  # s: long enough for the legs' take-off and landing holds (flight.HOLD each)
MIN_TAKEOFF = 1.0  # m/s: a visible hop (5 cm on earth), not a twitch


def _rest(ctx: ActionContext) -> Pose:
    base = ctx.standing(1)
    return Pose(base.spine[0], base.arms[0], base.legs[0])


def _spine(lean: float, head: float = 0.0) -> np.ndarray:
    return np.array([lean, 0.0, head])


def _arms(side_view: tuple[float, float], front_view: tuple[float, float], view: str) -> np.ndarray:
    """Both arms (2, 2) as (upper-arm angle, elbow flexion): equal from the side, mirrored from the front."""
    if view == "side":
        return np.array([side_view, side_view])
    return np.stack([mirrored(front_view[0]), mirrored(front_view[1])], axis=-1)


def _legs(side_view: tuple[float, float], front_view: tuple[float, float], view: str) -> np.ndarray:
    return _arms(side_view, front_view, view)


def _height_word(earth_height: float, low: float, high: float) -> str | None:
    return "low" if earth_height < low else "high" if earth_height > high else None


def _fit(ctx: ActionContext, vy: float, reps: int, per_jump: float) -> tuple[float, int]:
    """A take-off speed and a number of jumps that fit in the frame budget (slower and fewer if needed).

    The speed never drops below MIN_TAKEOFF nor below the one that flies MIN_FLIGHT; a jump that still
    does not fit is cut
    by the budget, and the sampler then ends the clip with it.

    per_jump: seconds of ground work around each flight (crouch, push, landing) before ctx.dur.
    """
    budget = ctx.max_frames / ctx.fps - ctx.dur(0.9)
    world = ctx.world
    if world.floats:
        return vy, 1
    for _ in range(40):
        each = flight_time(vy, world.gravity, world.drag) + ctx.dur(per_jump)
        slower = 0.9 * vy
        if (
            each <= budget
            or slower < MIN_TAKEOFF
            or flight_time(slower, world.gravity, world.drag) < MIN_FLIGHT
        ):
            return vy, int(max(1, min(reps, budget // each)))
        vy *= 0.9
    return vy, 1


def jump(ctx: ActionContext) -> ActionOutput:
    """Jumping in place: crouch with the arms back, swing them up, tuck the knees, land and absorb."""
    rng, view, amp = ctx.rng, ctx.view, ctx.style.amplitude
    earth_height = float(rng.uniform(0.15, 0.5)) * min(amp, 1.2)
    vy, reps = _fit(ctx, takeoff_speed(earth_height), int(rng.choice([1, 1, 1, 2, 3])), 0.7)
    lean = ctx.world.lean + ctx.style.lean * 0.5
    prepare = Pose(_spine(lean + 0.4, -0.3), _arms((-0.9, 0.3), (0.5, 0.2), view))
    takeoff = Pose(_spine(lean + 0.05), _arms((2.7, 0.1), (2.8, 0.0), view))
    tuck = Pose(_spine(lean + 0.15), _arms((1.9, 0.5), (2.2, 0.3), view), _legs((0.9, 1.7), (0.7, 1.4), view))
    landing = Pose(_spine(lean + 0.1), _arms((1.3, 0.3), (1.4, 0.2), view))
    crouch = float(rng.uniform(0.18, 0.3)) * ctx.body.leg / 0.85
    jumps = [
        Jump(0.0, vy, crouch, crouch * 0.8, 0.0, prepare, takeoff, tuck, landing, (True, True),
             0.45 if k == 0 else 0.15)
        for k in range(reps)
    ]  # fmt: skip
    track = jump_sequence(ctx, ctx.standing(ctx.max_frames), jumps, _rest(ctx), 0.5)
    params = {"reps": reps, "height": _height_word(earth_height, 0.22, 0.4), "vy": round(vy, 3)}
    return ActionOutput(track, params)


def jump_forward(ctx: ActionContext) -> ActionOutput:
    """A standing broad jump: deep crouch, arms swung back then forward, legs reaching forward to land."""
    rng, view = ctx.rng, ctx.view
    earth_height = float(rng.uniform(0.2, 0.4)) * min(ctx.style.amplitude, 1.2)
    vy, reps = _fit(ctx, takeoff_speed(earth_height), int(rng.choice([1, 1, 2])), 0.8)
    vx = float(rng.uniform(1.5, 3.0)) * min(ctx.style.amplitude, 1.2)
    lean = ctx.world.lean + ctx.style.lean * 0.5
    prepare = Pose(_spine(lean + 0.55, -0.4), _arms((-1.2, 0.2), (0.5, 0.2), view))
    takeoff = Pose(_spine(lean + 0.35), _arms((2.3, 0.1), (2.5, 0.0), view))
    tuck = Pose(_spine(lean + 0.3), _arms((1.6, 0.3), (2.0, 0.3), view), _legs((1.2, 1.6), (0.8, 1.4), view))
    landing = Pose(
        _spine(lean + 0.35), _arms((1.2, 0.2), (1.3, 0.2), view), _legs((0.45, 0.15), (0.2, 0.1), view)
    )
    crouch = float(rng.uniform(0.22, 0.32)) * ctx.body.leg / 0.85
    jumps = [
        Jump(vx, vy, crouch, crouch, 0.22 * ctx.body.leg, prepare, takeoff, tuck, landing, (True, True),
             0.5 if k == 0 else 0.2)
        for k in range(reps)
    ]  # fmt: skip
    track = jump_sequence(ctx, ctx.standing(ctx.max_frames), jumps, _rest(ctx), 0.6)
    params = {"reps": reps, "height": _height_word(earth_height, 0.25, 0.35), "travel": 1,
              "vx": round(vx, 3), "vy": round(vy, 3)}  # fmt: skip
    return ActionOutput(track, params)


def hop(ctx: ActionContext) -> ActionOutput:
    """Hopping on one leg, the other knee bent with the foot held up, arms out for balance."""
    rng, view = ctx.rng, ctx.view
    side = int(rng.integers(2))
    earth_height = float(rng.uniform(0.1, 0.2)) * min(ctx.style.amplitude, 1.2)
    vy, reps = _fit(ctx, takeoff_speed(earth_height), int(rng.integers(2, 7)), 0.35)
    vx = float(rng.uniform(0.0, 0.28)) if view == "side" else 0.0
    lean = ctx.world.lean + ctx.style.lean * 0.5
    support = (side == 0, side == 1)
    free = 1 - side
    raised = _legs((0.5, 1.7), (0.45, 0.7), view)
    arms_out = _arms((0.6, 0.5), (1.2, 0.3), view)

    def pose(spine: np.ndarray, arms: np.ndarray, legs: np.ndarray | None = None) -> Pose:
        if legs is None:
            legs = _legs((0.0, 0.05), (0.0, 0.05), view)
        legs = legs.copy()
        legs[free] = raised[free]
        return Pose(spine, arms, legs)

    prepare = pose(_spine(lean + 0.2), arms_out)
    takeoff = pose(_spine(lean + 0.05), arms_out + _arms((0.3, 0.0), (0.2, 0.0), view))
    tuck = pose(_spine(lean + 0.1), arms_out)
    landing = Pose(_spine(lean + 0.1), arms_out)
    crouch = 0.09 * ctx.body.leg / 0.85
    jumps = [
        Jump(
            vx,
            vy,
            crouch,
            crouch,
            0.1 * vx,
            prepare,
            takeoff,
            tuck,
            landing,
            support,
            0.45 if k == 0 else 0.1,
        )
        for k in range(reps)
    ]
    rest = _rest(ctx)
    track = jump_sequence(ctx, ctx.standing(ctx.max_frames), jumps, rest, 0.45)
    params = {"reps": reps, "side": SIDE_NAMES[side], "limb": "leg", "travel": 1 if vx > 0.15 else 0,
              "vy": round(vy, 3)}  # fmt: skip
    return ActionOutput(track, params)


def leap(ctx: ActionContext) -> ActionOutput:
    """A split leap: push off the back leg, legs wide apart in the air, land on the front leg."""
    rng = ctx.rng
    back = int(rng.integers(2))
    front = 1 - back
    earth_height = float(rng.uniform(0.3, 0.55)) * min(ctx.style.amplitude, 1.2)
    vy, _ = _fit(ctx, takeoff_speed(earth_height), 1, 0.9)
    vx = float(rng.uniform(2.5, 4.0)) * min(ctx.style.amplitude, 1.2)
    lean = ctx.world.lean + ctx.style.lean * 0.5

    def legs(front_leg: tuple[float, float], back_leg: tuple[float, float]) -> np.ndarray:
        out = np.zeros((2, 2))
        out[front], out[back] = front_leg, back_leg
        return out

    arms_split = np.array([[2.3, 0.1], [-0.6, 0.1]]) if front == 0 else np.array([[-0.6, 0.1], [2.3, 0.1]])
    prepare = Pose(
        _spine(lean + 0.45, -0.2), np.array([[-0.8, 0.3], [-0.8, 0.3]]), legs((1.0, 2.0), (0.0, 0.0))
    )
    takeoff = Pose(_spine(lean + 0.25), arms_split, legs((1.3, 0.6), (0.0, 0.0)))
    split = Pose(_spine(lean + 0.15), arms_split, legs((1.45, 0.05), (-0.9, 0.2)))
    landing = Pose(_spine(lean + 0.3), np.array([[1.4, 0.3], [1.4, 0.3]]), legs((0.4, 0.1), (-0.7, 1.2)))
    crouch = 0.22 * ctx.body.leg / 0.85
    support = (back == 0, back == 1)
    lands_on = (front == 0, front == 1)
    jumps = [Jump(vx, vy, crouch, crouch, 0.25 * ctx.body.leg, prepare, takeoff, split, landing, support, 0.5,
                  lands_on)]  # fmt: skip
    track = jump_sequence(ctx, ctx.standing(ctx.max_frames), jumps, _rest(ctx), 0.7)
    params = {"height": _height_word(earth_height, 0.38, 0.48), "travel": 1, "takeoff_leg": SIDE_NAMES[back],
              "vx": round(vx, 3), "vy": round(vy, 3)}  # fmt: skip
    return ActionOutput(track, params)
