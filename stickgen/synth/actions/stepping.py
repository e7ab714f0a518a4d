"""Stepping and whole-body moves: sidestep, tiptoe, march, limp, skip, crawl, climb, swim, jumping
jacks, spin, stumble, fall down, balance.
"""

from __future__ import annotations

from stickgen.synth.actions.spec import ActionSpec

SPECS: tuple[ActionSpec, ...] = ()
