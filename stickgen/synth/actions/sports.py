"""Combat, sports and effort: fighting moves, ball games, and pushing, pulling and lifting loads.

The actions: punch, kick, block, dodge, throw, catch, swing_bat, golf_swing, shoot_basketball,
dribble, kick_ball, push, pull and lift. The ball, bat, club, rope and box are invisible (the figure
has 16 joints), so poses and timing carry each action: a fighting stance with the fists at the chin,
two hands held together on a grip, a body leaning into an object the hands stay fixed against.

Most generators are a few key poses on a schedule of voluntary durations (`_schedule`, squeezed into
the frame budget when it is short), feet that step by lifting before they move and set down before
they stop (`_feet`), a pelvis kept within reach of the planted feet (`_reachable`), and legs and
hands placed by IK. The jump shot flies on `flight.jump_sequence`; dribbling, pushing and pulling
while moving walk on `gait.gait_track`.
"""

from __future__ import annotations

import math

import numpy as np

from stickgen.figure import CONTACT_HEIGHT, J
from stickgen.synth.actions.spec import STAND, ActionSpec
from stickgen.synth.body import Body
from stickgen.synth.context import ActionContext, ActionOutput, speed_word
from stickgen.synth.flight import Jump, Pose, jump_sequence, landing_time
from stickgen.synth.gait import Gait, gait_track
from stickgen.synth.keyframes import keyframes, smootherstep, smoothstep
from stickgen.synth.kinematics import (
    LEFT,
    RIGHT,
    Track,
    arm_ik,
    concat_tracks,
    forward_kinematics,
    hip_positions,
    leg_drop,
    leg_ik,
    mirrored,
    standing_ankles,
)
from stickgen.synth.physics import flight_time, takeoff_speed

SIDE_NAMES = ("left", "right")
STEP_LIFT = 1.6 * CONTACT_HEIGHT  # m: a stepping foot moves along the floor only above this height
_SHOULDERS = [J["l_shoulder"], J["r_shoulder"]]


# ---------------------------------------------------------------------------------------------------
# Shared pieces


def _schedule(ctx: ActionContext, durations: list[float]) -> np.ndarray:
    """Key times (K + 1,) s: 0, then the running sum of voluntary `durations` (earth seconds).

    Each duration is scaled by `ctx.dur`; when the whole does not fit in `ctx.max_frames` every
    duration shrinks by the same factor (the movement is performed faster, never cut off).
    """
    d = np.array([ctx.dur(x) for x in durations])
    limit = (ctx.max_frames - 1) / ctx.fps
    if d.sum() > limit:
        d *= limit / d.sum()
    return np.concatenate([[0.0], np.cumsum(d)])


def _num_frames(ctx: ActionContext, end: float) -> int:
    """Frames covering 0..`end` s (the last one at or after `end`), within the budget."""
    return int(min(math.ceil(end * ctx.fps - 1e-6) + 1, ctx.max_frames))


def _feet(t: np.ndarray, start: np.ndarray, steps: list[tuple[int, float, float, float]],
          clearance: float = 0.12) -> np.ndarray:  # fmt: skip
    """Ankle targets (T, 2, 2) of feet starting at `start` (2, 2) and making `steps` in time order.

    A step (foot, t0, t1, x) lifts the foot on a sine arc `clearance` m high between t0 and t1 s and
    moves it to `x` only while it is above `STEP_LIFT`, so it never slides along the floor.
    """
    ankles = np.broadcast_to(start, (len(t), 2, 2)).copy()
    lift = math.asin(min(1.0, STEP_LIFT / clearance)) / math.pi
    where = start[:, 0].copy()
    for foot, t0, t1, x in steps:
        s = (t - t0) / (t1 - t0)
        inside, after = (s > 0.0) & (s < 1.0), s >= 1.0
        move = smootherstep((s[inside] - lift) / (1.0 - 2.0 * lift))
        ankles[inside, foot, 0] = where[foot] + (x - where[foot]) * move
        ankles[inside, foot, 1] = clearance * np.sin(np.pi * s[inside])
        ankles[after, foot, 0] = x
        where[foot] = x
    return ankles


def _smooth_above(y: np.ndarray, width: int) -> np.ndarray:
    """A smoothed copy of `y` (T,) nowhere lower than `y`: a running maximum, then a running mean."""
    if len(y) < width:
        return y
    half = width // 2
    windows = np.lib.stride_tricks.sliding_window_view(np.pad(y, half, mode="edge"), width)
    high = np.pad(windows.max(axis=1), half, mode="edge")
    return np.lib.stride_tricks.sliding_window_view(high, width).mean(axis=1)


def _reachable(root: np.ndarray, lean: np.ndarray, ankles: np.ndarray, body: Body) -> np.ndarray:
    """`root` (T, 2) lowered, smoothly, wherever a foot on the floor would be out of the leg's reach."""
    hips = hip_positions(np.stack([root[:, 0], np.zeros(len(root))], axis=-1), lean, body)
    reach = body.leg * 0.99
    dx = ankles[..., 0] - hips[..., 0]
    limit = ankles[..., 1] - hips[..., 1] + leg_drop(reach, dx)
    low = ankles[..., 1] < 2.0 * CONTACT_HEIGHT
    cap = np.where(low, limit, np.inf).min(axis=1)
    out = root.copy()
    out[:, 1] -= _smooth_above(np.maximum(root[:, 1] - cap, 0.0), 5)  # lowered at least as far as needed
    return out


def _with_legs(track: Track, body: Body, ankles: np.ndarray) -> Track:
    """The track with its pelvis within reach and its legs put on `ankles` (T, 2, 2) by IK."""
    track = track.with_(root=_reachable(track.root, track.spine[:, 0], ankles, body))
    return track.with_(legs=leg_ik(track, body, ankles))


def _hands(track: Track, body: Body, wrists: np.ndarray, elbows: np.ndarray) -> np.ndarray:
    """Arm angles (T, 2, 2) reaching `wrists` (T, 2, 2), each elbow bent toward `elbows`.

    `elbows` ((2,), (2, 2) or (T, 2, 2)) are directions: the side of the shoulder → wrist line each
    elbow goes to. The IK bend follows it continuously (the elbow straightens where the two sides
    swap instead of flipping across).
    """
    d = wrists - forward_kinematics(track, body)[:, _SHOULDERS]  # (T, 2, 2) shoulder → wrist
    length = np.maximum(np.linalg.norm(d, axis=-1, keepdims=True), 1e-6)
    normal = np.stack([-d[..., 1], d[..., 0]], axis=-1) / length  # to the left of shoulder → wrist
    bend = np.clip(3.0 * (normal * np.broadcast_to(elbows, d.shape)).sum(axis=-1), -1.0, 1.0)
    return arm_ik(track, body, wrists, bend)


def _wrap(angles: np.ndarray) -> np.ndarray:
    """Angles brought into (−π, π]: the same pose, and a channel that blends with its neighbours."""
    return (angles + np.pi) % (2.0 * np.pi) - np.pi


