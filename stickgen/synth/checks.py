"""Physical checks of clips, measured from the joints alone (used by the tests and `stickgen data stats`).

1. Bones keep their length: per clip and segment, the coefficient of variation of the length < 0.5 %.
2. Nothing goes through the floor: no joint lower than −1 cm.
3. Planted feet do not slide: among the frames where an ankle is lower than 5 cm (height alone:
   `figure.foot_contacts` also requires a low speed, so a check built on it could never fail), fewer
   than 1 % move horizontally faster than 0.3 m/s. Intended slips on ice count against this.
4. Jumps obey the environment's gravity: in frames labelled as a jumping action, each flight (both
   ankles off the floor for at least 4 frames, landing inside the clip) lasts as long as a body
   launched at the measured take-off speed stays in the air under that environment's gravity and
   drag, `physics.flight_time` (2·v/g without drag), within 5 %. Take-off and touch-down instants are
   found to sub-frame precision by extrapolating the lowest ankle's height over the flight's first
   and last three frames (a parabola); the take-off speed is the vertical velocity at take-off of
   the closed-form ballistic (gravity, drag) fitted by least squares to the centre of mass over the
   flight frames, with gravity a free parameter of the fit. Zero gravity is skipped: nothing lands there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from stickgen.figure import CONTACT_HEIGHT, CONTACT_SPEED, J, bone_lengths, center_of_mass, velocity
from stickgen.labels import GRAVITY_EARTH, action_id
from stickgen.motion import Motion
from stickgen.synth.physics import flight_time

BONE_CV_MAX = 0.005
FLOOR_MIN = -0.01  # m
SLIDE_SHARE_MAX = 0.01
FLIGHT_TOLERANCE = 0.05
JUMP_ACTIONS = ("jump", "jump_forward", "hop", "leap", "shoot_basketball")
OFF_FLOOR = 0.005  # m: an ankle higher than this has left the floor
MIN_FLIGHT_FRAMES = 4  # and at least 3 are needed for the extrapolation
_ANKLES = [J["l_ankle"], J["r_ankle"]]


@dataclass(frozen=True)
class ClipCheck:
    """The measurements of one clip."""

    bone_cv: float  # largest coefficient of variation of any segment's length
    min_y: float  # m, lowest joint
    contact_frames: int  # ankle-frames lower than the contact height
    sliding_frames: int  # of those, the ones moving faster than the contact speed
    flights: tuple[tuple[float, float], ...] = ()  # (measured, expected) flight times, s


@dataclass(frozen=True)
class CheckReport:
    """The checks over many clips, each with its measured figure and whether it passes."""

    clips: int
    bone_cv: float
    min_y: float
    slide_share: float
    contact_frames: int
    flights: int
    flight_error: float  # the largest relative flight-time error
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def lines(self) -> list[str]:
        def mark(ok: bool) -> str:
            return "pass" if ok else "FAIL"

        return [
            f"bone length CV (max over clips and segments): {self.bone_cv * 100:.3f} % "
            f"(< {BONE_CV_MAX * 100:g} %) {mark(self.bone_cv < BONE_CV_MAX)}",
            f"lowest joint: {self.min_y * 100:.2f} cm "
            f"(>= {FLOOR_MIN * 100:g} cm) {mark(self.min_y >= FLOOR_MIN)}",
            f"sliding contact frames: {self.slide_share * 100:.3f} % of {self.contact_frames} "
            f"(< {SLIDE_SHARE_MAX * 100:g} %) {mark(self.slide_share < SLIDE_SHARE_MAX)}",
            f"jump flight time vs 2v/g: worst error {self.flight_error * 100:.2f} % "
            f"over {self.flights} flights "
            f"(< {FLIGHT_TOLERANCE * 100:g} %) {mark(self.flight_error < FLIGHT_TOLERANCE)}",
        ]


def check_clip(motion: Motion) -> ClipCheck:
    """Measure one clip (see the module docstring)."""
    j = motion.joints
    lengths = bone_lengths(j)  # (T, 12)
    cv = float((lengths.std(axis=0) / np.maximum(lengths.mean(axis=0), 1e-9)).max())
    ankles = j[:, _ANKLES]  # (T, 2, 2)
    low = ankles[..., 1] < CONTACT_HEIGHT
    speed = np.abs(velocity(ankles[..., 0], motion.fps))  # (T, 2)
    flights = flight_errors(motion)
    return ClipCheck(
        cv, float(j[..., 1].min()), int(low.sum()), int((low & (speed > CONTACT_SPEED)).sum()), flights
    )


def flight_errors(motion: Motion) -> tuple[tuple[float, float], ...]:
    """(measured, expected) durations in s of the jump flights of a clip (module docstring, check 4)."""
    env = motion.environment
    gravity, drag = float(env[8]) * GRAVITY_EARTH, float(env[9])
    if gravity <= 0.0:
        return ()
    fps = motion.fps
    jumping = np.isin(motion.actions, [action_id(a) for a in JUMP_ACTIONS])
    height = motion.joints[:, _ANKLES, 1].min(axis=1)  # (T,) the lower ankle
    airborne = (height > OFF_FLOOR) & jumping
    com_y = center_of_mass(motion.joints)[:, 1]
    out = []
    for start, stop in _runs(airborne):
        if stop - start < MIN_FLIGHT_FRAMES or start == 0 or stop == len(height):
            continue
        if height[start - 1] > OFF_FLOOR or height[stop] > OFF_FLOOR:
            continue  # cut by a change of action label, not a take-off and a landing
        t_off = start - _extrapolate(height[start : start + 3])
        t_land = stop - 1 + _extrapolate(height[stop - 3 : stop][::-1])
        frames = np.arange(start, stop)
        tau = (frames - start) / fps
        v_off = _takeoff_velocity(tau, com_y[start:stop], drag, (t_off - start) / fps)
        out.append(((t_land - t_off) / fps, flight_time(v_off, gravity, drag)))
    return tuple(out)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of each run of True in a boolean array."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True))


def _extrapolate(h: np.ndarray) -> float:
    """Frames (0..1) back from the first of three heights (edge frame first) to where they reach 0.

    The parabola through the three points is exact for a rigid body in drag-free flight.
    """
    a = 0.5 * (h[2] - 2.0 * h[1] + h[0])
    b = -1.5 * h[0] + 2.0 * h[1] - 0.5 * h[2]  # slope at the edge frame, pointing inward
    c = h[0]
    # Solve a·s² + b·s + c = 0 for s in [−1, 0] (s = frames inward from the edge frame).
    if abs(a) < 1e-12:
        s = -c / b if abs(b) > 1e-12 else -1.0
    else:
        disc = max(b * b - 4.0 * a * c, 0.0)
        roots = np.array([(-b + np.sqrt(disc)) / (2.0 * a), (-b - np.sqrt(disc)) / (2.0 * a)])
        roots = roots[(roots <= 1e-9) & (roots >= -1.0 - 1e-9)]
        s = roots.max() if roots.size else -1.0
    return float(np.clip(-s, 0.0, 1.0))


def _takeoff_velocity(tau: np.ndarray, y: np.ndarray, drag: float, tau_off: float) -> float:
    """Vertical velocity at `tau_off` of the ballistic y = c + v·f1(τ) + g·f2(τ) fitted to y (τ)."""
    if drag > 0.0:
        f1 = (1.0 - np.exp(-drag * tau)) / drag
        f2 = (f1 - tau) / drag
    else:
        f1, f2 = tau, -0.5 * tau * tau
    basis = np.stack([np.ones_like(tau), f1, f2], axis=1)
    (_, v, g), *_ = np.linalg.lstsq(basis, y, rcond=None)
    if drag > 0.0:
        e = np.exp(-drag * tau_off)
        return float(v * e + g * (e - 1.0) / drag)
    return float(v - g * tau_off)


def summarize(checks: list[ClipCheck]) -> CheckReport:
    """Aggregate clip measurements into a report with the pass/fail of each check."""
    contact = sum(c.contact_frames for c in checks)
    sliding = sum(c.sliding_frames for c in checks)
    flights = [f for c in checks for f in c.flights]
    errors = [abs(m - e) / e if e > 0 else np.inf for m, e in flights]
    report = CheckReport(
        clips=len(checks),
        bone_cv=max((c.bone_cv for c in checks), default=0.0),
        min_y=min((c.min_y for c in checks), default=0.0),
        slide_share=sliding / contact if contact else 0.0,
        contact_frames=contact,
        flights=len(errors),
        flight_error=max(errors, default=0.0),
    )
    failures = [line for line in report.lines() if line.endswith("FAIL")]
    return CheckReport(**{**report.__dict__, "failures": failures})
