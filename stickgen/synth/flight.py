"""Jumps: crouch, push-off, ballistic flight of the centre of mass, landing, recovery.

`jump_sequence` turns a list of `Jump` plans into a track. The centre of mass (COM) follows a target
curve: it lowers into a crouch, accelerates up (and forward) with constant acceleration until it
leaves the floor at the take-off velocity, flies on the closed-form ballistic of `physics.ballistic`
(the world's gravity, drag and wind), and is braked to rest after landing. The root is placed so that
the figure's COM (`figure.center_of_mass`) is exactly on that curve in flight; on the floor the support
feet are planted by IK. Take-off happens on a frame; the legs keep their take-off pose for `HOLD` s
after it and their landing pose for `HOLD` s before touch-down, which is how a real jumper's extended
legs look and what lets `checks.flight_errors` measure the flight from the joints. In zero gravity the
flight never ends: the figure drifts away (at most ZERO_G_PUSH m/s) until the action's last frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from stickgen.figure import CONTACT_HEIGHT, J, center_of_mass
from stickgen.synth.body import Body
from stickgen.synth.context import ActionContext
from stickgen.synth.keyframes import ease_in, keyframes, smoothstep
from stickgen.synth.kinematics import (
    Track,
    forward_kinematics,
    hip_positions,
    leg_drop,
    leg_ik,
    standing_ankles,
)
from stickgen.synth.physics import World, ballistic

HOLD = 0.14  # s
ZERO_G_PUSH = 0.2  # m/s: the fastest take-off in zero gravity (a drift, not a launch)
ANKLES = [J["l_ankle"], J["r_ankle"]]


@dataclass(frozen=True)
class Pose:
    """Spine (3,), arms (2, 2) and legs (2, 2) angles of one key pose (legs only matter off the floor)."""

    spine: np.ndarray
    arms: np.ndarray
    legs: np.ndarray | None = None


@dataclass(frozen=True)
class Jump:
    """One jump. Velocities in m/s (canonical frame), depths and distances in m, durations in s."""

    vx: float  # horizontal take-off velocity of the COM
    vy: float  # vertical take-off velocity of the COM
    crouch: float  # how far the COM sinks before the push
    absorb: float  # how far it sinks while landing
    ahead: float  # how far the pelvis is ahead of the support feet at take-off
    prepare: Pose  # at the bottom of the crouch (its support legs are ignored: IK plants them)
    takeoff: Pose  # at take-off (support legs ignored: they are stretched toward the feet)
    tuck: Pose  # mid-flight
    landing: Pose  # legs at touch-down (None: the take-off legs); torso and arms while absorbing
    support: tuple[bool, bool]  # which feet push off (both for a jump, one for a hop)
    prepare_time: float  # s from the previous rest to the bottom of the crouch (before ctx.dur)
    lands_on: tuple[bool, bool] | None = None  # which feet land; None: the support feet


def com_offset(track: Track, body: Body) -> np.ndarray:
    """COM minus pelvis (T, 2) of a track: depends on its angles only."""
    joints = forward_kinematics(track, body)
    return center_of_mass(joints) - track.root


def landing_time(vy: float, world: World, drop: float) -> float:
    """Seconds after take-off at which the COM has fallen `drop` m below its take-off height; inf if never.

    The descending root of physics.ballistic, by bisection (the height is concave in time).
    """
    if world.floats:
        return math.inf
    lo = max(vy, 0.0) / max(world.gravity, 1e-9)  # the apex (without drag; with drag it is earlier)
    hi = lo + 1.0
    while ballistic(np.array([hi]), (0.0, vy), world)[0, 1] > -drop:
        hi *= 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if ballistic(np.array([mid]), (0.0, vy), world)[0, 1] > -drop:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


class _Timeline:
    """Key poses, COM curve pieces and planted-feet intervals collected while planning jumps."""

    def __init__(self, rest: Pose):
        self.key_t: list[float] = [0.0]
        self.poses: list[Pose] = [rest]
        self.com: list[tuple[float, float, object]] = []  # (start, stop, fn(t) -> (n, 2))
        self.ground: list[tuple[float, float, np.ndarray, np.ndarray]] = []  # (start, stop, feet, support)

    def key(self, t: float, pose: Pose) -> None:
        self.key_t.append(t)
        self.poses.append(pose)


def jump_sequence(ctx: ActionContext, base: Track, jumps: list[Jump], rest: Pose, recover: float) -> Track:
    """A standing start, the jumps one after another, and `recover` s back to the `rest` pose.

    base: the standing track whose length is the budget; the result is cut to the frames actually used
    (at most base.num_frames; a floating jump simply lasts until the budget ends).
    """
    body, world, fps = ctx.body, ctx.world, ctx.fps
    stand = base.slice(0, 1)
    feet = standing_ankles(stand, body)[0]  # (2, 2)
    com_stand = center_of_mass(forward_kinematics(stand, body))[0]
    plan = _Timeline(rest)
    t_now, com_now, on_floor_since = 0.0, com_stand, 0.0
    for jump in jumps:
        jump = replace(
            jump, **{k: _with_legs(getattr(jump, k), rest.legs) for k in ("prepare", "takeoff", "tuck")}
        )
        speed = math.hypot(jump.vx, jump.vy)
        if world.floats and speed > ZERO_G_PUSH:
            # Weightless, a push-off is gentle: the figure drifts instead of shooting off for metres.
            jump = replace(jump, vx=jump.vx * ZERO_G_PUSH / speed, vy=jump.vy * ZERO_G_PUSH / speed)
        support = np.asarray(jump.support)
        top, stretched = _stretched(_single(base, jump.takeoff), body, feet, support, jump.ahead)
        # Constant acceleration from rest reaches the take-off velocity at the top of the push. A slow
        # take-off gets a shallower crouch, so the push stays short and the COM stays over the feet.
        push = min(2.0 * jump.crouch / jump.vy, 0.3, 0.6 * body.leg / max(abs(jump.vx), 1e-6))
        t_off = math.ceil((t_now + ctx.dur(jump.prepare_time) + push) * fps) / fps  # take off on a frame
        t_crouch = t_off - push
        bottom = top - 0.5 * np.array([jump.vx, jump.vy]) * push
        plan.com.append((t_now, t_crouch, _ease(t_now, t_crouch, com_now, bottom)))
        plan.com.append((t_crouch, t_off, _accelerate(t_crouch, push, bottom, (jump.vx, jump.vy))))
        plan.ground.append((on_floor_since, t_off, feet.copy(), support))
        takeoff = Pose(jump.takeoff.spine, jump.takeoff.arms, stretched)
        plan.key(t_crouch, jump.prepare)
        plan.key(t_off, takeoff)
        plan.key(t_off + HOLD, takeoff)

        lands = support if jump.lands_on is None else np.asarray(jump.lands_on)
        # At touch-down the torso and arms are back in their take-off pose and the landing legs are
        # turned so the COM is at its take-off height: the flight then lasts exactly the ballistic's
        # return time (2·v/g without drag). The landing pose's torso and arms follow while absorbing.
        landing = _level_landing(
            body,
            Pose(
                jump.takeoff.spine,
                jump.takeoff.arms,
                stretched if jump.landing.legs is None else jump.landing.legs,
            ),
            lands,
            top[1],
        )
        landing_track = _single(base, landing)
        land_offset = com_offset(landing_track, body)[0]
        land_ankles = forward_kinematics(landing_track, body)[0, ANKLES] - landing_track.root[0]  # (2, 2)
        lowest = np.where(lands, land_ankles[:, 1], np.inf).min()
        flight = landing_time(jump.vy, world, drop=top[1] - (land_offset[1] - lowest))
        t_land = t_off + flight
        plan.com.append((t_off, t_land, _fly(t_off, top, (jump.vx, jump.vy), world)))
        if not math.isfinite(t_land):
            plan.key(t_off + HOLD + ctx.dur(0.6), jump.tuck)
            t_now = math.inf
            break
        # A short flight only has time for part of the tuck between the take-off and landing holds.
        amount = float(np.clip((flight - 2.0 * HOLD) / 0.3, 0.0, 1.0))
        plan.key(0.5 * (t_off + t_land), _between(takeoff, jump.tuck, amount))
        plan.key(t_land - HOLD, landing)
        plan.key(t_land, landing)
        land_com = top + ballistic(np.array([flight]), (jump.vx, jump.vy), world)[0]
        feet = land_com - land_offset + land_ankles
        feet[:, 1] = np.where(lands, 0.0, feet[:, 1])
        v_land = _velocity(flight, (jump.vx, jump.vy), world)
        # Braked to rest with constant deceleration, short enough that the COM stays over the feet.
        absorb = min(
            2.0 * jump.absorb / max(-v_land[1], 0.3), 0.35, 0.6 * body.leg / max(abs(v_land[0]), 1e-6)
        )
        t_now = t_land + absorb
        com_now = land_com + 0.5 * v_land * absorb
        plan.com.append((t_land, t_now, _brake(t_land, absorb, land_com, v_land)))
        # Absorbing the landing bends the torso forward: seen from the front that would tilt it sideways.
        absorb_lean = 0.3 if ctx.view == "side" else 0.0
        plan.key(t_now, Pose(jump.landing.spine + [absorb_lean, 0.0, 0.0], jump.landing.arms, landing.legs))
        on_floor_since, support = t_land, lands

    n = base.num_frames
    if math.isfinite(t_now):
        t_end = t_now + ctx.dur(recover)
        # Stand with the feet side by side: a foot still in the air comes down beside the landed one.
        stand_feet = standing_ankles(stand, body)[0]
        shift = (feet[support, 0] - stand_feet[support, 0]).mean()
        final_feet = np.where(support[:, None], feet, stand_feet + [shift, 0.0])
        rest_com = com_stand + [shift, 0.0]
        plan.com.append((t_now, t_end, _ease(t_now, t_end, com_now, rest_com)))
        plan.com.append((t_end, math.inf, lambda t, c=rest_com: np.broadcast_to(c, (len(t), 2))))
        plan.ground.append((on_floor_since, t_end, feet.copy(), support))
        plan.ground.append((t_end, math.inf, final_feet, np.ones(2, dtype=bool)))
        plan.key(t_end, rest)
        n = min(n, int(math.ceil(t_end * fps)) + 2)
    return _assemble(base, body, plan, n, fps)


def _assemble(base: Track, body: Body, plan: _Timeline, n: int, fps: float) -> Track:
    """Sample the plan at the frames: keyed angles, the COM curve and the planted feet."""
    t = np.arange(n) / fps
    order = np.argsort(plan.key_t, kind="stable")
    key_t = np.asarray(plan.key_t)[order]
    poses = [plan.poses[i] for i in order]
    spine = keyframes(t, key_t, np.stack([p.spine for p in poses]))
    arms = keyframes(t, key_t, np.stack([p.arms for p in poses]))
    legs = keyframes(t, key_t, np.stack([p.legs for p in poses]))
    com = np.empty((n, 2))
    for a, b, fn in plan.com:
        inside = (t >= a) & (t < b)
        if inside.any():
            com[inside] = fn(t[inside])
    ankles = np.zeros((n, 2, 2))
    planted = np.zeros((n, 2), dtype=bool)
    for a, b, feet, support in plan.ground:
        inside = (t >= a - 1e-9) & (t <= b + 1e-9)
        ankles[inside] = np.where(support[:, None], feet, ankles[inside])
        planted[inside] |= support
    track = Track(base.root[:n].copy(), spine, arms, legs)
    return _place(track, body, com, ankles, planted)


def _level_landing(body: Body, pose: Pose, lands: np.ndarray, com_height: float) -> Pose:
    """The landing pose with its landing thighs turned so the COM touches down at its take-off height.

    Then the flight lasts exactly as long as the ballistic takes to return to the take-off height
    (2·v/g without drag), whatever the arms and the free leg do. Searches ±0.5 rad around the keyed
    thigh angle and keeps the closest match.
    """
    turns = np.linspace(-0.5, 0.5, 101)
    legs = np.repeat(pose.legs[None], len(turns), axis=0)
    legs[:, lands, 0] += turns[:, None]
    track = Track(np.zeros((len(turns), 2)), np.repeat(pose.spine[None], len(turns), axis=0),
                  np.repeat(pose.arms[None], len(turns), axis=0), legs)  # fmt: skip
    joints = forward_kinematics(track, body)
    height = center_of_mass(joints)[:, 1] - joints[:, ANKLES, 1][:, lands].min(axis=1)
    best = int(np.argmin(np.abs(height - com_height) + 1e-3 * np.abs(turns)))
    return Pose(pose.spine, pose.arms, legs[best])


def _between(a: Pose, b: Pose, w: float) -> Pose:
    """The pose a share `w` of the way from a to b."""
    return Pose(*(x + (y - x) * w for x, y in ((a.spine, b.spine), (a.arms, b.arms), (a.legs, b.legs))))


def _with_legs(pose: Pose, legs: np.ndarray) -> Pose:
    return pose if pose.legs is not None else Pose(pose.spine, pose.arms, legs)


def _single(base: Track, pose: Pose) -> Track:
    return Track(base.root[:1].copy(), pose.spine[None], pose.arms[None], pose.legs[None])


def _stretched(track: Track, body: Body, feet: np.ndarray, support: np.ndarray, ahead: float):
    """COM (2,) and legs (2, 2) of a one-frame track with its support legs straight down to `feet`."""
    reach = body.leg * 0.995
    root = np.array([[feet[support, 0].mean() + ahead, math.sqrt(reach**2 - ahead**2)]])
    placed = track.with_(root=root)
    legs = np.where(support[None, :, None], leg_ik(placed, body, feet[None]), track.legs)
    placed = placed.with_(legs=legs)
    return center_of_mass(forward_kinematics(placed, body))[0], legs[0]


def _ease(a: float, b: float, start: np.ndarray, stop: np.ndarray):
    return lambda t: start + (stop - start) * smoothstep((t - a) / max(b - a, 1e-9))[:, None]


def _accelerate(a: float, duration: float, start: np.ndarray, velocity: tuple[float, float]):
    """Constant acceleration from rest at `start` reaching `velocity` after `duration`."""
    dist = 0.5 * np.asarray(velocity) * duration
    return lambda t: start + dist * ease_in((t - a) / duration)[:, None]


def _fly(a: float, start: np.ndarray, velocity: tuple[float, float], world: World):
    return lambda t: start + ballistic(t - a, velocity, world)


def _velocity(tau: float, v0: tuple[float, float], world: World) -> np.ndarray:
    """Ballistic velocity (2,) after `tau` s."""
    eps = 1e-4
    d = ballistic(np.array([tau - eps, tau + eps]), v0, world)
    return (d[1] - d[0]) / (2.0 * eps)


def _brake(a: float, duration: float, start: np.ndarray, velocity: np.ndarray):
    """Constant deceleration from `velocity` to rest over `duration`."""

    def fn(t):
        tau = np.clip(t - a, 0.0, duration)[:, None]
        return start + velocity * (tau - tau * tau / (2.0 * duration))

    return fn


def _place(track: Track, body: Body, com: np.ndarray, ankles: np.ndarray, planted: np.ndarray) -> Track:
    """Put the root where the COM lands on `com` (T, 2); planted legs reach `ankles` by IK.

    Off the floor the offset depends on the angles only, so one pass is exact; on the floor the legs
    depend on the root, so a few passes converge (the feet are planted exactly by the last IK).
    """
    mask = planted[:, :, None]
    for _ in range(3):
        legs = np.where(mask, leg_ik(track, body, ankles), track.legs)
        track = track.with_(legs=legs)
        root = com - com_offset(track, body)
        # On the floor the pelvis never rises beyond the planted legs' reach (the arms swinging down
        # while the COM rises would otherwise lift the feet); in flight nothing is planted.
        root[:, 1] = np.minimum(root[:, 1], _reach_limit(root, track.spine[:, 0], ankles, planted, body))
        track = track.with_(root=root)
    track = track.with_(legs=np.where(mask, leg_ik(track, body, ankles), track.legs))
    return _lift_free_feet(track, body, planted)


def _reach_limit(root, lean, ankles, planted, body) -> np.ndarray:
    """Highest pelvis (T,) from which every planted ankle is within 99.5 % of the leg's reach."""
    hips = hip_positions(np.stack([root[:, 0], np.zeros(len(root))], axis=-1), lean, body)
    reach = body.leg * 0.995
    dx = np.minimum(np.abs(ankles[..., 0] - hips[..., 0]), reach)
    limit = ankles[..., 1] - hips[..., 1] + leg_drop(reach, dx)
    return np.where(planted, limit, np.inf).min(axis=1)


