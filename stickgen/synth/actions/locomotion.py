"""Locomotion: idle, walk, jog, run, sprint and walk_backward, built on `stickgen.synth.gait`."""

from __future__ import annotations

import numpy as np

from stickgen.synth.context import ActionContext, ActionOutput, speed_word
from stickgen.synth.gait import Gait, cruising_duration, gait_track
from stickgen.synth.kinematics import LEFT, RIGHT, leg_ik, standing_ankles
from stickgen.synth.physics import World


def _adapt(gait: Gait, world: World, leg: float, rng: np.random.Generator) -> Gait:
    """The environment's effect on a gait: careful short steps on ice, high steps in snow, wind."""
    speed, step, clearance, height, slip = gait.speed, gait.step_time, gait.clearance, gait.height, 0.0
    if world.name == "ice":
        speed, step, height = speed * 0.55, step * 0.85, min(height, 0.95)
        slip = float(rng.uniform(0.08, 0.18)) if rng.random() < 0.3 else 0.0
    elif world.name == "snow":
        speed, clearance = speed * 0.8, clearance * 1.6
    elif world.floats:
        speed = speed * 0.35  # nothing to push against: a slow swimming drift
    speed *= 1.0 + 0.015 * world.wind  # a tail wind helps, a head wind holds back
    bob = gait.bob * (9.81 / max(world.gravity, 1.0)) ** 0.3
    duty = gait.duty
    # The pelvis may travel at most `travel` over a planted foot, or the leg cannot reach it: faster
    # gaits shorten the stance (running) or quicken the cadence (walking).
    travel = (0.9 if duty >= 0.5 else 0.75) * leg
    stance = 2.0 * step * duty
    if abs(speed) * stance > travel:
        if duty >= 0.5:
            step = travel / (abs(speed) * 2.0 * duty)
        else:
            flight = step - stance
            stance = travel / abs(speed)
            step = stance + flight
            duty = stance / (2.0 * step)
    return Gait(speed, step, duty, clearance, height, bob, slip)


def _running_gait(ctx: ActionContext, speed: float, stance: float, lift: float, clearance: float) -> Gait:
    """A gait with flight: the flight lasts as long as the world's gravity makes a `lift` m/s hop last."""
    stance = ctx.dur(stance)
    flight = min(0.7, 2.0 * lift / max(ctx.world.gravity, 0.5))
    step = stance + flight
    return Gait(speed * ctx.tempo, step, stance / (2.0 * step), clearance, height=0.95)


def _locomote(
    ctx: ActionContext, gait: Gait, *, lean: float, arm_gain: float, elbow: float, params: dict
) -> ActionOutput:
    """Run a gait for the requested time and add the torso lean and the counter-swinging arms."""
    gait = _adapt(gait, ctx.world, ctx.body.leg, ctx.rng)
    # Long enough to reach the gait's speed and keep it for a stride (a walk or run that never gets
    # going teaches that "runs" means a shuffle); only the clip's frame budget may cut it (and then
    # the sampler ends the clip with this action rather than blending out of a stride).
    # (That is always longer than the two steps `gait.min_duration` asks for.)
    least = cruising_duration(gait, ctx.body.leg)
    n = ctx.frames(max(ctx.seconds, least))
    base = ctx.standing(n)
    spine = base.spine.copy()
    lean_now = lean * ctx.style.amplitude**0.5
    spine[:, 0] += lean_now
    spine[:, 2] -= 0.6 * lean_now  # keep looking ahead
    lead = int(ctx.rng.integers(2))
    result = gait_track(base.with_(spine=spine), ctx.body, ctx.world, gait, lead, ctx.rng, ctx.fps)
    track = result.track
    thighs = track.legs[..., 0]  # (T, 2)
    swing = thighs - thighs[:1]
    arms = track.arms.copy()
    gain = arm_gain * ctx.style.amplitude
    arms[:, LEFT, 0] = spine[:, 0] + 0.05 + gain * swing[:, RIGHT]
    arms[:, RIGHT, 0] = spine[:, 0] + 0.05 + gain * swing[:, LEFT]
    # Arms swing from about 50° behind the torso to 65° in front of it, never over the head.
    arms[..., 0] = np.clip(arms[..., 0], spine[:, :1] - 0.9, spine[:, :1] + 1.1)
    arms[..., 1] = elbow + 0.15 * np.abs(swing)[:, ::-1]
    if ctx.world.name in ("ice", "underwater") or ctx.world.floats:
        arms[..., 0] += 0.5 + 0.1 * np.sin(np.arange(n)[:, None] * 0.4 + np.array([0.0, 1.5]))
    params = {**params, "steps": result.steps}
    return ActionOutput(track.with_(arms=arms), params, cut_short=least * ctx.fps > ctx.max_frames)


