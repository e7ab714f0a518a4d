"""Expressive upper-body actions: clap, point, salute, shrug, bow, cheer, beckon, look around,
celebrate, dance.
"""

from __future__ import annotations

from stickgen.synth.actions.spec import ActionSpec

SPECS: tuple[ActionSpec, ...] = ()