def _spline(s: np.ndarray, points) -> np.ndarray:
    """Points (T, 2) at `s` (T,) in [0, 1] on a Catmull-Rom curve through `points` (K, 2), evenly spaced.

    Unlike eased keyframes it passes through the inner points without stopping: a swing's path.
    """
    p = np.asarray(points, dtype=np.float64)
    padded = np.concatenate([2.0 * p[:1] - p[1:2], p, 2.0 * p[-1:] - p[-2:-1]])
    u = np.clip(s, 0.0, 1.0) * (len(p) - 1)
    k = np.minimum(u.astype(int), len(p) - 2)
    u = (u - k)[:, None]
    p0, p1, p2, p3 = padded[k], padded[k + 1], padded[k + 2], padded[k + 3]
    m1, m2 = 0.5 * (p2 - p0), 0.5 * (p3 - p1)
    return ((2 * u**3 - 3 * u**2 + 1) * p1 + (u**3 - 2 * u**2 + u) * m1
            + (-2 * u**3 + 3 * u**2) * p2 + (u**3 - u**2) * m2)  # fmt: skip


def _grip(track: Track, body: Body, grip: np.ndarray, hold: np.ndarray) -> np.ndarray:
    """Arms (T, 2, 2) bringing both hands to one grip point `grip` (T, 2) as `hold` (T,) goes 0 → 1.

    The hands travel from where the track's own arms put them (straight, not through the arms'
    angles); the left hand sits 2.5 cm below the right one, as on a bat or a club held right hand on
    top (`grip` is the midpoint).
    """
    free = forward_kinematics(track, body)[:, [J["l_wrist"], J["r_wrist"]]]
    held = np.stack([grip - [0.0, 0.025], grip + [0.0, 0.025]], axis=1)
    wrists = _blend(free, held, smoothstep(hold))
    return _hands(track, body, wrists, np.array([0.0, -1.0]))  # elbows down


def _pair(side: tuple[float, float], front: tuple[float, float], view: str) -> np.ndarray:
    """Both limbs (2, 2) as (upper angle, flexion): equal from the side, mirrored from the front."""
    if view == "side":
        return np.array([side, side], dtype=np.float64)
    return np.stack([mirrored(front[0]), mirrored(front[1])], axis=-1)


def _one(arms: np.ndarray, side: int, value: tuple[float, float]) -> np.ndarray:
    """`arms` (2, 2) with one limb set to `value`."""
    out = np.array(arms, dtype=np.float64)
    out[side] = value
    return out


