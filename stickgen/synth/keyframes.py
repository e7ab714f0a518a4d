"""Keyframes with easing: the building block of every non-cyclic motion.

`keyframes(t, times, values)` holds the first value before the first key and the last after the last,
and eases between neighbouring keys, so a pose sequence written as a few key poses becomes a smooth
per-frame channel whose velocity is zero at every key (no pops where motions meet).
"""

from __future__ import annotations

import numpy as np


def smoothstep(s: np.ndarray) -> np.ndarray:
    """3s² − 2s³ on s clipped to [0, 1]: zero slope at both ends."""
    s = np.clip(s, 0.0, 1.0)
    return s * s * (3.0 - 2.0 * s)


def smootherstep(s: np.ndarray) -> np.ndarray:
    """6s⁵ − 15s⁴ + 10s³ on s clipped to [0, 1]: zero slope and curvature at both ends."""
    s = np.clip(s, 0.0, 1.0)
    return s * s * s * (s * (6.0 * s - 15.0) + 10.0)


def ease_in(s: np.ndarray) -> np.ndarray:
    """s² on s clipped to [0, 1]: starts at rest, arrives moving (a fall, a push-off)."""
    s = np.clip(s, 0.0, 1.0)
    return s * s


def ease_out(s: np.ndarray) -> np.ndarray:
    """1 − (1 − s)² on s clipped to [0, 1]: leaves moving, arrives at rest (a landing)."""
    s = np.clip(s, 0.0, 1.0)
    return 1.0 - (1.0 - s) ** 2


def keyframes(t: np.ndarray, times: np.ndarray, values: np.ndarray, ease=smoothstep) -> np.ndarray:
    """Eased interpolation of key `values` (K, ...) at increasing key `times` (K,) s, sampled at `t` (T,).

    Returns (T, ...). `ease` maps the fraction between two keys (0..1) to the blend weight.
    """
    times = np.asarray(times, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    if len(times) == 1:
        return np.broadcast_to(values[0], (len(t), *values.shape[1:])).copy()
    k = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)
    span = np.maximum(times[k + 1] - times[k], 1e-9)
    w = ease((t - times[k]) / span)
    w = w.reshape(-1, *([1] * (values.ndim - 1)))
    return values[k] * (1.0 - w) + values[k + 1] * w


def pulses(t: np.ndarray, starts: np.ndarray, duration: float, shape=None) -> np.ndarray:
    """Sum of bumps (T,) of height 1 lasting `duration` s starting at each time in `starts`.

    The default shape is sin²(π s), smooth at both ends.
    """
    t = np.asarray(t, dtype=np.float64)[:, None]
    s = (t - np.asarray(starts, dtype=np.float64)[None, :]) / duration
    inside = (s >= 0.0) & (s <= 1.0)
    bump = np.sin(np.pi * np.clip(s, 0.0, 1.0)) ** 2 if shape is None else shape(np.clip(s, 0.0, 1.0))
    return (bump * inside).sum(axis=1)
