"""`ActionSpec`: how the action table describes one action (see the package docstring)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from stickgen.labels import action_id
from stickgen.synth.context import ActionContext, ActionOutput


@dataclass(frozen=True)
class ActionSpec:
    """One action: its generator, the views and postures it works in, and the words that name it."""

    name: str
    generate: Callable[[ActionContext], ActionOutput]
    views: tuple[str, ...]
    starts: tuple[str, ...]
    words: tuple[str, ...]
    ends: str = "stand"

    @property
    def id(self) -> int:
        return action_id(self.name)


STAND = ("stand",)
SEATED = ("sit",)