def _blend(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    """a·(1 − w) + b·w with w (T,) broadcast over the trailing axes."""
    w = w.reshape(-1, *([1] * (np.ndim(a) - 1)))
    return a * (1.0 - w) + b * w


def _stand_feet(ctx: ActionContext) -> np.ndarray:
    """The standing ankle positions (2, 2)."""
    return standing_ankles(ctx.standing(1), ctx.body)[0]


def _walk_seconds(gait: Gait) -> float:
    """The shortest time (s) in which `gait.gait_track` starts, makes two steps and closes the feet."""
    return 0.65 + gait.swing_time + 0.5 * gait.stance_time + gait.step_time


def _walk(ctx: ActionContext, base: Track, gait: Gait, start: int) -> Track:
    """`base` standing still, feet planted, for `start` frames, then walking `gait` from there on.

    The rest of `base` must last at least `_walk_seconds(gait)`. A slow gait's first stepping heel is
    already rising when the gait begins; the standing frames ease it up from the floor (no pop).
    """
    rng, body = ctx.rng, ctx.body
    start = int(np.clip(start, 1, base.num_frames - 2))
    walked = gait_track(base.slice(start, base.num_frames), body, ctx.world, gait, int(rng.integers(2)), rng,
                        ctx.fps)  # fmt: skip
    ankles = np.repeat(standing_ankles(base.slice(0, 1), body), start, axis=0)
    ankles[..., 1] = walked.ankles[0, :, 1] * smoothstep(np.arange(start) / start)[:, None]
    return concat_tracks([_with_legs(base.slice(0, start), body, ankles), walked.track])


def _keyed(ctx: ActionContext, n: int, times, roots, spines, arms, ankles: np.ndarray,
           follow: np.ndarray | None = None) -> Track:  # fmt: skip
    """A track from key root offsets (K, 2), spine offsets (K, 3) and arms (K, 2, 2) at key `times`.

    Root and spine offsets are added to the standing pose; the root x also follows the midpoint of
    the feet `follow` (T, 2, 2; default `ankles`), so the pelvis travels with the steps; legs reach
    `ankles` (T, 2, 2) by IK.
    """
    base = ctx.standing(n)
    t = ctx.times(n)
    follow = ankles if follow is None else follow
    root = base.root + keyframes(t, times, np.asarray(roots, dtype=np.float64))
    root[:, 0] += follow[:, :, 0].mean(axis=1) - follow[0, :, 0].mean()
    spine = base.spine + keyframes(t, times, np.asarray(spines, dtype=np.float64))
    track = Track(root, spine, keyframes(t, times, np.asarray(arms, dtype=np.float64)), base.legs)
    return _with_legs(track, ctx.body, ankles)


# ---------------------------------------------------------------------------------------------------
# Combat

GUARD_LEAD = (0.6, 2.0)  # side view: the lead fist a little forward of the chin
GUARD_REAR = (0.3, 2.4)  # side view: the rear fist at the chin


def _guard(lead: int) -> np.ndarray:
    arms = np.zeros((2, 2))
    arms[lead], arms[1 - lead] = GUARD_LEAD, GUARD_REAR
    return arms


def punch(ctx: ActionContext) -> ActionOutput:
    """Fighting stance, fists up; jabs with the lead arm, crosses with the rear one, or a combination."""
    rng, body = ctx.rng, ctx.body
    lead = int(rng.integers(2))
    kind = str(rng.choice(["jab", "cross", "combo"], p=[0.35, 0.25, 0.4]))
    interval = float(rng.uniform(0.35, 0.65))
    snap = float(rng.uniform(0.09, 0.15))
    reps = int(np.clip(round((ctx.seconds / ctx.dur(1.0) - 1.5) / interval), 1, 6))
    reps = max(reps, 2) if kind == "combo" else reps
    arms_used = [lead if kind == "jab" or (kind == "combo" and k % 2 == 0) else 1 - lead for k in range(reps)]
    gap = max(interval - snap - 0.22, 0.02)
    times = _schedule(ctx, [0.5] + [snap, 0.06, 0.16, gap] * reps + [0.25, 0.5])
    guard, rest = _guard(lead), ctx.standing(1).arms[0]
    low = (0.0, -0.06 * body.leg)
    ready = (0.1, 0.0, 0.1)  # torso a little forward, chin tucked
    roots, spines, arms = [(0.0, 0.0), low], [(0.0, 0.0, 0.0), ready], [rest, guard]
    amp = min(ctx.style.amplitude, 1.2)
    for hand in arms_used:
        rear = hand != lead  # a cross drives the hip and shoulder forward
        hit = _one(guard, hand, (float(rng.uniform(1.4, 1.65)), 0.05))
        shift = (0.06 * rear * amp, low[1] - 0.01)
        twist = (0.1 + 0.15 * rear * amp, 0.0, 0.1)
        roots += [shift, shift, low, low]
        spines += [twist, twist, ready, ready]
        arms += [hit, hit, guard, guard]
    roots += [low, (0.0, 0.0)]
    spines += [ready, (0.0, 0.0, 0.0)]
    arms += [guard, rest]
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    feet = _stand_feet(ctx)
    stagger = 0.38 * body.leg
    steps = [(lead, 0.1 * times[1], 0.9 * times[1], feet[lead, 0] + stagger),
             (lead, times[-2] + 0.1 * (times[-1] - times[-2]), times[-1] - 0.05, feet[lead, 0])]  # fmt: skip
    track = _keyed(ctx, n, times, roots, spines, arms, _feet(t, feet, steps))
    params = {"reps": reps, "side": SIDE_NAMES[arms_used[0]], "limb": "arm", "kind": kind,
              "speed": speed_word(1.0 / interval, 1.8, 2.4)}  # fmt: skip
    if kind == "combo":
        params.pop("side")
    return ActionOutput(track, params)


def kick(ctx: ActionContext) -> ActionOutput:
    """A front kick: guard up, knee chambered, the leg snapped out straight and back, the other foot down."""
    rng, body = ctx.rng, ctx.body
    side = int(rng.integers(2))
    reps = int(np.clip(round((ctx.seconds / ctx.dur(1.0) - 1.0) / 1.1), 1, 3))
    level = float(rng.uniform(1.1, 1.95)) * min(ctx.style.amplitude, 1.15)  # thigh angle of the kick
    snap = float(rng.uniform(0.1, 0.18))
    times = _schedule(ctx, [0.4] + [0.07, 0.16, snap, 0.1, 0.16, 0.16, 0.07, 0.15] * reps + [0.45])
    feet = _stand_feet(ctx)
    rest, guard = ctx.standing(1).arms[0], _guard(side)
    x, h = ctx.standing(1).root[0, 0], ctx.standing(1).root[0, 1] - 0.04 * body.leg
    low, back = (0.0, -0.04 * body.leg), -0.25 * min(ctx.style.amplitude, 1.2)
    ready = (-0.05, 0.05, 0.0)
    floor_foot = feet[side]
    lift = floor_foot + [0.0, 0.1]
    chamber = np.array([x + body.thigh * math.sin(level) - 0.5 * body.shin, h - 0.55 * body.shin])
    out = np.array([x, h]) + 0.97 * body.leg * np.array([math.sin(level), -math.cos(level)])
    roots, spines, arms = [(0.0, 0.0), low], [(0.0, 0.0, 0.0), ready], [rest, guard]
    kicking = [floor_foot, floor_foot]  # the kicking ankle's keys
    extended = (-0.03, low[1])
    for _ in range(reps):
        roots += [low, low, extended, extended, low, low, low, low]
        spines += [ready, ready, (back, 0.1, 0.1), (back, 0.1, 0.1), ready, ready, ready, ready]
        arms += [guard] * 8
        kicking += [lift, chamber, out, out, chamber, lift, floor_foot, floor_foot]
    roots += [(0.0, 0.0)]
    spines += [(0.0, 0.0, 0.0)]
    arms += [rest]
    kicking += [floor_foot]
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    ankles = np.broadcast_to(feet, (n, 2, 2)).copy()
    ankles[:, side] = keyframes(t, times, np.array(kicking))
    track = _keyed(ctx, n, times, roots, spines, arms, ankles, follow=np.broadcast_to(feet, (n, 2, 2)))
    height = "high" if level > 1.7 else "low" if level < 1.3 else None
    params = {"reps": reps, "side": SIDE_NAMES[side], "limb": "foot", "height": height,
              "speed": speed_word(1.0 / snap, 6.5, 8.5)}  # fmt: skip
    return ActionOutput(track, params)


def block(ctx: ActionContext) -> ActionOutput:
    """Forearms up in front of the face (or crossed over the head), knees bent, flinching as blows land."""
    rng, body = ctx.rng, ctx.body
    high = bool(rng.random() < 0.3)
    hits = int(np.clip(round((ctx.seconds / ctx.dur(1.0) - 1.2) / 0.7), 1, 4))
    guard = np.array([[2.3, 2.0], [2.45, 1.85]]) if high else np.array([[1.05, 1.9], [1.2, 1.75]])
    rest = ctx.standing(1).arms[0]
    brace = bool(rng.random() < 0.6)
    low = (0.0, -0.08 * body.leg)
    tuck = (-0.05, 0.1, 0.25)  # chin down behind the arms
    durations = [0.45 if high else 0.35]  # up in front of the face, or further up over the head
    roots, spines, arms = [(0.0, 0.0), low], [(0.0, 0.0, 0.0), tuck], [rest, guard]
    for _ in range(hits):
        durations += [float(rng.uniform(0.2, 0.5)), 0.07, 0.25]
        recoil = (-0.05 * min(ctx.style.amplitude, 1.2), low[1] - 0.02)
        roots += [low, recoil, low]
        spines += [tuck, (tuck[0] - 0.12, 0.15, 0.3), tuck]
        arms += [guard, guard + [[-0.1, 0.1], [-0.1, 0.1]], guard]
    durations += [0.3, 0.45]
    roots += [low, (0.0, 0.0)]
    spines += [tuck, (0.0, 0.0, 0.0)]
    arms += [guard, rest]
    times = _schedule(ctx, durations)
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    feet = _stand_feet(ctx)
    rear = int(rng.integers(2))
    steps = []
    if brace:  # one foot steps back to brace against the blows, and returns at the end
        steps = [(rear, 0.0, times[1] + 0.1, feet[rear, 0] - 0.3 * body.leg),
                 (rear, times[-2], times[-1] - 0.04, feet[rear, 0])]  # fmt: skip
    track = _keyed(ctx, n, times, roots, spines, arms, _feet(t, feet, steps))
    return ActionOutput(track, {"reps": hits, "height": "high" if high else None})


def dodge(ctx: ActionContext) -> ActionOutput:
    """Quick evasions and back: a duck, a lean back or a step back; from the front, a lean or a step aside."""
    rng, body, view = ctx.rng, ctx.body, ctx.view
    kind = str(rng.choice(["duck", "lean", "step"], p=[0.4, 0.3, 0.3]))
    reps = int(np.clip(round((ctx.seconds / ctx.dur(1.0) - 0.6) / 1.0), 1, 3))
    first = int(rng.choice([-1, 1]))
    rest = ctx.standing(1).arms[0]
    guard = _pair((0.6, 2.1), (0.35, -2.7), view)
    amp = min(ctx.style.amplitude, 1.2)
    durations, roots, spines, arms, away = [], [(0.0, 0.0)], [(0.0, 0.0, 0.0)], [rest], []
    for k in range(reps):
        way = first * (-1) ** k if view == "front" else -1  # front: alternate sides; side: backward
        if kind == "duck":
            pose_root = (0.0, -0.32 * body.leg * amp)
            pose_spine = (0.55 if view == "side" else 0.0, 0.1, 0.2)
        elif kind == "lean" and view == "side":  # back, the pelvis forward to keep the balance
            pose_root, pose_spine = (0.08, -0.08 * body.leg), (-0.5 * amp, 0.0, 0.35)
        elif kind == "lean":  # sideways, the pelvis the other way
            pose_root, pose_spine = (-0.06 * way, -0.08 * body.leg), (0.4 * way * amp, 0.1 * way, 0.1 * way)
        else:
            pose_root, pose_spine = (0.0, -0.1 * body.leg), (-0.2 if view == "side" else 0.2 * way, 0.0, 0.0)
        hold = float(rng.uniform(0.2, 0.45))
        durations += [0.26 if kind == "step" else 0.18, hold, 0.3, 0.25]
        roots += [pose_root, pose_root, (0.0, 0.0), (0.0, 0.0)]
        spines += [pose_spine, pose_spine, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)]
        arms += [guard, guard, rest, rest]
        away.append(way)
    times = _schedule(ctx, durations + [0.15])
    roots += [(0.0, 0.0)]
    spines += [(0.0, 0.0, 0.0)]
    arms += [rest]
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    feet = _stand_feet(ctx)
    steps, stepper = [], int(rng.integers(2))
    if kind == "step":
        for k, way in enumerate(away):
            foot = (LEFT if way > 0 else RIGHT) if view == "front" else stepper
            a, b, c = times[4 * k], times[4 * k + 1], times[4 * k + 2]
            out = feet[foot, 0] + 0.45 * body.leg * way
            back = (foot, b + 0.6 * (c - b), times[4 * k + 3] + 0.05 * (c - b), feet[foot, 0])
            steps += [(foot, a, b, out), back]
    track = _keyed(ctx, n, times, roots, spines, arms, _feet(t, feet, steps))
    params = {"reps": reps, "kind": kind, "height": "low" if kind == "duck" else None,
              "travel": first if view == "front" and kind != "duck" and reps == 1 else 0}  # fmt: skip
    return ActionOutput(track, params)


