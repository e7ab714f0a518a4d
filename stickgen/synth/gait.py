"""Gait cycles: walking and running from standing to standing, with planted feet and ballistic flight.

A gait starts and ends with the feet side by side. In between, the feet swing alternately: swing k
starts at `start + k·step_time` and lasts `2·step_time·(1 − duty)`, so with duty > 0.5 both feet are
down for part of each step (double support: walking) and with duty < 0.5 both are up (flight:
running). Each swing lands the foot where the hip will be in the middle of that foot's stance, so a
planted ankle never moves while the pelvis passes over it, and steps shorten by themselves as the
pelvis accelerates and brakes. A swing lifts the ankle above the contact height before it moves
forward and puts it down only after it has arrived, so nothing near the floor slides.

The pelvis height is the standing height with a bob (walking) or ballistic flight under the world's
gravity (running), never higher than the planted legs can reach; the knees bend through IK wherever
it is lower. On ice one stance may slip forward (`Gait.slip`), the only intended foot sliding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stickgen.figure import CONTACT_HEIGHT
from stickgen.synth.body import Body
from stickgen.synth.keyframes import smootherstep, smoothstep
from stickgen.synth.kinematics import LEFT, RIGHT, Track, hip_positions, leg_drop, leg_ik
from stickgen.synth.physics import World

HEEL_RISE = 0.03  # m: the ankle lifts this much as the heel comes up before toe-off
START = 0.15  # s standing still before the first swing
SETTLE = 0.45  # s of standing still, at least, after the closing step


@dataclass(frozen=True)
class Gait:
    """One steady gait. speed < 0 walks backward (the figure keeps facing +x)."""

    speed: float  # m/s of the pelvis along x
    step_time: float  # s per step (half a stride)
    duty: float  # share of a stride each foot spends on the floor
    clearance: float  # m: ankle height at mid-swing
    height: float = 0.97  # nominal pelvis height as a share of the standing height
    bob: float = 0.015  # m: vertical pelvis amplitude while walking
    slip: float = 0.0  # m: one stance slides this far forward (ice); 0 = no slip

    @property
    def swing_time(self) -> float:
        return 2.0 * self.step_time * (1.0 - self.duty)

    @property
    def stance_time(self) -> float:
        return 2.0 * self.step_time * self.duty

    @property
    def min_duration(self) -> float:
        """Seconds `gait_track` needs for its two steps: a shorter track ends mid-stride."""
        return START + self.step_time + self.swing_time + SETTLE + self.stance_time / 2


@dataclass(frozen=True)
class GaitResult:
    track: Track  # root, lean and legs set; spine bends and arms left to the caller
    ankles: np.ndarray  # (T, 2, 2) ankle targets
    stance: np.ndarray  # (T, 2) bool: the foot is planted
    steps: int  # number of swings


def speed_ramp(gait: Gait, leg: float) -> float:
    """Seconds the pelvis takes to reach the gait's speed from standing (and to stop again).

    Gait initiation and termination take at least two steps each, longer when steps are slow or fast:
    the pelvis must not pass the foot left behind by more than a third of a leg before that foot's
    first swing (a smoothstep ramp of length R covers v·R·(s³ − s⁴/2) in its first s·R)."""
    ramp_time = 2.0 * gait.step_time
    for _ in range(12):
        s = min(1.25 * gait.step_time / ramp_time, 1.0)
        if abs(gait.speed) * ramp_time * (s**3 - 0.5 * s**4) <= leg / 3.0:
            break
        ramp_time *= 1.2
    return ramp_time


def cruising_duration(gait: Gait, leg: float) -> float:
    """Seconds a gait track needs to reach full speed, keep it for a stride (two steps) and stop: a
    shorter track ramps up and down again without reaching its speed, and a "run" of 1.5 s then
    travels a few centimetres."""
    # `gait_track` stops the pelvis up to a step before the end of its steps, hence one step more.
    return START + 2.0 * speed_ramp(gait, leg) + 3.0 * gait.step_time + SETTLE


def gait_track(
    base: Track, body: Body, world: World, gait: Gait, lead: int, rng: np.random.Generator, fps: float
) -> GaitResult:
    """Walk or run from the standing pose of `base` (its first frame) for `base.num_frames` frames.

    base: a standing track whose root y and spine lean are kept as the nominal posture. lead: LEFT or
    RIGHT, the foot that steps first. The number of steps is whatever fits, ending with a closing
    step that brings the feet together before the last frame; give it at least `gait.min_duration`.
    """
    t_count = base.num_frames
    t = np.arange(t_count) / fps
    total = t_count / fps
    start = START
    swing, stance = gait.swing_time, gait.stance_time
    # Swings k = 0..n-1 alternate feet; the pelvis stops when the last-but-one foot is at mid-stance.
    n = max(2, int((total - start - swing - SETTLE - stance / 2) / gait.step_time) + 1)
    swing_start = start + np.arange(n) * gait.step_time
    swing_end = swing_start + swing
    stop = swing_end[-2] + stance / 2

    # Pelvis x: speed ramps up over the first step and down over the last, integrated on a fine grid.
    grid = np.linspace(0.0, max(total, stop) + 1.0, 4000)
    ramp_time = speed_ramp(gait, body.leg)
    ramp = smoothstep((grid - start + 0.25 * gait.step_time) / ramp_time)
    ramp = ramp * smoothstep((stop - grid) / ramp_time)
    grid_x = np.concatenate([[0.0], np.cumsum((ramp[1:] + ramp[:-1]) * 0.5 * np.diff(grid))]) * gait.speed
    x0 = base.root[0, 0]
    pelvis_x = x0 + np.interp(t, grid, grid_x)

    hips0 = hip_positions(base.root[:1], base.spine[:1, 0], body)[0]  # (2, 2)
    ankles = np.zeros((t_count, 2, 2))
    in_stance = np.ones((t_count, 2), dtype=bool)
    slip_step = int(rng.integers(1, n - 1)) if gait.slip > 0 and n > 2 else -1
    for foot in (LEFT, RIGHT):
        ks = np.arange(foot != lead, n, 2)
        offset = hips0[foot, 0] - x0
        land_x = x0 + offset + np.interp(swing_end[ks] + stance / 2, grid, grid_x)
        from_x = np.concatenate([[hips0[foot, 0]], land_x[:-1]])
        slide = np.where(ks == slip_step, gait.slip, 0.0)
        # The slip happens right after landing, so the next swing starts where the foot slid to.
        from_x = from_x + np.concatenate([[0.0], slide[:-1]])
        x, y, swinging = _foot_track(t, swing_start[ks], swing_end[ks], from_x, land_x, slide, gait)
        heel = _heel_rise(t, swing_start[ks], stance)
        ankles[:, foot, 0] = x
        ankles[:, foot, 1] = np.where(swinging, y, heel)
        in_stance[:, foot] = ~swinging

    lean = base.spine[:, 0]
    moving = np.interp(t, grid, ramp)  # 0 standing .. 1 in full stride
    nominal = base.root[:, 1] * (1.0 - moving * (1.0 - gait.height))
    root_y = _pelvis_height(t, nominal, moving, swing_start, swing_end, gait, world)
    root_y = np.minimum(root_y, _reach_limit(pelvis_x, lean, ankles, in_stance, body))
    root_y = _smooth_below(root_y, 5)
    root = np.stack([pelvis_x, root_y], axis=-1)
    track = base.with_(root=root)
    ankles = _within_reach(ankles, ~in_stance, track, body)
    track = track.with_(legs=leg_ik(track, body, ankles))
    return GaitResult(track, ankles, in_stance, n)


def _foot_track(t, starts, ends, from_x, to_x, slide, gait):
    """x, y (T,) and a swing mask of one foot from its swings' times and positions."""
    k = np.searchsorted(starts, t, side="right") - 1  # the latest swing that has started
    has = k >= 0
    kk = np.clip(k, 0, len(starts) - 1)
    s = np.where(has, (t - starts[kk]) / (ends[kk] - starts[kk]), 1.0)
    swinging = has & (s < 1.0)
    # The ankle rises over the first 30 % of the swing and falls over the last 30 %; it moves
    # forward only while it is higher than 1.3 × the contact height, so nothing near the floor slides.
    rise = 0.3
    lift = rise * 2.0 / np.pi * np.arcsin(min(1.0, 1.3 * CONTACT_HEIGHT / gait.clearance))
    sc = np.clip(s, 0.0, 1.0)
    y = gait.clearance * np.sin(0.5 * np.pi * np.clip(np.minimum(sc, 1.0 - sc) / rise, 0.0, 1.0))
    y = y * (1.0 + 0.3 * np.sin(np.pi * sc)) + HEEL_RISE * (1.0 - smoothstep(sc / 0.5))
    move = smootherstep((s - lift) / (1.0 - 2.0 * lift))
    stance_x = np.where(has, to_x[kk], from_x[0])
    # An intended slip (ice): the foot slides `slide` m over 0.25 s right after landing.
    slip_s = np.where(has, (t - ends[kk]) / 0.25, 0.0)
    stance_x = stance_x + np.where(has, slide[kk] * smoothstep(slip_s), 0.0)
    swing_x = from_x[kk] + (to_x[kk] - from_x[kk]) * move
    return np.where(swinging, swing_x, stance_x), y, swinging


