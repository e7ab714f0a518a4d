"""Floor and posture work: kneel, lie down, get up, crouch, squat, push-up, sit-up, stretch, bend over, lunge.

Every movement here is a list of key poses (`_Key`): the pelvis, the torso, the angles of free arms,
and world targets for the ankles and for hands that rest on something (the floor, the knees, the
hips). `_play` eases between the keys and solves the legs and the resting arms by IK in every frame,
so a foot or a hand stays where its target stays; a target that moves between two places near the
floor is lifted first and put down after it has arrived, so nothing slides along the floor. Holding
a pose is two equal keys; a `via` key is passed without stopping (hips swinging round the knees).

Postures beyond standing, and the state each action reports (`ActionOutput.end_state`):

- "kneel_left" / "kneel_right": on that knee, the other foot planted in front; "kneel_both":
  upright on both knees, the shins on the floor behind.
- "lie_back": on the back, the head toward −x and the legs straight toward +x (where a figure facing
  +x ends after sitting down and lying back), arms along the sides; "lie_front": face down, the head
  toward +x (after going down on hands and knees), hands on the floor beside the chest.
  `lying_pose` gives these poses exactly, for other families' actions that end lying.
  A "_flipped" suffix is the same posture with the head the other way, which a roll produces; a
  generator that starts from it makes its canonical motion and mirrors it (`_mirror`). Mirroring
  here is the body's own orientation on the floor, not the sampler's turn to face left.

Actions that start in a posture (`get_up`, `sit_up`) begin exactly in that pose when they open a clip.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from stickgen.figure import J
from stickgen.synth.actions.postures import stand_up
from stickgen.synth.actions.spec import STAND, ActionSpec
from stickgen.synth.body import Body
from stickgen.synth.context import ActionContext, ActionOutput, speed_word
from stickgen.synth.keyframes import smootherstep, smoothstep
from stickgen.synth.kinematics import Track, arm_ik, forward_kinematics, leg_ik, standing_ankles
from stickgen.synth.transitions import BLEND

SIDE_NAMES = ("left", "right")
LIFT = 0.09  # m: how high a foot rises to move between two places near the floor (a hand: 70 %)
NEAR_FLOOR = 0.15  # m: targets this low are lifted when they move
# Heights (m) of joints resting on the floor: a knee, the ankle of a foot on its toes behind a knee,
# a wrist on the flat hand, the ankles of a figure lying on its heels.
KNEE_Y = 0.05
TOE_Y = 0.08
HAND_Y = 0.03
HEEL_Y = 0.055


@dataclass(frozen=True)
class _Key:
    """One key pose in the canonical frame. Positions and targets in m (world), angles as in `kinematics`."""

    root: np.ndarray  # (2,) pelvis
    spine: np.ndarray  # (3,)
    arms: np.ndarray  # (2, 2) angles of free arms
    feet: np.ndarray  # (2, 2) ankle targets
    hands: np.ndarray  # (2, 2) wrist targets; a NaN row is a free arm (its angles are used)
    bend: np.ndarray = field(default_factory=lambda: np.array([-1.0, -1.0]))  # (2,) elbow IK bend
    via: bool = False  # passed through without stopping (pelvis, torso and free arms keep moving)

    def but(self, **changes) -> _Key:
        """A copy with some fields replaced (arrays given as anything array-like)."""
        arrays = {k: v if k == "via" else np.asarray(v, dtype=np.float64) for k, v in changes.items()}
        return replace(self, **arrays)

    def shifted(self, dx: float) -> _Key:
        """The same pose `dx` m further along x."""
        move = np.array([dx, 0.0])
        return self.but(root=self.root + move, feet=self.feet + move, hands=self.hands + move)

    def mirrored(self, x: float) -> _Key:
        """The mirror image about the vertical line at `x` (see `_mirror`)."""
        flip, shift = np.array([-1.0, 1.0]), np.array([2.0 * x, 0.0])
        return self.but(root=self.root * flip + shift, spine=-self.spine, arms=-self.arms[::-1],
                        feet=self.feet[::-1] * flip + shift, hands=self.hands[::-1] * flip + shift,
                        bend=-self.bend[::-1])  # fmt: skip


FREE = np.full((2, 2), np.nan)


# --- Playing key poses -----------------------------------------------------------------------------


def _times(ctx: ActionContext, durations: list[float], settle: bool = False) -> np.ndarray:
    """Key times (K + 1,) s from voluntary durations (K,) s: scaled by `ctx.dur`, then squeezed to fit.

    settle: the first span is instead the sampler's blend time, real seconds never squeezed.
    """
    spans = np.array([ctx.dur(d) for d in durations])
    if settle:
        spans[0] = BLEND
    squeezed = spans[1:] if settle else spans  # a view: scaled in place
    room = (ctx.max_frames - 1) / ctx.fps - (BLEND if settle else 0.0)
    squeezed *= min(1.0, max(room, 0.0) / squeezed.sum())
    return np.concatenate([[0.0], np.cumsum(spans)])


def _segment(t: np.ndarray, key_t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For frame times (T,): the index of the key span each is in and the fraction of it done (0..1)."""
    k = np.clip(np.searchsorted(key_t, t, side="right") - 1, 0, len(key_t) - 2)
    return k, np.clip((t - key_t[k]) / np.maximum(key_t[k + 1] - key_t[k], 1e-9), 0.0, 1.0)