# ---------------------------------------------------------------------------------------------------
# Ball games


def throw(ctx: ActionContext) -> ActionOutput:
    """An overarm throw: the arm cocked back, a step with the other foot, the arm whipped over the top."""
    rng, body = ctx.rng, ctx.body
    side = RIGHT if rng.random() < 0.75 else LEFT
    lead = 1 - side  # the foot opposite the throwing arm steps toward the target
    amp = min(ctx.style.amplitude, 1.2)
    whip = float(rng.uniform(0.28, 0.42))
    # rest, cocked, stride down, (whip), follow-through, back foot joins, rest
    times = _schedule(ctx, [0.45, 0.25, whip, 0.3, 0.45])
    rest = ctx.standing(1).arms[0]
    cocked = np.zeros((2, 2))
    cocked[side], cocked[lead] = (-1.9, -0.9), (1.5, 0.3)
    follow = np.zeros((2, 2))
    follow[side], follow[lead] = (0.55 - 2.0 * np.pi, 0.3), (-0.3, 1.6)
    back_rest = rest.copy()
    back_rest[side, 0] -= 2.0 * np.pi  # the throwing arm went round once: keep the channel continuous
    low = -0.05 * body.leg
    roots = [(0.0, 0.0), (-0.08, low), (-0.08, low), (0.1 * amp, low), (0.0, -0.02), (0.0, 0.0)]
    spines = [(0, 0, 0), (-0.15, 0, -0.05), (-0.1, 0, 0), (0.5 * amp, 0.1, 0.0), (0.1, 0, 0), (0, 0, 0)]
    arms = [rest, cocked, cocked, follow, follow, back_rest]
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    feet = _stand_feet(ctx)
    stride = 0.5 * body.leg * min(amp, 1.1)
    steps = [(lead, times[0] + 0.5 * (times[1] - times[0]), times[2], feet[lead, 0] + stride),
             (side, times[4], times[5] - 0.05, feet[side, 0] + stride)]  # fmt: skip
    track = _keyed(ctx, n, times, roots, spines, arms, _feet(t, feet, steps))
    # The throwing arm whips over the top in one movement, fastest as it passes overhead, the elbow
    # leading and the forearm lagging behind until the release.
    s = smootherstep((t - times[2]) / (times[3] - times[2]))
    over = (t > times[2]) & (t < times[3])
    arms = track.arms.copy()
    arms[over, side, 0] = -1.9 + (0.55 - 2.0 * np.pi + 1.9) * s[over]
    arms[over, side, 1] = keyframes(s[over], [0.0, 0.35, 0.65, 1.0], np.array([-0.9, 0.9, 0.0, 0.3]))
    track = track.with_(arms=_wrap(arms))
    return ActionOutput(track, {"side": SIDE_NAMES[side], "limb": "arm"})


def catch(ctx: ActionContext) -> ActionOutput:
    """Hands up and forward toward the incoming ball, then pulled in to the chest to absorb it."""
    rng, body = ctx.rng, ctx.body
    level = str(rng.choice(["chest", "high", "low"], p=[0.5, 0.3, 0.2]))
    wait = float(rng.uniform(0.3, 0.9))
    times = _schedule(ctx, [0.4, wait, 0.22, 0.5, 0.5])  # ready, watch the ball, absorb, hold, lower
    rest = ctx.standing(1).arms[0]
    reach = {"chest": (1.45, 0.35), "high": (2.5, 0.3), "low": (0.8, 0.35)}[level]
    held = {"chest": (0.35, 2.2), "high": (0.45, 2.3), "low": (0.3, 1.9)}[level]
    lean, head = {"chest": (0.1, -0.1), "high": (-0.05, -0.35), "low": (0.55, 0.1)}[level]
    drop = {"chest": 0.05, "high": 0.0, "low": 0.3}[level] * body.leg
    two = np.array([[0.0, 0.0], [0.08, -0.05]])  # the hands side by side, both visible
    ready, caught = np.array([reach, reach]) + two, np.array([held, held]) + two
    roots = [(0, 0), (0, -drop), (0, -drop), (-0.05, -drop - 0.05 * body.leg), (0, -0.03 * body.leg), (0, 0)]
    absorb = (lean - 0.12, 0.05, 0.1)
    spines = [(0, 0, 0), (lean, 0, head), (lean, 0, head), absorb, (0.05, 0, 0.1), (0, 0, 0)]
    arms = [rest, ready, ready + [[0.05, -0.05], [0.05, -0.05]], caught, caught, rest]
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    feet = _stand_feet(ctx)
    steps = []
    if rng.random() < 0.4:  # a step toward the ball, the other foot joining at the end
        foot = int(rng.integers(2))
        stride = 0.35 * body.leg
        steps = [(foot, 0.05, times[1], feet[foot, 0] + stride),
                 (1 - foot, times[4] + 0.05, times[5] - 0.02, feet[1 - foot, 0] + stride)]  # fmt: skip
    track = _keyed(ctx, n, times, roots, spines, arms, _feet(t, feet, steps))
    return ActionOutput(track, {"height": "high" if level == "high" else None, "level": level})


