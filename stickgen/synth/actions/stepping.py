"""Stepping and whole-body moves: sidestep, tiptoe, march, limp, skip, jumping jacks, crawl, climb, swim,
spin, balance, stumble and fall down.

Three kinds of machinery, shared by the generators below:

- gaits (`gait.gait_track`) reshaped afterwards: tiptoe raises the whole gait onto the balls of the
  feet, march lifts the knees, limp replays a gait through a time warp that shortens the stance on
  the sore leg;
- end-point paths (`_path`): an ankle, a knee or a wrist rests, moves to its next rest along a bulge
  and rests again; a foot leaves and reaches the floor vertically, so nothing near it slides. IK turns
  the paths into limbs (sidestep, crawl, climb, balance, stumble);
- the centre of mass (`_place_on_com`): skip and jumping jacks fly on the world's ballistic between
  ground phases whose COM curve joins the flights smoothly; the root follows from the COM and the
  legs, and every landing pose puts the COM back at its take-off height, so a flight lasts 2·v/g
  (with drag: `physics.flight_time`).

Postures: crawl starts and ends standing (it gets down onto hands and knees and back up); climb ends
on the ladder ("ladder": nothing starts there, so a clip ends with it); fall_down ends lying face down
("lie_front") or on the back ("lie_back"), the "lie" posture, exactly in `floor.lying_pose`, where
`get_up` and `sit_up` begin. The others start and end standing.
Voluntary movements are timed with `ctx.dur`; a fall is timed by gravity. An action longer than its
frame budget is played faster (at most twice as fast), then cut; the ballistic ones are only cut.
"""

from __future__ import annotations

import math

import numpy as np

from stickgen.figure import CONTACT_HEIGHT, J, center_of_mass
from stickgen.synth.actions.floor import lying_pose
from stickgen.synth.actions.spec import STAND, ActionSpec
from stickgen.synth.body import Body
from stickgen.synth.context import ActionContext, ActionOutput, speed_word
from stickgen.synth.flight import HOLD, com_offset
from stickgen.synth.gait import Gait, gait_track
from stickgen.synth.keyframes import keyframes, pulses, smootherstep, smoothstep
from stickgen.synth.kinematics import (
    LEFT,
    RIGHT,
    Track,
    arm_ik,
    forward_kinematics,
    hip_positions,
    leg_drop,
    leg_ik,
    mirrored,
    standing_ankles,
)
from stickgen.synth.physics import World, ballistic, flight_time, takeoff_speed

SIDE_NAMES = ("left", "right")
ANKLES = [J["l_ankle"], J["r_ankle"]]
WRISTS = [J["l_wrist"], J["r_wrist"]]
KNEES = [J["l_knee"], J["r_knee"]]
LIFT = 1.3 * CONTACT_HEIGHT  # m: a foot moves along the floor only this high above it
RISE = 0.3  # share of a move spent leaving (and reaching) a rest
KNEE_HEIGHT = 0.026  # × body height: a knee joint resting on the floor
WRIST_HEIGHT = 0.02  # × body height: a wrist whose hand is flat on the floor
LYING_HEIGHT = 0.055  # × body height: the pelvis of a figure lying on the floor
SHIN_UP = 0.35  # rad: crawling shins rise this far above the horizontal, feet off the floor
MAX_SPEEDUP = 2.0  # an action longer than its budget is played at most this much faster, then cut


# ---------------------------------------------------------------------------------------------------
# Shared tools


def _frames(ctx: ActionContext, seconds: float) -> int:
    """Whole frames (≥ 1) lasting about `seconds`, not capped: `_within_budget` fits the result."""
    return max(1, int(round(seconds * ctx.fps)))


