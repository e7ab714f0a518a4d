"""The environment as the synthesizer's physics: gravity, drag, wind and tempo, and ballistic flight.

A body in flight obeys  a = (0, −g) − k·(v − w)  with g the environment's gravity (m/s²), k its linear
drag rate (1/s) and w its wind (m/s along x; underwater and in still air w = 0). The closed form:

    v(τ) = w + (v0 − w)·e^{−kτ}                           horizontally
    y(τ) = y0 + (v0 + g/k)(1 − e^{−kτ})/k − g·τ/k           vertically (y0 + v0·τ − g·τ²/2 when k = 0)

`flight_time` inverts it (the time until the body is back at its take-off height), which for k = 0 is
the familiar 2·v0 / g, and is infinite in zero gravity: a jump there never lands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from stickgen.labels import GRAVITY_EARTH, Environment


@dataclass(frozen=True)
class World:
    """Physical parameters of one clip's environment in the canonical frame (the figure faces +x)."""

    name: str
    gravity: float  # m/s², ≥ 0
    drag: float  # 1/s
    wind: float  # m/s along the canonical +x: the world wind times the figure's facing
    friction: float
    time_scale: float  # durations of voluntary movements are multiplied by this

    @classmethod
    def of(cls, env: Environment, facing: int) -> World:
        return cls(
            env.name, env.gravity * GRAVITY_EARTH, env.drag, env.wind * facing, env.friction, env.time_scale
        )

    @property
    def floats(self) -> bool:
        """True in zero gravity, where nothing comes back down."""
        return self.gravity <= 0.0

    @property
    def lean(self) -> float:
        """Forward lean (rad, canonical frame) of a figure bracing against the wind: into the wind."""
        return -math.copysign(min(0.25, 0.02 * abs(self.wind)), self.wind) if self.wind else 0.0


def ballistic(tau: np.ndarray, v0: tuple[float, float], world: World) -> np.ndarray:
    """Displacement (T, 2) m after `tau` (T,) s of flight that started with velocity `v0` (m/s)."""
    tau = np.asarray(tau, dtype=np.float64)
    vx, vy = v0
    g, k, w = world.gravity, world.drag, world.wind
    if k <= 0.0:
        return np.stack([vx * tau, vy * tau - 0.5 * g * tau * tau], axis=-1)
    decay = (1.0 - np.exp(-k * tau)) / k
    x = w * tau + (vx - w) * decay
    y = (vy + g / k) * decay - g * tau / k
    return np.stack([x, y], axis=-1)


def flight_time(vy: float, gravity: float, drag: float) -> float:
    """Seconds until a body launched upward at `vy` m/s returns to its launch height; inf if never."""
    if vy <= 0.0:
        return 0.0
    if gravity <= 0.0:
        return math.inf
    if drag <= 0.0:
        return 2.0 * vy / gravity
    # Newton's method on y(τ) = 0 from above the drag-free root, where y < 0; y is concave so it converges.
    t = 2.0 * vy / gravity
    for _ in range(50):
        e = math.exp(-drag * t)
        y = (vy + gravity / drag) * (1.0 - e) / drag - gravity * t / drag
        dy = (vy + gravity / drag) * e - gravity / drag
        step = y / dy
        t -= step
        if abs(step) < 1e-12:
            break
    return t


def takeoff_speed(earth_height: float) -> float:
    """Vertical take-off speed (m/s) of a jump that would rise `earth_height` m on earth.

    Legs push about as hard anywhere, so a jump keeps its take-off speed in every environment and
    gravity alone decides how high and how long it flies (six times both on the moon).
    """
    return math.sqrt(2.0 * GRAVITY_EARTH * earth_height)