def swing_bat(ctx: ActionContext) -> ActionOutput:
    """Batting, seen from the pitcher: a wide stance, hands by the back shoulder, a stride, a level swing."""
    rng, body = ctx.rng, ctx.body
    d = 1.0 if rng.random() < 0.8 else -1.0  # a right-handed batter's left side faces the pitcher (+x)
    front, back = (LEFT, RIGHT) if d > 0 else (RIGHT, LEFT)
    u = body.height
    swing = float(rng.uniform(0.22, 0.32))
    times = _schedule(ctx, [0.35, 0.4, float(rng.uniform(0.4, 1.1)), 0.25, swing, 0.55, 0.45, 0.3, 0.3])
    low = -0.07 * body.leg
    roots = [(0, 0), (0, 0.5 * low), (0, low), (0, low), (-0.03 * u * d, low), (0.04 * u * d, low),
             (0.04 * u * d, low), (0, low), (0, 0.5 * low), (0, 0)]  # fmt: skip
    leans = [0.0, 0.0, -0.04, -0.04, -0.08, 0.08, 0.1, 0.0, 0.0, 0.0]
    spines = [(lean * d, 0.0, 0.0) for lean in leans]
    rest = ctx.standing(1).arms[0]
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    feet = _stand_feet(ctx)
    wide = 0.17 * u
    steps = [(back, 0.05, times[1], -wide * d), (front, times[1], times[2], 0.8 * wide * d),
             (front, times[3], times[4], wide * d), (front, times[7], times[8], feet[front, 0]),
             (back, times[8], times[9] - 0.02, feet[back, 0])]  # fmt: skip
    hanging = np.broadcast_to(rest, (len(times), 2, 2))
    track = _keyed(ctx, n, times, roots, spines, hanging, _feet(t, feet, steps))
    # The hands: up by the back shoulder with a small waggle, back a little (load), then round the
    # body in one movement at belly height, up to finish over the front shoulder.
    path = np.array([(-0.17, 0.33), (-0.2, 0.2), (-0.06, 0.11), (0.12, 0.12), (0.24, 0.2), (0.2, 0.3),
                     (0.15, 0.37)]) * u  # fmt: skip
    path[:, 0] *= d
    ready = path[0] + np.array([[0.05, 0.0], [0.02, 0.0], [0.02, 0.0], [0.0, 0.0]]) * [d * u, 0.0]
    ready = keyframes(t, times[[0, 2, 3, 4]], ready)
    waiting = (t > times[2]) & (t < times[3])
    ready[:, 0] += 0.015 * u * d * np.sin(2.0 * np.pi * (t - times[2]) / ctx.dur(0.6)) * waiting
    s = smootherstep((t - times[4]) / (times[5] - times[4]))
    grip = np.where((t >= times[4])[:, None], _spline(s, path), ready) + track.root
    hold = keyframes(t, times[[0, 2, 6, 7]], np.array([0.0, 1.0, 1.0, 0.0]))
    track = track.with_(arms=_grip(track, body, grip, hold))
    return ActionOutput(track, {"hand": SIDE_NAMES[back], "speed": speed_word(1.0 / swing, 3.4, 4.2)})


def golf_swing(ctx: ActionContext) -> ActionOutput:
    """A golf swing seen face-on: address, a slow backswing, a fast downswing through the ball, the finish."""
    rng, body = ctx.rng, ctx.body
    d = 1.0 if rng.random() < 0.8 else -1.0  # a right-handed golfer's target is on their left (+x)
    front, back = (LEFT, RIGHT) if d > 0 else (RIGHT, LEFT)
    u = body.height
    down = float(rng.uniform(0.35, 0.5))
    top = -float(rng.uniform(2.0, 2.5)) * min(ctx.style.amplitude, 1.1)  # the hands' angle at the top
    # step, step and grip, address, backswing, pause, downswing to the finish, hold, let go, step, step
    times = _schedule(ctx, [0.35, 0.4, float(rng.uniform(0.4, 1.0)), 0.8, 0.12, down, 0.8, 0.45, 0.3, 0.3])
    low = -0.06 * body.leg
    roots = [(0, 0), (0, 0.5 * low), (0, low), (0, low), (-0.02 * u * d, low), (-0.02 * u * d, low),
             (0.05 * u * d, low), (0.05 * u * d, low), (0, low), (0, 0.5 * low), (0, 0)]  # fmt: skip
    leans = [0.0, 0.0, -0.03, -0.03, -0.06, -0.06, 0.1, 0.1, 0.0, 0.0, 0.0]
    spines = [(lean * d, 0.0, 0.0) for lean in leans]
    rest = ctx.standing(1).arms[0]
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    feet = _stand_feet(ctx)
    wide = 0.12 * u
    steps = [(back, 0.05, times[1], -wide * d), (front, times[1], times[2], wide * d),
             (front, times[8], times[9], feet[front, 0]),
             (back, times[9], times[10] - 0.02, feet[back, 0])]  # fmt: skip
    ankles = _feet(t, feet, steps)
    # At the finish the back heel comes up as the weight goes onto the front foot.
    ankles[:, back, 1] += 0.035 * keyframes(t, times[[5, 6, 7, 8]], np.array([0.0, 1.0, 1.0, 0.0]))
    track = _keyed(ctx, n, times, roots, spines, np.broadcast_to(rest, (len(times), 2, 2)), ankles)
    # The hands go round a circle about the upper chest, angle ψ from straight down toward the target.
    centre = np.array([0.0, 0.29 * u])
    psi = keyframes(t, times[[2, 3, 4, 5]], np.array([0.1, 0.05, top, top]))
    swing = t >= times[5]
    psi[swing] = top + (2.4 - top) * smootherstep((t[swing] - times[5]) / (times[6] - times[5]))
    radius = np.interp(psi, [-2.5, 0.0, 2.5], [0.29 * u, 0.3 * u, 0.25 * u])
    grip = track.root + centre + radius[:, None] * np.stack([d * np.sin(psi), -np.cos(psi)], axis=-1)
    hold = keyframes(t, times[[1, 2, 7, 8]], np.array([0.0, 1.0, 1.0, 0.0]))
    track = track.with_(arms=_grip(track, body, grip, hold))
    return ActionOutput(track, {"hand": SIDE_NAMES[back], "speed": speed_word(1.0 / down, 2.2, 2.7)})