def _lift_free_feet(track: Track, body: Body, planted: np.ndarray) -> Track:
    """Keyed (unplanted) feet near the floor move straight up and down, never along or through it.

    A foot that leaves the floor by keyed angles would otherwise sweep along it at first (and one
    coming down while the body is low would dip through it): while the other foot is planted and
    this ankle is below the contact height, its x is held where it left the floor (or where it will
    be planted), released smoothly up to 3 × that height, and its height kept ≥ 0, by IK.
    """
    ankles = forward_kinematics(track, body)[:, ANKLES]  # (T, 2, 2)
    hips = hip_positions(track.root, track.spine[:, 0], body)
    t_count = len(ankles)
    target = ankles.copy()
    fix = np.zeros((t_count, 2), dtype=bool)
    supported = planted.any(axis=1)  # in flight the legs keep their keyed (held) pose
    lift = 3.0 * CONTACT_HEIGHT
    for leg in (0, 1):
        low = supported & ~planted[:, leg] & (ankles[:, leg, 1] < lift)
        edges = np.diff(np.concatenate([[0], low.astype(np.int8), [0]]))
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
            lands = b < t_count and planted[b, leg]
            anchor = ankles[b, leg, 0] if lands and not (a == 0 or planted[a - 1, leg]) else ankles[a, leg, 0]
            # Held below the contact height, released smoothly above it: no jump in x.
            w = smoothstep((ankles[a:b, leg, 1] - CONTACT_HEIGHT) / (lift - CONTACT_HEIGHT))
            target[a:b, leg, 0] = anchor + (ankles[a:b, leg, 0] - anchor) * w
            fix[a:b, leg] = True
    if not fix.any():
        return track
    reach = body.leg * 0.995
    dx = np.minimum(np.abs(target[..., 0] - hips[..., 0]), reach)
    target[..., 1] = np.maximum(np.maximum(target[..., 1], 0.0), hips[..., 1] - np.sqrt(reach**2 - dx**2))
    return track.with_(legs=np.where(fix[:, :, None], leg_ik(track, body, target), track.legs))
