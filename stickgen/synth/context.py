"""What an action generator receives (`ActionContext`) and what it returns (`ActionOutput`).

See `stickgen.synth.actions` for how to write a generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stickgen.synth.body import Body
from stickgen.synth.kinematics import Track, standing
from stickgen.synth.physics import World
from stickgen.synth.style import Style

FPS = 25.0


@dataclass(frozen=True)
class ActionContext:
    """Everything a generator may use; it draws its own parameters from `rng` and nothing else.

    view: "side" or "front" (constant per clip). start_state: the posture the previous action ended
    in ("stand", "sit_chair", "sit_floor", ...), or the one the sampler chose for the first action.
    seconds: the time the sampler would like this action to last (continuous actions such as walk
    or idle follow it; discrete ones such as jump may use it to choose their repetitions).
    max_frames: the hard limit on the output's length.
    """

    rng: np.random.Generator
    body: Body
    world: World
    style: Style
    view: str
    start_state: str
    seconds: float
    max_frames: int
    fps: float = FPS

    @property
    def tempo(self) -> float:
        """Multiplier of voluntary speeds: the style's tempo slowed by the environment's time scale."""
        return self.style.tempo / self.world.time_scale

    def dur(self, seconds: float) -> float:
        """A voluntary movement's duration (s) adjusted for style and environment."""
        return seconds / self.tempo

    def frames(self, seconds: float) -> int:
        """Whole frames (≥ 1) lasting about `seconds`, capped at `max_frames`."""
        return int(np.clip(round(seconds * self.fps), 1, self.max_frames))

    def times(self, num_frames: int) -> np.ndarray:
        """Frame times (T,) s from 0."""
        return np.arange(num_frames) / self.fps

    def standing(self, num_frames: int) -> Track:
        """The body standing still for `num_frames`, the usual start of a generator.

        The style's forward lean and head tilt apply from the side only: seen from the front, spine
        angles bend sideways (the wind's lean, along x, is sideways there too).
        """
        track = standing(self.body, num_frames)
        sagittal = self.view == "side"
        lean = self.world.lean + (self.style.lean * 0.5 if sagittal else 0.0)
        spine = track.spine.copy()
        spine[:, 0] += lean
        spine[:, 2] += self.style.head if sagittal else 0.0
        return track.with_(spine=spine)


@dataclass(frozen=True)
class ActionOutput:
    """A generated action: its track (canonical frame), its parameters and the posture it ends in.

    params: JSON-safe values recorded in the clip's `source` and read by the text grammar. Keys the
    grammar understands: "speed" ("slow" | "fast"), "reps" (int), "side" ("left" | "right"),
    "travel" (+1 forward / −1 backward along the canonical x, for "to the right/left"), "height"
    ("low" | "high"), "seat" ("chair" | "floor"), "manner" (a list of interchangeable adverbial
    phrases for how this performance differs, e.g. ["deeply", "low"] for a deep bow; one is used).
    Unknown keys are only recorded.
    """

    track: Track
    params: dict[str, Any] = field(default_factory=dict)
    end_state: str = "stand"
    # The clip's frame budget cut the action before it could show what it is (a run that never gets
    # going): the sampler ends a chain before such an action rather than label a shuffle with its name.
    cut_short: bool = False


def speed_word(value: float, low: float, high: float) -> str | None:
    """ "slow" below `low`, "fast" above `high`, else None: the grammar's speed adverb for a parameter."""
    if value < low:
        return "slow"
    if value > high:
        return "fast"
    return None
