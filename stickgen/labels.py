"""The label vocabularies: the 60 actions and the 8 environments (DESIGN §3–4).

Action ids are stable: they are stored in datasets and checkpoints, so the order never changes.
The environment vector is 32 numbers per clip: a one-hot type, then physical parameters, then zeros.

Environment parameters (the contract for the synthesizer and the model):

| index | meaning | unit |
|---|---|---|
| 0..7 | one-hot type, in `ENVIRONMENTS` order | — |
| 8 | gravity / 9.81; underwater is the net of buoyancy | — |
| 9 | linear drag rate k: a body's acceleration gains −k·(v − wind) | 1/s |
| 10 | ground friction coefficient | — |
| 11 | wind speed along +x / 10 | (m/s) / 10 |
| 12 | time scale: how much more slowly motion unfolds than on earth | — |
| 13..31 | reserved, zero | — |
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stickgen.errors import StickgenError

ACTIONS: tuple[str, ...] = (
    "idle", "walk", "jog", "run", "sprint",
    "walk_backward", "sidestep", "tiptoe", "march", "limp",
    "skip", "crawl", "climb", "swim", "jump",
    "jump_forward", "hop", "jumping_jacks", "leap", "sit_down",
    "stand_up", "kneel", "lie_down", "get_up", "crouch",
    "squat", "push_up", "sit_up", "stretch", "bend_over",
    "lunge", "wave", "clap", "point", "salute",
    "shrug", "bow", "cheer", "beckon", "look_around",
    "punch", "kick", "block", "dodge", "throw",
    "catch", "swing_bat", "golf_swing", "shoot_basketball", "dribble",
    "kick_ball", "dance", "spin", "celebrate", "fall_down",
    "stumble", "balance", "push", "pull", "lift",
)  # fmt: skip
NUM_ACTIONS = len(ACTIONS)  # 60
UNKNOWN_ACTION = -1
_ACTION_IDS = {name: i for i, name in enumerate(ACTIONS)}

ENVIRONMENT_DIM = 32
GRAVITY_EARTH = 9.81  # m/s²


@dataclass(frozen=True)
class Environment:
    """Physical parameters of one environment type (see the module table for units)."""

    name: str
    gravity: float  # fraction of earth's gravity
    drag: float  # 1/s
    friction: float
    wind: float  # m/s along +x
    time_scale: float


ENVIRONMENTS: tuple[Environment, ...] = (
    Environment("earth", gravity=1.0, drag=0.0, friction=0.8, wind=0.0, time_scale=1.0),
    Environment("moon", gravity=1.62 / GRAVITY_EARTH, drag=0.0, friction=0.7, wind=0.0, time_scale=1.6),
    Environment("mars", gravity=3.71 / GRAVITY_EARTH, drag=0.0, friction=0.7, wind=0.0, time_scale=1.25),
    Environment("underwater", gravity=0.15, drag=2.0, friction=0.5, wind=0.0, time_scale=2.0),
    Environment("ice", gravity=1.0, drag=0.0, friction=0.05, wind=0.0, time_scale=1.2),
    Environment("snow", gravity=1.0, drag=0.0, friction=0.4, wind=0.0, time_scale=1.3),
    Environment("wind", gravity=1.0, drag=0.3, friction=0.8, wind=12.0, time_scale=1.1),
    Environment("zero_g", gravity=0.0, drag=0.0, friction=0.0, wind=0.0, time_scale=2.0),
)
ENVIRONMENT_NAMES: tuple[str, ...] = tuple(e.name for e in ENVIRONMENTS)


def action_id(name: str) -> int:
    """The stable id (0..59) of an action name such as "jump" or "walk_backward"."""
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    if key not in _ACTION_IDS:
        raise StickgenError(f"Unknown action {name!r}; the actions are: {', '.join(ACTIONS)}.")
    return _ACTION_IDS[key]


def action_name(action: int) -> str:
    """The name of an action id; "unknown" for −1."""
    return "unknown" if action == UNKNOWN_ACTION else ACTIONS[action]


def environment(name: str) -> Environment:
    """The `Environment` of a name such as "moon" (case-insensitive)."""
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    for env in ENVIRONMENTS:
        if env.name == key:
            return env
    raise StickgenError(f"Unknown environment {name!r}; choose one of: {', '.join(ENVIRONMENT_NAMES)}.")


def environment_vector(name: str = "earth") -> np.ndarray:
    """The (32,) float32 environment vector of a named environment."""
    env = environment(name)
    vec = np.zeros(ENVIRONMENT_DIM, dtype=np.float32)
    vec[ENVIRONMENT_NAMES.index(env.name)] = 1.0
    vec[8:13] = (env.gravity, env.drag, env.friction, env.wind / 10.0, env.time_scale)
    return vec


def environment_name(vector: np.ndarray) -> str:
    """The environment type of a (32,) vector: the largest of its one-hot entries."""
    return ENVIRONMENT_NAMES[int(np.argmax(np.asarray(vector)[:8]))]


def action_spans(actions: np.ndarray) -> list[tuple[int, int, int]]:
    """Runs of equal action ids as (action, start frame, stop frame) with stop exclusive.

    actions: (T,) ints. Returns e.g. [(1, 0, 50), (14, 50, 75)] for a walk then a jump.
    """
    actions = np.asarray(actions)
    if actions.size == 0:
        return []
    change = np.flatnonzero(np.diff(actions)) + 1
    starts = np.concatenate([[0], change])
    stops = np.concatenate([change, [actions.size]])
    return [(int(actions[a]), int(a), int(b)) for a, b in zip(starts, stops, strict=True)]