def walk(ctx: ActionContext) -> ActionOutput:
    """Walking: double support, a small bob, arms swinging against the legs."""
    speed = float(ctx.rng.uniform(0.8, 1.7))
    gait = Gait(speed * ctx.tempo, ctx.dur(0.55 - 0.05 * speed), 0.58, clearance=0.1)
    return _locomote(
        ctx,
        gait,
        lean=0.04,
        arm_gain=0.7,
        elbow=0.25,
        params={"speed": speed_word(speed, 1.0, 1.5), "travel": 1, "speed_m_s": round(speed, 2)},
    )


def walk_backward(ctx: ActionContext) -> ActionOutput:
    """Walking backward: short careful steps, torso upright, the figure keeps facing forward."""
    speed = float(ctx.rng.uniform(0.5, 1.0))
    gait = Gait(-speed * ctx.tempo, ctx.dur(0.6), 0.65, clearance=0.12)
    return _locomote(
        ctx,
        gait,
        lean=-0.03,
        arm_gain=0.4,
        elbow=0.3,
        params={"speed": speed_word(speed, 0.6, 0.9), "travel": -1, "speed_m_s": round(speed, 2)},
    )


def jog(ctx: ActionContext) -> ActionOutput:
    """Jogging: a short flight each step, elbows bent."""
    speed = float(ctx.rng.uniform(2.0, 3.0))
    gait = _running_gait(ctx, speed, stance=0.27, lift=0.45, clearance=0.22)
    return _locomote(
        ctx,
        gait,
        lean=0.08,
        arm_gain=0.8,
        elbow=1.3,
        params={"speed": speed_word(speed, 2.2, 2.8), "travel": 1, "speed_m_s": round(speed, 2)},
    )


def run(ctx: ActionContext) -> ActionOutput:
    """Running: longer flights, high heel recovery, elbows at 90°."""
    speed = float(ctx.rng.uniform(3.3, 5.0))
    gait = _running_gait(ctx, speed, stance=0.2, lift=0.7, clearance=0.35)
    return _locomote(
        ctx,
        gait,
        lean=0.13,
        arm_gain=1.0,
        elbow=1.5,
        params={"speed": speed_word(speed, 3.6, 4.6), "travel": 1, "speed_m_s": round(speed, 2)},
    )


def sprint(ctx: ActionContext) -> ActionOutput:
    """Sprinting: strong forward lean, very short stance, big arm drive."""
    speed = float(ctx.rng.uniform(6.0, 8.0))
    gait = _running_gait(ctx, speed, stance=0.12, lift=0.75, clearance=0.45)
    return _locomote(
        ctx,
        gait,
        lean=0.25,
        arm_gain=1.3,
        elbow=1.6,
        params={"speed": "fast" if speed > 7.3 else None, "travel": 1, "speed_m_s": round(speed, 2)},
    )


def idle(ctx: ActionContext) -> ActionOutput:
    """Standing: breathing, a slow weight shift, arms hanging and swaying a little; feet planted."""
    rng = ctx.rng
    n = ctx.frames(max(ctx.seconds, 1.0))
    t = ctx.times(n)
    base = ctx.standing(n)
    breath = 2.0 * np.pi / ctx.dur(rng.uniform(3.0, 4.5))
    sway = 2.0 * np.pi / ctx.dur(rng.uniform(4.0, 7.0))
    p1, p2 = rng.uniform(0.0, 2.0 * np.pi, size=2)
    amp = ctx.style.amplitude
    # The sway starts at rest (sin² envelope), so a clip that begins here does not start mid-motion.
    onset = np.minimum(1.0, t / 0.8) ** 2
    root = base.root.copy()
    shift = 0.012 if ctx.view == "side" else 0.03
    root[:, 0] += onset * shift * amp * np.sin(sway * t + p1) - onset * shift * amp * np.sin(p1)
    root[:, 1] -= onset * 0.01 * (1.0 + np.sin(sway * 2.0 * t + p2)) * 0.5
    spine = base.spine.copy()
    spine[:, 1] += 0.02 * amp * np.sin(breath * t)
    spine[:, 2] += onset * 0.05 * np.sin(0.5 * breath * t + p2)
    arms = base.arms.copy()
    arms[..., 0] += onset[:, None] * 0.03 * amp * np.sin(sway * t + p1)[:, None]
    track = base.with_(root=root, spine=spine, arms=arms)
    feet = np.broadcast_to(standing_ankles(base, ctx.body)[:1], (n, 2, 2))
    return ActionOutput(track.with_(legs=leg_ik(track, ctx.body, feet)), {})