def _moves(t: np.ndarray, key_t: np.ndarray, points: np.ndarray, lift: float) -> np.ndarray:
    """Eased targets (T, M, 2) through key positions (K, M, 2) at `key_t` (K,).

    A target that moves along x between two keys near the floor rises by `lift` (a sine bump) and
    moves along x only in the middle half of the way, while it is up.
    """
    k, s = _segment(t, key_t)
    s = s[:, None]  # (T, 1)
    a, b = points[k], points[k + 1]  # (T, M, 2)
    stepping = (np.maximum(a[..., 1], b[..., 1]) < NEAR_FLOOR) & (np.abs(b[..., 0] - a[..., 0]) > 0.01)
    wx = np.where(stepping, smootherstep((s - 0.25) / 0.5), smoothstep(s))
    x = a[..., 0] + (b[..., 0] - a[..., 0]) * wx
    y = a[..., 1] + (b[..., 1] - a[..., 1]) * smoothstep(s) + stepping * lift * np.sin(np.pi * s)
    return np.stack([x, y], axis=-1)


def _spline(t: np.ndarray, key_t: np.ndarray, values: np.ndarray, via: np.ndarray) -> np.ndarray:
    """Key `values` (K, ...) at `key_t` (K,) sampled at `t` (T,), a cubic Hermite curve at rest at every
    key except those marked `via` (K,), passed at the mean velocity of their two neighbouring spans."""
    shape = (-1,) + (1,) * (values.ndim - 1)
    slope = np.zeros_like(values)
    inner = np.flatnonzero(via[1:-1]) + 1
    gap = (key_t[inner + 1] - key_t[inner - 1]).reshape(shape)
    slope[inner] = (values[inner + 1] - values[inner - 1]) / gap
    k, s = _segment(t, key_t)
    span = (key_t[k + 1] - key_t[k]).reshape(shape)
    s = s.reshape(shape)
    h = s * s * (3.0 - 2.0 * s)  # smoothstep: the whole curve where both slopes are zero
    return (values[k] * (1.0 - h) + values[k + 1] * h
            + (s**3 - 2.0 * s**2 + s) * span * slope[k] + (s**3 - s**2) * span * slope[k + 1])  # fmt: skip


def _play(ctx: ActionContext, key_t: np.ndarray, keys: list[_Key]) -> Track:
    """The track of key poses at times `key_t` (K,) s, frame by frame (≤ `ctx.max_frames`).

    Legs reach their ankle targets by IK in every frame. An arm whose hand has a target in two
    consecutive keys reaches the eased target by IK in between (with the first key's elbow bend);
    elsewhere its keyed angles are eased, a key with a hand target contributing its IK angles there,
    so a hand takes hold or lets go at rest. The torso breathes.
    """
    body = ctx.body
    n = min(ctx.frames(key_t[-1]) + 1, ctx.max_frames)
    t = ctx.times(n)
    via = np.array([k.via for k in keys])
    roots, spines = np.stack([k.root for k in keys]), np.stack([k.spine for k in keys])
    spine = _spline(t, key_t, spines, via)
    spine[:, 1] += 0.012 * np.sin(2.0 * np.pi * t / ctx.dur(3.5))
    track = Track(_spline(t, key_t, roots, via), spine, np.zeros((n, 2, 2)), np.zeros((n, 2, 2)))
    track = track.with_(legs=leg_ik(track, body, _moves(t, key_t, np.stack([k.feet for k in keys]), LIFT)))

    hands = np.stack([k.hands for k in keys])  # (K, 2, 2)
    held = np.isfinite(hands[..., 0])  # (K, 2)
    bend = np.stack([k.bend for k in keys])  # (K, 2)
    keyed = np.stack([k.arms for k in keys])  # (K, 2, 2)
    if not held.any():
        return track.with_(arms=_spline(t, key_t, keyed, via))
    reach = arm_ik(Track(roots, spines, keyed, keyed), body, np.nan_to_num(hands), bend)
    arms = _spline(t, key_t, np.where(held[..., None], reach, keyed), via)
    k, _ = _segment(t, key_t)
    holding = held[k] & held[k + 1]  # (T, 2)
    targets = _moves(t, key_t, np.nan_to_num(hands), 0.7 * LIFT)
    return track.with_(arms=np.where(holding[..., None], arm_ik(track, body, targets, bend[k]), arms))


def _sequence(ctx: ActionContext, keys: list[_Key], spans: list[float], settle: bool = False) -> Track:
    """The track of `keys` (K,) with voluntary durations `spans` (K − 1,) s between them.

    settle: first hold the starting posture for the sampler's blend (`BLEND` s), which mixes the
    previous action's last frames with this one's first: a posture left at once (hands sliding,
    elbows unfolding) would be mixed with the still one into poses that neither has.
    """
    if settle:
        keys, spans = keys[:1] + keys, [0.0] + spans
    return _play(ctx, _times(ctx, spans, settle), keys)


def _mirror(track: Track, x: float) -> Track:
    """The mirror image of a track about the vertical line at `x`: angles negated, left and right swapped.

    A reflection, so that every joint lands exactly on the mirror image of its counterpart.
    """
    root = track.root * [-1.0, 1.0] + [2.0 * x, 0.0]
    return Track(root, -track.spine, -track.arms[:, ::-1], -track.legs[:, ::-1])


