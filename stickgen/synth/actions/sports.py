"""Combat, sports and effort: punch, kick, block, dodge, throw, catch, swing a bat, golf swing, shoot a
basketball, dribble, kick a ball, push, pull, lift.
"""

from __future__ import annotations

from stickgen.synth.actions.spec import ActionSpec

SPECS: tuple[ActionSpec, ...] = ()