def shoot_basketball(ctx: ActionContext) -> ActionOutput:
    """A jump shot (the ball gathered at the chest, a jump, both arms extended up and forward), or a set shot.

    Seen from the side only: from the front, arms raised in front of the body look like a cheer.
    """
    rng, body = ctx.rng, ctx.body
    lean = ctx.world.lean + ctx.style.lean * 0.5
    chest = np.array([(0.45, 2.2), (0.45, 2.2)])  # the ball held in front of the chest
    release = np.array([(2.45, 0.15), (2.5, 0.1)])  # both arms up and forward, the ball let go
    after = np.array([(2.2, 0.45), (2.2, 0.45)])
    base = ctx.standing(1)
    rest = Pose(base.spine[0], base.arms[0], base.legs[0])
    vy = takeoff_speed(float(rng.uniform(0.12, 0.35)) * min(ctx.style.amplitude, 1.2))
    budget = ctx.max_frames / ctx.fps - ctx.dur(1.6)
    while not ctx.world.floats and flight_time(vy, ctx.world.gravity, ctx.world.drag) > budget and vy > 0.8:
        vy *= 0.85
    if rng.random() < 0.7 and vy > 0.8:
        spine = np.array([lean, 0.0, -0.15])
        crouch = float(rng.uniform(0.12, 0.2)) * body.leg / 0.85
        legs_up = np.array([(0.15, 0.35), (0.15, 0.35)])
        gather, flying = Pose(spine + [0.25, 0, 0], chest), Pose(spine, release, legs_up)
        jump = Jump(0.0, vy, crouch, 0.7 * crouch, 0.0, gather, Pose(spine, release), flying,
                    Pose(spine + [0.1, 0, 0], after), (True, True), 0.6)  # fmt: skip
        track = jump_sequence(ctx, ctx.standing(ctx.max_frames), [jump], rest, 0.7)
        return ActionOutput(track, {"kind": "jump shot", "vy": round(vy, 3)})
    # A set shot: knees bend with the ball at the chest, then the legs and arms extend together.
    times = _schedule(ctx, [0.5, 0.3, 0.25, 0.5, 0.5])
    dip = (0.0, -0.12 * body.leg)
    roots = [(0, 0), dip, dip, (0, 0), (0, 0), (0, 0)]
    spines = [(0, 0, 0), (0.15, 0, -0.1), (0.15, 0, -0.15), (0.0, 0, -0.15), (0, 0, -0.1), (0, 0, 0)]
    arms = [base.arms[0], chest, chest, release, after, base.arms[0]]
    n = _num_frames(ctx, times[-1])
    track = _keyed(ctx, n, times, roots, spines, arms, np.broadcast_to(_stand_feet(ctx), (n, 2, 2)))
    return ActionOutput(track, {"kind": "set shot"})


def _bounce_time(ctx: ActionContext, drop: float, push: float) -> float:
    """Seconds a ball pushed down at `push` m/s from `drop` m takes to reach the floor (and as long back)."""
    if ctx.world.floats:
        return drop / push  # nothing pulls it down: it travels at the speed it was given
    return landing_time(-push, ctx.world, drop)


def dribble(ctx: ActionContext) -> ActionOutput:
    """Dribbling: knees bent, torso forward, one hand pumping at waist height, in place or walking."""
    rng, body, view = ctx.rng, ctx.body, ctx.view
    side = int(rng.integers(2))
    lead = ctx.dur(0.5)  # into the stance before the first step
    gait = Gait(float(rng.uniform(0.6, 1.3)) * ctx.tempo, ctx.dur(0.5), 0.6, clearance=0.1, height=0.97)
    walking = view == "side" and rng.random() < 0.45
    seconds = max(ctx.seconds, 2.0, lead + _walk_seconds(gait) if walking else 0.0)
    walking = walking and seconds * ctx.fps <= ctx.max_frames
    n = ctx.frames(seconds if walking else max(ctx.seconds, 2.0))
    t = ctx.times(n)
    base = ctx.standing(n)
    crouch = smoothstep(t / ctx.dur(0.5)) * smoothstep((t[-1] - t) / ctx.dur(0.5))  # in and out of the stance
    spine = base.spine.copy()
    spine[:, 0] += crouch * (0.45 if view == "side" else 0.0)
    spine[:, 2] -= crouch * 0.2  # eyes up, not on the ball
    root = base.root.copy()
    root[:, 1] -= crouch * 0.1 * body.leg
    base = base.with_(root=root, spine=spine)
    if walking:
        track = _walk(ctx, base, gait, ctx.frames(lead))
    else:
        track = _with_legs(base, body, np.broadcast_to(_stand_feet(ctx), (n, 2, 2)))
    # The ball's round trip sets the rhythm: pushed down from the hand, it bounces back up to it.
    u = body.height
    top, bottom = 0.08 * u, (-0.06 if view == "side" else -0.05) * u  # the hand's range about the pelvis
    drop = float(np.mean(track.root[:, 1])) + bottom - 0.12  # from the lowest push, less the ball's radius
    push = float(rng.uniform(2.0, 3.0)) * min(ctx.style.amplitude, 1.2)
    period = 2.0 * _bounce_time(ctx, max(drop, 0.1), push) + ctx.dur(0.15)
    phase = 2.0 * np.pi * np.maximum(t - ctx.dur(0.5), 0.0) / period
    pump = (0.5 - 0.5 * np.cos(phase)) * crouch  # 0 at the top, 1 at the bottom of the push
    outward = 1.0 if side == LEFT else -1.0
    reach = np.array([0.2 * u, 0.0]) if view == "side" else np.array([0.18 * u * outward, 0.0])
    wrist = track.root + reach + np.stack([np.zeros(n), top + (bottom - top) * pump], axis=-1)
    free = track.root + ([0.22 * u, 0.2 * u] if view == "side" else [-0.2 * u * outward, 0.12 * u])
    wrists = np.stack([wrist, free] if side == LEFT else [free, wrist], axis=1)
    elbows = np.array([-1.0, 0.0]) if view == "side" else np.array([(1.0, -1.0), (-1.0, -1.0)])  # back / out
    reached = _hands(track, body, wrists, elbows)
    track = track.with_(arms=_blend(np.broadcast_to(ctx.standing(1).arms[0], reached.shape), reached, crouch))
    params = {"side": SIDE_NAMES[side], "limb": "arm", "travel": 1 if walking else 0,
              "speed": speed_word(1.0 / period, 1.6, 2.2), "bounce_s": round(period, 3)}  # fmt: skip
    return ActionOutput(track, params)