def _joints(body: Body, key: _Key) -> np.ndarray:
    """Joints (16, 2) of a key pose, its legs reaching their targets and its arms at their angles."""
    track = Track(key.root[None], key.spine[None], key.arms[None], np.zeros((1, 2, 2)))
    return forward_kinematics(track.with_(legs=leg_ik(track, body, key.feet[None])), body)[0]


def _reps(ctx: ActionContext, overhead: float, per: float, least: int, most: int) -> int:
    """Repetitions of `per` voluntary s each that, after `overhead` voluntary s, last about `ctx.seconds`;
    fewer where the frame budget has no room for them (at least `least`, at most `most`)."""
    want = round((ctx.seconds / ctx.dur(1.0) - overhead) / per)
    room = int(((ctx.max_frames - 1) / ctx.fps / ctx.dur(1.0) - overhead) / per)
    return int(np.clip(min(want, room), least, most))


def _hold(ctx: ActionContext, moving: float, least: float) -> float:
    """A hold (voluntary s) that makes an action with `moving` voluntary s of motion last `ctx.seconds`."""
    return max(least, ctx.seconds / ctx.dur(1.0) - moving)


# --- Postures --------------------------------------------------------------------------------------


def _reach(body: Body) -> float:
    """Pelvis → shoulder distance (m) along a straight torso."""
    return body.lower_torso + body.upper_torso - body.shoulder_drop


def _stand_key(ctx: ActionContext, x: float = 0.0) -> _Key:
    """The standing pose of `ctx.standing` with its pelvis above `x`."""
    base = ctx.standing(1)
    feet = standing_ankles(base, ctx.body)[0] + [x, 0.0]
    return _Key(base.root[0] + [x, 0.0], base.spine[0].copy(), base.arms[0].copy(), feet, FREE)


def _on_knees(body: Body, key: _Key, view: str) -> _Key:
    """The key with both hands resting on (side view: just above) the knees."""
    knees = _joints(body, key)[[J["l_knee"], J["r_knee"]]]
    offset = [0.03, 0.04] if view == "side" else [0.0, 0.05]
    # The elbows bend back from the side and outward from the front.
    return key.but(hands=knees + offset, bend=[-1.0, -1.0] if view == "side" else [1.0, -1.0])


def _crouched(ctx: ActionContext, depth: float) -> _Key:
    """Crouching with the pelvis at `depth` × leg length (heels up when deep), hands on the knees."""
    stand, body = _stand_key(ctx), ctx.body
    feet = stand.feet + [0.0, 0.03 if depth < 0.5 else 0.0]
    if ctx.view == "side":  # hips back and torso forward keep the weight over the feet
        lean = 0.45 + 1.2 * (0.6 - depth) + ctx.style.lean
        root, spine = [-(0.62 - depth) * 0.9 * body.leg, depth * body.leg], [lean, 0.15, -0.3 - 0.4 * lean]
    else:  # seen from the front the knees open outward
        root, spine = [0.0, depth * body.leg], [0.0, 0.0, 0.15 * ctx.style.head]
    return _on_knees(body, stand.but(root=root, spine=spine, feet=feet), ctx.view)


def _kneel_one(
    ctx: ActionContext, down: int, x_front: float, knee_y: float = KNEE_Y, toe_y: float = TOE_Y
) -> _Key:
    """On the `down` knee, the other foot planted at `x_front`, torso upright, hands on the front knee.

    knee_y, toe_y: heights (m) of the down knee and of its ankle (on the toes behind it); a lunge
    keeps the knee a little above the floor.
    """
    body = ctx.body
    e = 0.12 * body.thigh  # the hip a little ahead of the knee on the floor
    hip_y = knee_y + np.sqrt(body.thigh**2 - e**2)
    # The front shin about upright: the hip a thigh's length behind the front knee.
    dx = np.sqrt(max(body.thigh**2 - (hip_y - body.shin) ** 2, 0.5 * body.thigh**2))
    root = np.array([x_front - dx, hip_y])
    beta = np.arcsin((toe_y - knee_y) / body.shin)
    feet = np.zeros((2, 2))
    feet[down] = [root[0] - e - body.shin * np.cos(beta), toe_y]
    feet[1 - down] = [x_front, 0.0]
    spine = [ctx.world.lean + 0.5 * ctx.style.lean + 0.05, 0.0, 0.1 + ctx.style.head]
    key = _stand_key(ctx).but(root=root, spine=spine, feet=feet)
    knee = _joints(body, key)[J["r_knee"] if down == 0 else J["l_knee"]]
    return key.but(hands=np.array([knee, knee]) + [0.03, 0.05])


def _kneel_both(ctx: ActionContext, x_ankles: float) -> _Key:
    """Upright on both knees, the shins on the floor behind ending at `x_ankles`, hands on the thighs."""
    body = ctx.body
    e = 0.05 * body.thigh
    beta = np.arcsin((TOE_Y - KNEE_Y) / body.shin)
    root = np.array([x_ankles + body.shin * np.cos(beta) + e, KNEE_Y + np.sqrt(body.thigh**2 - e**2)])
    spine = [ctx.world.lean + 0.5 * ctx.style.lean - 0.03, 0.0, 0.1 + ctx.style.head]
    key = _stand_key(ctx).but(root=root, spine=spine, feet=[[x_ankles, TOE_Y]] * 2)
    joints = _joints(body, key)
    thighs = 0.45 * joints[[J["l_hip"], J["r_hip"]]] + 0.55 * joints[[J["l_knee"], J["r_knee"]]]
    return key.but(hands=thighs + [0.06, 0.04])


