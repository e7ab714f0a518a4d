"""Floor and posture work: kneel, lie down, get up, crouch, squat, push-up, sit-up, stretch, bend over,
lunge.
"""

from __future__ import annotations

from stickgen.synth.actions.spec import ActionSpec

SPECS: tuple[ActionSpec, ...] = ()