def _resample_array(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """`values` (N, ...) linearly interpolated at fractional indices `idx` (T,)."""
    i = np.clip(np.floor(idx).astype(int), 0, max(len(values) - 2, 0))
    w = np.clip(idx - i, 0.0, 1.0).reshape(-1, *([1] * (values.ndim - 1)))
    return values[i] * (1.0 - w) + values[np.minimum(i + 1, len(values) - 1)] * w


def _resample(track: Track, idx: np.ndarray) -> Track:
    return Track(*(_resample_array(getattr(track, c), idx) for c in ("root", "spine", "arms", "legs")))


def _within_budget(ctx: ActionContext, track: Track, speedup: bool = True) -> Track:
    """The track fitted to `ctx.max_frames`: played up to MAX_SPEEDUP × faster (`speedup`), then cut.

    Positions are kept, so planted feet stay planted at any pace; ballistic actions pass
    `speedup=False`, as their flights must keep the world's timing.
    """
    n = track.num_frames
    if n <= ctx.max_frames:
        return track
    if speedup:
        m = max(ctx.max_frames, math.ceil(n / MAX_SPEEDUP))
        track = _resample(track, np.linspace(0.0, n - 1.0, m))
    return track.slice(0, ctx.max_frames)


def _fade(t: np.ndarray, start: float, stop: float, ramp: float) -> np.ndarray:
    """0 → 1 over `ramp` s from `start`, 1 → 0 over `ramp` s ending at `stop`: a smooth window (T,)."""
    return smoothstep((t - start) / ramp) * smoothstep((stop - t) / ramp)


def _trapezoid(s: np.ndarray, a: float = 0.15) -> np.ndarray:
    """0 → 1 as s goes 0 → 1 (clipped): speeding up over the first `a`, steady, slowing over the last."""
    s = np.clip(s, 0.0, 1.0)
    out = np.where(s < a, s * s / (2 * a), np.where(s > 1 - a, 1 - (1 - s) ** 2 / (2 * a) - a, s - a / 2))
    return out / (1.0 - a)


def _path(t: np.ndarray, start, moves) -> np.ndarray:
    """Positions (T, 2) of an end point (ankle, knee, wrist) resting at `start` (2,), then making `moves`.

    moves: (t0, t1, target (2,), bulge (2,)) in time order, times in s. During a move the point leaves
    its rest along `bulge` (a foot on the floor: straight up), travels to `target` and comes in along
    the bulge; it travels across only once it is LIFT above the floor (a foot leaving or reaching the
    floor rises at least 1.3 × that high), so a foot never slides.
    """
    pos = np.tile(np.asarray(start, dtype=np.float64), (len(t), 1))
    here = np.asarray(start, dtype=np.float64)
    for t0, t1, target, bulge in moves:
        target, bulge = np.asarray(target, dtype=np.float64), np.asarray(bulge, dtype=np.float64)
        s = np.clip((t - t0) / max(t1 - t0, 1e-6), 0.0, 1.0)
        arch = np.sin(0.5 * np.pi * np.clip(np.minimum(s, 1.0 - s) / RISE, 0.0, 1.0))
        need = LIFT - min(here[1], target[1])
        wait = 0.0
        if need > 0.0:
            bulge = np.array([bulge[0], max(bulge[1], 1.3 * need)])
            wait = RISE * 2.0 / np.pi * math.asin(need / bulge[1])
        go = smootherstep((s - wait) / max(1.0 - 2.0 * wait, 1e-6))
        later = t >= t0
        pos[later] = (here + (target - here) * go[:, None] + bulge * arch[:, None])[later]
        here = target
    return pos


def _reachable(targets: np.ndarray, track: Track, body: Body) -> np.ndarray:
    """Ankle targets (T, 2, 2) kept ≥ 0 and raised straight up where the leg cannot reach them."""
    hips = hip_positions(track.root, track.spine[:, 0], body)
    reach = body.leg * 0.995
    dx = np.minimum(np.abs(targets[..., 0] - hips[..., 0]), reach)
    out = targets.copy()
    out[..., 1] = np.maximum(np.maximum(targets[..., 1], 0.0), hips[..., 1] - leg_drop(reach, dx))
    return out


def _fit_root(track: Track, body: Body, ankles: np.ndarray, planted: np.ndarray) -> Track:
    """The pelvis lowered (smoothly) wherever it is too high for the planted (T, 2) ankles; legs by IK."""
    hips = hip_positions(
        np.stack([track.root[:, 0], np.zeros(track.num_frames)], axis=-1), track.spine[:, 0], body
    )
    reach = body.leg * 0.995
    dx = np.abs(ankles[..., 0] - hips[..., 0])
    limit = ankles[..., 1] - hips[..., 1] + leg_drop(reach, dx)
    height = np.minimum(track.root[:, 1], np.where(planted, limit, np.inf).min(axis=1))
    if len(height) >= 5:
        # A running minimum, then a running mean: smooth and nowhere higher than allowed.
        windows = np.lib.stride_tricks.sliding_window_view(np.pad(height, 2, mode="edge"), 5)
        low = np.pad(windows.min(axis=1), 2, mode="edge")
        height = np.lib.stride_tricks.sliding_window_view(low, 5).mean(axis=1)
    track = track.with_(root=np.stack([track.root[:, 0], height], axis=-1))
    return track.with_(legs=leg_ik(track, body, ankles))


def _guard_feet(track: Track, body: Body, fixed: np.ndarray) -> Track:
    """Keyed feet near the floor move straight up and down, never along or through it.

    fixed (T, 2): legs already placed (planted or led by IK). Elsewhere an ankle lower than 3 × the
    contact height has its x held where it left the floor (or where it next lands), released slowly
    above LIFT (the frame after leaving the floor moves little too), and its height kept ≥ 0, by IK.
    """
    ankles = forward_kinematics(track, body)[:, ANKLES]
    target = ankles.copy()
    fix = np.zeros(fixed.shape, dtype=bool)
    high = 3.0 * CONTACT_HEIGHT
    n = len(ankles)
    for leg in (LEFT, RIGHT):
        low = ~fixed[:, leg] & (ankles[:, leg, 1] < high)
        edges = np.diff(np.concatenate([[0], low.astype(np.int8), [0]]))
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
            came_down = a > 0 and not fixed[a - 1, leg] and b < n and fixed[b, leg]
            anchor = ankles[b, leg, 0] if came_down or (a == 0 and b < n) else ankles[a, leg, 0]
            w = smoothstep((ankles[a:b, leg, 1] - LIFT) / (high - LIFT)) ** 2
            target[a:b, leg, 0] = anchor + (ankles[a:b, leg, 0] - anchor) * w
            fix[a:b, leg] = True
    if not fix.any():
        return track
    target = _reachable(target, track, body)
    return track.with_(legs=np.where(fix[:, :, None], leg_ik(track, body, target), track.legs))


def _swing_arms(track: Track, gain: float, offset: float, elbow: float) -> np.ndarray:
    """Side-view arms (T, 2, 2) swinging against the legs about `offset` rad ahead of the torso."""
    thighs = track.legs[..., 0]
    swing = thighs - thighs[:1]
    lean = track.spine[:, 0]
    arms = np.empty_like(track.arms)
    arms[:, LEFT, 0] = lean + offset + gain * swing[:, RIGHT]
    arms[:, RIGHT, 0] = lean + offset + gain * swing[:, LEFT]
    arms[..., 0] = np.clip(arms[..., 0], lean[:, None] - 1.0, lean[:, None] + 1.5)
    arms[..., 1] = elbow + 0.15 * np.abs(swing)[:, ::-1]
    return arms


# ---------------------------------------------------------------------------------------------------
# Stepping gaits


def _gait(
    ctx: ActionContext,
    speed: float,
    step: float,
    duty: float,
    clearance: float,
    height: float = 0.97,
    bob: float = 0.015,
) -> Gait:
    """A walking gait adapted to the world (careful on ice, slow drift in zero g) and to the legs' reach."""
    world = ctx.world
    if world.name == "ice":
        speed, step = speed * 0.6, step * 0.9
    elif world.name == "snow":
        clearance *= 1.3
    elif world.floats:
        speed *= 0.4
    speed *= 1.0 + 0.015 * world.wind
    stance = 2.0 * step * duty
    if abs(speed) * stance > 0.9 * ctx.body.leg:  # the pelvis passes a planted foot by at most 0.9 legs
        step = 0.9 * ctx.body.leg / (abs(speed) * 2.0 * duty)
    return Gait(speed, step, duty, clearance, height, bob * (9.81 / max(world.gravity, 1.0)) ** 0.3)


def _walk_base(ctx: ActionContext, seconds: float, lean: float, head: float, fps: float) -> Track:
    """The clip's standing track for `seconds` (within the budget) at `fps`, leaning and tilting more."""
    n = int(np.clip(round(seconds * fps), 1, ctx.max_frames * fps / ctx.fps))
    base = ctx.standing(n)
    spine = base.spine.copy()
    spine[:, 0] += lean * ctx.style.amplitude**0.5
    spine[:, 2] += head
    return base.with_(spine=spine)


def sidestep(ctx: ActionContext) -> ActionOutput:
    """Stepping sideways (front view): the leading foot steps out, the other closes up to it.

    Casual (upright, arms swaying out with each step) or a defensive shuffle (knees bent, arms wide).
    """
    rng, body = ctx.rng, ctx.body
    direction = 1 if rng.random() < 0.5 else -1
    lead = LEFT if direction > 0 else RIGHT  # from the front the left foot is on the +x side
    shuffle = rng.random() < 0.35
    width = float(rng.uniform(0.22, 0.4)) * body.leg * min(ctx.style.amplitude, 1.2) ** 0.5
    step = ctx.dur(float(rng.uniform(0.35, 0.5) if shuffle else rng.uniform(0.4, 0.6)))
    if ctx.world.name == "ice":
        width, step = width * 0.7, step * 1.2
    cycles = int(np.clip(round((ctx.seconds - 0.6) / (2.0 * step)), 2, 8))
    start = 0.2
    n = _frames(ctx, start + 2.0 * step * cycles + ctx.dur(0.5))
    t = ctx.times(n)
    base = ctx.standing(n)
    feet = standing_ankles(base, body)[0]
    lift = np.array([0.0, float(rng.uniform(0.08, 0.13))])
    moves: list[list] = [[], []]
    for k in range(cycles):
        t0 = start + 2.0 * k * step
        shift = np.array([direction * width * (k + 1), 0.0])
        moves[lead].append((t0, t0 + 0.85 * step, feet[lead] + shift, lift))
        moves[1 - lead].append((t0 + step, t0 + 1.85 * step, feet[1 - lead] + shift, lift))
    ankles = np.stack([_path(t, feet[s], moves[s]) for s in (LEFT, RIGHT)], axis=1)
    # The pelvis follows the feet: a push after each lead step, overlapping into a steady drift.
    pushes = start + 2.0 * step * np.arange(cycles) + 0.35 * step
    root = base.root.copy()
    root[:, 0] += direction * width * sum(smoothstep((t - p) / (2.6 * step)) for p in pushes)
    root[:, 1] *= 0.86 if shuffle else 0.99
    spine = base.spine.copy()
    arms = base.arms.copy()
    if shuffle:
        spine[:, 1] += 0.12  # a low, ready stance, shoulders a little forward
        arms[...] = np.stack([mirrored(0.75), mirrored(-0.5)], axis=-1)
    else:
        arms[..., 0] += mirrored(pulses(t, pushes - 0.55 * step, 1.4 * step) * 0.18 * ctx.style.amplitude)
    track = _fit_root(base.with_(root=root, spine=spine, arms=arms), body, ankles, ankles[..., 1] < 1e-9)
    params = {
        "travel": direction,
        "steps": 2 * cycles,
        "style": "shuffle" if shuffle else "step",
        "speed": speed_word(width / (2.0 * step), 0.25, 0.5),
        "manner": ["in a low stance", "with knees bent", "with arms spread"] if shuffle else [],
    }
    return ActionOutput(_within_budget(ctx, track), params)


def tiptoe(ctx: ActionContext) -> ActionOutput:
    """Walking on the balls of the feet: heels up, small careful steps; sneaking (hunched, knees soft,
    hands up in front) or light (upright, arms a little forward for balance)."""
    rng, body = ctx.rng, ctx.body
    sneak = rng.random() < 0.6
    speed = float(rng.uniform(0.3, 0.7))
    gait = _gait(
        ctx,
        speed * ctx.tempo,
        ctx.dur(float(rng.uniform(0.42, 0.55))),
        0.62,
        clearance=0.08,
        height=0.93 if sneak else 0.985,
        bob=0.008,
    )
    base = _walk_base(ctx, max(ctx.seconds, 2.0), 0.3 if sneak else 0.0, -0.2 if sneak else -0.05, ctx.fps)
    if sneak:
        base.spine[:, 1] += 0.12  # hunched shoulders
    result = gait_track(base, body, ctx.world, gait, int(rng.integers(2)), rng, ctx.fps)
    track = result.track
    t = ctx.times(track.num_frames)
    # On tiptoe the ankles ride a heel height above the floor: the whole figure rises, legs unchanged.
    heel = float(rng.uniform(0.06, 0.09)) * body.height / 1.75
    moving = np.flatnonzero(~result.stance.all(axis=1))
    last = t[moving[-1]] if moving.size else t[-1]
    root = track.root.copy()
    root[:, 1] += heel * smoothstep(t / 0.35) * smoothstep((last + 0.4 - t) / 0.35)
    arms = _swing_arms(track, 0.25, 0.45, 1.7) if sneak else _swing_arms(track, 0.3, 0.35, 0.6)
    params = {
        "speed": speed_word(speed, 0.4, 0.6),
        "travel": 1,
        "style": "sneak" if sneak else "light",
        "steps": result.steps,
        "manner": ["stealthily", "sneakily", "hunched over"] if sneak else ["lightly", "gracefully"],
    }
    return ActionOutput(track.with_(root=root, arms=arms), params)


def march(ctx: ActionContext) -> ActionOutput:
    """Marching: knees lifted high in front, an upright chest, straight arms swinging high; forward or on
    the spot."""
    rng, body = ctx.rng, ctx.body
    in_place = rng.random() < 0.25
    speed = 0.0 if in_place else float(rng.uniform(0.8, 1.4))
    gait = _gait(
        ctx,
        speed * ctx.tempo,
        ctx.dur(float(rng.uniform(0.5, 0.6))),
        0.58,
        clearance=0.1,
        height=0.985,
        bob=0.02,
    )
    base = _walk_base(ctx, max(ctx.seconds, 2.0), -0.03, -0.05, ctx.fps)
    result = gait_track(base, body, ctx.world, gait, int(rng.integers(2)), rng, ctx.fps)
    track = result.track
    # High knees: once a swing foot is off the floor, its thigh turns up in front while the shin keeps
    # its angle, and settles back before the foot comes down (raising the foot itself would flick the
    # heel up behind first).
    knee = float(rng.uniform(0.9, 1.3)) * min(ctx.style.amplitude, 1.2)
    legs = track.legs.copy()
    for foot in (LEFT, RIGHT):
        swing = ~result.stance[:, foot]
        edges = np.diff(np.concatenate([[0], swing.astype(np.int8), [0]]))
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
            s = (np.arange(a, b) - a + 1.0) / (b - a + 1.0)
            raise_ = knee * np.sin(np.pi * np.clip((s - 0.15) / 0.65, 0.0, 1.0)) ** 2
            legs[a:b, foot] += raise_[:, None]
    track = track.with_(legs=legs)
    arms = _swing_arms(track, 0.9 * ctx.style.amplitude, 0.15, 0.1)
    params = {
        "travel": 0 if in_place else 1,
        "speed": speed_word(speed, 0.9, 1.3),
        "in_place": in_place,
        "steps": result.steps,
        "manner": ["in place", "on the spot", "without moving forward"] if in_place else [],
    }
    return ActionOutput(track.with_(arms=arms), params)


def limp(ctx: ActionContext) -> ActionOutput:
    """Limping: a short, careful stance on the sore leg and a long one on the good leg, the torso and head
    dipping each time the sore leg takes the weight; the arm on the sore side is held, bent."""
    rng, body = ctx.rng, ctx.body
    sore = int(rng.integers(2))
    speed = float(rng.uniform(0.5, 0.9))
    gait = _gait(ctx, speed * ctx.tempo, ctx.dur(float(rng.uniform(0.55, 0.65))), 0.62, clearance=0.1)
    # The gait is generated at 4× the frame rate and replayed through a time warp.
    fine = ctx.fps * 4.0
    base = _walk_base(ctx, max(ctx.seconds, 2.2), 0.06, 0.0, fine)
    result = gait_track(base, body, ctx.world, gait, sore, rng, fine)
    kernel = np.ones(int(0.12 * fine)) / int(0.12 * fine)
    on_sore = np.convolve(
        (result.stance[:, sore] & ~result.stance[:, 1 - sore]).astype(float), kernel, "same"
    )
    on_good = np.convolve(
        (result.stance[:, 1 - sore] & ~result.stance[:, sore]).astype(float), kernel, "same"
    )
    severity = float(rng.uniform(0.5, 0.9))
    rate = 1.0 + severity * on_sore - 0.35 * severity * on_good  # playback speed: quick off the sore leg
    real = np.concatenate([[0.0], np.cumsum(1.0 / rate[:-1])]) / fine  # real time of each fine frame
    n = min(int(real[-1] * ctx.fps), ctx.max_frames)
    idx = np.interp(ctx.times(n), real, np.arange(len(real)))
    track, ankles = _resample(result.track, idx), _resample_array(result.ankles, idx)
    load = np.interp(idx, np.arange(len(on_sore)), on_sore)
    spine = track.spine.copy()
    spine[:, 0] += 0.14 * severity * load
    spine[:, 2] += 0.15 * severity * load
    root = track.root.copy()
    root[:, 1] -= 0.025 * severity * load * body.leg
    track = track.with_(root=root, spine=spine)
    track = track.with_(legs=leg_ik(track, body, ankles))
    arms = _swing_arms(track, 0.7, 0.05, 0.3)
    arms[:, sore, 0] = track.spine[:, 0] + 0.25 + 0.25 * (arms[:, sore, 0] - track.spine[:, 0] - 0.05)
    arms[:, sore, 1] = 0.6
    params = {
        "side": SIDE_NAMES[sore],
        "limb": "leg",
        "speed": speed_word(speed, 0.6, 0.8),
        "travel": 1,
        "steps": result.steps,
    }
    return ActionOutput(track.with_(arms=arms), params)


# ---------------------------------------------------------------------------------------------------
# Bouncing: ground phases and ballistic flights of the centre of mass


def _hermite(t: np.ndarray, t0: float, t1: float, p0, p1, v0, v1, vertical=None) -> np.ndarray:
    """The cubic (T, 2) from `p0` with velocity `v0` at `t0` to `p1` with `v1` at `t1`, at times `t` (T,).

    vertical: an optional (start, stop) inside [t0, t1] to which the vertical motion is confined (a push
    at the end of a slow start, a landing absorbed at the start of a slow stop); the height is held
    outside it, so the vertical velocity must be 0 at the held end.
    """

    def cubic(time: np.ndarray, a: float, b: float) -> np.ndarray:
        span = b - a
        s = ((time - a) / span)[:, None]
        s2, s3 = s * s, s * s * s
        return (
            (2 * s3 - 3 * s2 + 1) * np.asarray(p0)
            + (s3 - 2 * s2 + s) * span * np.asarray(v0)
            + (3 * s2 - 2 * s3) * np.asarray(p1)
            + (s3 - s2) * span * np.asarray(v1)
        )

    out = cubic(t, t0, t1)
    if vertical is not None:
        out[:, 1] = cubic(np.clip(t, *vertical), *vertical)[:, 1]
    return out


def _landing_velocity(flight: float, v0: tuple[float, float], world: World) -> np.ndarray:
    """Velocity (2,) after `flight` s of ballistic flight from `v0` (central difference)."""
    d = ballistic(np.array([flight - 1e-5, flight + 1e-5]), v0, world)
    return (d[1] - d[0]) / 2e-5


def _fill(t: np.ndarray, pieces) -> np.ndarray:
    """Values (T, 2) of consecutive (start, stop, fn) pieces: fn(times) → (n, 2) for start <= t < stop."""
    out = np.zeros((len(t), 2))
    for a, b, fn in pieces:
        inside = (t >= a) & (t < b)
        if inside.any():
            out[inside] = fn(t[inside])
    return out


def _pose_geometry(body: Body, spine: np.ndarray, arms: np.ndarray, legs: np.ndarray) -> np.ndarray:
    """COM minus each ankle (K, 2, 2) of K poses: spine (K, 3), arms and legs (K, 2, 2)."""
    joints = forward_kinematics(Track(np.zeros((len(spine), 2)), spine, arms, legs), body)
    return center_of_mass(joints)[:, None, :] - joints[:, ANKLES]


def _place_on_com(track: Track, body: Body, com: np.ndarray, ankles: np.ndarray, ik: np.ndarray) -> Track:
    """The root put where the COM is at `com` (T, 2); the legs marked in `ik` (T, 2) reach `ankles` by IK.

    In the air, with keyed legs, the COM offset depends on the angles only and one pass is exact; IK
    legs depend on the root, and a few passes converge (the last IK places the feet exactly).
    """
    mask = ik[..., None]
    for _ in range(4):
        track = track.with_(legs=np.where(mask, leg_ik(track, body, ankles), track.legs))
        track = track.with_(root=com - com_offset(track, body))
    return track.with_(legs=np.where(mask, leg_ik(track, body, ankles), track.legs))


def _anchor_flights(
    t: np.ndarray, keyed: np.ndarray, ankles: np.ndarray, ik: np.ndarray, flights
) -> np.ndarray:
    """Ankle targets (T, 2, 2) of feet in the air: where they took off until they are LIFT high, then the
    keyed ankles (T, 2, 2), then where they land once they come below LIFT again, so a foot near the
    floor never moves along it (a flight too low for that still takes the feet across mid-flight).

    flights: (take-off time, landing time, foot, take-off point (2,), landing point (2,)). Marks the
    frames in `ik` (T, 2) and returns the updated copy of `ankles`.
    """
    out = ankles.copy()
    for a, b, foot, start, stop in flights:
        on = np.flatnonzero((t > a) & (t < b))
        if not on.size:
            continue
        y = keyed[on, foot, 1]
        s = (t[on] - a) / (b - a)
        rise = smoothstep((np.maximum.accumulate(y) - LIFT) / (2.0 * LIFT)) ** 2
        fall = smoothstep((np.maximum.accumulate(y[::-1])[::-1] - LIFT) / (2.0 * LIFT)) ** 2
        off = np.maximum(rise, smoothstep((s - 0.45) / 0.1))
        land = np.maximum(fall, smoothstep((0.55 - s) / 0.1))
        x = start[0] + (keyed[on, foot, 0] - start[0]) * off
        out[on, foot, 0] = stop[0] + (x - stop[0]) * land
        out[on, foot, 1] = y
        ik[on, foot] = True
    return out


def _stance(
    body: Body, spine: np.ndarray, arms: np.ndarray, feet: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Legs (2, 2) and COM (2,) of a figure on `feet` (2, 2) (x from its pelvis), legs at 99.5 % reach."""
    hips = hip_positions(np.zeros((1, 2)), spine[None, 0], body)[0]
    reach = np.sqrt(np.maximum((0.995 * body.leg) ** 2 - (feet[:, 0] - hips[:, 0]) ** 2, 0.0))
    track = Track(
        np.array([[0.0, float(reach.min() - hips[:, 1].max())]]), spine[None], arms[None], np.zeros((1, 2, 2))
    )
    track = track.with_(legs=leg_ik(track, body, feet[None]))
    return track.legs[0], center_of_mass(forward_kinematics(track, body))[0]


def jumping_jacks(ctx: ActionContext) -> ActionOutput:
    """Jumping jacks (front view): hop to land with the feet wide and the hands meeting overhead, hop back
    to feet together and arms down, repeated.

    The wide pose is as wide as it must be for the centre of mass to land at its take-off height (the
    raised arms lift it, the spread legs lower it), so every flight lasts exactly 2·v/g of the world.
    The feet leave and reach the floor vertically and spread (or close) in the air, knees bending out
    a little as they close. In zero gravity the first push floats the figure away, still sweeping.
    """
    rng, body, world, fps = ctx.rng, ctx.body, ctx.world, ctx.fps
    stand = ctx.standing(1)
    x0, spine = stand.root[0, 0], stand.spine[0]
    closed_arms = stand.arms[0]
    open_arms = np.stack([mirrored(np.pi - 0.3), mirrored(-0.2)], axis=-1)
    closed_feet = standing_ankles(stand, body)[0] - [x0, 0.0]
    closed_legs, closed_com = _stance(body, spine, closed_arms, closed_feet)
    lo, hi = closed_feet[LEFT, 0], 0.8 * body.leg
    for _ in range(40):  # bisection on the half-width: a wider stance lowers the COM
        half = 0.5 * (lo + hi)
        open_feet = np.array([[half, 0.0], [-half, 0.0]])
        open_legs, open_com = _stance(body, spine, open_arms, open_feet)
        lo, hi = (half, hi) if open_com[1] > closed_com[1] else (lo, half)
    poses = ((closed_arms, closed_legs, closed_feet, closed_com), (open_arms, open_legs, open_feet, open_com))

    # High enough for the feet to leave the floor before they spread or close.
    vy = takeoff_speed(float(rng.uniform(0.1, 0.14)) * min(ctx.style.amplitude, 1.2) ** 0.3)
    if world.floats:
        vy = 0.25  # a gentle push: nothing brings the figure back
    flight = flight_time(vy, world.gravity, world.drag)
    ground = float(np.clip(ctx.dur(float(rng.uniform(0.1, 0.16))), 0.1, 0.2))  # the bounce sets it
    prep, settle = ctx.dur(0.45), ctx.dur(0.45)
    if world.floats:
        hops = 1
    else:
        per_jack = 2.0 * (flight + ground)
        jacks = int(np.clip(round((ctx.seconds - prep - settle) / per_jack), 2, 10))
        hops = 2 * max(1, min(jacks, int((ctx.max_frames / fps - prep - settle - 0.2) / per_jack)))
    t_off = [math.ceil(prep * fps) / fps]  # take off on a frame
    for _ in range(hops - 1):
        t_off.append(math.ceil((t_off[-1] + flight + ground) * fps) / fps)
    t_land = [a + flight for a in t_off]
    n = ctx.max_frames if world.floats else _frames(ctx, t_land[-1] + settle + 0.2)
    t = ctx.times(n)

    # The centre of mass: dip and push, fly, land and dip again, ..., come to rest.
    com0 = closed_com + [x0, 0.0]
    push = (t_off[0] - min(prep, 0.3), t_off[0])
    pieces = [(-1.0, t_off[0], lambda s: _hermite(s, 0.0, t_off[0], com0, com0, (0.0, 0.0), (0.0, vy), push))]
    feet = [closed_feet + [x0, 0.0]]
    c_off = com0
    for k in range(hops):
        pieces.append(
            (t_off[k], t_land[k], lambda s, a=t_off[k], c=c_off: c + ballistic(s - a, (0.0, vy), world))
        )
        if world.floats:
            break
        c_land = c_off + ballistic(np.array([flight]), (0.0, vy), world)[0]
        v_land = _landing_velocity(flight, (0.0, vy), world)
        pose = poses[(k + 1) % 2]
        feet.append(pose[2] + [c_land[0] - pose[3][0], 0.0])
        last = k + 1 == hops
        end = t_land[k] + settle if last else t_off[k + 1]
        v_end = (0.0, 0.0) if last else (0.0, vy)
        absorb = (t_land[k], t_land[k] + min(settle, 0.3)) if last else None
        pieces.append(
            (
                t_land[k],
                end,
                lambda s, a=t_land[k], b=end, c=c_land, v=v_land, w=v_end, y=absorb: _hermite(
                    s, a, b, c, c, v, w, y
                ),
            )
        )
        if last:
            pieces.append((end, math.inf, lambda s, c=c_land: np.broadcast_to(c, (len(s), 2))))
        c_off = c_land
    com = _fill(t, pieces)

    # Keyed arms and legs: each flight sweeps from its take-off pose to its landing pose.
    if world.floats:
        period = ctx.dur(float(rng.uniform(0.45, 0.6)))  # one sweep out or in while floating
        sweeps = np.arange(int(t[-1] / period) + 1)
        key_t = np.concatenate([[0.0], t_off[0] + 0.5 * period * (2 * sweeps + 1)])
        which = np.concatenate([[0], (sweeps + 1) % 2])
    else:
        hold = min(HOLD, 0.25 * flight)
        key_t = np.concatenate([[0.0], *[[a + hold, b - hold] for a, b in zip(t_off, t_land, strict=True)]])
        which = np.concatenate([[0], *[[k % 2, (k + 1) % 2] for k in range(hops)]])
    arms = keyframes(t, key_t, np.stack([poses[w][0] for w in which]))
    legs = keyframes(t, key_t, np.stack([poses[w][1] for w in which]))
    if not world.floats:
        # Mid-flight the feet come up off the floor as they move: spreading, the legs swing out a
        # little further; closing, the knees bend outward.
        arc = np.sin(np.pi * np.clip((t[:, None] - np.asarray(t_off)) / flight, 0.0, 1.0))  # (T, hops)
        legs[..., 0] += arc[:, 0::2].sum(axis=1)[:, None] * mirrored(0.15)
        legs[..., 1] += arc[:, 1::2].sum(axis=1)[:, None] * mirrored(0.35)
    ankles = np.zeros((n, 2, 2))
    planted = np.zeros((n, 2), dtype=bool)
    for a, b, at in zip([0.0, *t_land], [*t_off, math.inf], feet, strict=False):
        on = (t >= a) & (t <= b)
        ankles[on], planted[on] = at, True
    track = _place_on_com(
        Track(np.zeros((n, 2)), np.repeat(spine[None], n, axis=0), arms, legs), body, com, ankles, planted
    )
    if not world.floats:
        ik = planted.copy()
        flights = [
            (a, b, foot, feet[k][foot], feet[k + 1][foot])
            for k, (a, b) in enumerate(zip(t_off, t_land, strict=True))
            for foot in (LEFT, RIGHT)
        ]
        ankles = _anchor_flights(t, forward_kinematics(track, body)[:, ANKLES], ankles, ik, flights)
        track = _place_on_com(track, body, com, _reachable(ankles, track, body), ik)
    params = {
        "reps": None if world.floats else hops // 2,
        "vy": round(vy, 3),
        "speed": None if world.floats else speed_word(1.0 / (flight + ground), 1.8, 2.4),
    }
    return ActionOutput(_within_budget(ctx, track, speedup=False), params)


def _skip_poses(body: Body, spine: np.ndarray, amp: float) -> tuple[list, list, list]:
    """Take-off, mid-flight and landing poses (arms (2, 2), legs (2, 2)) of a skip hop on each foot.

    The free leg's knee is driven up and the arm on the support side swings forward; the support leg
    pushes off behind, tucks its heel in the air and reaches forward to land, turned so that the COM
    lands as high above the ankle as it took off (then the flight lasts 2·v/g).
    """
    takeoff, tuck, landing = [], [], []
    turns = np.linspace(0.0, 0.8, 161)
    for support in (LEFT, RIGHT):
        free = 1 - support
        arms, legs = np.zeros((2, 2)), np.zeros((2, 2))
        arms[support], arms[free] = (1.5 * amp, 0.5), (-0.6 * amp, 0.4)
        legs[support], legs[free] = (-0.3, 0.08), (1.2 * amp, 1.7)
        bent = legs.copy()
        bent[support] = (0.1, 1.0)
        height = _pose_geometry(body, spine[None], arms[None], legs[None])[0, support, 1]
        trial = np.repeat(legs[None], len(turns), axis=0)
        trial[:, support, 0] = turns
        many = len(turns)
        heights = _pose_geometry(
            body, np.repeat(spine[None], many, axis=0), np.repeat(arms[None], many, axis=0), trial
        )[:, support, 1]
        takeoff.append((arms, legs))
        tuck.append((arms, bent))
        landing.append((arms, trial[int(np.argmin(np.abs(heights - height)))]))
    return takeoff, tuck, landing


def skip(ctx: ActionContext) -> ActionOutput:
    """Skipping: step-hop on alternate feet, the free knee driven high and the opposite arm swinging
    forward, then a braking step and feet together. The flights are ballistic under the world's
    gravity and land the COM at its take-off height; in zero gravity the first hop floats away."""
    rng, body, world, fps = ctx.rng, ctx.body, ctx.world, ctx.fps
    amp = min(ctx.style.amplitude, 1.3)
    vx = float(rng.uniform(1.2, 2.0)) * ctx.tempo
    vy = takeoff_speed(float(rng.uniform(0.07, 0.12)) * amp**0.5) if not world.floats else 0.3
    flight = flight_time(vy, world.gravity, world.drag)
    ground = float(np.clip(ctx.dur(float(rng.uniform(0.2, 0.26))), 0.18, 0.3))  # the bounce sets it
    prep, rest = ctx.dur(0.5), ctx.dur(0.8)
    lead_in = 0.3 * flight if math.isfinite(flight) else ctx.dur(0.2)  # a free foot moves on into a flight
    stand = ctx.standing(1)
    spine = stand.spine[0] + [0.08, 0.0, -0.05]
    stand_com = center_of_mass(forward_kinematics(stand, body))[0]
    feet0 = standing_ankles(stand, body)[0]
    takeoff, tuck, landing = _skip_poses(body, spine, amp)
    above = {
        (kind, sup): _pose_geometry(body, spine[None], pose[sup][0][None], pose[sup][1][None])[0, sup]
        for kind, pose in (("off", takeoff), ("land", landing))
        for sup in (LEFT, RIGHT)
    }
    if world.floats:
        hops = 1
    else:
        hops = int(np.clip(round((ctx.seconds - prep - rest) / (flight + ground)), 2, 12))
        hops = max(1, min(hops, int((ctx.max_frames / fps - prep - rest - 0.2) / (flight + ground))))
    lead = int(rng.integers(2))
    supports = [(lead + k) % 2 for k in range(hops)]
    first, other = supports[0], 1 - supports[0]

    # The plan. plants: (start, stop, foot, where); lifts: (start, stop, foot, from) for feet leaving the
    # floor; steps: (start, stop, foot, onto) for feet coming down; flights: (take-off, landing, foot,
    # from, onto) for support feet in the air.
    t_off, c_off = [math.ceil(prep * fps) / fps], [feet0[first] + above[("off", first)]]
    push = (t_off[0] - min(prep, 0.3), t_off[0])
    pieces = [
        (
            -1.0,
            t_off[0],
            lambda s: _hermite(s, 0.0, t_off[0], stand_com, c_off[0], (0.0, 0.0), (vx, vy), push),
        )
    ]
    plants = [(0.0, t_off[0], first, feet0[first]), (0.0, 0.4 * t_off[0], other, feet0[other])]
    lifts = [(0.4 * t_off[0], t_off[0] + lead_in, other, feet0[other])]
    steps, flights, t_land = [], [], []
    push_at = feet0[first]
    for k, sup in enumerate(supports):
        a = t_off[k]
        pieces.append((a, a + flight, lambda s, a=a, c=c_off[k]: c + ballistic(s - a, (vx, vy), world)))
        t_land.append(a + flight)
        if world.floats:
            break
        c_land = c_off[k] + ballistic(np.array([flight]), (vx, vy), world)[0]
        v_land = _landing_velocity(flight, (vx, vy), world)
        landed = c_land - above[("land", sup)]
        flights.append((a, t_land[k], sup, push_at, landed))
        if k + 1 == hops:
            break
        nxt = supports[k + 1]
        b = math.ceil((t_land[k] + ground) * fps) / fps
        c_next = c_land + [vx * (b - t_land[k]), 0.0]
        push_at = c_next - above[("off", nxt)]
        t_step, t_lift = t_land[k] + 0.4 * (b - t_land[k]), t_land[k] + 0.65 * (b - t_land[k])
        pieces.append(
            (
                t_land[k],
                b,
                lambda s, a=t_land[k], b=b, c0=c_land, c1=c_next, v=v_land: _hermite(
                    s, a, b, c0, c1, v, (vx, vy)
                ),
            )
        )
        plants += [(t_land[k], t_lift, sup, landed), (t_step, b, nxt, push_at)]
        steps.append((t_land[k] - lead_in, t_step, nxt, push_at))
        lifts.append((t_lift, b + lead_in, sup, landed))
        t_off.append(b)
        c_off.append(c_next)
    if world.floats:
        n = ctx.max_frames
    else:
        # Stop: the free foot brakes in front, then the other one closes up beside it. Braking takes
        # the legs' effort, not the world's pace: at most 0.7 s.
        stop = min(rest, 0.7)
        end = t_land[-1] + stop
        c_end = np.array([c_land[0] + 0.5 * v_land[0] * stop, stand_com[1]])
        final = feet0 + [c_end[0] - stand_com[0], 0.0]
        sup, free = supports[-1], 1 - supports[-1]
        t_brake, t_close, t_closed = (
            t_land[-1] + 0.45 * stop,
            t_land[-1] + 0.5 * stop,
            t_land[-1] + 0.85 * stop,
        )
        absorb = (t_land[-1], t_land[-1] + min(stop, 0.3))
        pieces += [
            (
                t_land[-1],
                end,
                lambda s: _hermite(s, t_land[-1], end, c_land, c_end, v_land, (0.0, 0.0), absorb),
            ),
            (end, math.inf, lambda s: np.broadcast_to(c_end, (len(s), 2))),
        ]
        plants += [
            (t_land[-1], t_close, sup, landed),
            (t_brake, math.inf, free, final[free]),
            (t_closed, math.inf, sup, final[sup]),
        ]
        steps.append((t_land[-1] - lead_in, t_brake, free, final[free]))
        n = _frames(ctx, end + 0.2)
    t = ctx.times(n)
    com = _fill(t, pieces)

    # Keyed angles: each flight holds its take-off pose, tucks the support heel, reaches to land; the
    # arms switch sides on the floor between hops.
    keys = [(0.0, stand.arms[0], stand.legs[0])]
    for k, sup in enumerate(supports):
        a = t_off[k]
        b = t_land[k] if math.isfinite(t_land[k]) else a + 2.0 * ctx.dur(0.35)
        h = min(HOLD, 0.2 * (b - a))
        keys += [
            (a, *takeoff[sup]),
            (a + h, *takeoff[sup]),
            (0.5 * (a + b), *tuck[sup]),
            (b - h, *landing[sup]),
            (b, *landing[sup]),
        ]
    if world.floats:  # keep skipping in the air, one side after the other
        beat = 2.0 * ctx.dur(0.35)
        for j in range(1, int((t[-1] - keys[-1][0]) / beat) + 2):
            keys.append((keys[-1][0] + beat, *takeoff[(first + j) % 2]))
    else:
        keys.append((t_land[-1] + rest, stand.arms[0], stand.legs[0]))
    key_t = np.array([key[0] for key in keys])
    arms = keyframes(t, key_t, np.stack([key[1] for key in keys]))
    legs = keyframes(t, key_t, np.stack([key[2] for key in keys]))
    ankles = np.zeros((n, 2, 2))
    planted = np.zeros((n, 2), dtype=bool)
    for a, b, foot, at in plants:
        on = (t >= a - 1e-9) & (t <= b + 1e-9)
        ankles[on, foot], planted[on, foot] = at, True
    if not world.floats:  # the closing step
        on = (t > t_close) & (t < t_closed)
        ankles[on, sup] = _path(t[on], landed, [(t_close, t_closed, final[sup], (0.0, 0.08))])
        planted[on, sup] = True
    track = Track(np.zeros((n, 2)), np.repeat(spine[None], n, axis=0), arms, legs)
    track = _place_on_com(track, body, com, ankles, planted)

    # Feet off the floor follow the keyed legs, led from and to the floor: a lifting foot rises before
    # it moves, a stepping foot arrives above its spot before it comes down, a support foot leaves and
    # reaches the floor at its take-off and landing points.
    keyed = forward_kinematics(track, body)[:, ANKLES]
    ik = planted.copy()
    for moves, lifting in ((lifts, True), (steps, False)):
        for a, b, foot, at in moves:
            on = (t > a) & (t < b)
            s = (t[on] - a) / (b - a)
            up = s if lifting else 1.0 - s  # 0 on the floor
            wy = np.sin(0.5 * np.pi * np.clip(up / 0.4, 0.0, 1.0))
            wx = smoothstep((up - 0.4) / 0.6)
            ankles[on, foot] = at + (keyed[on, foot] - at) * np.stack([wx, wy], axis=-1)
            ik[on, foot] = True
    ankles = _reachable(_anchor_flights(t, keyed, ankles, ik, flights), track, body)
    track = _guard_feet(_place_on_com(track, body, com, ankles, ik), body, ik)
    params = {"travel": 1, "speed": speed_word(vx / ctx.tempo, 1.4, 1.8), "hops": hops, "vy": round(vy, 3)}
    return ActionOutput(_within_budget(ctx, track, speedup=False), params)


# ---------------------------------------------------------------------------------------------------
# Crawling, climbing, swimming


def _kneeling_keys(ctx: ActionContext, base: Track, feet: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Root (3, 2) and spine (3, 3) of standing, squatting and kneeling upright over planted `feet` (2, 2).

    Kneeling, the knees are on the floor a shin's length ahead of the ankles, the shins flat.
    """
    body = ctx.body
    x_a = feet[:, 0].mean()
    knee_h = KNEE_HEIGHT * body.height
    x_k = x_a + math.sqrt(body.shin**2 - knee_h**2)
    lean0 = base.spine[0]
    roots = np.array(
        [
            base.root[0],
            (x_a - 0.05 * body.leg, 0.62 * body.leg),
            (x_k + 0.03 * body.thigh, knee_h + 0.99 * body.thigh),
        ]
    )
    spines = np.array([lean0, lean0 + [0.6, 0.1, -0.3], lean0 + [0.55, 0.1, -0.3]])
    return roots, spines


def _knee_legs(track: Track, body: Body, knees: np.ndarray, shin_up: np.ndarray) -> np.ndarray:
    """Legs (T, 2, 2) with the knees at `knees` (T, 2, 2) and the shins rising `shin_up` (T, 2) rad above
    the horizontal behind them (kneeling, crawling, lying on the front).

    A knee out of the thigh's reach is placed on the line to it; a nearer one at its height, further out
    (never lower: a knee near the floor stays above it).
    """
    hips = hip_positions(track.root, track.spine[:, 0], body)
    d = knees - hips
    level = np.sign(d[..., 0] + 1e-12) * np.arccos(np.clip(-d[..., 1] / body.thigh, -1.0, 1.0))
    thigh = np.where(np.hypot(d[..., 0], d[..., 1]) < body.thigh, level, np.arctan2(d[..., 0], -d[..., 1]))
    shin = np.arctan2(-np.cos(shin_up), -np.sin(shin_up))
    return np.stack([thigh, thigh - shin], axis=-1)


def crawl(ctx: ActionContext) -> ActionOutput:
    """Crawling on hands and knees: get down (squat, kneel, hands to the floor), crawl with the diagonal
    limbs moving together (left knee with right hand), feet up off the floor, then get back up."""
    rng, body = ctx.rng, ctx.body
    scale = body.height / 1.75
    cycle = ctx.dur(float(rng.uniform(0.9, 1.3)))
    speed = float(rng.uniform(0.2, 0.4)) * scale * ctx.tempo
    stride = min(speed * cycle, 0.5 * body.thigh)
    down = ctx.dur(np.array([0.0, 0.6, 1.1, 1.5]))  # stand, squat, kneel, hands on the floor
    up = ctx.dur(np.array([0.0, 0.45, 0.95, 1.5]))  # hands off, kneel, squat, stand
    settle = 0.3 * cycle
    cycles = int(np.clip(round((ctx.seconds - down[-1] - up[-1]) / cycle), 2, 8))
    t_go = down[-1] + settle  # the shins are up
    t_stop = t_go + (cycles + 0.4) * cycle  # every limb is still again
    t_rise = t_stop + settle  # the shins are down: getting up starts
    n = _frames(ctx, t_rise + up[-1] + 0.1)
    t = ctx.times(n)
    base = ctx.standing(n)
    feet = standing_ankles(base, body)[0]
    travel = stride * cycles
    shift = np.array([travel, 0.0])

    # Getting down and up: keyed root and spine, legs by IK to the planted feet.
    roots, spines = _kneeling_keys(ctx, base, feet)
    wrist_h = WRIST_HEIGHT * body.height
    torso = body.lower_torso + body.upper_torso - body.shoulder_drop
    lean = math.acos(float(np.clip((wrist_h + 0.96 * body.arm - roots[-1, 1]) / torso, -1.0, 1.0)))
    fours = np.array([lean, 0.0, -0.55 + ctx.style.head])
    key_t = np.concatenate([down, [t_rise], t_rise + up[1:]])
    root = keyframes(t, key_t, np.concatenate([roots, roots[-1:], roots[-1:] + shift, roots[::-1] + shift]))
    spine = keyframes(t, key_t, np.concatenate([spines, [fours, fours], spines[::-1]]))
    on_fours = (t >= down[-1]) & (t <= t_rise)
    root[on_fours, 0] = roots[-1, 0] + travel * _trapezoid(
        (t[on_fours] - t_go) / (t_stop - t_go - 0.4 * cycle), 0.2
    )
    spine[on_fours, 0] += 0.03 * np.sin(4.0 * np.pi * (t[on_fours] - t_go) / cycle)
    ankles = np.broadcast_to(feet, (n, 2, 2)) + np.where((t > t_stop)[:, None, None], shift, 0.0)
    track = Track(root, spine, np.repeat(base.arms[:1], n, axis=0), np.zeros((n, 2, 2)))
    track = track.with_(legs=leg_ik(track, body, ankles))

    # On all fours the knees drive the legs and the hands are planted; diagonal pairs move together.
    k0 = min(int(np.searchsorted(t, down[-1])), n - 1)
    joints0 = forward_kinematics(track.slice(k0, k0 + 1), body)[0]
    knees0 = joints0[KNEES]
    flat = np.arctan2(feet[:, 1] - knees0[:, 1], knees0[:, 0] - feet[:, 0])  # the shins' elevation now
    hand0 = np.array([joints0[J["l_shoulder"], 0] + 0.04 * scale, wrist_h])
    knees, hands = np.empty((n, 2, 2)), np.empty((n, 2, 2))
    for side in (LEFT, RIGHT):
        lead = 0.0 if side == LEFT else 0.5  # the left knee and the right hand go first
        knee_moves, hand_moves = [], []
        for k in range(cycles):
            ahead = [stride * (k + 1), 0.0]
            knee_at, hand_at = t_go + (k + lead) * cycle, t_go + (k + 0.45 - lead) * cycle
            knee_moves.append((knee_at, knee_at + 0.4 * cycle, knees0[side] + ahead, (0.0, 0.04 * scale)))
            hand_moves.append((hand_at, hand_at + 0.4 * cycle, hand0 + ahead, (0.0, 0.07 * scale)))
        knees[:, side] = _path(t, knees0[side], knee_moves)
        hands[:, side] = _path(t, hand0, hand_moves)
    # The pelvis rests on the knee nearest under it; a knee further back or ahead hovers a little.
    hips = hip_positions(np.stack([root[:, 0], np.zeros(n)], axis=-1), spine[:, 0], body)
    dx = np.minimum(np.abs(knees[..., 0] - hips[..., 0]), 0.99 * body.thigh)
    resting = knees[..., 1] <= knees0[None, :, 1] + 1e-9
    height = np.where(resting, knees[..., 1] - hips[..., 1] + np.sqrt(body.thigh**2 - dx**2), -np.inf)
    height = height.max(axis=1)
    root[on_fours, 1] = np.where(np.isfinite(height), height, root[:, 1])[on_fours]
    track = track.with_(root=root)
    shin_up = flat + (SHIN_UP - flat) * _fade(t, down[-1], t_rise, settle)[:, None]
    legs = np.where(
        on_fours[:, None, None], _knee_legs(track, body, knees, shin_up), leg_ik(track, body, ankles)
    )
    track = track.with_(legs=legs)

    # Arms: hanging, reaching forward while kneeling, hands on the floor (IK) while on all fours.
    reach = np.array([[1.1, 0.2], [1.1, 0.2]])
    keyed = keyframes(
        t,
        [0.0, down[1], down[2], t_rise + up[1], t_rise + up[2], t_rise + up[3]],
        np.stack([base.arms[0], reach * 0.7, reach, reach, reach * 0.7, base.arms[0]]),
    )
    hands = np.where(
        on_fours[:, None, None], hands, np.where((t < t_go)[:, None, None], hand0, hand0 + shift)
    )
    placed = arm_ik(track, body, hands, bend=-1.0)
    w = smoothstep(np.minimum((t - down[2]) / (down[3] - down[2]), (t_rise + up[1] - t) / up[1]))
    track = track.with_(arms=keyed * (1.0 - w[:, None, None]) + placed * w[:, None, None])
    params = {"speed": speed_word(speed / scale, 0.25, 0.35), "travel": 1, "cycles": cycles}
    return ActionOutput(_within_budget(ctx, track), params)


def climb(ctx: ActionContext) -> ActionOutput:
    """Climbing an (invisible) ladder in front: the hands grab two rungs, then each step one foot goes up
    two rungs, the body pushes up one and the opposite hand goes up two. Ends on the ladder ("ladder")."""
    rng, body = ctx.rng, ctx.body
    scale = body.height / 1.75
    rung = float(np.clip(0.27 * body.leg / 0.85, 0.2, 0.3))
    step = ctx.dur(float(rng.uniform(0.8, 1.2)))
    grab, hold = ctx.dur(0.9), ctx.dur(0.5)
    steps = int(np.clip(round((ctx.seconds - grab) / step), 2, 9))
    steps = max(1, min(steps, int((ctx.max_frames / ctx.fps - grab - hold) / step + 0.4)))
    n = _frames(ctx, grab + (steps - 0.4) * step + hold)
    t = ctx.times(n)
    base = ctx.standing(n)
    feet = standing_ankles(base, body)[0]
    x0 = base.root[0, 0]
    ladder = x0 + 0.42 * scale
    foot_x, hand_x = ladder - 0.08 * scale, ladder - 0.03 * scale
    crouch = 0.96 * math.sqrt((0.995 * body.leg) ** 2 - (foot_x - x0) ** 2)  # pelvis above the lower foot
    lead = int(rng.integers(2))
    t_step = grab + step * np.maximum(np.arange(steps) - 0.4, 0.0)  # the first step has no push: shorter

    # Feet: step k lifts the lower foot two rungs (the first two steps come off the floor).
    moves: list[list] = [[], []]
    for k in range(steps):
        bulge = (0.0, 0.1) if k < 2 else (-0.1 * scale, 0.06)  # back from the ladder to pass the rungs
        moves[(lead + k) % 2].append((t_step[k], t_step[k] + 0.45 * step, (foot_x, (k + 1) * rung), bulge))
    ankles = np.stack([_path(t, feet[s], moves[s]) for s in (LEFT, RIGHT)], axis=1)
    rise = sum((smoothstep((t - tk - 0.4 * step) / (0.45 * step)) for tk in t_step[1:]), np.zeros(n))
    root = base.root.copy()
    root[:, 1] = base.root[0, 1] + (crouch - base.root[0, 1]) * smoothstep(t / grab) + rung * rise
    spine = base.spine.copy()
    spine[:, 0] += 0.06 * smoothstep(t / grab)
    spine[:, 2] -= 0.3 * smoothstep(t / grab)  # looking up the ladder
    track = base.with_(root=root, spine=spine)
    track = track.with_(legs=leg_ik(track, body, ankles))

    # Hands: grab the rungs just above the shoulders; after each push the lower hand goes up two.
    shoulder_y = forward_kinematics(track.slice(n - 1, n), body)[0, J["l_shoulder"], 1] - rung * rise[-1]
    grip = {lead: math.ceil((shoulder_y + 0.1 * scale) / rung)}
    grip[1 - lead] = grip[lead] + 1
    wrists0 = forward_kinematics(track.slice(0, 1), body)[0, WRISTS]
    hand_moves: list[list] = [[], []]
    for side, tg in ((lead, 0.1), (1 - lead, 0.45)):
        hand_moves[side].append(
            (ctx.dur(tg), ctx.dur(tg + 0.4), (hand_x, grip[side] * rung), (-0.05 * scale, 0.08))
        )
    for k in range(1, steps):
        side = (lead + k + 1) % 2
        grip[side] += 2
        hand_moves[side].append(
            (
                t_step[k] + 0.6 * step,
                t_step[k] + 0.95 * step,
                (hand_x, grip[side] * rung),
                (-0.1 * scale, 0.05),
            )
        )
    wrists = np.stack([_path(t, wrists0[s], hand_moves[s]) for s in (LEFT, RIGHT)], axis=1)
    track = track.with_(arms=arm_ik(track, body, wrists, bend=-1.0))
    params = {
        "rungs": steps,
        "speed": speed_word(1.0 / step, 0.9, 1.2),
        "height_m": round((steps - 1) * rung, 2),
        "height": "low" if steps <= 3 else "high" if steps >= 7 else None,
        "manner": ["rung by rung", "hand over hand"],
    }
    return ActionOutput(_within_budget(ctx, track), params, end_state="ladder")


def swim(ctx: ActionContext) -> ActionOutput:
    """Swimming: push off into a horizontal glide, front crawl (arms windmilling in turn, flutter kick)
    or breaststroke (arms sweep and shoot forward together, frog kick, glide), then stand up again.

    The swimmer floats at a height where the deepest stroke stays above the floor (outside water it is
    the same motion, as if at the surface).
    """
    rng, body = ctx.rng, ctx.body
    scale = body.height / 1.75
    crawl_stroke = rng.random() < 0.6
    cycle = ctx.dur(float(rng.uniform(1.0, 1.4) if crawl_stroke else rng.uniform(1.2, 1.6)))
    speed = float(rng.uniform(0.5, 0.9) if crawl_stroke else rng.uniform(0.4, 0.7)) * scale * ctx.tempo
    t_in, t_out = ctx.dur(1.1), ctx.dur(1.3)
    strokes = int(np.clip(round((ctx.seconds - t_in - t_out) / cycle), 2, 8))
    strokes = max(1, min(strokes, int((ctx.max_frames / ctx.fps - t_in - t_out - 0.2) / cycle - 0.5)))
    swim_time = (strokes + (0.5 if crawl_stroke else 0.0)) * cycle
    t_end = t_in + swim_time  # the strokes end: stand up
    n = _frames(ctx, t_end + t_out + 0.2)
    t = ctx.times(n)
    base = ctx.standing(n)
    feet = standing_ankles(base, body)[0]
    stand, lean0 = base.root[0], base.spine[0]
    depth = body.arm + (0.12 + float(rng.uniform(0.0, 0.15))) * scale  # the pelvis height while swimming
    glide_in = body.leg * 0.6
    travel = speed * swim_time
    x_end = stand[0] + glide_in + travel
    out_x = x_end + 0.45 * body.leg
    key_t = [0.0, 0.3 * t_in, 0.6 * t_in, t_in, t_end, t_end + 0.55 * t_out, t_end + t_out]
    root = keyframes(
        t,
        key_t,
        np.array(
            [
                stand,
                stand + [0.02, -0.12 * body.leg],
                (stand[0] + 0.3 * glide_in, depth + 0.1 * body.leg),
                (stand[0] + glide_in, depth),
                (x_end, depth),
                (out_x - 0.1 * body.leg, stand[1]),
                (out_x, stand[1]),
            ]
        ),
    )
    swimming = (t >= t_in) & (t <= t_end)
    root[swimming, 0] = stand[0] + glide_in + travel * _trapezoid((t[swimming] - t_in) / swim_time, 0.1)
    flat = np.array([np.pi / 2, 0.0, 0.1])
    spine = keyframes(
        t,
        key_t,
        np.stack(
            [lean0, lean0 + [0.6, 0.1, -0.2], [1.2, 0.0, -0.1], flat, flat, lean0 + [0.35, 0.0, -0.2], lean0]
        ),
    )
    glide = np.array([[np.pi / 2 + 0.1, 0.0], [np.pi / 2 + 0.1, 0.0]])
    arms = keyframes(
        t,
        key_t,
        np.stack(
            [
                base.arms[0],
                [[1.3, 0.3], [1.3, 0.3]],
                glide,
                glide,
                glide,
                [[0.6, 0.4], [0.6, 0.4]],
                base.arms[0],
            ]
        ),
    )
    trail = np.array([[-np.pi / 2 + 0.05, 0.1], [-np.pi / 2 + 0.05, 0.1]])
    # The feet are planted until the push and again once back on the floor; in between the legs tuck
    # (heels up: the feet leave the floor upward), trail behind, and swing back under the body.
    planted = (t <= key_t[1]) | (t >= key_t[-1])
    ankles = np.where((t <= key_t[1])[:, None, None], feet, feet + [out_x - stand[0], 0.0])
    ik = leg_ik(Track(root, spine, arms, np.zeros((n, 2, 2))), body, ankles)
    pushed = ik[int(np.searchsorted(t, key_t[1], side="right")) - 1]
    legs = keyframes(
        t,
        key_t[1:],
        np.stack([pushed, [[0.3, 1.8], [0.3, 1.8]], trail, trail, [[0.6, 1.6], [0.6, 1.6]], ik[-1]]),
    )
    legs = np.where(planted[:, None, None], ik, legs)

    s = np.clip((t - t_in) / cycle, 0.0, None)
    stroke = _fade(t, t_in, t_end, 0.35 * cycle)
    if crawl_stroke:
        # Each arm turns backward through a full circle per cycle: pull under the body, recover over it.
        for side, offset in ((LEFT, 0.0), (RIGHT, 0.5)):
            turn = np.clip(s - offset, 0.0, strokes)
            frac = turn % 1.0
            arms[:, side, 0] = np.where(swimming, arms[:, side, 0] - 2.0 * np.pi * turn, arms[:, side, 0])
            bend = np.where(
                frac < 0.5, 0.35 * np.sin(2 * np.pi * frac), 1.1 * np.sin(np.pi * (2 * frac - 1.0)) ** 2
            )
            arms[:, side, 1] += stroke * bend
        kick = 2.0 * np.pi * 3.0 * s  # six beats per cycle
        legs[:, LEFT, 0] += stroke * 0.22 * np.sin(kick)
        legs[:, RIGHT, 0] += stroke * 0.22 * np.sin(kick + np.pi)
        legs[..., 1] += stroke[:, None] * (0.2 + 0.2 * np.sin(kick[:, None] - 1.0 + [0.0, np.pi]))
    else:
        u = s % 1.0
        pull = keyframes(
            u, [0.0, 0.3, 0.45, 0.55, 1.0], np.array([glide[0], [0.5, 1.4], [0.2, 2.2], glide[0], glide[0]])
        )
        frog = keyframes(
            u, [0.0, 0.3, 0.5, 0.68, 1.0], np.array([trail[0], trail[0], [-0.7, 2.2], trail[0], trail[0]])
        )
        w = stroke[:, None, None]
        arms = arms * (1.0 - w) + pull[:, None] * w
        legs = legs * (1.0 - w) + frog[:, None] * w
        spine[:, 0] -= stroke * 0.12 * np.sin(np.pi * np.clip(u / 0.55, 0.0, 1.0)) ** 2  # chest up to breathe
    root[:, 1] += stroke * 0.02 * np.sin(2.0 * np.pi * s * (2.0 if crawl_stroke else 1.0))
    track = _guard_feet(Track(root, spine, arms, legs), body, np.repeat(planted[:, None], 2, axis=1))
    params = {
        "stroke": "front crawl" if crawl_stroke else "breaststroke",
        "manner": ["doing the front crawl", "freestyle", "with crawl strokes"]
        if crawl_stroke
        else ["doing the breaststroke", "with breaststrokes", "breaststroke style"],
        "travel": 1,
        "strokes": strokes,
        "speed": speed_word(speed / scale, 0.55, 0.75),
    }
    return ActionOutput(_within_budget(ctx, track), params)


# ---------------------------------------------------------------------------------------------------
# On the spot


def spin(ctx: ActionContext) -> ActionOutput:
    """Spinning on the spot, up on the balls of the feet with the arms raised in a V, one to three turns.

    In 2D a turn is drawn as the projection of the raised arms (at constant length): seen from the side
    they point straight up, and they open into a V each time the figure faces the viewer or turns its
    back, swapping sides between the two; the torso's forward lean turns with the body.
    """
    rng, body = ctx.rng, ctx.body
    turns = int(rng.choice([1, 1, 2, 2, 3]))
    rev = ctx.dur(float(rng.uniform(0.6, 1.0)))
    prep, finish = ctx.dur(0.45), ctx.dur(0.55)
    turns = max(1, min(turns, int((ctx.max_frames / ctx.fps - prep - finish - 0.1) / rev)))
    spin_time = turns * rev
    n = _frames(ctx, prep + spin_time + finish + 0.1)
    t = ctx.times(n)
    base = ctx.standing(n)
    phi = 2.0 * np.pi * turns * _trapezoid((t - prep) / spin_time)  # yaw, 0 = facing +x
    elevation = float(rng.uniform(0.5, 1.0))
    raised = smoothstep(t / prep) * smoothstep((prep + spin_time + finish - t) / finish)
    arms = base.arms.copy()
    for side, sign in ((LEFT, 1.0), (RIGHT, -1.0)):
        # An arm out to that side raised by e, at yaw φ: x = ±cos e · sin φ, y = sin e.
        angle = np.unwrap(
            np.arctan2(sign * math.cos(elevation) * np.sin(phi), np.full(n, -math.sin(elevation)))
        )
        angle += 2.0 * np.pi * np.round((base.arms[0, side, 0] - angle[0]) / (2.0 * np.pi))  # raised in front
        arms[:, side, 0] = base.arms[:, side, 0] * (1.0 - raised) + angle * raised
        arms[:, side, 1] = base.arms[:, side, 1] * (1.0 - raised)
    on_toes = _fade(t, prep * 0.5, prep + spin_time + finish * 0.5, prep * 0.5)
    spine = base.spine.copy()
    spine[:, 0] += 0.08 * np.cos(phi) * on_toes
    heel = 0.04 * body.height / 1.75
    feet = np.repeat(standing_ankles(base, body)[:1], n, axis=0)
    feet[..., 1] += heel * on_toes[:, None]
    root = base.root.copy()
    root[:, 1] += heel * on_toes - 0.05 * body.leg * pulses(
        t, [0.0, prep + spin_time], max(prep, finish) * 1.2
    )
    track = base.with_(root=root, spine=spine, arms=arms)
    track = track.with_(legs=leg_ik(track, body, feet))
    params = {
        "reps": turns,
        "speed": speed_word(1.0 / rev, 1.1, 1.5),
        "manner": ["with arms raised", "with its arms up", "on tiptoe", "like a ballerina"],
    }
    return ActionOutput(_within_budget(ctx, track), params)


def _balance_x(track: Track, body: Body, ankles: np.ndarray, support_x: float, weight: np.ndarray) -> Track:
    """The pelvis shifted so that the COM is above `support_x` as far as `weight` (T,) 0..1 says; the
    legs reach `ankles` (T, 2, 2) by IK."""
    for _ in range(3):
        com = center_of_mass(forward_kinematics(track, body))
        root = track.root.copy()
        root[:, 0] += (support_x - com[:, 0]) * weight
        track = track.with_(root=root)
        track = track.with_(legs=leg_ik(track, body, ankles))
    return track


def balance(ctx: ActionContext) -> ActionOutput:
    """Standing on one leg: shift over the support foot, lift the other, arms out, wobble, come down.

    Front view: the free foot rests against the support knee (tree pose), arms out to the sides.
    Side view: a stork (knee up in front, arms forward) or an arabesque (torso forward, leg back).
    """
    rng, body, view = ctx.rng, ctx.body, ctx.view
    support = int(rng.integers(2))
    free = 1 - support
    pose = "tree" if view == "front" else ("stork" if rng.random() < 0.5 else "arabesque")
    shift, lift = ctx.dur(0.5), ctx.dur(0.6)
    hold = max(ctx.seconds - ctx.dur(2.0), ctx.dur(1.5))
    hold = max(min(hold, ctx.max_frames / ctx.fps - shift - 2.0 * lift - ctx.dur(0.4)), 0.3)
    t_up = shift + lift  # the foot is up
    t_down = t_up + hold  # it starts coming down
    t_end = t_down + lift + ctx.dur(0.4)
    n = _frames(ctx, t_end)
    t = ctx.times(n)
    base = ctx.standing(n)
    feet = standing_ankles(base, body)[0]
    up = smoothstep((t - shift * 0.6) / (lift + 0.4 * shift)) * smoothstep((t_end - 0.2 - t) / (lift + 0.2))
    wobble = np.sin(
        2.0 * np.pi * t / ctx.dur(rng.uniform(1.1, 1.6)) + rng.uniform(0.0, 2.0 * np.pi)
    ) + 0.5 * np.sin(2.0 * np.pi * t / ctx.dur(rng.uniform(0.5, 0.8)) + rng.uniform(0.0, 2.0 * np.pi))
    wobble *= float(rng.uniform(0.06, 0.14)) * ctx.style.amplitude * _fade(t, t_up - 0.2, t_down + 0.2, 0.4)

    spine = base.spine.copy()
    hip = hip_positions(base.root[:1], base.spine[:1, 0], body)[0, free]
    leg = body.leg
    if pose == "tree":
        raised = (feet[support, 0] + (0.35 if free == LEFT else -0.35) * body.hip_half_width, 0.42 * leg)
        out = np.stack([mirrored(np.pi / 2 - 0.08), mirrored(-0.1)], axis=-1)
        spine[:, 0] -= 0.6 * wobble  # the arms see-saw against a sideways sway of the torso
        tilt = wobble
    elif pose == "stork":
        raised = (hip[0] + 0.3 * leg, 0.5 * leg)
        out = np.array([[1.45, 0.15], [1.45, 0.15]])
        spine[:, 0] += 0.5 * wobble
        tilt = -wobble
    else:
        lean = float(rng.uniform(0.9, 1.25))
        spine[:, 0] += lean * up + 0.4 * wobble
        spine[:, 2] -= 0.6 * lean * up  # looking ahead
        back = lean + float(rng.uniform(0.0, 0.25))  # the free leg continues the torso's line
        raised = (hip[0] - 0.97 * leg * math.sin(back), max(hip[1] - 0.97 * leg * math.cos(back), 0.15 * leg))
        out = np.array([[1.5 + 0.5 * lean, 0.1], [1.5 + 0.5 * lean, 0.1]])
        tilt = wobble
    arms = base.arms * (1.0 - up[:, None, None]) + out * up[:, None, None]
    arms[..., 0] += tilt[:, None]
    ankles = np.broadcast_to(feet, (n, 2, 2)).copy()
    ankles[:, free] = _path(
        t,
        feet[free],
        [(shift * 0.6, t_up, raised, (0.0, 0.12)), (t_down, t_down + lift, feet[free], (0.0, 0.12))],
    )
    root = base.root.copy()
    root[:, 1] -= 0.02 * leg * up  # the support knee softens a little
    track = base.with_(root=root, spine=spine, arms=arms)
    track = track.with_(legs=leg_ik(track, body, ankles))
    weight = smoothstep(t / shift) * smoothstep((t_end - t) / (lift + 0.3))
    track = _balance_x(track, body, ankles, float(feet[support, 0]), weight)
    manner = {
        "tree": ["in a tree pose", "with arms spread wide", "with its arms out to the sides"],
        "stork": ["like a stork", "with one knee raised", "with its arms forward"],
        "arabesque": ["in an arabesque", "leaning forward with one leg back", "like an airplane"],
    }[pose]
    params = {
        "side": SIDE_NAMES[support],
        "pose": pose,
        "seconds_on_one_leg": round(hold, 2),
        "manner": manner,
    }
    return ActionOutput(_within_budget(ctx, track), params)


# ---------------------------------------------------------------------------------------------------
# Losing balance


def stumble(ctx: ActionContext) -> ActionOutput:
    """Walking, a foot catches mid-swing, the body pitches forward with the arms flung out, a quick long
    step with the other foot catches it, the caught foot comes through, and the figure stops, upright."""
    rng, body = ctx.rng, ctx.body
    trip = int(rng.integers(2))
    other = 1 - trip
    scale, leg = body.height / 1.75, body.leg
    speed = float(rng.uniform(0.9, 1.3)) * ctx.tempo
    step = ctx.dur(float(rng.uniform(0.45, 0.55)))
    walk = int(np.clip(round(ctx.seconds / step - 5.0), 1, 5))  # normal steps before the trip
    walk = max(1, min(walk, int((ctx.max_frames / ctx.fps - ctx.dur(0.7)) / step - 3.7)))
    t_walk = 0.15 + step * np.arange(walk)  # swings of the normal steps; the last one is the other foot's
    t2 = t_walk[-1] + step  # the tripping foot swings ...
    t3 = t2 + 0.35 * step  # ... and is caught
    t4 = t3 + 0.1 * step  # the other foot makes a quick catching step
    t5 = t4 + 0.5 * step  # the caught foot comes through
    t6 = t5 + 0.6 * step  # the other foot closes up
    t_still = t6 + 0.6 * step
    n = _frames(ctx, t_still + ctx.dur(0.7))
    t = ctx.times(n)
    base = ctx.standing(n)
    feet = standing_ankles(base, body)[0]
    offset = feet[:, 0] - base.root[0, 0]

    # Pelvis speed: start walking, lurch forward when the foot is caught, brake to a stop.
    grid = np.linspace(0.0, t[-1] + 0.1, 2000)
    lurch = (
        0.45 * smoothstep((grid - t3) / (0.3 * step)) * (1.0 - smoothstep((grid - t4 - 0.5 * step) / step))
    )
    v = speed * (smoothstep((grid - 0.05) / (0.95 * step)) + lurch)
    v *= 1.0 - smoothstep((grid - t4 - 0.5 * step) / (t_still - t4 - 0.5 * step))
    x = base.root[0, 0] + np.concatenate([[0.0], np.cumsum(0.5 * (v[1:] + v[:-1]) * np.diff(grid))])

    def pelvis(at: float) -> float:
        return float(np.interp(at, grid, x))

    lift = (0.0, 0.09 * scale)
    moves: list[list] = [[], []]
    for j, tj in enumerate(t_walk):
        foot = other if (walk - 1 - j) % 2 == 0 else trip
        # A foot lands where the hip will be in the middle of its stance.
        next_swing = min(tj + 2.0 * step, t2) if j < walk - 1 else t4
        moves[foot].append(
            (tj, tj + 0.8 * step, (pelvis(0.5 * (tj + 0.8 * step + next_swing)) + offset[foot], 0.0), lift)
        )
    caught = (pelvis(t3) + offset[trip] - 0.05 * leg, 0.1 * scale)  # hooked, off the floor
    final = x[-1] + offset
    moves[other] += [
        (t4, t4 + 0.55 * step, (pelvis(t4 + 0.55 * step) + 0.25 * leg, 0.0), (0.0, 0.12 * scale)),
        (t6, t6 + 0.55 * step, (final[other], 0.0), lift),
    ]
    moves[trip] += [
        (t2, t3, caught, (0.0, 0.05 * scale)),
        (t5, t5 + 0.55 * step, (final[trip] + 0.08 * leg, 0.0), (0.0, 0.06 * scale)),
    ]
    ankles = np.stack([_path(t, feet[k], moves[k]) for k in (LEFT, RIGHT)], axis=1)
    root = base.root.copy()
    root[:, 0] = np.interp(t, grid, x)
    root[:, 1] -= 0.06 * leg * pulses(t, [t3], t_still - t3)  # the knees give
    spine = base.spine.copy()
    pitch = keyframes(
        t,
        [0.0, 0.15 + step, t3, t3 + 0.3 * step, t4 + 0.5 * step, t6 + 0.3 * step, t_still + 0.3],
        np.array([[0.0, 0.0], [0.05, 0.0], [0.05, 0.0], [0.45, -0.3], [0.4, -0.3], [0.12, -0.1], [0.0, 0.0]]),
    )
    spine[:, 0] += pitch[:, 0] * ctx.style.amplitude**0.5
    spine[:, 2] += pitch[:, 1]
    track = _fit_root(base.with_(root=root, spine=spine), body, ankles, ankles[..., 1] < 1e-9)
    flung = np.array([[1.7, 0.4], [1.2, 0.7]])[[trip, other]]
    fling = keyframes(
        t, [t3, t3 + 0.25 * step, t5 + 0.3 * step, t_still + 0.2], np.array([0.0, 1.0, 1.0, 0.0])
    )
    arms = _swing_arms(track, 0.6, 0.05, 0.3) * (1.0 - fling[:, None, None]) + flung * fling[:, None, None]
    still = smoothstep((t - t6) / (t_still - t6 + 0.3))[:, None, None]
    arms = arms * (1.0 - still) + base.arms * still
    params = {"side": SIDE_NAMES[trip], "travel": 1, "speed": speed_word(speed, 1.0, 1.2)}
    return ActionOutput(_within_budget(ctx, track.with_(arms=arms)), params)


def _falling(s: np.ndarray) -> np.ndarray:
    """Easing of a fall, s²(2 − s): starting at rest, speeding up, arriving still moving (an impact)."""
    s = np.clip(s, 0.0, 1.0)
    return s * s * (2.0 - s)


def fall_down(ctx: ActionContext) -> ActionOutput:
    """Falling to the floor and lying there: forward (knees buckle, hands catch the fall, the body goes
    down flat on its front: "lie_front") or backward (a hard sit, hands back to catch it, rolling onto
    the back as the legs fly up and come down straight: "lie_back"). Weaker gravity, slower fall.

    It ends exactly in `floor.lying_pose`, where `get_up` and `sit_up` begin.
    """
    rng, body, world = ctx.rng, ctx.body, ctx.world
    leg = body.leg
    forward = rng.random() < 0.55
    # A fall is not voluntary: gravity sets its pace (a toppling body takes a time ∝ sqrt(1 / g)).
    slow = 2.5 if world.floats else min(math.sqrt(9.81 / world.gravity) * (1.0 + 0.15 * world.drag), 3.0)
    keys = np.array([0.0, 0.3, 0.55, 0.75, 1.2]) * slow  # stand, tip, knees or seat down, hands down, flat
    settle = ctx.dur(0.4)  # into the canonical lying pose
    n = _frames(ctx, keys[-1] + settle + ctx.dur(0.5))
    t = ctx.times(n)
    base = ctx.standing(n)
    feet = standing_ankles(base, body)[0]
    x_a = feet[:, 0].mean()
    stand, lean0, hang = base.root[0], base.spine[0], base.arms[0]
    floor_y, knee_h = LYING_HEIGHT * body.height, KNEE_HEIGHT * body.height
    if forward:
        # From kneeling the thighs turn forward about the knees until the body lies flat.
        knee = np.array([x_a + math.sqrt(body.shin**2 - knee_h**2), knee_h])
        tilt = np.array([0.05, 0.25, math.acos((floor_y - knee_h) / body.thigh)])
        arc = knee + body.thigh * np.stack([np.sin(tilt), np.cos(tilt)], axis=-1)
        roots = [stand, stand + [0.06 * leg, -0.03 * leg], *arc]
    else:
        seat = np.array([x_a - 0.42 * leg, 1.1 * floor_y])
        roots = [stand, stand + [-0.08 * leg, -0.05 * leg], seat, seat, (seat[0] - 0.05 * leg, floor_y)]
    lying = lying_pose(body, on_back=not forward)
    lying = lying.with_(root=lying.root + [roots[-1][0], 0.0])
    if forward:
        spines = [lean0, lean0 + [0.35, 0.05, -0.2], [0.9, 0.1, -0.4], [1.2, 0.0, -0.5], lying.spine[0]]
        reach = [[1.5, 0.1], [1.35, 0.2]]
        arm_keys = [hang, [[1.0, 0.4], [0.8, 0.5]], reach, reach, reach]
    else:
        spines = [lean0, lean0 + [-0.3, 0.0, 0.1], [-0.45, 0.0, 0.2], [-0.9, 0.0, 0.3], lying.spine[0]]
        arm_keys = [hang] + [[[1.6, 0.5], [1.3, 0.7]]] * 4  # flailing up in front
    root = keyframes(t, keys, np.array(roots, dtype=float), ease=_falling)
    if forward:
        on_arc = t >= keys[2]
        angle = keyframes(t[on_arc], keys[2:], tilt, ease=_falling)
        root[on_arc] = knee + body.thigh * np.stack([np.sin(angle), np.cos(angle)], axis=-1)
    spine = keyframes(t, keys, np.array(spines, dtype=float), ease=_falling)
    arms = keyframes(t, keys, np.array(arm_keys, dtype=float), ease=_falling)
    track = Track(root, spine, arms, np.zeros((n, 2, 2)))
    track = track.with_(legs=leg_ik(track, body, np.broadcast_to(feet, (n, 2, 2))))
    k = [min(int(np.searchsorted(t, key)), n - 1) for key in keys]
    down = (t >= keys[2])[:, None, None]
    if forward:
        # Once down, the knees stay where they landed (IK of a nearly straight leg would swing a knee
        # through the floor).
        knees = forward_kinematics(track.slice(k[2], k[2] + 1), body)[0, KNEES]
        flat = np.arctan2(feet[:, 1] - knees[:, 1], knees[:, 0] - feet[:, 0])
        kneeling = _knee_legs(track, body, np.broadcast_to(knees, (n, 2, 2)), np.broadcast_to(flat, (n, 2)))
        track = track.with_(legs=np.where(down, kneeling, track.legs))
    else:
        # Rolling back, the legs fly up and come down straight on the floor.
        up_legs = np.array([[2.6, 0.5], [2.5, 0.6]])
        flying = keyframes(t, [keys[2], keys[3] + 0.1 * slow, keys[4]], np.stack([track.legs[k[2]], up_legs,
                                                                              lying.legs[0]]))  # fmt: skip
        track = track.with_(legs=np.where(down, flying, track.legs))
        planted = np.repeat((t < keys[2])[:, None], 2, axis=1)
        track = _guard_feet(track, body, planted)
    # The hands catch the fall on the floor where they will lie, and stay there as the body goes down:
    # in front of the shoulders (then beside the chest), or beside the hips (then along the sides).
    hands = np.broadcast_to(forward_kinematics(lying, body)[0, WRISTS], (n, 2, 2))
    catch_from, catch_at = (keys[2], keys[3]) if forward else (keys[1], keys[2])
    catch = smoothstep((t - catch_from) / (catch_at - catch_from))
    placed = arm_ik(track, body, hands, bend=-1.0)
    arms = arms * (1.0 - catch[:, None, None]) + placed * catch[:, None, None]
    # Settle into the lying pose exactly.
    w = smoothstep((t - keys[4]) / settle)[:, None, None]
    track = track.with_(arms=arms * (1.0 - w) + lying.arms * w, legs=track.legs * (1.0 - w) + lying.legs * w)
    params = {
        "direction": "forward" if forward else "backward",
        "manner": ["forward", "face down", "flat on its face", "onto its front"]
        if forward
        else ["backward", "onto its back", "flat on its back", "on its backside"],
    }
    end_state = "lie_front" if forward else "lie_back"
    return ActionOutput(_within_budget(ctx, track), params, end_state=end_state)


SPECS: tuple[ActionSpec, ...] = (
    ActionSpec("sidestep", sidestep, ("front",), STAND),
    ActionSpec("tiptoe", tiptoe, ("side",), STAND),
    ActionSpec("march", march, ("side",), STAND),
    ActionSpec("limp", limp, ("side",), STAND),
    ActionSpec("skip", skip, ("side",), STAND),
    ActionSpec("jumping_jacks", jumping_jacks, ("front",), STAND),
    ActionSpec("crawl", crawl, ("side",), STAND),
    ActionSpec("climb", climb, ("side",), STAND, "ladder"),
    ActionSpec("swim", swim, ("side",), STAND),
    ActionSpec("spin", spin, ("side",), STAND),
    ActionSpec("balance", balance, ("front", "side"), STAND),
    ActionSpec("stumble", stumble, ("side",), STAND),
    ActionSpec("fall_down", fall_down, ("side",), STAND, "lie"),
)  # fmt: skip