def _all_fours(ctx: ActionContext, x_ankles: float) -> _Key:
    """On hands and knees, facing +x: thighs upright, torso near level, hands under the shoulders."""
    body = ctx.body
    beta = np.arcsin((TOE_Y - KNEE_Y) / body.shin)
    root = np.array([x_ankles + body.shin * np.cos(beta), KNEE_Y + 0.995 * body.thigh])
    lean = float(np.arccos(np.clip((HAND_Y + 0.95 * body.arm - root[1]) / _reach(body), -0.5, 0.5)))
    shoulder_x = root[0] + np.sin(lean) * _reach(body)
    return _stand_key(ctx).but(root=root, spine=[lean, 0.0, -0.35], feet=[[x_ankles, TOE_Y]] * 2,
                               hands=[[shoulder_x, HAND_Y]] * 2)  # fmt: skip


def _lying(body: Body, on_back: bool, x: float) -> _Key:
    """Lying with the pelvis above `x`: on the back, head toward −x, arms along the sides; or face down,
    head toward +x, hands on the floor beside the chest. The head circle rests on the floor."""
    sign = -1.0 if on_back else 1.0  # the way the head points
    y = 0.055 * body.height
    lean = sign * (0.5 * np.pi - 0.04)
    neck_y = y + (body.lower_torso + body.upper_torso) * np.cos(lean)
    radius = np.clip(0.8 * body.head, 0.07, 0.14)  # as `render.draw.head_radius` draws it
    head = sign * np.arccos(np.clip((radius - neck_y) / body.head, -1.0, 1.0))
    spine = np.array([lean, 0.0, head - lean])
    # Ankle targets a little out of reach: IK points the legs straight at them.
    feet = np.array([[x - sign * 1.02 * body.leg, HEEL_Y if on_back else TOE_Y - 0.02]] * 2)
    if on_back:  # the arms straight along the sides, the hands on the floor by the hips
        shoulder_y = y + _reach(body) * np.cos(lean)
        arm = np.arccos(np.clip((shoulder_y - HAND_Y) / body.arm, -1.0, 1.0))
        return _Key(np.array([x, y]), spine, np.array([[arm, 0.0], [arm, 0.0]]), feet, FREE)
    hands = np.array([[x + _reach(body) - 0.12, HAND_Y]] * 2)
    return _Key(np.array([x, y]), spine, np.zeros((2, 2)), feet, hands)


def _sitting(ctx: ActionContext, x_feet: float) -> _Key:
    """Sitting on the floor, knees up, feet planted at `x_feet`, hands on the knees (as `postures` sits)."""
    stand = _stand_key(ctx, x_feet)
    key = stand.but(root=[x_feet - 0.55 * ctx.body.leg, 0.1], spine=stand.spine + [-0.12, 0.1, 0.1])
    return _on_knees(ctx.body, key, "side")


def lying_pose(body: Body, on_back: bool) -> Track:
    """The one-frame pose of the "lie_back" (on_back) or "lie_front" posture, pelvis at x = 0.

    For actions of other families that end lying (a fall), so that `get_up` and `sit_up` continue
    from exactly where they stop.
    """
    key = _lying(body, on_back, 0.0)
    track = Track(key.root[None], key.spine[None], key.arms[None], np.zeros((1, 2, 2)))
    track = track.with_(legs=leg_ik(track, body, key.feet[None]))
    return track if on_back else track.with_(arms=arm_ik(track, body, key.hands[None], key.bend))


def _lying_state(state: str, rng: np.random.Generator) -> tuple[bool, bool]:
    """(on the back, flipped) of a lying posture's name; a bare "lie" is either, unflipped."""
    if state == "lie":
        return bool(rng.random() < 0.5), False
    return "front" not in state, state.endswith("_flipped")


# --- Ways down and up ------------------------------------------------------------------------------


def _down_back(ctx: ActionContext) -> list[_Key]:
    """Key poses from standing at x = 0 to lying on the back: squat, sit on the floor, lie back."""
    stand = _stand_key(ctx)
    low = _crouched(ctx, 0.45).but(hands=FREE, arms=[[1.0, 0.4]] * 2)
    sit = _sitting(ctx, float(stand.feet[:, 0].mean()))
    return [stand, low, sit, _lying(ctx.body, True, sit.root[0])]


def _down_front(ctx: ActionContext) -> list[_Key]:
    """Key poses from standing at x = 0 to lying face down: both knees, hands and knees, flat."""
    body = ctx.body
    stand = _stand_key(ctx)
    x_ankles = float(stand.feet[:, 0].mean())
    fours = _all_fours(ctx, x_ankles)
    prone = _lying(body, False, x_ankles + 0.995 * body.leg)
    # Halfway down the hips swing forward round the knees (a via key), not straight through them.
    tilt = np.radians(50.0)
    lower = fours.but(
        root=[fours.root[0] + body.thigh * np.sin(tilt), KNEE_Y + body.thigh * np.cos(tilt)],
        spine=0.5 * (fours.spine + prone.spine),
        feet=0.5 * (fours.feet + prone.feet),
        via=True,
    )
    return [stand, _kneel_both(ctx, x_ankles), fours, lower, prone]