def _within_reach(ankles, swinging, track, body):
    """Raise swing-foot targets the leg cannot reach (a foot left far behind) straight up, onto its reach.

    Pulling such a target toward the hip instead would drag it forward along the floor.
    """
    hips = hip_positions(track.root, track.spine[:, 0], body)
    reach = body.leg * 0.995
    dx = np.minimum(np.abs(ankles[..., 0] - hips[..., 0]), reach)
    lowest = hips[..., 1] - leg_drop(reach, dx)
    out = ankles.copy()
    out[..., 1] = np.where(swinging, np.maximum(ankles[..., 1], lowest), ankles[..., 1])
    return out


def _heel_rise(t, swing_starts, stance):
    """Ankle height (T,) during stance: it rises by HEEL_RISE in the last fifth before each swing."""
    before = swing_starts[None, :] - t[:, None]  # (T, K) time until each swing
    rising = (before > 0) & (before < 0.2 * stance)
    return HEEL_RISE * (smoothstep(1.0 - before / (0.2 * stance)) * rising).max(axis=1)


def _pelvis_height(t, nominal, moving, swing_start, swing_end, gait, world):
    """Nominal pelvis height (T,): a bob when walking, ballistic arcs over flight phases."""
    flights = [(b, a) for a, b in zip(swing_end[:-1], swing_start[1:], strict=True) if b < a]
    if not flights:
        # Highest at each foot's mid-stance: raised-cosine bumps one step wide, tiling while walking.
        phase = (t[:, None] - (swing_end + gait.stance_time / 2)[None, :]) / gait.step_time
        bumps = (0.5 + 0.5 * np.cos(2.0 * np.pi * phase)) * (np.abs(phase) < 0.5)
        return nominal + gait.bob * moving * (bumps.sum(axis=1) - 1.0)
    y = nominal.copy()
    g = max(world.gravity, 0.5)  # in zero g the figure floats anyway; keep the bounce finite
    for k, (a, b) in enumerate(flights):
        tf = b - a
        v0 = 0.5 * g * tf
        # Flight: y = v0·τ − g·τ²/2. Stance before it (back to the previous flight's end, or half a
        # stance at the start): a dip with matching slope, so the height is C¹ throughout.
        inside = (t >= a) & (t < b)
        tau = t[inside] - a
        y[inside] += v0 * tau - 0.5 * g * tau * tau
        prev_end = flights[k - 1][1] if k else a - (gait.step_time - tf)
        ts = a - prev_end
        before = (t >= prev_end) & (t < a)
        tau = t[before] - prev_end
        y[before] += -v0 * tau + v0 / max(ts, 1e-3) * tau * tau
    return y


def _reach_limit(pelvis_x, lean, ankles, stance, body):
    """Highest pelvis (T,) from which every planted ankle is within 99.5 % of the leg's reach."""
    root = np.stack([pelvis_x, np.zeros_like(pelvis_x)], axis=-1)
    hips = hip_positions(root, lean, body)  # hips of a pelvis at height 0: only their offsets matter
    reach = body.leg * 0.995
    dx = np.abs(ankles[..., 0] - hips[..., 0])
    limit = ankles[..., 1] - hips[..., 1] + leg_drop(reach, dx)
    return np.where(stance, limit, np.inf).min(axis=1)


def _smooth_below(y: np.ndarray, width: int) -> np.ndarray:
    """A smoothed copy of `y` (T,) that is nowhere higher than `y`: a running minimum, then a mean.

    Every value of the running mean averages minima over windows that all contain that frame.
    """
    if len(y) < width:
        return y
    half = width // 2
    padded = np.pad(y, half, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, width)
    low = np.pad(windows.min(axis=1), half, mode="edge")
    return np.lib.stride_tricks.sliding_window_view(low, width).mean(axis=1)
