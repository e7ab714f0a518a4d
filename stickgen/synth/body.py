"""Body proportions: one sampled set of segment lengths per clip.

Segment lengths are fractions of standing height from Drillis & Contini's anthropometric table (as
reproduced in D. A. Winter, "Biomechanics and Motor Control of Human Movement", 4th ed., Fig. 4.1),
jittered a few percent per segment. Children (1.0–1.4 m) have shorter legs and a bigger head relative
to their height. A `Body` never changes within a clip, so every bone keeps its length.

The hip and shoulder spacing depend on the clip's view (see `stickgen.synth.views`): seen from the
side the two hips sit a couple of centimetres apart, so both legs stay visible; seen from the front
they are the full hip width apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Fractions of standing height (Drillis & Contini). The ankle stands on the floor, so the figure's
# ankle-to-head-centre chain is ~0.9 of its height; the rest is the head radius and the foot.
_ADULT = {
    "shin": 0.246,
    "thigh": 0.245,
    "lower_torso": 0.19,
    "upper_torso": 0.13,
    "head": 0.085,
    "upper_arm": 0.186,
    "forearm": 0.146,
    "hip_half_width": 0.05,
    "shoulder_half_width": 0.115,
}
# A child of about six: legs ~10 % shorter, head ~40 % larger relative to height.
_CHILD = {**_ADULT, "shin": 0.225, "thigh": 0.22, "lower_torso": 0.2, "head": 0.12, "upper_arm": 0.175}
SIDE_HIP_HALF_WIDTH = 0.012  # m: legs a little apart when seen from the side
SIDE_SHOULDER_HALF_WIDTH = 0.01  # m


@dataclass(frozen=True)
class Body:
    """Segment lengths (m) of one figure and its hip and shoulder spacing for one view."""

    height: float
    child: bool
    view: str  # "side" or "front"
    shin: float
    thigh: float
    lower_torso: float
    upper_torso: float
    head: float
    upper_arm: float
    forearm: float
    hip_half_width: float  # half the l_hip → r_hip distance
    shoulder_half_width: float  # neck → shoulder, across the chest
    shoulder_drop: float  # neck → shoulder, down the chest

    @property
    def knee_bend(self) -> np.ndarray:
        """IK bend of the left and right knee: forward (+x) from the side, outward from the front."""
        return np.array([1.0, 1.0]) if self.view == "side" else np.array([1.0, -1.0])

    @property
    def leg(self) -> float:
        """Hip to ankle with the knee straight (m)."""
        return self.thigh + self.shin

    @property
    def arm(self) -> float:
        """Shoulder to wrist with the elbow straight (m)."""
        return self.upper_arm + self.forearm

    @property
    def stand_height(self) -> float:
        """Pelvis height (m) when standing with straight legs and the ankles on the floor."""
        return self.leg * 0.995


def sample_body(rng: np.random.Generator, view: str) -> Body:
    """A random figure: 80 % adults of 1.5–1.95 m, 20 % children of 1.0–1.4 m, seen from `view`.

    view: "side" or "front".
    """
    child = bool(rng.random() < 0.2)
    height = float(rng.uniform(1.0, 1.4) if child else rng.uniform(1.5, 1.95))
    table = _CHILD if child else _ADULT
    jitter = rng.uniform(0.95, 1.05, size=len(table))
    lengths = {k: float(v * height * j) for (k, v), j in zip(table.items(), jitter, strict=True)}
    if view == "side":
        lengths["hip_half_width"] = SIDE_HIP_HALF_WIDTH * height / 1.75
        lengths["shoulder_half_width"] = SIDE_SHOULDER_HALF_WIDTH * height / 1.75
    return Body(height=height, child=child, view=view, shoulder_drop=0.03 * height, **lengths)