def _down_one_knee(ctx: ActionContext, down: int) -> list[_Key]:
    """Standing at x = 0 to kneeling on the `down` knee, the other foot staying where it stands."""
    stand = _stand_key(ctx)
    return [stand, _kneel_one(ctx, down, float(stand.feet[1 - down, 0]))]


def _one_knee_from_both(ctx: ActionContext, down: int, both: _Key) -> _Key:
    """The one-knee pose reached from `both` by bringing the other foot forward (the `down` knee stays)."""
    one = _kneel_one(ctx, down, 0.0)
    return one.shifted(float(both.feet[down, 0] - one.feet[down, 0]))


def _standing_over(ctx: ActionContext, foot: int, x: float) -> _Key:
    """Standing with the `foot` ankle at `x`."""
    stand = _stand_key(ctx)
    return stand.shifted(x - float(stand.feet[foot, 0]))


def _rise(ctx: ActionContext, state: str) -> tuple[list[_Key], list[float], list[str]]:
    """Key poses, voluntary spans and manner phrases of getting up to standing from a canonical posture.

    state: "lie_back", "lie_front", "kneel_left", "kneel_right", "kneel_both", "kneel" or "sit_floor".
    """
    rng = ctx.rng
    forward = [[1.5, 0.1]] * 2  # arms swung forward to bring the weight over the feet
    if state == "lie_back":
        stand, low, sit, lying = _down_back(ctx)
        sit = sit.but(spine=[0.45, 0.2, -0.2], hands=FREE, arms=[[1.3, 0.3]] * 2)
        return [lying, sit, low.but(arms=forward), stand], [1.2, 0.6, 0.8], ["from lying on its back"]
    if state == "lie_front":
        stand, both, fours, lower, prone = _down_front(ctx)
        down = int(rng.integers(2))
        one = _one_knee_from_both(ctx, down, both)
        up = _standing_over(ctx, 1 - down, float(one.feet[1 - down, 0]))
        return [prone, lower, fours, both, one, up], [0.5, 0.5, 0.8, 0.8, 1.1], ["from lying face down"]
    if state.startswith("kneel"):
        side = state.removeprefix("kneel_")
        down = SIDE_NAMES.index(side) if side in SIDE_NAMES else int(rng.integers(2))
        stand, one = _down_one_knee(ctx, down)
        if side in SIDE_NAMES:
            return [one, stand], [1.1], ["from kneeling", "from its knee"]
        both = _kneel_both(ctx, 0.0)
        one = _one_knee_from_both(ctx, down, both)
        up = _standing_over(ctx, 1 - down, float(one.feet[1 - down, 0]))
        return [both, one, up], [0.8, 1.1], ["from kneeling", "from its knees"]
    stand = _stand_key(ctx)
    sit = _sitting(ctx, float(stand.feet[:, 0].mean()))
    lean = sit.but(spine=[0.5, 0.2, -0.2], hands=FREE, arms=[[1.3, 0.3]] * 2)
    low = _crouched(ctx, 0.45).but(hands=FREE, arms=forward)
    return [sit, lean, low, stand], [0.5, 0.6, 0.8], ["from the floor", "from sitting on the floor"]


# --- The actions -----------------------------------------------------------------------------------


def kneel(ctx: ActionContext) -> ActionOutput:
    """Go down on one knee (stepping the other leg back) or drop onto both knees, and stay kneeling."""
    rng = ctx.rng
    if rng.random() < 0.4:
        stand = _stand_key(ctx)
        keys = [stand, _kneel_both(ctx, float(stand.feet[:, 0].mean()))]
        state, params = "kneel_both", {"manner": ["on both knees", "on its knees"]}
    else:
        down = int(rng.integers(2))
        keys = _down_one_knee(ctx, down)
        state = f"kneel_{SIDE_NAMES[down]}"
        params = {"knee": SIDE_NAMES[down], "manner": ["on one knee", f"on its {SIDE_NAMES[down]} knee"]}
    going = float(rng.uniform(1.0, 1.5))
    track = _sequence(ctx, keys + keys[-1:], [going, _hold(ctx, going, 0.8)])
    return ActionOutput(track, params, end_state=state)


def lie_down(ctx: ActionContext) -> ActionOutput:
    """Lie down on the back (sit, then lie back) or face down (knees, hands, flat), and stay there."""
    rng = ctx.rng
    on_back = bool(rng.random() < 0.6)
    keys = _down_back(ctx) if on_back else _down_front(ctx)
    base = [0.8, 0.6, 1.3] if on_back else [1.1, 0.8, 0.55, 0.6]
    spans = [d * float(rng.uniform(0.85, 1.2)) for d in base]
    track = _sequence(ctx, keys + keys[-1:], spans + [_hold(ctx, sum(spans), 0.8)])
    manner = ["on its back", "face up"] if on_back else ["on its stomach", "face down", "on its front"]
    return ActionOutput(track, {"manner": manner}, end_state="lie_back" if on_back else "lie_front")