def kick_ball(ctx: ActionContext) -> ActionOutput:
    """A run-up of a step or two, the support foot planted beside the ball, the kicking leg swung through."""
    rng, body = ctx.rng, ctx.body
    leg = body.leg
    kicker = int(rng.integers(2))
    support = 1 - kicker
    approach = int(rng.choice([0, 1, 2], p=[0.2, 0.4, 0.4]))
    amp = min(ctx.style.amplitude, 1.2)
    strike = float(rng.uniform(0.16, 0.24))
    step = 0.32
    # approach steps, lift and backswing, swing through the ball, follow-through and set down, join, rest
    times = _schedule(ctx, [0.15] + [step] * approach + [0.28, strike, 0.3, 0.35, 0.35])
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    feet = _stand_feet(ctx)
    stride = 0.45 * leg
    plan, x = [], feet[:, 0].copy()
    order = [kicker, support] if approach == 2 else [support]
    for k, foot in enumerate(order[:approach]):
        x[foot] += stride * (2 if approach == 2 and foot == support else 1)
        plan.append((foot, times[1 + k], times[2 + k], x[foot]))
    kick_at = 1 + approach  # index of the key when the backswing starts
    landing = x[support] + 0.3 * leg
    # Where the feet stand: the kicking foot "steps" from behind the support foot to in front of it
    # during the kick, so the pelvis follows; the ankle itself swings above the floor in between.
    floor_plan = plan + [(kicker, times[kick_at], times[kick_at + 3], landing),
                         (support, times[kick_at + 3], times[kick_at + 4] - 0.02, landing)]  # fmt: skip
    standing_feet = _feet(t, feet, floor_plan)
    # backswing (weight over the support foot, eyes on the ball), contact, follow-through, join, rest
    roots = [(0, 0)] * (kick_at + 1) + [(-0.03 * leg, -0.04 * leg), (0, -0.05 * leg), (0, -0.02 * leg),
                                        (0, 0), (0, 0)]  # fmt: skip
    spines = [(0, 0, 0)] * (kick_at + 1) + [(0.05, 0, 0.15), (-0.1, 0.05, 0.2), (-0.15 * amp, 0.1, 0.1),
                                            (0, 0, 0), (0, 0, 0)]  # fmt: skip
    rest = ctx.standing(1).arms[0]
    balance = np.zeros((2, 2))
    balance[support], balance[kicker] = (1.2, 0.4), (-0.6, 0.4)  # the arm opposite the kick goes forward
    arms = [rest] * (kick_at + 1) + [balance, balance, 0.5 * (balance + rest), rest, rest]
    track = _keyed(ctx, n, times, roots, spines, arms, standing_feet, follow=standing_feet)
    # The kicking ankle: lifted straight up, drawn back and up behind the hip, swung down and forward
    # through the ball (just above the floor, beside the support foot), on up into the follow-through,
    # and set down ahead from above.
    hips = hip_positions(track.root, track.spine[:, 0], body)[:, kicker]
    t0, t1, t2, t3 = times[kick_at : kick_at + 4]
    f1, f2 = (int(np.clip(round(key * ctx.fps), 0, n - 1)) for key in (t1, t2))
    back = np.array([-0.45, -0.55]) * leg
    follow = np.array([0.78, -0.45]) * leg * min(amp, 1.0)
    hit = int(np.clip(round(0.5 * (t1 + t2) * ctx.fps), 0, n - 1))  # the foot meets the ball
    ball = np.array([x[support] + 0.05, 0.1]) - hips[hit]  # relative to the hip
    ankles = standing_feet.copy()
    stage = (t > t0) & (t < t1)
    floor = np.array([x[kicker], 0.0])
    ankles[stage, kicker] = keyframes(t[stage], [t0, t0 + 0.3 * (t1 - t0), t1],
                                      np.array([floor, floor + [0.0, 0.12], hips[f1] + back]))  # fmt: skip
    swing = (t >= t1) & (t < t2)
    s = smootherstep((t[swing] - t1) / (t2 - t1))
    ankles[swing, kicker] = hips[swing] + _spline(s, [back, ball, follow])
    down = (t >= t2) & (t < t3)
    above = np.array([landing, 0.15])
    ankles[down, kicker] = keyframes(t[down], [t2, t2 + 0.7 * (t3 - t2), t3],
                                     np.array([hips[f2] + follow, above, above - [0.0, 0.15]]))  # fmt: skip
    track = _with_legs(track, body, ankles)
    params = {"side": SIDE_NAMES[kicker], "limb": "foot", "steps": approach, "travel": 1,
              "speed": speed_word(1.0 / strike, 4.3, 5.5)}  # fmt: skip
    return ActionOutput(track, params)


# ---------------------------------------------------------------------------------------------------
# Effort


def _effortful(ctx: ActionContext, lean: float, sink: float, speed: float, brace: float):
    """A body that leans `lean` rad and sinks `sink` m into an effort, walking at `speed` m/s.

    With speed 0 (or no time to walk) it stays in place, one foot stepped `brace` m forward (or back,
    < 0) to brace itself and brought back at the end, the pelvis toward the back foot when it leans
    back. Returns the track (arms still hanging), the effort envelope (T,): 0 standing, 1 fully
    engaged, eased in over the first 0.6 s and out over the last, and whether it walked.
    """
    rng, body = ctx.rng, ctx.body
    ramp = ctx.dur(0.6)
    # Heavy going: slow, long stances, short low steps (the nominal height is the sunk posture).
    gait = Gait(speed * ctx.tempo, ctx.dur(0.75), 0.75, clearance=0.08, height=1.0, bob=0.004)
    seconds = max(ctx.seconds, 2.5, ramp + _walk_seconds(gait) if speed else 0.0)
    walking = speed != 0.0 and seconds * ctx.fps <= ctx.max_frames
    n = ctx.frames(seconds if walking else max(ctx.seconds, 2.5))
    t = ctx.times(n)
    base = ctx.standing(n)
    effort = smoothstep(t / ramp) * smoothstep((t[-1] - t) / ramp)
    spine = base.spine + np.stack([lean * effort, 0.05 * effort, -0.5 * lean * effort], axis=-1)
    root = base.root - np.stack([np.zeros(n), sink * effort], axis=-1)
    if not walking:
        feet = _stand_feet(ctx)
        foot = int(rng.integers(2))
        ankles = _feet(t, feet, [(foot, 0.02, 0.9 * ramp, feet[foot, 0] + brace),
                                 (foot, t[-1] - 0.9 * ramp, t[-1] - 0.02, feet[foot, 0])])  # fmt: skip
        sit_back = min(lean, 0.0) * 0.25 * brace * effort
        root[:, 0] += ankles[:, :, 0].mean(axis=1) - feet[:, 0].mean() + sit_back
        return _with_legs(base.with_(root=root, spine=spine), body, ankles), effort, False
    return _walk(ctx, base.with_(root=root, spine=spine), gait, ctx.frames(ramp)), effort, True


def _reach_out(track: Track, body: Body, wrists: np.ndarray, effort: np.ndarray) -> np.ndarray:
    """Arms (T, 2, 2) taking the hands from hanging to `wrists` (T, 2, 2) as `effort` (T,) goes 0 → 1."""
    free = forward_kinematics(track, body)[:, [J["l_wrist"], J["r_wrist"]]]
    return _hands(track, body, _blend(free, wrists, effort), np.array([0.0, -1.0]))


def push(ctx: ActionContext) -> ActionOutput:
    """Pushing something heavy: leaning into it, arms forward, hands on it, walking slowly or braced."""
    rng, body = ctx.rng, ctx.body
    speed = float(rng.uniform(0.25, 0.6)) if rng.random() < 0.8 else 0.0
    lean = float(rng.uniform(0.4, 0.65)) * min(ctx.style.amplitude, 1.2) ** 0.5
    track, effort, moving = _effortful(ctx, lean, 0.06 * body.leg, speed, -0.35 * body.leg)
    # The hands stay on the object, which moves with the body: at a fixed height and distance ahead.
    shoulders = forward_kinematics(track, body)[:, _SHOULDERS].mean(axis=1)
    engaged = int(np.argmax(effort))
    ahead = shoulders[engaged] - track.root[engaged] + [0.9 * body.arm * math.cos(0.15), 0.0]
    level = shoulders[engaged, 1] - 0.9 * body.arm * math.sin(0.15)
    grip = np.stack([track.root[:, 0] + ahead[0], np.full(len(effort), level)], axis=-1)
    wrists = np.stack([grip, grip + [0.02, 0.04]], axis=1)
    track = track.with_(arms=_reach_out(track, body, wrists, effort))
    params = {"travel": 1 if moving else 0, "speed": speed_word(speed, 0.3, 0.5) if moving else None}
    return ActionOutput(track, params)


