"""The clip sampler: (seed, clip index) → one labelled `Motion`, the same every time.

`plan_clip` draws the clip's metadata (environment, view, facing, style, body, actions and how long
each should last) from `default_rng([seed, index, 0])`; `synthesize` generates the motion from the
plan with `default_rng([seed, index, 1])`. Splitting the two keeps the plan cheap, so the mix of
actions and environments of a large dataset can be inspected without generating it.

Views. The clip's view is constant (the pelvis width is a bone, so it cannot change mid-clip): it is
drawn from the first action's `views` (the first listed with probability 0.75), and the following
actions are drawn only among those that support it. Side-view clips face right or left at random; a
figure turns to face left by negating x (a rotation about the vertical axis, so its left limbs stay
its left limbs). Front-view clips face the viewer.

After the actions are chained (`transitions.chain`), any frame with a joint below the floor is lifted
(`postprocess.lift_above_floor`; 2 clips in 20,000 need it), zero-gravity clips are lifted off the floor and
drift slowly upward; the clip is anchored so its pelvis starts at x = 0, and the camera track and the
descriptions are added.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stickgen.labels import ENVIRONMENT_NAMES, environment, environment_vector
from stickgen.motion import Motion
from stickgen.postprocess import lift_above_floor
from stickgen.synth.actions import ACTION_BY_NAME, ACTION_SPECS, ActionSpec
from stickgen.synth.body import sample_body
from stickgen.synth.camera import camera_track, sample_camera_mode
from stickgen.synth.context import FPS, ActionContext
from stickgen.synth.kinematics import forward_kinematics
from stickgen.synth.physics import World
from stickgen.synth.style import sample_style, style
from stickgen.synth.text import Said, describe
from stickgen.synth.transitions import BLEND, chain

MAX_FRAMES = 250
GENERATOR_NAME = "stickgen.synth"
# Earth is the default environment of most prompts, so it gets a larger share.
_ENV_WEIGHTS = np.array([0.3] + [0.1] * 7)
_CHAIN_LENGTHS = np.array([0.5, 0.3, 0.2])  # 1, 2, 3 actions


@dataclass(frozen=True)
class ClipPlan:
    seed: int
    index: int
    environment: str
    view: str
    facing: int  # +1 right, −1 left
    style: str
    actions: tuple[str, ...]
    seconds: tuple[float, ...]
    start_state: str
    camera: str
    texts: int  # how many descriptions


def plan_clip(seed: int, index: int) -> ClipPlan:
    """The metadata of clip `index` of a dataset made with `seed`."""
    rng = np.random.default_rng([seed, index, 0])
    env = ENVIRONMENT_NAMES[int(rng.choice(len(ENVIRONMENT_NAMES), p=_ENV_WEIGHTS))]
    first = ACTION_SPECS[int(rng.integers(len(ACTION_SPECS)))]
    view = first.views[0] if len(first.views) == 1 or rng.random() < 0.75 else first.views[1]
    start_state = first.starts[int(rng.integers(len(first.starts)))]
    specs = [first]
    count = int(rng.choice(3, p=_CHAIN_LENGTHS)) + 1
    while len(specs) < count:
        candidates = [s for s in ACTION_SPECS if view in s.views and specs[-1].ends in s.starts]
        if not candidates:
            break
        specs.append(candidates[int(rng.integers(len(candidates)))])
    total = float(rng.uniform(2.5, 9.5)) if count > 1 else float(rng.uniform(1.5, 8.0))
    share = rng.dirichlet(np.full(len(specs), 3.0))
    return ClipPlan(
        seed=seed,
        index=index,
        environment=env,
        view=view,
        facing=1 if view == "front" or rng.random() < 0.5 else -1,
        style=sample_style(rng).name,
        actions=tuple(s.name for s in specs),
        seconds=tuple(float(x) for x in total * share),
        start_state=start_state,
        camera=sample_camera_mode(rng),
        texts=int(rng.integers(3, 6)),
    )


def synthesize(plan: ClipPlan) -> Motion:
    """Generate the clip a plan describes."""
    rng = np.random.default_rng([plan.seed, plan.index, 1])
    env = environment(plan.environment)
    world = World.of(env, plan.facing)
    body = sample_body(rng, plan.view)
    clip_style = style(plan.style)
    blend = int(round(BLEND * FPS))
    tracks, said, params, state = [], [], [], plan.start_state
    budget = MAX_FRAMES
    for k, name in enumerate(plan.actions):
        spec: ActionSpec = ACTION_BY_NAME[name]
        if k and (budget < 30 or state.split("_")[0] not in spec.starts):
            break
        reserve = 30 * (len(plan.actions) - k - 1)
        ctx = ActionContext(rng, body, world, clip_style, plan.view, state, plan.seconds[k],
                            max(budget - reserve, 30))  # fmt: skip
        out = spec.generate(ctx)
        if k and out.cut_short:
            break
        tracks.append(out.track)
        direction = int(np.sign(out.params.get("travel", 0))) * plan.facing
        said.append(Said(spec.words, out.params, direction, spec.descriptions))
        params.append(out.params)
        state = out.end_state
        budget -= out.track.num_frames - blend
        if out.track.num_frames >= ctx.max_frames:
            break  # the action used the whole budget (a jump in zero gravity never lands)
    track, spans = chain(tracks, body, FPS)
    if track.num_frames > MAX_FRAMES:
        track = track.slice(0, MAX_FRAMES)
        spans = [(a, min(b, MAX_FRAMES)) for a, b in spans if a < MAX_FRAMES]
    # A rare chain (a stumble whose flung wrist meets the floor) can dip a joint below it: lift
    # those frames, smoothly, rather than keep a figure in the floor.
    joints = lift_above_floor(forward_kinematics(track, body))
    if world.floats:
        joints = _float(joints, rng)
    if plan.facing < 0:
        joints[..., 0] = -joints[..., 0]
    joints[..., 0] -= joints[0, 0, 0]  # pelvis at x = 0 in the first frame
    actions = np.empty(len(joints), dtype=np.int64)
    for (a, b), name in zip(spans, plan.actions, strict=False):
        actions[a:b] = ACTION_BY_NAME[name].id
    names = [n for n, _ in zip(plan.actions, spans, strict=False)]
    texts = describe(rng, said, plan.environment, clip_style.adverbs, body.child, plan.texts)
    camera, camera_mode = camera_track(joints, plan.camera, FPS)
    source = {
        "generator": GENERATOR_NAME,
        "seed": plan.seed,
        "index": plan.index,
        "view": plan.view,
        "facing": "right" if plan.facing > 0 else "left",
        "style": plan.style,
        "camera": camera_mode,
        "height_m": round(body.height, 3),
        "child": body.child,
        "actions": [{"name": n, **p} for n, p in zip(names, params, strict=False)],
    }
    return Motion(
        joints,
        fps=FPS,
        texts=texts,
        actions=actions,
        camera=camera,
        environment=environment_vector(plan.environment),
        source=source,
    )


def sample_clip(seed: int, index: int) -> Motion:
    """Clip `index` of the dataset made with `seed`: `synthesize(plan_clip(seed, index))`."""
    return synthesize(plan_clip(seed, index))


def _float(joints: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Zero gravity: the figure is off the floor from the start and drifts slowly upward."""
    t = np.arange(len(joints)) / FPS
    lift = float(rng.uniform(0.15, 0.5)) + float(rng.uniform(0.0, 0.08)) * t + 0.04 * np.sin(0.8 * t)
    out = joints.copy()
    out[..., 1] += lift[:, None]
    return out


def implemented_actions() -> tuple[str, ...]:
    """Names of the actions that have a generator, in id order."""
    return tuple(s.name for s in sorted(ACTION_SPECS, key=lambda s: s.id))