def get_up(ctx: ActionContext) -> ActionOutput:
    """Get up to standing from lying (on the back or face down), kneeling, or sitting (floor or chair)."""
    rng, state = ctx.rng, ctx.start_state
    if state == "sit_chair" or (state == "sit" and rng.random() < 0.5):
        out = stand_up(replace(ctx, start_state="sit_chair"))
        return ActionOutput(out.track, {"manner": ["from the chair", "from its seat"]})
    flipped = False
    if state.startswith("lie"):
        on_back, flipped = _lying_state(state, rng)
        state = "lie_back" if on_back else "lie_front"
    keys, spans, manner = _rise(ctx, state)
    spans = [d * float(rng.uniform(0.85, 1.2)) for d in spans]
    track = _sequence(ctx, keys + keys[-1:], spans + [0.3], settle=True)
    if flipped:
        track = _mirror(track, float(track.root[0, 0]))
    return ActionOutput(track, {"manner": manner})


def crouch(ctx: ActionContext) -> ActionOutput:
    """Lower into a crouch, hands on the knees, hold it, and come back up."""
    depth = float(ctx.rng.uniform(0.4, 0.6))
    stand, low = _stand_key(ctx), _crouched(ctx, depth)
    down, up = 0.9 * (1.2 - depth), 0.8
    track = _sequence(ctx, [stand, low, low, stand, stand], [down, _hold(ctx, down + up + 0.3, 0.6), up, 0.3])
    params = {"depth": round(depth, 2)}
    if depth < 0.47:
        params["manner"] = ["all the way down", "very low", "deeply"]
    elif depth > 0.55:
        params["manner"] = ["slightly", "a little"]
    return ActionOutput(track, params)


def squat(ctx: ActionContext) -> ActionOutput:
    """Repeated squats: arms up in front, hips back and down until the thighs are level, and up again."""
    rng = ctx.rng
    rate = float(rng.uniform(0.45, 0.9))  # squats per second
    depth = float(rng.uniform(0.5, 0.62))
    per = 1.0 / rate
    reps = _reps(ctx, 1.2, per, 1, 8)
    # Arms out for balance: straight forward from the side, hands together at the chest from the front.
    arms = [[1.45, 0.05], [1.45, 0.05]] if ctx.view == "side" else [[0.15, -2.2], [-0.15, 2.2]]
    stand = _stand_key(ctx)
    ready = stand.but(arms=arms)
    low = _crouched(ctx, depth).but(hands=FREE, arms=arms, feet=stand.feet)
    if ctx.view == "side":  # with the arms out in front the torso stays a little more upright
        low = low.but(spine=low.spine - [0.05, 0.1, -0.2])
    keys, spans = [stand, ready], [0.5]
    for _ in range(reps):
        keys += [low, ready]
        spans += [0.55 * per, 0.45 * per]
    track = _sequence(ctx, keys + [stand, stand], spans + [0.5, 0.2])
    return ActionOutput(track, {"reps": reps, "speed": speed_word(rate, 0.55, 0.8), "depth": round(depth, 2)})


def _plank(ctx: ActionContext, x_hands: float, shoulder_y: float) -> _Key:
    """A straight body from the toes to the shoulders at `shoulder_y`, hands on the floor at `x_hands`.

    The toes stay where the high plank (arms straight) puts them, so lower planks turn about them.
    """
    body = ctx.body
    length = _reach(body) + 0.99 * body.leg  # toes to shoulders
    high = np.arcsin((HAND_Y + 0.97 * body.arm - TOE_Y) / length)
    ankle = np.array([x_hands - length * np.cos(high), TOE_Y])
    angle = np.arcsin((shoulder_y - TOE_Y) / length)
    along = np.array([np.cos(angle), np.sin(angle)])
    return _stand_key(ctx).but(root=ankle + 0.99 * body.leg * along, spine=[0.5 * np.pi - angle, 0.0, -0.15],
                               feet=[ankle - 0.02 * along] * 2, hands=[[x_hands, HAND_Y]] * 2)  # fmt: skip


def push_up(ctx: ActionContext) -> ActionOutput:
    """Crouch and put the hands down, step back into a plank, do push-ups, step the feet in, stand up."""
    rng, body = ctx.rng, ctx.body
    rate = float(rng.uniform(0.6, 1.2))  # push-ups per second
    per = 1.0 / rate
    reps = _reps(ctx, 4.5, per, 1, 10)
    stand = _stand_key(ctx)
    low = _crouched(ctx, 0.42).but(hands=FREE, spine=[1.15, 0.1, -0.5], feet=stand.feet + [0.0, 0.04])
    shoulder = _joints(body, low)[J["l_shoulder"]]
    x_hands = shoulder[0] + np.sqrt(max((0.95 * body.arm) ** 2 - (shoulder[1] - HAND_Y) ** 2, 0.0))
    low = low.but(hands=[[x_hands, HAND_Y]] * 2)
    up = _plank(ctx, x_hands, HAND_Y + 0.97 * body.arm)
    down = _plank(ctx, x_hands, HAND_Y + float(rng.uniform(0.25, 0.4)) * body.arm)
    # One foot back: the hips rise high enough for the other knee to pass above the floor, the torso
    # tipping down to keep the shoulders over the hands.
    hip_y = max(low.root[1] + 0.1 * body.leg, body.thigh + 0.18)
    tip = float(np.arccos(np.clip((shoulder[1] - hip_y) / _reach(body), -1.0, 1.0)))
    first = int(rng.integers(2))
    half = low.but(root=[shoulder[0] - _reach(body) * np.sin(tip), hip_y], spine=[tip, 0.0, -0.4],
                   feet=np.where(np.arange(2)[:, None] == first, up.feet, low.feet))  # fmt: skip
    keys, spans = [stand, low, half, up], [0.8, 0.6, 0.6]
    for _ in range(reps):
        keys += [down, up]
        spans += [0.55 * per, 0.45 * per]
    track = _sequence(ctx, keys + [half, low, stand, stand], spans + [0.6, 0.6, 0.8, 0.2])
    return ActionOutput(track, {"reps": reps, "speed": speed_word(rate, 0.75, 1.05)})


