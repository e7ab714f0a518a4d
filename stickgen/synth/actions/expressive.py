"""Expressive actions: clap, point, salute, shrug, bow, cheer, beckon, look_around, celebrate and dance.

Most are arm gestures over the standing body of `idle` (breathing, a slow sway, feet planted), in the
manner of `gestures.wave`: key poses with easing, the hands put on targets by `arm_ik` where a target
reads better than an angle (hands meeting for a clap, the hand at the brow for a salute). The figure
keeps its balance: where the torso bends (a bow) the pelvis moves back so that the centre of mass
stays over the planted feet. Cheering and celebrating may leave the floor, always through
`flight.jump_sequence` (ballistic flight under the environment's gravity), but not in zero gravity
(the jump would never come back) nor in a gale (it would land drifting). Dancing steps lift each foot
above the contact height before it moves, so nothing near the floor slides.

When the frame budget is short, holds and repetitions shrink first; only then do movements speed up.

Seen from the front, spine angles bend sideways and the right arm's angles mirror the left's
(`kinematics` docstring): forward bends are added through `_sagittal`, and arm values written for the
left arm are multiplied by `_outward(view, side)`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from stickgen.figure import CONTACT_HEIGHT, J
from stickgen.synth.actions.locomotion import idle
from stickgen.synth.actions.spec import STAND, ActionSpec
from stickgen.synth.context import ActionContext, ActionOutput, speed_word
from stickgen.synth.flight import Jump, Pose, com_offset, jump_sequence
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
    standing_ankles,
)
from stickgen.synth.physics import takeoff_speed

SIDE_NAMES = ("left", "right")
MIN_HOP = 0.05  # m: the lowest hop worth making (as high as it would rise on earth)
GALE = 5.0  # m/s: wind in which a figure keeps its feet on the floor rather than hop
HEAD_RADIUS = 0.8  # × the head bone: the radius the renderer draws the head with (render.draw)


# ---------------------------------------------------------------------------------------------------
# Helpers


def _stand(ctx: ActionContext, seconds: float) -> Track:
    """The idle standing body (breathing, a slow sway, feet planted) from 0 to `seconds` inclusive.

    Re-planted: seen from the front, a figure leaning into a strong wind has one hip higher than the
    other, and `idle` alone would leave that foot hanging above the floor.
    """
    track = idle(replace(ctx, seconds=(round(seconds * ctx.fps) + 1) / ctx.fps)).track
    return _plant(ctx, track, _feet(ctx, track.num_frames))


def _room(ctx: ActionContext) -> float:
    """The longest plan (s) that fits in the frame budget, first and last frame included."""
    return (ctx.max_frames - 1) / ctx.fps


def _hold(ctx: ActionContext, wanted: float, rest_of_plan: float) -> float:
    """How long (s) a pose may be held: as `wanted`, or shorter (down to 0.2 s) when the frame budget
    leaves less room beside the `rest_of_plan` s; movements keep their natural speed as long as they can.
    """
    return float(min(wanted, max(_room(ctx) - rest_of_plan, 0.2)))


def _squeeze(ctx: ActionContext, seconds: float) -> float:
    """A factor ≤ 1 by which a plan lasting `seconds` must be shortened to fit the frame budget."""
    return min(1.0, _room(ctx) / seconds)


def _outward(view: str, side: int) -> float:
    """+1, or −1 for the right arm seen from the front, whose angles mirror the left arm's."""
    return -1.0 if view == "front" and side == RIGHT else 1.0


def _both(view: str, side_view: tuple[float, float], front_view: tuple[float, float]) -> np.ndarray:
    """Both arms (2, 2) as (upper-arm angle, elbow flexion): equal from the side, mirrored from the front."""
    if view == "side":
        return np.array([side_view, side_view])
    return np.array([front_view, (-front_view[0], -front_view[1])])


def _sagittal(view: str, offset) -> np.ndarray:
    """A forward/back spine offset (..., 3), or zeros from the front, where spine angles bend sideways."""
    offset = np.asarray(offset, dtype=np.float64)
    return offset if view == "side" else np.zeros_like(offset)


def _unwrap(angle: np.ndarray, reference: float | np.ndarray) -> np.ndarray:
    """`angle` shifted by multiples of 2π to lie within π of `reference`."""
    return reference + (angle - reference + np.pi) % (2.0 * np.pi) - np.pi


def _feet(ctx: ActionContext, n: int) -> np.ndarray:
    """The standing ankle positions (n, 2, 2) of a figure that starts at x = 0."""
    return np.broadcast_to(standing_ankles(ctx.standing(1), ctx.body)[:1], (n, 2, 2)).copy()


def _plant(ctx: ActionContext, track: Track, feet: np.ndarray) -> Track:
    """Legs that reach `feet` (T, 2, 2), the pelvis lowered wherever the legs could not reach them."""
    hips = hip_positions(track.root, track.spine[:, 0], ctx.body) - track.root[:, None]  # (T, 2, 2)
    reach = ctx.body.leg * 0.995
    dx = np.minimum(np.abs(feet[..., 0] - track.root[:, None, 0] - hips[..., 0]), reach)
    highest = (feet[..., 1] - hips[..., 1] + leg_drop(reach, dx)).min(axis=1)
    root = track.root.copy()
    root[:, 1] = np.minimum(root[:, 1], highest)
    track = track.with_(root=root)
    return track.with_(legs=leg_ik(track, ctx.body, feet))


def _balance(ctx: ActionContext, track: Track, feet: np.ndarray) -> Track:
    """The pelvis moved along x so the centre of mass stays where it is at rest, over the planted feet.

    A figure that bends forward pushes its hips back (a bow); raised arms barely move it. The COM
    offset depends on the leg angles, which depend on the pelvis: a few passes converge.
    """
    rest = com_offset(track.slice(0, 1), ctx.body)[0, 0] + track.root[0, 0]
    for _ in range(3):
        root = track.root.copy()
        root[:, 0] = rest - com_offset(track, ctx.body)[:, 0]
        track = _plant(ctx, track.with_(root=root), feet)
    return track


def _reach(ctx: ActionContext, track: Track, wrists: np.ndarray, bend: np.ndarray) -> np.ndarray:
    """Arm angles (T, 2, 2) putting the wrists on `wrists` (T, 2, 2), elbows bent by `bend` (2,) per arm."""
    return arm_ik(track, ctx.body, wrists, bend=np.asarray(bend, dtype=np.float64))