def pull(ctx: ActionContext) -> ActionOutput:
    """Pulling a rope: leaning back, hauling it in hand over hand, stepping back or braced."""
    rng, body = ctx.rng, ctx.body
    speed = -float(rng.uniform(0.15, 0.4)) if rng.random() < 0.65 else 0.0
    lean = -float(rng.uniform(0.35, 0.55)) * min(ctx.style.amplitude, 1.2) ** 0.5
    track, effort, moving = _effortful(ctx, lean, 0.14 * body.leg, speed, 0.45 * body.leg)
    n = len(effort)
    t = ctx.times(n)
    shoulders = forward_kinematics(track, body)[:, _SHOULDERS].mean(axis=1)
    together = rng.random() < 0.3
    period = ctx.dur(float(rng.uniform(0.9, 1.4)) * (1.3 if together else 1.0))
    # Each hand reaches forward along the rope (at waist height), grips, and hauls back to the body;
    # hand over hand the two alternate, so one is always pulling. A returning hand passes over the rope.
    phases = (t[:, None] / period + np.array([0.0, 0.0 if together else 0.5])) % 1.0  # (T, 2)
    hauling = phases < 0.55
    s = np.where(hauling, smoothstep(phases / 0.55), 1.0 - smoothstep((phases - 0.55) / 0.45))
    near, far = 0.25 * body.arm, 0.85 * body.arm
    rope = shoulders[:, None, :] - track.root[:, None, :]
    x = track.root[:, None, 0] + rope[..., 0] + far + (near - far) * s
    over = 0.05 * ~hauling * np.sin(np.pi * (phases - 0.55) / 0.45)
    y = track.root[:, None, 1] + rope[..., 1] - 0.2 * body.height + over
    wrists = np.stack([x, y], axis=-1)
    # The body rocks back a little with each haul.
    spine = track.spine.copy()
    spine[:, 0] -= 0.04 * effort * (s.mean(axis=1) - 0.5)
    track = track.with_(spine=spine)
    track = track.with_(arms=_reach_out(track, body, wrists, effort))
    params = {"travel": -1 if moving else 0, "kind": "heave" if together else "hand over hand",
              "speed": speed_word(1.0 / period, 0.8, 1.0)}  # fmt: skip
    return ActionOutput(track, params)


def lift(ctx: ActionContext) -> ActionOutput:
    """Squat, grip a heavy box, stand up with it to the chest (or press it overhead), and put it back down."""
    rng, body, view = ctx.rng, ctx.body, ctx.view
    u, leg = body.height, body.leg
    overhead = bool(rng.random() < (0.35 if view == "side" else 0.7))  # a box at the chest reads side-on
    heavy = float(rng.uniform(1.0, 1.4))  # slower with a heavier load
    # squat, grip, rise, to the chest, (press, hold, lower), hold, squat, release, stand
    press = [0.6 * heavy, 0.6, 0.5] if overhead else []
    times = _schedule(ctx, [0.7, 0.25, 0.9 * heavy, 0.5] + press + [0.5, 0.9, 0.2, 0.7])
    n = _num_frames(ctx, times[-1])
    t = ctx.times(n)
    side = view == "side"
    squat = (-0.12 * leg if side else 0.0, -0.42 * leg)  # from the side the hips go back
    bent = (0.75 if side else 0.0, 0.0, -0.3 if side else 0.0)
    up, low = (0.0, 0.0), (0.0, -0.05 * leg)
    roots = [up, squat, squat, up, up] + ([low, up, up] if overhead else []) + [up, squat, squat, up]
    spines = [(0, 0, 0), bent, bent, (0, 0, 0), (-0.05, 0, 0)] + ([(-0.1, 0, -0.2)] * 3 if overhead else [])
    spines += [(-0.05, 0, 0), bent, bent, (0, 0, 0)]
    rest = ctx.standing(1).arms[0]
    track = _keyed(ctx, n, times, roots, spines, np.broadcast_to(rest, (len(times), 2, 2)),
                   np.broadcast_to(_stand_feet(ctx), (n, 2, 2)))  # fmt: skip
    # The hands hold the box's sides: on the floor in front of the feet, up at the chest, overhead.
    on_floor = np.array([0.3 * u if side else 0.0, 0.22 * u])
    chest = np.array([0.2 * u if side else 0.0, track.root[0, 1] + (0.25 if side else 0.15) * u])
    above = np.array([0.05 * u if side else 0.0, track.root[0, 1] + 0.62 * u])
    path = [on_floor, on_floor, on_floor, chest, chest] + ([chest, above, above] if overhead else [])
    path += [chest, on_floor, on_floor, on_floor]
    box = keyframes(t, times, np.array(path))
    box[:, 0] += track.root[0, 0]
    half = 0.0 if side else 0.09 * u  # front view: the hands on either side of the box
    wrists = np.stack([box + [half, 0.0], box - [half, 0.0]], axis=1)
    if side:
        wrists[:, 1, 0] += 0.03  # the far hand just visible beside the near one
    hold = keyframes(t, times[[0, 1, -3, -2]], np.array([0.0, 1.0, 1.0, 0.0]))
    free = forward_kinematics(track, body)[:, [J["l_wrist"], J["r_wrist"]]]
    elbows = np.array([0.0, -1.0]) if side else np.array([[0.3, -1.0], [-0.3, -1.0]])
    track = track.with_(arms=_hands(track, body, _blend(free, wrists, smoothstep(hold)), elbows))
    params = {"height": "high" if overhead else None, "speed": speed_word(1.0 / heavy, 0.8, 0.9)}
    return ActionOutput(track, params)


SPECS: tuple[ActionSpec, ...] = (
    ActionSpec("punch", punch, ("side",), STAND),
    ActionSpec("kick", kick, ("side",), STAND),
    ActionSpec("block", block, ("side",), STAND),
    ActionSpec("dodge", dodge, ("side", "front"), STAND),
    ActionSpec("throw", throw, ("side",), STAND),
    ActionSpec("catch", catch, ("side",), STAND),
    ActionSpec("swing_bat", swing_bat, ("front",), STAND),
    ActionSpec("golf_swing", golf_swing, ("front",), STAND),
    ActionSpec("shoot_basketball", shoot_basketball, ("side",), STAND),
    ActionSpec("dribble", dribble, ("side", "front"), STAND),
    ActionSpec("kick_ball", kick_ball, ("side",), STAND),
    ActionSpec("push", push, ("side",), STAND),
    ActionSpec("pull", pull, ("side",), STAND),
    ActionSpec("lift", lift, ("side", "front"), STAND),
)  # fmt: skip