def _situps(ctx: ActionContext, reps: int, per: float) -> tuple[list[_Key], list[float], dict]:
    """From lying on the back at x = 0: knees up, `reps` sit-ups or crunches of `per` s, lying flat again."""
    rng, body = ctx.rng, ctx.body
    lying = _lying(body, True, 0.0)
    full = bool(rng.random() < 0.6)  # a full sit-up to upright, else a crunch of the shoulders only
    top_lean, curl = (-0.25, 0.2) if full else (-1.0, 0.45)
    feet = np.array([[0.62 * body.leg, 0.0]] * 2)
    behind_head = bool(rng.random() < 0.6)

    def pose(lean: float, bend: float, head: float) -> _Key:
        if behind_head:  # elbows out, hands behind the head: fixed to the upper torso
            arms = [[np.pi - 0.5 - (lean + bend), 2.75]] * 2
        else:  # reaching along the thighs toward the knees, higher as the torso rises
            arms = [[1.52 + 0.35 * (lean - lying.spine[0]) / (top_lean - lying.spine[0]), 0.05]] * 2
        return lying.but(spine=[lean, bend, head], arms=arms, feet=feet)

    flat, top = pose(lying.spine[0], 0.0, lying.spine[2] + 0.1), pose(top_lean, curl, 0.35)
    keys, spans = [lying, flat], [0.9]
    for _ in range(reps):
        keys += [top, flat]
        spans += [0.5 * per, 0.5 * per]
    params = {"reps": reps}
    if behind_head:
        params["manner"] = ["with its hands behind its head"]
    return keys + [lying], spans + [0.9], params


def _roll_to_back(ctx: ActionContext) -> list[_Key]:
    """Face down with the head toward −x (the flipped prone pose), rolling over onto the back at x = 0."""
    body = ctx.body
    prone = _lying(body, False, 0.0).mirrored(0.0)
    back = _lying(body, True, 0.0)
    # The hands slide down beside the hips first, so the arms swing up over the top, never into the floor.
    arms_down = prone.but(hands=[[0.1, HAND_Y]] * 2)
    # Half way the figure is on its side, the upper arm swinging over the top.
    side = back.but(root=back.root + [0.0, 0.06], spine=0.5 * (prone.spine + back.spine),
                    arms=[[np.pi - 0.3, 0.4], [2.0, 1.0]], feet=0.5 * (prone.feet + back.feet),
                    via=True)  # fmt: skip
    return [prone, arms_down, side, back]


def sit_up(ctx: ActionContext) -> ActionOutput:
    """Sit-ups or crunches on the back with the knees up, rolling onto the back first if face down."""
    rng = ctx.rng
    # A clip that opens with sit-ups starts on the back.
    on_back, flipped = (True, False) if ctx.start_state == "lie" else _lying_state(ctx.start_state, rng)
    rate = float(rng.uniform(0.4, 0.8))  # sit-ups per second
    per = 1.0 / rate
    reps = _reps(ctx, 1.8 + 1.8 * (not on_back), per, 1, 10)
    keys, spans, params = _situps(ctx, reps, per)
    if not on_back:
        # The canonical roll starts from the flipped prone pose, so a plain prone start mirrors it all.
        keys, spans, flipped = _roll_to_back(ctx)[:-1] + keys, [0.5, 0.6, 0.7] + spans, not flipped
    track = _sequence(ctx, keys, spans, settle=True)
    if flipped:
        track = _mirror(track, float(track.root[0, 0]))
    params["speed"] = speed_word(rate, 0.5, 0.7)
    return ActionOutput(track, params, end_state="lie_back_flipped" if flipped else "lie_back")


def stretch(ctx: ActionContext) -> ActionOutput:
    """Reach both arms overhead up on tiptoe, or (front view) bend from side to side with the arms up."""
    rng = ctx.rng
    stand = _stand_key(ctx)
    if ctx.view == "side":
        overhead = np.array([[np.pi - 0.15, 0.1]] * 2)
    else:
        overhead = np.array([[np.pi - 0.2, 0.15], [-(np.pi - 0.2), -0.15]])
    if ctx.view == "front" and rng.random() < 0.5:
        reps = _reps(ctx, 1.1, 2.0, 2, 4)
        tilt = float(rng.uniform(0.25, 0.4)) * min(ctx.style.amplitude, 1.2)
        up = stand.but(arms=overhead)
        keys, spans = [stand, up], [0.8]
        for k in range(reps):
            # Toward the figure's left, then its right; the raised arms turn with the torso (by −angle).
            sign = 1.0 if k % 2 == 0 else -1.0
            bent = up.but(root=up.root - [sign * 0.05, 0.0], arms=overhead - [sign * 1.3 * tilt, 0.0],
                          spine=[sign * tilt, sign * 0.4 * tilt, sign * 0.2])  # fmt: skip
            keys += [bent, bent, up]
            spans += [0.8, 0.5, 0.7]
        manner = ["from side to side", "to each side"]
    else:
        reps = _reps(ctx, 0.3, 3.2, 1, 2)
        rise = float(rng.uniform(0.04, 0.07))  # up on the toes
        tall = stand.but(root=stand.root + [0.0, rise], feet=stand.feet + [0.0, rise], arms=overhead,
                         spine=[-0.12 if ctx.view == "side" else 0.0, -0.05, -0.3])  # fmt: skip
        keys, spans = [stand], []
        for _ in range(reps):
            keys += [tall, tall, stand]
            spans += [1.0, float(rng.uniform(0.8, 1.8)), 0.9]
        manner = ["on tiptoe", "up on its toes"]
    return ActionOutput(_sequence(ctx, keys + [stand], spans + [0.3]), {"reps": reps, "manner": manner})