def _blend_arms(rest: np.ndarray, pose: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Arms (T, 2, 2) eased from `rest` to `pose` by `weight` (T,), the pose unwrapped near the rest."""
    pose = pose.copy()
    pose[..., 0] = _unwrap(pose[..., 0], rest[..., 0])
    w = weight[:, None, None]
    return rest * (1.0 - w) + pose * w


def _hand_to(
    ctx: ActionContext, track: Track, side: int, target: np.ndarray, weight: np.ndarray, bend: float
) -> np.ndarray:
    """Arms (T, 2, 2) with one hand brought from where it hangs to `target` (T, 2) as `weight` (T,) goes to 1.

    The pose at the target comes from IK (elbow bent by `bend`); on the way the elbow bends early and
    the upper arm rises late, so the hand comes up close to the body instead of swinging out straight.
    """
    reached = _reach(ctx, track, np.repeat(target[:, None], 2, axis=1), np.array([bend, bend]))[:, side]
    rest = track.arms[:, side]
    reached[:, 0] = _unwrap(reached[:, 0], rest[:, 0])
    lead = np.stack([weight**2, 1.0 - (1.0 - weight) ** 2], axis=-1)  # (T, 2): upper arm late, elbow early
    arms = track.arms.copy()
    arms[:, side] = rest + (reached - rest) * lead
    return arms


def _envelope(t: np.ndarray, key_t: list[float]) -> np.ndarray:
    """0 → 1 over key_t[0..1], 1 until key_t[2], 1 → 0 by key_t[3]: how far a gesture is raised (T,)."""
    return keyframes(t, key_t, np.array([0.0, 1.0, 1.0, 0.0]))


def _head_radius(ctx: ActionContext) -> float:
    return float(np.clip(HEAD_RADIUS * ctx.body.head, 0.07, 0.14))


def _rate_word(rate: float, low: float, high: float, ctx: ActionContext) -> str | None:
    """The speed adverb of a voluntary rate, judged before the environment slowed it down."""
    return speed_word(rate / ctx.tempo * ctx.style.tempo, low, high)


# ---------------------------------------------------------------------------------------------------
# Arm gestures over a standing body


def clap(ctx: ActionContext) -> ActionOutput:
    """Bring the hands together in front of the chest (or above the head) and clap several times."""
    rng, body, view = ctx.rng, ctx.body, ctx.view
    overhead = rng.random() < 0.2
    rate = float(rng.uniform(1.8, 3.6)) * ctx.tempo  # claps per second
    reps = int(rng.integers(3, 11))
    raise_t, lower_t = ctx.dur(0.4), ctx.dur(0.45)
    room = _room(ctx) - raise_t - lower_t - 0.2
    reps = int(np.clip(min(reps, room * rate), 1, None))
    clap_t = reps / rate
    squeeze = _squeeze(ctx, raise_t + clap_t + lower_t + 0.2)
    raise_t, clap_t, lower_t, rate = raise_t * squeeze, clap_t * squeeze, lower_t * squeeze, rate / squeeze
    track = _stand(ctx, raise_t + clap_t + lower_t + 0.2)
    n = track.num_frames
    t = ctx.times(n)
    joints = forward_kinematics(track, body)
    neck = joints[:, J["neck"]]
    size = body.height / 1.75
    # Closeness of the hands: open at rest, a sharp meeting mid-cycle (|cos| has a corner at 0).
    tau = np.clip(t - raise_t, 0.0, clap_t)
    close = 1.0 - np.abs(np.cos(np.pi * rate * tau)) ** 1.5
    if view == "front":
        # The hands meet in the middle (IK) and part by turning the forearms out about the elbows,
        # which is how hands parting toward the viewer look from the front.
        height = body.head + 0.3 * body.arm if overhead else -body.shoulder_drop - 0.3 * body.arm
        meet = neck[:, None] + np.array([[0.025 * size, height], [-0.025 * size, height]])
        bend = np.array([-1.0, 1.0]) if overhead else np.array([1.0, -1.0])
        opening = _both(view, (0.0, 0.0), (0.1, -float(rng.uniform(0.6, 0.9))))
        clapping = _reach(ctx, track, meet, bend) + (1.0 - close)[:, None, None] * opening
    else:
        # Seen from the side the hands part across the line of sight: the meeting point is the furthest
        # forward they reach; apart, each looks pulled back toward the body, one a little higher.
        if overhead:
            meet = np.array([0.12 * body.arm, body.head + 0.3 * body.arm])
        else:
            meet = np.array([0.5 * body.arm, -body.shoulder_drop - 0.3 * body.arm])
        apart = (1.0 - close)[:, None, None] * np.array([[-0.07, -0.02], [-0.09, 0.04]]) * size
        bend = np.array([1.0, 1.0]) if overhead else np.array([-1.0, -1.0])
        clapping = _reach(ctx, track, neck[:, None] + meet + apart, bend)
    weight = _envelope(t, [0.0, raise_t, raise_t + clap_t, raise_t + clap_t + lower_t])
    arms = _blend_arms(track.arms, clapping, weight)
    spine = track.spine.copy()
    spine[:, 2] += _sagittal(view, -0.15 if overhead else 0.05) * weight  # look at the hands
    params = {"reps": reps, "speed": _rate_word(rate, 2.2, 3.2, ctx), "overhead": overhead}
    if overhead:
        params["manner"] = ["above the head", "over the head", "with the hands up high"]
    return ActionOutput(track.with_(arms=arms, spine=spine), params)


def point(ctx: ActionContext) -> ActionOutput:
    """Raise one straight arm to point at something (ahead, up, down or to a side), hold it, lower it."""
    rng, view = ctx.rng, ctx.view
    side = int(rng.integers(2))
    s = _outward(view, side)
    if view == "side":
        aim = ("ahead", "ahead", "up", "down")[int(rng.integers(4))]
        angle = {"ahead": np.pi / 2 + rng.uniform(-0.2, 0.15), "up": rng.uniform(2.2, 2.6),
                 "down": rng.uniform(0.75, 1.05)}[aim]  # fmt: skip
        travel = 1 if aim == "ahead" else 0
        head = {"ahead": -0.05, "up": -0.4, "down": 0.35}[aim]
    else:
        aim = ("out", "out", "up")[int(rng.integers(3))]
        angle = s * (np.pi / 2 + rng.uniform(-0.3, 0.2) if aim == "out" else rng.uniform(2.3, 2.7))
        travel = int(s) if aim == "out" else 0
        head = 0.0
    raise_t, lower_t = ctx.dur(rng.uniform(0.3, 0.5)), ctx.dur(rng.uniform(0.4, 0.6))
    hold = float(np.clip(ctx.seconds - raise_t - lower_t - 0.3, ctx.dur(0.6), ctx.dur(3.0)))
    hold = _hold(ctx, hold, raise_t + lower_t + 0.3)
    squeeze = _squeeze(ctx, raise_t + hold + lower_t + 0.3)
    key_t = np.array([0.0, raise_t, raise_t + hold, raise_t + hold + lower_t]) * squeeze
    track = _stand(ctx, key_t[-1] + 0.3 * squeeze)
    t = ctx.times(track.num_frames)
    weight = _envelope(t, key_t)
    arms = track.arms.copy()
    # Emphasis: while it is held, the elbow bends and snaps straight again toward the target, up to twice.
    jabs = int(rng.integers(0, 3))
    jab = 0.3 * np.sin(np.pi * jabs * np.clip((t - key_t[1]) / (key_t[2] - key_t[1]), 0, 1)) ** 2
    pointing = np.array([angle, 0.04 * s])
    arms[:, side] = _blend_arms(track.arms[:, side : side + 1], np.broadcast_to(pointing, (len(t), 1, 2)),
                                weight)[:, 0]  # fmt: skip
    arms[:, side, 1] += s * jab
    spine = track.spine.copy()
    spine[:, 2] += head * weight
    if view == "front":
        spine[:, 2] += 0.12 * np.sign(angle) * weight  # the head turns toward the target
    params = {"side": SIDE_NAMES[side], "limb": "arm", "travel": travel, "aim": aim,
              "manner": list(_POINT_MANNER[aim])}  # fmt: skip
    return ActionOutput(track.with_(arms=arms, spine=spine), params)


_POINT_MANNER = {
    "ahead": ("straight ahead", "at something ahead", "at something in the distance"),
    "up": ("up at the sky", "upward", "at something above"),
    "down": ("at the ground", "downward", "at something on the floor"),
    "out": ("to the side", "off to one side", "at something to the side"),
}


def salute(ctx: ActionContext) -> ActionOutput:
    """Stand at attention, snap the right hand to the brow, hold the salute, snap it down."""
    rng, view = ctx.rng, ctx.view
    lead, up_t, down_t = ctx.dur(0.25), ctx.dur(rng.uniform(0.3, 0.45)), ctx.dur(rng.uniform(0.35, 0.5))
    hold = float(np.clip(ctx.seconds - lead - up_t - down_t - 0.3, ctx.dur(0.6), ctx.dur(2.5)))
    hold = _hold(ctx, hold, lead + up_t + down_t + 0.3)
    squeeze = _squeeze(ctx, lead + up_t + hold + down_t + 0.3)
    key_t = np.cumsum([lead, up_t, hold, down_t]) * squeeze
    track = _stand(ctx, key_t[-1] + 0.3 * squeeze)
    t = ctx.times(track.num_frames)
    weight = _envelope(t, list(key_t))
    attention = smoothstep(t / key_t[1])[:, None] * _sagittal(view, [0.0, -0.03, -0.7 * ctx.style.head])
    track = track.with_(spine=track.spine + attention)  # chest out, chin up
    head = forward_kinematics(track, ctx.body)[:, J["head"]]
    r = _head_radius(ctx)
    # The wrist a hand's breadth from the brow, the elbow out to the side (front) or forward (side).
    offset = np.array([-(r + 0.05), 0.25 * r]) if view == "front" else np.array([r + 0.06, 0.2 * r])
    arms = _hand_to(ctx, track, RIGHT, head + offset, weight, 1.0 if view == "front" else -1.0)
    params = {"side": "right", "limb": "arm", "hold_s": round(float(key_t[2] - key_t[1]), 2)}
    return ActionOutput(track.with_(arms=arms), params)


def shrug(ctx: ActionContext) -> ActionOutput:
    """Elbows bent at the sides, forearms and open palms turned up and out, head tilted; once or twice."""
    rng, view = ctx.rng, ctx.view
    up_t, down_t = ctx.dur(rng.uniform(0.25, 0.4)), ctx.dur(rng.uniform(0.35, 0.55))
    hold = _hold(ctx, ctx.dur(rng.uniform(0.4, 1.0)), 0.45 + up_t + down_t)
    each = up_t + hold + down_t
    reps = 2 if rng.random() < 0.25 and 0.45 + 2 * each <= _room(ctx) else 1
    squeeze = _squeeze(ctx, 0.15 + reps * each + 0.3)
    starts = (0.15 + each * np.arange(reps)) * squeeze
    track = _stand(ctx, (0.15 + reps * each + 0.3) * squeeze)
    t = ctx.times(track.num_frames)
    weight = sum(_envelope(t, [a, a + up_t * squeeze, a + (up_t + hold) * squeeze, a + each * squeeze])
                 for a in starts)  # fmt: skip
    amp = float(np.clip(ctx.style.amplitude, 0.7, 1.2))
    if view == "front":
        # ¯\_(ツ)_/¯ : upper arms down and out, forearms up and out.
        upper = float(rng.uniform(0.35, 0.6)) * amp
        pose = _both(view, (0.0, 0.0), (upper, float(rng.uniform(2.1, 2.4)) - upper))
        tilt = float(rng.choice([-1.0, 1.0])) * rng.uniform(0.12, 0.25)
    else:  # elbows back at the sides, forearms forward and up, palms open
        upper = -float(rng.uniform(0.05, 0.25))
        pose = _both(view, (upper, float(rng.uniform(1.8, 2.1)) * amp - upper), (0.0, 0.0))
        tilt = -float(rng.uniform(0.1, 0.2))  # the head goes back a little
    arms = _blend_arms(track.arms, np.broadcast_to(pose, track.arms.shape), weight)
    spine = track.spine.copy()
    spine[:, 2] += tilt * weight
    spine += weight[:, None] * _sagittal(view, [-0.03, -0.04, 0.0])  # the chest lifts with the shoulders
    params = {"reps": reps, "manner": ["with palms up", "with open palms", "as if to say who knows"]}
    return ActionOutput(_plant(ctx, track.with_(arms=arms, spine=spine), _feet(ctx, len(t))), params)


def beckon(ctx: ActionContext) -> ActionOutput:
    """One arm held out, the forearm curling back toward the body again and again: "come here"."""
    rng, view = ctx.rng, ctx.view
    side = int(rng.integers(2))
    s = _outward(view, side)
    big = rng.random() < 0.3  # the whole arm sweeps in, not only the forearm
    rate = float(rng.uniform(0.9, 1.7)) * ctx.tempo
    reps = int(rng.integers(2, 6))
    raise_t, lower_t = ctx.dur(0.4), ctx.dur(0.45)
    room = _room(ctx) - raise_t - lower_t - 0.2
    reps = int(np.clip(min(reps, room * rate), 1, None))
    curl_t = reps / rate
    squeeze = _squeeze(ctx, raise_t + curl_t + lower_t + 0.2)
    key_t = np.array([0.0, raise_t, raise_t + curl_t, raise_t + curl_t + lower_t]) * squeeze
    rate /= squeeze
    track = _stand(ctx, key_t[-1] + 0.2 * squeeze)
    t = ctx.times(track.num_frames)
    weight = _envelope(t, list(key_t))
    # 0 → 1 → 0 once per repetition, only while the arm is up.
    curl = np.sin(np.pi * rate * np.clip(t - key_t[1], 0.0, key_t[2] - key_t[1])) ** 2
    if view == "side":
        upper = float(rng.uniform(0.8, 1.2)) + (0.5 * curl if big else -0.15 * curl)
        flex = float(rng.uniform(0.15, 0.4)) + float(rng.uniform(1.3, 1.8)) * curl
    else:
        upper = float(rng.uniform(0.6, 0.9)) + (0.5 * curl if big else -0.1 * curl)
        flex = np.pi / 2 - 0.6 + float(rng.uniform(0.9, 1.2)) * curl
    pose = np.stack([upper * s, flex * s], axis=-1)  # (T, 2)
    arms = track.arms.copy()
    arms[:, side] = _blend_arms(track.arms[:, side : side + 1], pose[:, None], weight)[:, 0]
    spine = track.spine.copy()
    spine += (curl * weight)[:, None] * _sagittal(view, [-0.02, 0.0, 0.1])  # a nod with each "come"
    params = {"side": SIDE_NAMES[side], "limb": "arm", "reps": reps, "speed": _rate_word(rate, 1.1, 1.5, ctx)}
    return ActionOutput(_plant(ctx, track.with_(arms=arms, spine=spine), _feet(ctx, len(t))), params)


def look_around(ctx: ActionContext) -> ActionOutput:
    """Glance one way, then another: head and upper body turn, the weight shifts; a hand may shade the eyes.

    From the front a turned head shows as its centre moving sideways (a sideways head angle), the
    upper body following a little; from the side the glances go up, down and far ahead.
    """
    rng, view, body = ctx.rng, ctx.view, ctx.body
    glances = int(rng.integers(2, 5))
    turn_t = [ctx.dur(rng.uniform(0.3, 0.5)) for _ in range(glances + 1)]
    hold_t = [ctx.dur(rng.uniform(0.35, 0.9)) for _ in range(glances)]
    while glances > 1 and 0.5 + sum(turn_t[: glances + 1]) + sum(hold_t[:glances]) > _room(ctx):
        glances -= 1
    turn_t, hold_t = turn_t[:glances] + turn_t[-1:], hold_t[:glances]
    hold_t = [_hold(ctx, h, 0.5 + sum(turn_t) + sum(hold_t) - h) for h in hold_t]
    squeeze = _squeeze(ctx, 0.5 + sum(turn_t) + sum(hold_t))
    if view == "front":
        first = float(rng.choice([-1.0, 1.0]))
        dirs = [first * (-1) ** k for k in range(glances)]
        head = [d * rng.uniform(0.22, 0.4) for d in dirs]
        upper = [d * rng.uniform(0.04, 0.1) for d in dirs]
        shift = [d * rng.uniform(0.015, 0.035) for d in dirs]
    else:
        kinds = rng.permutation(["up", "down", "ahead", "ahead"])[:glances]
        head = [{"up": -0.55, "down": 0.5, "ahead": -0.25}[k] * rng.uniform(0.8, 1.1) for k in kinds]
        upper = [{"up": -0.12, "down": 0.3, "ahead": 0.15}[k] for k in kinds]
        shift = [{"up": -0.01, "down": 0.02, "ahead": 0.03}[k] for k in kinds]
    key_t, keys = [0.0, 0.2], [np.zeros(3), np.zeros(3)]
    for k in range(glances):
        key_t += [key_t[-1] + turn_t[k], key_t[-1] + turn_t[k] + hold_t[k]]
        keys += [np.array([head[k], upper[k], shift[k]])] * 2
    key_t.append(key_t[-1] + turn_t[-1])
    keys.append(np.zeros(3))
    key_t = np.array(key_t) * squeeze
    track = _stand(ctx, key_t[-1] + 0.3 * squeeze)
    t = ctx.times(track.num_frames)
    offsets = keyframes(t, key_t, np.array(keys))  # (T, 3): head, upper torso, pelvis shift
    spine = track.spine.copy()
    spine[:, 1] += offsets[:, 1]
    spine[:, 2] += offsets[:, 0] - offsets[:, 1]  # the head turns further than the chest
    root = track.root.copy()
    root[:, 0] += offsets[:, 2]
    track = track.with_(spine=spine, root=root)
    shade = rng.random() < (0.4 if view == "front" else 0.6)
    if shade:
        side = int(rng.integers(2))
        head_pos = forward_kinematics(track, body)[:, J["head"]]
        r = _head_radius(ctx)
        offset = np.array([-(r + 0.02) if side == RIGHT else r + 0.02, 0.35 * r])
        if view == "side":
            offset = np.array([r + 0.1, 0.3 * r])
        weight = _envelope(t, [key_t[0], key_t[2], key_t[-2], key_t[-1]])  # up with the first glance
        bend = (-1.0 if side == LEFT else 1.0) if view == "front" else -1.0
        track = track.with_(arms=_hand_to(ctx, track, side, head_pos + offset, weight, bend))
    track = _plant(ctx, track, _feet(ctx, track.num_frames))
    manner = (
        ["left and right", "from side to side"] if view == "front" else ["up and down", "into the distance"]
    )
    if shade:
        manner += ["shading the eyes", "with a hand over the eyes"]
    params = {"glances": glances, "shading_eyes": shade, "manner": manner}
    return ActionOutput(track, params)


def bow(ctx: ActionContext) -> ActionOutput:
    """Bend forward from the hips, legs straight and hips back over the feet, hold, and straighten up."""
    rng = ctx.rng
    depth = float(rng.uniform(0.35, 1.25))
    manner = ("sides", "free", "courtly")[int(rng.integers(3))]
    down_t, up_t = ctx.dur(0.45 + 0.35 * depth), ctx.dur(0.5 + 0.35 * depth)
    hold = _hold(ctx, ctx.dur(rng.uniform(0.3, 1.2)), 0.45 + down_t + up_t)
    each = down_t + hold + up_t
    reps = 2 if rng.random() < 0.2 and 0.45 + 2 * each <= _room(ctx) else 1
    squeeze = _squeeze(ctx, 0.15 + reps * each + 0.3)
    track = _stand(ctx, (0.15 + reps * each + 0.3) * squeeze)
    t = ctx.times(track.num_frames)
    starts = (0.15 + each * np.arange(reps)) * squeeze
    bent = sum(_envelope(t, [a, a + down_t * squeeze, a + (down_t + hold) * squeeze, a + each * squeeze])
               for a in starts)  # fmt: skip
    spine = track.spine.copy()
    spine[:, 0] += depth * bent
    spine[:, 1] += 0.1 * depth * bent  # the back rounds a little
    spine[:, 2] += (0.15 + 0.1 * depth) * bent  # eyes to the floor
    lean = spine[:, 0]
    arms = track.arms.copy()
    # Arms: held along the body (they turn with the torso), hanging free, or one hand across the waist
    # and the other swept back.
    if manner == "sides":
        arms[..., 0] -= 0.85 * (lean - lean[0])[:, None]
    elif manner == "courtly":
        front_arm = int(rng.integers(2))
        arms[:, front_arm, 0] -= 0.7 * (lean - lean[0])
        arms[:, front_arm, 1] += 1.7 * bent
        arms[:, 1 - front_arm, 0] -= (0.6 + 0.5 * depth) * bent
    track = _balance(ctx, track.with_(spine=spine, arms=arms), _feet(ctx, len(t)))
    params = {"reps": reps, "manner": _BOW_MANNER[int(depth > 0.8)], "depth": round(depth, 2),
              "arms": manner}  # fmt: skip
    return ActionOutput(track, params)


_BOW_MANNER = (("slightly", "a little", "politely"), ("deeply", "low", "from the waist"))


# ---------------------------------------------------------------------------------------------------
# Joyful actions: arms high, little hops and jumps


def _chain(segments: list[Track]) -> Track:
    """Segments played one after another, each starting where the previous one left the figure.

    A segment's first frame repeats the previous one's last (both are at rest in the same pose), so it
    is dropped.
    """
    out = [segments[0]]
    for nxt in segments[1:]:
        root = nxt.root.copy()
        root[:, 0] += out[-1].root[-1, 0] - root[0, 0]
        out.append(nxt.with_(root=root).slice(1, nxt.num_frames))
    return concat_tracks(out)


def _keyed(
    ctx: ActionContext, key_t: np.ndarray, arms: np.ndarray, spine: np.ndarray, dip: np.ndarray, frames: int
) -> Track:
    """A standing segment of key poses at `key_t` (K,) s: arms (K, 2, 2), spine offset (K, 3), hip dip (K,).

    The feet stay planted (the knees bend wherever the pelvis dips). The keys are sped up if they do
    not fit in `frames`.
    """
    end = min(float(key_t[-1]), (frames - 1) / ctx.fps)
    key_t = np.asarray(key_t) * end / key_t[-1]
    n = int(round(end * ctx.fps)) + 1
    t = ctx.times(n)
    base = ctx.standing(n)
    root = base.root.copy()
    root[:, 1] -= keyframes(t, key_t, dip)
    track = base.with_(
        root=root, spine=base.spine + keyframes(t, key_t, spine), arms=keyframes(t, key_t, arms)
    )
    return _plant(ctx, track, _feet(ctx, n))


def _hops(
    ctx: ActionContext,
    arms: np.ndarray,
    spine: np.ndarray,
    tuck_legs: np.ndarray | None,
    earth_height: float,
    reps: int,
    frames: int,
) -> Track | None:
    """`reps` jumps in place within `frames`, fewer or lower if needed; None if not even one fits.

    arms (2, 2): held through the jumps (drawn down while crouching); spine (3,): added to the
    standing spine; tuck_legs (2, 2): the legs in mid-flight (None: knees a little bent).
    """
    world = ctx.world
    # No hopping in zero gravity (it would never come down) or in a gale (it would land drifting).
    if world.floats or abs(world.wind) > GALE or frames < ctx.fps:
        return None
    vy, lowest = takeoff_speed(earth_height), takeoff_speed(MIN_HOP)
    while reps * (2.0 * vy / world.gravity + ctx.dur(0.45)) + ctx.dur(0.5) > frames / ctx.fps:
        if reps > 1:  # drag only shortens the flight
            reps -= 1
        elif vy > lowest:
            vy = max(0.85 * vy, lowest)
        else:
            return None
    base = ctx.standing(frames)
    base = base.with_(arms=np.broadcast_to(arms, base.arms.shape).copy(), spine=base.spine + spine)
    base = _plant(ctx, base, _feet(ctx, frames))
    rest_spine = base.spine[0]
    lean = _sagittal(ctx.view, [0.05, 0.0, 0.0])
    drawn = arms + _both(ctx.view, (-0.35, 0.6), (-0.35, 0.3))  # the fists come down into the crouch
    prepare = Pose(rest_spine + _sagittal(ctx.view, [0.25, 0.0, 0.1]), drawn)
    if tuck_legs is None:
        tuck_legs = _both(ctx.view, (0.5, 0.9), (0.25, 0.4))
    tuck = Pose(rest_spine + lean, arms, tuck_legs)
    crouch = 0.1 * ctx.body.leg / 0.85 * (1.0 + earth_height)
    jumps = [Jump(0.0, vy, crouch, 0.8 * crouch, 0.0, prepare, Pose(rest_spine, arms), tuck,
                  Pose(rest_spine + lean, arms), (True, True), 0.3 if k == 0 else 0.12)
             for k in range(reps)]  # fmt: skip
    return jump_sequence(ctx, base, jumps, Pose(rest_spine, arms, base.legs[0]), 0.35)


def _lower(
    ctx: ActionContext, arms: np.ndarray, spine: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Key times, arms and spine (3 keys) that bring raised arms back down to rest."""
    key_t = np.array([0.0, ctx.dur(0.5), ctx.dur(0.5) + 0.2])
    rest = ctx.standing(1).arms[0]
    return key_t, np.stack([arms, rest, rest]), np.stack([spine, np.zeros(3), np.zeros(3)])


def cheer(ctx: ActionContext) -> ActionOutput:
    """Throw both arms up in a V, shake the fists up there (maybe hopping a little), bring them down."""
    rng, view = ctx.rng, ctx.view
    amp = float(np.clip(ctx.style.amplitude, 0.7, 1.3))
    up = _both(view, (rng.uniform(2.45, 2.75), rng.uniform(0.1, 0.4)), (rng.uniform(2.35, 2.75),
               rng.uniform(0.0, 0.3)))  # fmt: skip
    if view == "side":  # one arm further back than the other: a V seen from the side
        up[int(rng.integers(2)), 0] += float(rng.uniform(0.25, 0.45))
    spine_up = _sagittal(view, [-0.05, -0.03, -0.12])  # chest up, looking up
    rate = float(rng.uniform(2.0, 3.2)) * ctx.tempo  # shakes per second
    raise_t = ctx.dur(rng.uniform(0.35, 0.5))
    lower = _lower(ctx, up, spine_up)
    shakes = int(np.clip(min(rng.integers(2, 6), (_room(ctx) - raise_t - lower[0][-1]) * rate), 1, None))
    # The arms shoot up, then the fists pump a little lower and higher again, once per shake.
    k = np.arange(2 * shakes + 1)
    key_t = np.concatenate([[0.0], raise_t + k / (2.0 * rate)])
    pump = (k % 2 == 1)[:, None, None] * _both(view, (-0.2 * amp, 0.5 * amp), (-0.15, 0.35))
    key_arms = np.concatenate([ctx.standing(1).arms, up + pump])
    key_spine = np.concatenate([np.zeros((1, 3)), np.broadcast_to(spine_up, (len(k), 3))])
    key_spine[2::2] += _sagittal(view, [0.0, -0.04 * amp, 0.0])  # the chest heaves with each shake
    reserve = min(int(round(lower[0][-1] * ctx.fps)) + 1, ctx.max_frames // 3)
    segments = [_keyed(ctx, key_t, key_arms, key_spine, np.zeros(len(key_t)), ctx.max_frames - reserve)]
    if rng.random() < 0.5:
        left = ctx.max_frames - segments[0].num_frames - reserve
        hops = _hops(
            ctx, up, spine_up, None, float(rng.uniform(0.06, 0.15)) * amp, int(rng.integers(1, 4)), left
        )
        segments += [hops] if hops is not None else []
    used = sum(s.num_frames for s in segments)
    segments.append(_keyed(ctx, *lower, np.zeros(3), ctx.max_frames - used + len(segments)))
    params = {"reps": shakes, "hops": len(segments) == 3, "speed": _rate_word(rate, 2.3, 2.9, ctx)}
    if params["hops"]:
        params["manner"] = ["jumping up and down", "with little hops", "hopping up and down"]
    return ActionOutput(_chain(segments), params)


def _pump(ctx: ActionContext, arms0: np.ndarray, spine0: np.ndarray, frames: int):
    """Fist pumps, 2–4 times with one fist or both: pulled down hard ("yes!") or punched up."""
    rng, view = ctx.rng, ctx.view
    side = int(rng.integers(2))
    pumping = [LEFT, RIGHT] if rng.random() < 0.35 else [side]
    reps = int(np.clip(min(rng.integers(2, 5), (frames / ctx.fps - ctx.dur(0.3)) / ctx.dur(0.5)), 1, None))
    if rng.random() < 0.6:  # from the fist beside the head down to the hip, the body crunching forward
        ready, hit = ((1.7, 1.5), (-0.25, 2.0)) if view == "side" else ((2.2, 0.9), (0.3, 2.2))
        hit_spine, hit_dip = _sagittal(view, [0.15, 0.05, 0.1]), 0.04
    else:  # from the fist beside the head straight up
        ready, hit = ((2.0, 1.6), (2.95, 0.1)) if view == "side" else ((2.0, 1.0), (2.75, 0.1))
        hit_spine, hit_dip = _sagittal(view, [-0.04, -0.03, -0.12]), 0.0

    def arms(pose: tuple[float, float]) -> np.ndarray:
        out = ctx.standing(1).arms[0].copy()
        for arm in pumping:
            out[arm] = np.array(pose) * _outward(view, arm)
        return out

    key_t = [0.0, ctx.dur(0.3)]
    key_arms, key_spine, key_dip = [arms0, arms(ready)], [spine0, np.zeros(3)], [0.0, 0.0]
    for _ in range(reps):
        key_t += [key_t[-1] + ctx.dur(0.2), key_t[-1] + ctx.dur(0.5)]
        key_arms += [arms(hit), arms(ready)]
        key_spine += [hit_spine, np.zeros(3)]
        key_dip += [hit_dip, 0.0]
    key_arms[-1], key_spine[-1], key_dip[-1] = key_arms[-2], key_spine[-2], key_dip[-2]  # the last one holds
    track = _keyed(ctx, np.array(key_t), np.stack(key_arms), np.stack(key_spine), np.array(key_dip), frames)
    return [track], key_arms[-1], key_spine[-1], {"fist_pumps": reps, "fists": len(pumping)}


def _spin(ctx: ActionContext, arms0: np.ndarray, spine0: np.ndarray, frames: int):
    """Spinning arms: big forward circles from the side (windmill), a twirl over the head from the front."""
    rng, view = ctx.rng, ctx.view
    side = int(rng.integers(2))
    start = ctx.standing(1).arms[0].copy()
    if view == "side":
        turns, rate = int(rng.integers(1, 4)), float(rng.uniform(0.9, 1.4)) * ctx.tempo
        spinning = [LEFT, RIGHT] if rng.random() < 0.5 else [side]
    else:
        turns, rate = int(rng.integers(2, 6)), float(rng.uniform(1.5, 2.2)) * ctx.tempo
        spinning = [side]
        start[side] = np.array([2.8, 0.3]) * _outward(view, side)
    prep = ctx.dur(0.3)
    turns = int(np.clip(min(turns, ((frames - 1) / ctx.fps - prep - 0.1) * rate), 1, None))
    spin_t = turns / rate
    squeeze = min(1.0, (frames - 1) / ctx.fps / (prep + spin_t + 0.1))
    prep, spin_t = prep * squeeze, spin_t * squeeze
    n = int(round((prep + spin_t + 0.1 * squeeze) * ctx.fps)) + 1
    t = ctx.times(n)
    go = smoothstep(t / prep)[:, None, None]
    arms = arms0 * (1.0 - go) + start * go
    s = np.clip((t - prep) / spin_t, 0.0, 1.0)
    for arm in spinning:
        if view == "side":  # whole turns at a steady rate, easing in and out, the elbow nearly straight
            arms[:, arm, 0] += 2.0 * np.pi * turns * _steady(s, 0.1)
            arms[:, arm, 1] += (0.05 - arms[:, arm, 1]) * np.sin(np.pi * s)
        else:  # the forearm swings across and back above the head
            arms[:, arm, 1] += 0.9 * np.sin(2.0 * np.pi * turns * s) * _outward(view, arm)
    base = ctx.standing(n)
    track = base.with_(arms=arms, spine=base.spine + spine0 * (1.0 - go[:, :, 0]))
    return [_plant(ctx, track, _feet(ctx, n))], start, np.zeros(3), {"arm_turns": turns}


def _steady(s: np.ndarray, ease: float) -> np.ndarray:
    """0 → 1 over s in [0, 1] at a steady rate, speeding up over the first `ease`, slowing over the last."""
    grid = np.linspace(0.0, 1.0, 401)
    speed = np.clip(np.minimum(grid, 1.0 - grid) / ease, 0.0, 1.0)  # a trapezoid
    done = np.concatenate([[0.0], np.cumsum(0.5 * (speed[1:] + speed[:-1]))])
    return np.interp(s, grid, done / done[-1])


def _joy_jump(ctx: ActionContext, arms0: np.ndarray, spine0: np.ndarray, frames: int):
    """Jumping for joy, arms up in a V: heels kicked back (side view) or a star jump (front view)."""
    rng, view = ctx.rng, ctx.view
    up = _both(view, (rng.uniform(2.6, 2.9), 0.15), (rng.uniform(2.2, 2.5), 0.1))
    spine_up = _sagittal(view, [-0.03, -0.03, -0.12])
    key_t = np.array([0.0, ctx.dur(0.4)])
    ready = _keyed(ctx, key_t, np.stack([arms0, up]), np.stack([spine0, spine_up]), np.zeros(2), frames)
    earth_height = float(rng.uniform(0.2, 0.4)) * float(np.clip(ctx.style.amplitude, 0.7, 1.2))
    legs = _both(view, (0.2, 1.9), (0.4, 0.1))
    hops = _hops(ctx, up, spine_up, legs, earth_height, int(rng.choice([1, 1, 2])), frames - ready.num_frames)
    if hops is None:
        return None
    return [ready, hops], up, spine_up, {"jumps": True}


_MOVES = {"pump": _pump, "jump": _joy_jump, "spin": _spin}
_CELEBRATE_MANNER = {
    "pump": ("pumping a fist", "with fist pumps", "with a fist pump"),
    "jump": ("jumping for joy", "with a jump for joy", "leaping up with both arms raised"),
    "spin": ("spinning an arm around", "whirling an arm", "twirling an arm in the air"),
}


def celebrate(ctx: ActionContext) -> ActionOutput:
    """A joyful burst of two or three moves: fist pumps, a jump for joy with the arms up, spinning arms.

    Each move starts from the pose the previous one ended in; when the frame budget runs short the
    moves are sped up or left out (and jumps get lower, see `_hops`).
    """
    rng = ctx.rng
    moves = [str(m) for m in rng.permutation(list(_MOVES))[: 2 if ctx.seconds < 3.5 else 3]]
    arms, spine = ctx.standing(1).arms[0], np.zeros(3)
    reserve = min(int(round(_lower(ctx, arms, spine)[0][-1] * ctx.fps)) + 1, ctx.max_frames // 3)
    segments: list[Track] = []
    params: dict = {"moves": []}
    manner: list[str] = []
    for move in moves:
        left = ctx.max_frames - reserve - sum(s.num_frames - 1 for s in segments)
        out = _MOVES[move](ctx, arms, spine, left) if left > ctx.fps * 0.6 else None
        if out is None:
            continue
        new, arms, spine, info = out
        segments += new
        params["moves"].append(move)
        params.update(info)
        manner += _CELEBRATE_MANNER[move]
    if not segments:  # not even a jump fitted (or none is possible here): pump a fist instead
        segments, arms, spine, info = _pump(ctx, arms, spine, ctx.max_frames - reserve)
        params["moves"].append("pump")
        params.update(info)
        manner += _CELEBRATE_MANNER["pump"]
    left = ctx.max_frames - sum(s.num_frames - 1 for s in segments)
    segments.append(_keyed(ctx, *_lower(ctx, arms, spine), np.zeros(3), left))
    track = _chain(segments)
    # Whole turns leave arm angles a turn or more away from the rest pose: the joints do not care, but
    # the blend into the next action interpolates angles.
    rest = ctx.standing(1).arms[0]
    track = track.with_(
        arms=np.concatenate([_unwrap(track.arms[..., :1], rest[:, :1]), track.arms[..., 1:]], -1)
    )
    return ActionOutput(track, {**params, "manner": manner})


# ---------------------------------------------------------------------------------------------------
# Dance

DANCE_STYLES = ("groove", "steps", "disco", "sway")
_DANCE_MANNER = {
    "groove": ("to the beat", "bouncing to the beat", "with bouncy knees"),
    "steps": ("side to side", "with side steps", "stepping from side to side"),
    "rock": ("back and forth", "rocking back and forth", "stepping forward and back"),
    "disco": ("disco style", "like a disco dancer", "pointing up and down"),
    "sway": ("with hands in the air", "with arms raised", "swaying side to side"),
}


def _step_feet(
    t: np.ndarray, feet: np.ndarray, steps: list[tuple[int, float, float]], duration: float, clearance: float
) -> np.ndarray:
    """Feet (T, 2, 2) that step by dx at the given times: (foot, start s, dx m), each lasting `duration`.

    The ankle rises on a sine arch and moves along x only while it is above 1.3 × the contact height.
    """
    out = feet.copy()
    lift = np.arcsin(min(1.0, 1.3 * CONTACT_HEIGHT / clearance)) / np.pi
    for foot, start, dx in steps:
        s = np.clip((t - start) / duration, 0.0, 1.0)
        out[:, foot, 0] += dx * smootherstep((s - lift) / (1.0 - 2.0 * lift))
        out[:, foot, 1] += clearance * np.sin(np.pi * s)
    return out


def dance(ctx: ActionContext) -> ActionOutput:
    """Dancing to a beat: a bouncy groove, step-touch steps, disco points or a sway with the hands up.

    Every style bobs the knees on the beat and shifts the weight; the moves fade in over the first beat
    and out over the last, so the dance starts and ends standing.
    """
    rng, view, world = ctx.rng, ctx.view, ctx.world
    style_name = DANCE_STYLES[int(rng.integers(len(DANCE_STYLES)))]
    bpm = float(rng.uniform(90.0, 132.0))
    beat = 60.0 / bpm / ctx.tempo
    amp = float(np.clip(ctx.style.amplitude, 0.6, 1.3))
    n = ctx.frames(max(ctx.seconds, 4.0 * beat + 0.5))
    t = ctx.times(n)
    total = n / ctx.fps
    fade = smoothstep(t / beat) * smoothstep((total - 0.15 - t) / beat)
    phase = t / beat
    on_beat = 0.5 + 0.5 * np.cos(2.0 * np.pi * phase)  # 1 on each beat, 0 between
    # One way on odd beats, the other way on even ones (snapping into each position on the beat for
    # the small moves; the big arm sweeps of disco and sway stay smooth).
    swing = np.sin(np.pi * phase)
    snap = np.tanh(2.5 * swing) / np.tanh(2.5)
    base = ctx.standing(n)
    rest_arms = base.arms[0]
    root, spine = base.root.copy(), base.spine.copy()
    dip = (0.04 if style_name == "groove" else 0.025) * amp
    root[:, 1] -= fade * (0.01 + dip * on_beat)
    # Nodding to the beat (side view); from the front the head bobs from side to side.
    spine[:, 2] += fade * 0.08 * amp * (on_beat if view == "side" else snap)
    feet = _feet(ctx, n)
    careful = 0.5 if world.name == "ice" else 1.0  # short steps and small shifts on ice
    shift = (0.04 if view == "front" else 0.015) * amp * careful
    manner = style_name
    if style_name == "steps":
        # Step-touch (front view: out to one side, the other foot closes, and back) or a rock step
        # (side view: one foot forward and back, the other back and forward), one step per beat.
        d = float(rng.uniform(0.18, 0.28)) * amp * careful * (1.0 if view == "front" else 0.8)
        lead = int(rng.integers(2))
        out_dir = (1.0 if lead == LEFT else -1.0) if view == "front" else 1.0
        cycles = int((total - 2.0 * beat) // (4.0 * beat))
        steps = []
        for c in range(cycles):
            b0 = (1 + 4 * c) * beat - 0.35 * beat
            if view == "front":
                steps += [
                    (lead, b0, out_dir * d),
                    (1 - lead, b0 + beat, out_dir * d),
                    (1 - lead, b0 + 2 * beat, -out_dir * d),
                    (lead, b0 + 3 * beat, -out_dir * d),
                ]
            else:
                steps += [(lead, b0, d), (lead, b0 + beat, -d), (1 - lead, b0 + 2 * beat, -d),
                          (1 - lead, b0 + 3 * beat, d)]  # fmt: skip
        clearance = 0.1 * (1.5 if world.name == "snow" else 1.0)
        feet = _step_feet(t, feet, steps, 0.7 * beat, clearance)
        root[:, 0] += (feet[:, :, 0] - feet[:1, :, 0]).mean(axis=1)
        manner = "steps" if view == "front" else "rock"
    else:
        root[:, 0] += fade * shift * snap
    arms = np.broadcast_to(rest_arms, (n, 2, 2)).copy()
    s = np.array([_outward(view, LEFT), _outward(view, RIGHT)])
    if style_name == "groove":
        # Elbows bent, fists pumping alternately (forward and back from the side, up and down from the front).
        pose = _both(view, (0.1, 1.7), (0.5, 1.5))
        arms = pose + np.stack([snap, -snap], axis=1)[..., None] * np.array([0.45, -0.2]) * s[:, None] * amp
    elif style_name == "steps":
        if view == "front":  # swing both arms toward the stepping side, bent
            arms = _both(view, (0.0, 0.0), (0.4, 0.9)) + (0.3 * amp * snap)[:, None, None] * np.array(
                [1.0, 0.0]
            )
        else:  # arms swing against the legs, as in walking
            arms = _both(view, (0.1, 1.2), (0.0, 0.0)) + np.stack([-snap, snap], 1)[..., None] * [0.4, 0.0]
    elif style_name == "disco":
        # One arm points up and out on one beat, down and across on the next; the other hand on the hip.
        arm = int(rng.integers(2))
        up_pose, down_pose = ((2.5, 0.0), (0.6, 0.0)) if view == "side" else ((2.4, 0.0), (-0.6, 0.0))
        w = 0.5 + 0.5 * swing  # 1: up, 0: down
        pointing = (np.array(down_pose) + (np.array(up_pose) - np.array(down_pose)) * w[:, None]) * s[arm]
        arms[:, arm] = pointing
        arms[:, 1 - arm] = np.array([-0.25, 0.9] if view == "side" else [0.75, -1.6]) * s[1 - arm]
    else:  # sway: both hands up, swaying with the hips
        arms = _both(view, (2.8, 0.1), (2.55, 0.15)) + (0.25 * amp * swing)[:, None, None] * np.array(
            [1.0, 0.0]
        )
        spine[:, 1] -= fade * 0.1 * swing * (1.0 if view == "front" else 0.3)
    arms = _blend_arms(np.broadcast_to(rest_arms, (n, 2, 2)), arms, fade)
    track = base.with_(root=root, spine=spine, arms=arms)
    track = _plant(ctx, track, feet)
    params = {"speed": speed_word(bpm, 100.0, 124.0), "dance_style": style_name, "bpm": round(bpm),
              "manner": list(_DANCE_MANNER[manner])}  # fmt: skip
    return ActionOutput(track, params)


SPECS: tuple[ActionSpec, ...] = (
    ActionSpec("clap", clap, ("front", "side"), STAND),
    ActionSpec("point", point, ("side", "front"), STAND),
    ActionSpec("salute", salute, ("front", "side"), STAND),
    ActionSpec("shrug", shrug, ("front", "side"), STAND),
    ActionSpec("bow", bow, ("side",), STAND),
    ActionSpec("cheer", cheer, ("front", "side"), STAND),
    ActionSpec("beckon", beckon, ("side", "front"), STAND),
    ActionSpec("look_around", look_around, ("front", "side"), STAND),
    ActionSpec("celebrate", celebrate, ("front", "side"), STAND),
    ActionSpec("dance", dance, ("front", "side"), STAND),
)  # fmt: skip
