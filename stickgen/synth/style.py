"""Styles: how a motion is performed (energetic, tired, happy, sad, ...), as a few numeric dials.

An action generator multiplies its speeds by `tempo`, its durations by 1 / `tempo`, its swings and
heights by `amplitude`, adds `lean` to the torso and `head` to the head tilt, and uses `bounce` for
extra vertical spring. The text grammar describes the style with its `adverbs`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Style:
    name: str
    tempo: float  # × speeds, ÷ durations
    amplitude: float  # × swings, lifts and jump heights
    lean: float  # rad added to the torso lean (forward = +)
    head: float  # rad added to the head tilt (down = +)
    bounce: float  # × vertical spring of gaits
    adverbs: tuple[str, ...]


STYLES: tuple[Style, ...] = (
    Style("neutral", 1.0, 1.0, 0.0, 0.0, 1.0, ()),
    Style(
        "energetic", 1.25, 1.3, 0.04, -0.05, 1.4, ("energetically", "with energy", "vigorously", "briskly")
    ),
    Style("tired", 0.7, 0.65, 0.18, 0.25, 0.6, ("tiredly", "wearily", "sluggishly", "as if exhausted")),
    Style("happy", 1.1, 1.2, -0.03, -0.12, 1.5, ("happily", "cheerfully", "joyfully", "in a good mood")),
    Style("sad", 0.75, 0.7, 0.12, 0.35, 0.7, ("sadly", "gloomily", "dejectedly", "with a heavy heart")),
)
_WEIGHTS = np.array([0.5, 0.14, 0.12, 0.12, 0.12])


def sample_style(rng: np.random.Generator) -> Style:
    """Neutral half of the time, otherwise one of the named styles."""
    return STYLES[int(rng.choice(len(STYLES), p=_WEIGHTS))]


def style(name: str) -> Style:
    """The style of a name."""
    return next(s for s in STYLES if s.name == name)