def bend_over(ctx: ActionContext) -> ActionOutput:
    """Bend forward at the hips, reach down toward the toes, and straighten up again."""
    rng, body = ctx.rng, ctx.body
    stand = _stand_key(ctx)
    reps = _reps(ctx, 0.3, 2.6, 1, 3)
    depth = float(rng.uniform(0.0, 1.0))
    # The hips go back as the torso goes forward, keeping the weight over the feet.
    root = stand.root + [-(0.1 + 0.06 * depth) * body.leg, -0.04 * body.leg]
    bent = stand.but(root=root, spine=[1.8 + 0.6 * depth, 0.25, 0.3])
    toes = float(stand.feet[:, 0].mean()) + 0.12
    shoulder = _joints(body, bent)[J["l_shoulder"]]
    # The hands go toward the floor in front of the toes, as low as nearly straight arms reach.
    lowest = shoulder[1] - np.sqrt(max((0.98 * body.arm) ** 2 - (toes - shoulder[0]) ** 2, 0.0))
    bent = bent.but(hands=[[toes, max(HAND_Y, lowest)]] * 2)
    keys, spans = [stand], []
    for _ in range(reps):
        keys += [bent, bent, stand]
        spans += [1.0, float(rng.uniform(0.3, 1.2)), 0.9]
    params = {"reps": reps, "depth": round(depth, 2)}
    if lowest <= HAND_Y + 0.02:
        params["manner"] = ["all the way to the floor", "all the way down"]
    return ActionOutput(_sequence(ctx, keys + [stand], spans + [0.3]), params)


def lunge(ctx: ActionContext) -> ActionOutput:
    """Forward lunges on alternating legs: a long step, the back knee down near the floor, and back up
    (or, walking lunges, the back foot comes forward and lunges next)."""
    rng, body = ctx.rng, ctx.body
    rate = float(rng.uniform(0.35, 0.6))  # lunges per second
    per = 1.0 / rate
    reps = _reps(ctx, 0.7, per, 1, 6)
    walking = bool(rng.random() < 0.35)
    on_hips = bool(rng.random() < 0.5)
    lead = int(rng.integers(2))

    def hands(key: _Key) -> _Key:
        return key.but(hands=_joints(body, key)[[J["l_hip"], J["r_hip"]]] + [0.04, 0.06]) if on_hips else key

    stand = _stand_key(ctx)
    keys, spans, x = [stand], [], 0.0
    if on_hips:
        keys, spans = [stand, hands(stand)], [0.4]
    for k in range(reps):
        back = 1 - (lead + k) % 2
        here = _stand_key(ctx, x)
        bottom = _kneel_one(ctx, back, 0.0, knee_y=0.1, toe_y=0.11)
        bottom = bottom.shifted(float(here.feet[back, 0] - bottom.feet[back, 0]))
        bottom = hands(bottom.but(spine=here.spine + [0.05, 0.0, 0.0], arms=here.arms, hands=FREE))
        if walking:  # the back foot comes forward beside the front one
            x = float(_standing_over(ctx, 1 - back, float(bottom.feet[1 - back, 0])).root[0])
        keys += [bottom, bottom, hands(_stand_key(ctx, x))]
        spans += [0.45 * per, 0.1 * per, 0.45 * per]
    track = _sequence(ctx, keys + [_stand_key(ctx, x)], spans + [0.4])
    manner = ["across the floor", "one step after another"] if walking else ["stepping back each time"]
    params = {"reps": reps, "speed": speed_word(rate, 0.4, 0.55), "travel": int(walking), "manner": manner}
    return ActionOutput(track, params)


SPECS: tuple[ActionSpec, ...] = (
    ActionSpec("kneel", kneel, ("side",), STAND,
               "kneel"),
    ActionSpec("lie_down", lie_down, ("side",), STAND,
               "lie"),
    ActionSpec("get_up", get_up, ("side",), ("lie", "kneel", "sit")),
    ActionSpec("crouch", crouch, ("side", "front"), STAND),
    ActionSpec("squat", squat, ("side", "front"), STAND),
    ActionSpec("push_up", push_up, ("side",), STAND),
    ActionSpec("sit_up", sit_up, ("side",), ("lie",), "lie"),
    ActionSpec("stretch", stretch, ("front", "side"), STAND),
    ActionSpec("bend_over", bend_over, ("side",), STAND),
    ActionSpec("lunge", lunge, ("side",), STAND),
)  # fmt: skip
