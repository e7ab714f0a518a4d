"""`ActionSpec`: how the action table describes one action (see the package docstring)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from stickgen import vocabulary
from stickgen.labels import action_id
from stickgen.synth.context import ActionContext, ActionOutput


@dataclass(frozen=True)
class ActionSpec:
    """One action: its generator, the views and postures it works in; its words are in the vocabulary."""

    name: str
    generate: Callable[[ActionContext], ActionOutput]
    views: tuple[str, ...]
    starts: tuple[str, ...]
    ends: str = "stand"

    @property
    def id(self) -> int:
        return action_id(self.name)

    @property
    def words(self) -> tuple[str, ...]:
        """The verb phrases that name the action (`stickgen.vocabulary`), the most common first."""
        return vocabulary.words(self.name)

    @property
    def descriptions(self) -> tuple[str, ...]:
        """Third-person phrases describing the action's movement without naming it."""
        return vocabulary.descriptions(self.name)


STAND = ("stand",)
SEATED = ("sit",)
