"""Editing and long motion (DESIGN §9): continue a clip, in-between poses, regenerate a body part, and
tell a story of many segments, all with the one sampler, by inpainting (docs/editing.md).

- `continue_motion(clip, text)`: the clip followed by new motion that starts where it ends.
- `inbetween(text, start=A, end=B)`: new motion from A's last pose and/or to B's first pose.
- `edit_motion(clip, text, part=...)`: the joints of one body part regenerated (within a time span),
  every other joint and frame kept.
- `tell_story(segments)`: one continuous clip, each segment `(seconds, text)` in its turn.

How: the sampler takes known features and per-entry weights (`sampling.sample(known=..., known_mask=...)`);
entries of weight 1 follow the straight path to their values, so they come back exactly while the
model fills in the rest around them. Inpainting alone leaves jumps at seams (docs/editing.md has the
figures), so the new frames next to a seam are also pulled towards the motion there, less and less
over `BLEND_FRAMES` frames: the model itself makes the transition. Every call works on windows of at
most `WINDOW_FRAMES` (the longest training clip); a window sees `CONTEXT_SECONDS` of the motion before
it (and after it, when that is fixed) as known frames, its own text ("PREVIOUS, then TEXT" when it
starts a new segment) and the new frames' action timeline. The figure is then cleaned up as
`generate` does; next to a seam the clean-up eases in over `FADE_FRAMES` frames, and new frames take
the bone lengths of the known frame they join.

A window is drawn as several candidates, as `generate` draws a clip (`generation.candidates_for` its
frames, or the `candidates` option), and the one in which the model best recognises the new frames'
planned actions is kept (`sampling.plan_agreement`); a window in which every frame keeps some known
feature (a part edit) is drawn once, as the judge reads whole poses.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from stickgen import figure as fg
from stickgen.action_words import direction_in_text
from stickgen.clip_ops import resample
from stickgen.errors import StickgenError
from stickgen.generation import (
    DEFAULT_PLAN,
    FPS,
    MAX_CANDIDATES,
    MIN_SECONDS,
    MIN_TRAVEL,
    PLANS,
    candidates_for,
    close_calls,
    default_seconds,
    environment_from_text,
    load_generator_checkpoint,
    named_actions,
    parse_action_timeline,
    plan_timelines,
    read_actions,
    reading_is_a_guess,
    split_by_length,
    timeline_spec,
)
from stickgen.labels import environment_vector
from stickgen.motion import Motion
from stickgen.postprocess import clean_up, lift_above_floor, pin_feet
from stickgen.ranges import DEFAULT_GUIDANCE, DEFAULT_STEPS, check_range, check_sampling, check_seed
from stickgen.sampling import sample_best_of

if TYPE_CHECKING:
    from stickgen.text import TextEncoder

J = fg.J
WINDOW_FRAMES = 250  # the longest window the model samples at once: its longest training clip (10 s)
CONTEXT_SECONDS = 1.0  # known motion a window sees before (and after) the frames it makes
FADE_FRAMES = 8  # new frames over which the clean-up eases in after (or before) a seam
BLEND_FRAMES = 12  # new frames that the sampler pulls towards the pose at a seam, less and less
MAX_STORY_SECONDS = 600.0  # a story (or a continuation) is at most 10 minutes long
MAX_SEGMENT_SECONDS = 120.0  # one segment of a story (or --seconds with --then, --after, ...)
DIRECTION_TRIES = 3  # samples of a window whose text names a direction, until one travels that way
EDGE_SEARCH_FRAMES = 5  # an edit's span edge may move inward this far, to where the part moves slowest

# The joints each part regenerates. A part with the pelvis also regenerates the pelvis's path (its
# height and travel), so the joints it keeps are kept relative to the pelvis; every other part keeps
# the pelvis path, and its kept joints stay exactly where they were.
PARTS: dict[str, tuple[str, ...]] = {
    "upper": (
        "chest",
        "neck",
        "head",
        "l_shoulder",
        "l_elbow",
        "l_wrist",
        "r_shoulder",
        "r_elbow",
        "r_wrist",
    ),
    "lower": ("pelvis", "l_hip", "l_knee", "l_ankle", "r_hip", "r_knee", "r_ankle"),
    "arms": ("l_shoulder", "l_elbow", "l_wrist", "r_shoulder", "r_elbow", "r_wrist"),
    "legs": ("l_hip", "l_knee", "l_ankle", "r_hip", "r_knee", "r_ankle"),
    "left_arm": ("l_shoulder", "l_elbow", "l_wrist"),
    "right_arm": ("r_shoulder", "r_elbow", "r_wrist"),
}
# (parent, child) from the pelvis outward: how an edited joint hangs from the joints before it.
_TREE = (("pelvis", "chest"), ("chest", "neck"), ("neck", "head"), ("neck", "l_shoulder"),
         ("neck", "r_shoulder"), ("l_shoulder", "l_elbow"), ("l_elbow", "l_wrist"), ("r_shoulder", "r_elbow"),
         ("r_elbow", "r_wrist"), ("l_hip", "l_knee"), ("l_knee", "l_ankle"), ("r_hip", "r_knee"),
         ("r_knee", "r_ankle"))  # fmt: skip
_X, _VX = fg.POSE_DIM, fg.POSE_DIM + 2  # the pelvis x position and x velocity in the 52 features


@dataclass(frozen=True)
class Segment:
    """One line of a story: what the figure does, for how long (seconds).

    default: no seconds were given, and `seconds` is the length the text's words give it
    (`generation.default_seconds`) until the model's encoder reads it as `generate` does (`_settle`).
    actions: the segment's own actions as its story line gives them after a "|", in the form
    `given_timeline` reads (names in order, or spans in the segment's own seconds), or None: the text is
    read as the plan reads it.
    """

    text: str
    seconds: float
    default: bool = False
    actions: str | None = None


# -----------------------------------------------------------------------------
# masks and geometry (pure functions)


def part_joints(part: str) -> list[int]:
    """Joint indices a part regenerates (`PARTS`); one sentence for an unknown part."""
    key = part.strip().lower().replace("-", "_")
    if key not in PARTS:
        raise StickgenError(f"Unknown part {part!r}; use one of {', '.join(PARTS)}.")
    return [J[name] for name in PARTS[key]]


def known_features(edited: Sequence[int]) -> np.ndarray:
    """(52,) bool, True for the feature dimensions that stay known when `edited` joints are regenerated.

    A joint's pose dimensions are every segment endpoint it is (the pose is pelvis-relative, so the
    pelvis's own endpoint is always zero and always known); the pelvis position and velocity are
    known unless the pelvis itself is edited.
    """
    edited = {int(j) for j in edited}
    endpoint_edited = np.isin(fg.SEGMENT_JOINTS.reshape(-1), list(edited - {J["pelvis"]}))  # (24,)
    mask = np.ones(fg.FEATURE_DIM, dtype=bool)
    mask[: fg.POSE_DIM] = ~np.repeat(endpoint_edited, 2)
    if J["pelvis"] in edited:
        mask[fg.POSE_DIM :] = False
    return mask


def _unit(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.where(n > 1e-9, v / np.maximum(n, 1e-9), np.array([0.0, 1.0]))


def rebuild_part(original: np.ndarray, generated: np.ndarray, edited: Sequence[int]) -> np.ndarray:
    """Joints (T, 16, 2): `original` with the `edited` joints pointing where `generated` has them.

    Each edited joint hangs from its (kept or already rebuilt) parent in the direction the generated
    figure gives, at the original figure's bone length in that frame, so the result is a connected
    figure with the clip's own bones. With the pelvis edited, the whole figure moves with the
    generated pelvis and its kept joints keep their places relative to it.
    """
    edited = set(int(j) for j in edited)
    pelvis = J["pelvis"]
    out = original.copy()
    if pelvis in edited:
        out += (generated[:, pelvis] - original[:, pelvis])[:, None]
    if J["l_hip"] in edited or J["r_hip"] in edited:
        across = _unit(generated[:, J["r_hip"]] - generated[:, J["l_hip"]])
        half = 0.5 * np.linalg.norm(original[:, J["r_hip"]] - original[:, J["l_hip"]], axis=-1)[:, None]
        out[:, J["l_hip"]] = out[:, pelvis] - half * across
        out[:, J["r_hip"]] = out[:, pelvis] + half * across
    for parent, child in _TREE:
        p, c = J[parent], J[child]
        if c in edited:
            length = np.linalg.norm(original[:, c] - original[:, p], axis=-1)[:, None]
            out[:, c] = out[:, p] + length * _unit(generated[:, c] - generated[:, p])
    return out


def _window_features(joints: np.ndarray, before: np.ndarray | None = None) -> np.ndarray:
    """Features (T, 52) of joints (T, 16, 2) with x relative to the first frame; `before` (a frame
    (16, 2) just before them, if any) makes the first frame's velocity the clip's own."""
    stack = joints if before is None else np.concatenate([before[None], joints])
    feats = fg.motion_features(stack, FPS)[0 if before is None else 1 :]
    feats[:, _X] -= joints[0, J["pelvis"], 0]
    return feats


def _path(vx: np.ndarray, start: float) -> np.ndarray:
    """Pelvis x (T,) from x velocity (T,) m/s, from `start` at frame 0 (trapezoid rule)."""
    steps = 0.5 * (vx[1:] + vx[:-1]) / FPS
    return start + np.concatenate([[0.0], np.cumsum(steps)])


def _fade(frames: int, length: int = 0, reverse: bool = False) -> np.ndarray:
    """(frames,) weights falling smoothly from near 1 (next to the seam) to 0 after `length` frames
    (default FADE_FRAMES)."""
    s = np.clip(np.arange(1, frames + 1) / ((length or FADE_FRAMES) + 1), 0.0, 1.0)
    w = 1.0 - s * s * (3.0 - 2.0 * s)
    return w[::-1] if reverse else w


# -----------------------------------------------------------------------------
# the engine: one model, its statistics and the sampler settings

# Edits guide at every step, not only while t < ranges.GUIDANCE_UNTIL as `generate` does: the kept
# motion around a part edit pulls the new frames towards itself to the end, and with the last steps
# unguided `benchmarks/editing.py` found the kicks of leg edits in 8 of 10 seeds instead of 10 of 10.
GUIDANCE_UNTIL = 1.0


class _Engine:
    """The bundled (or given) model with its statistics, text embeddings and one noise generator."""

    def __init__(
        self, *, checkpoint, device, seed, steps, guidance, plan, text_encoder=None, candidates=None
    ) -> None:
        check_seed("--seed", seed)
        check_sampling(steps, guidance)
        if plan not in PLANS:
            raise StickgenError(f"Unknown plan {plan!r}; use one of {', '.join(PLANS)}.")
        # a checkpoint folder (None: the bundled model), or one already loaded (the web studio's)
        ckpt = checkpoint if hasattr(checkpoint, "model") else load_generator_checkpoint(checkpoint, device)
        self.model, self.encoder = ckpt.model, ckpt.encoder["name"]
        self.mean, self.std = ckpt.norm_mean.cpu().numpy(), ckpt.norm_std.cpu().numpy()
        self.device = next(self.model.parameters()).device
        self.steps, self.guidance, self.plan, self.seed = steps, guidance, plan, seed
        if candidates is not None:
            check_range("--candidates", candidates, 1, MAX_CANDIDATES)
        self.candidates = candidates  # None: `candidates_for` each window
        self.generator = torch.Generator().manual_seed(seed)
        self._texts: dict[str, torch.Tensor] = {}
        self._text_encoder = text_encoder  # an open TextEncoder (the web studio's), or None: by name

    @functools.cached_property
    def text_encoder(self) -> TextEncoder:
        from stickgen.text import TextEncoder

        return self._text_encoder or TextEncoder(self.encoder)

    def embed(self, prompt: str) -> torch.Tensor:
        if prompt not in self._texts:
            self._texts[prompt] = torch.from_numpy(self.text_encoder.encode([prompt])).to(self.device)
        return self._texts[prompt]

    def timeline(self, prompt: str, frames: int, after: int | None = None) -> np.ndarray:
        """Per-frame action ids (frames,) for a prompt under the plan; −1 where it gives none. `after`:
        the action the figure was doing before (`last_action`), whose end posture the prompt starts in
        (`generation.read_actions`)."""
        planned = plan_timelines(
            self.model, [prompt], self.embed(prompt), frames, self.plan, guidance=self.guidance,
            generator=self.generator, encoder=self.text_encoder, after=after,
        )  # fmt: skip
        return np.full(frames, -1, dtype=np.int64) if planned is None else planned[0]

    def fill(
        self, prompt: str, feats: np.ndarray, known: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Sample one window: features (T, 52) in metres, `known` (T, 52) weights (1 = known, 0 = free,
        between: pulled that far towards `feats`), actions (T,) → the sampled features (T, 52), in
        metres, and foot contacts (T, 2) bool from the physics head."""
        norm = torch.from_numpy(((feats - self.mean) / self.std).astype(np.float32))[None]
        count = candidates_for(len(feats)) if self.candidates is None else self.candidates
        free = np.where(known.max(axis=1) < 1.0, actions, -1)  # the judge reads the new frames' actions
        if (free < 0).all():
            count = 1
        out = sample_best_of(
            self.model, count, frames=len(feats), text=self.embed(prompt),
            actions=torch.as_tensor(actions[None], device=self.device),
            judged=torch.as_tensor(free[None], device=self.device), steps=self.steps, guidance=self.guidance,
            guidance_until=GUIDANCE_UNTIL, generator=self.generator, known=norm,
            known_mask=torch.from_numpy(known.astype(np.float32)),
        )  # fmt: skip
        x = torch.cat([out.pose, out.position, out.velocity], dim=-1)[0].float().cpu().numpy()
        contacts = torch.sigmoid(out.physics[0, :, 4:]).float().cpu().numpy() > 0.5
        sampled = x * self.std + self.mean
        return np.where(known >= 1.0, feats, sampled), contacts


def _engine(options: dict) -> _Engine:
    unknown = set(options) - {"checkpoint", "device", "seed", "steps", "guidance", "plan", "text_encoder",
                              "candidates"}  # fmt: skip
    if unknown:
        raise TypeError(f"unexpected option {sorted(unknown)[0]!r}")
    defaults = {"checkpoint": None, "device": "auto", "seed": 0, "steps": DEFAULT_STEPS,
                "guidance": DEFAULT_GUIDANCE, "plan": DEFAULT_PLAN}  # fmt: skip
    return _Engine(**{**defaults, **options})


# -----------------------------------------------------------------------------
# new frames after (and before) known motion


def _extend(
    engine: _Engine,
    prompt: str,
    timeline: np.ndarray,
    *,
    before: tuple[np.ndarray, np.ndarray] | None,
    after: tuple[np.ndarray, np.ndarray] | None,
) -> np.ndarray:
    """New joints, one frame per entry of `timeline` (their action ids), that follow the last frame of
    `before` and lead into the first frame of `after` (each `(joints, actions)` or None), in `before`'s
    world coordinates (from x = 0 without it). With `after`, its first frame follows the new ones,
    placed where the new pelvis arrives: (frames + 1, 16, 2). The new frames have the bones of the
    known frame next to them (their own, cleaned up as `generate` does, without one)."""
    frames, context = len(timeline), int(round(CONTEXT_SECONDS * FPS))
    c = 0 if before is None else min(context, len(before[0]))
    e = 0 if after is None else min(context, len(after[0]))
    feats = np.zeros((c + frames + e, fg.FEATURE_DIM))
    known = np.zeros(feats.shape)  # weights: 1 known, 0 free
    actions = np.concatenate(
        [before[1][len(before[1]) - c :] if c else [], timeline, after[1][:e] if e else []]
    )
    if c:
        joints = before[0]
        feats[:c] = _window_features(joints[-c:], joints[-c - 1] if len(joints) > c else None)
        known[:c] = 1.0
        # the first new frames are pulled towards the last known pose, less and less (a soft seam)
        feats[c : c + frames] = feats[c - 1]
        known[c : c + frames] = _fade(frames, BLEND_FRAMES)[:, None]
    if e:
        joints = after[0]
        feats[c + frames :] = fg.motion_features(joints[: e + 1], FPS)[:e]
        known[c + frames :] = 1.0
        fade = _fade(frames, BLEND_FRAMES, reverse=True)[:, None]
        pull = fade > known[c : c + frames]
        feats[c : c + frames] = np.where(pull, feats[c + frames], feats[c : c + frames])
        known[c : c + frames] = np.maximum(fade, known[c : c + frames])
        known[c + frames :, _X] = 0.0  # where the new motion arrives is its own choice
    known[:, _X] = np.where(known[:, _X] >= 1.0, known[:, _X], 0.0)  # the path of the new frames is free
    sampled, contacts = engine.fill(prompt, feats, known, actions.astype(np.int64))
    first = max(c - 1, 0)
    start_x = float(before[0][-1, J["pelvis"], 0]) if c else 0.0
    sampled[first:, _X] = _path(sampled[first:, _VX], start_x)
    joints = fg.features_to_joints(sampled)  # (c + frames + e, 16, 2)
    if c:
        joints[:c] = before[0][-c:]
        contacts[:c] = fg.foot_contacts(before[0][-c:], FPS)
    if e:
        shift = joints[c + frames, J["pelvis"], 0] - after[0][0, J["pelvis"], 0]
        joints[c + frames :] = after[0][:e] + np.array([shift, 0.0])
        contacts[c + frames :] = fg.foot_contacts(after[0][:e], FPS)
    cleaned = clean_up(joints, contacts, FPS)
    # The sampled figure joins the known frames smoothly, and the clean-up (which pins feet where they
    # stand on average) would move it there: next to a seam the clean-up eases in over FADE_FRAMES.
    near = np.zeros(frames)
    if c:
        near = _fade(frames)
    if e:
        near = np.maximum(near, _fade(frames, reverse=True))
    new = cleaned[c : c + frames] + near[:, None, None] * (joints[c : c + frames] - cleaned[c : c + frames])
    # The bones (and clavicles) of the known frame at the seam, so that the figure joins it; between two
    # seams they change from one figure's to the other's (a linear blend of two figures with the same
    # directions is the figure with the blended bone lengths).
    bodies = [joints[k] for k in ((c - 1,) if c else ()) + ((c + frames,) if e else ())]
    boned = [rebuild_part(np.broadcast_to(body, new.shape), new, range(fg.NUM_JOINTS)) for body in bodies]
    if len(boned) == 2:
        w = np.linspace(0.0, 1.0, frames + 2)[1:-1, None, None]
        new = (1.0 - w) * boned[0] + w * boned[1]
    elif boned:
        new = boned[0]
    if e:
        new = np.concatenate([new, joints[c + frames : c + frames + 1]])
    return new


def _continue(
    engine: _Engine, clip: Motion | None, segments: Sequence[Segment], *, end: Motion | None = None
) -> tuple[np.ndarray, np.ndarray, list[str], list[list]]:
    """Joints (T, 16, 2) and actions (T,) of `clip` (or nothing) followed by each segment in turn, in
    windows of at most WINDOW_FRAMES; with `end`, its first frame closes the result. And each segment's
    action timeline as `timeline_spec` writes it, in the segment's own seconds ("" for none), and its
    reading's close calls (`generation.close_calls`).

    A window that starts a new segment after known motion reads "PREVIOUS, then TEXT", as the chained
    clips the model learned from are described; its action timeline is the new segment's own.
    """
    context = int(round(CONTEXT_SECONDS * FPS))
    joints = None if clip is None else clip.joints
    actions = None if clip is None else clip.actions
    previous = clip.texts[0] if clip is not None and clip.texts else None
    last = None if clip is None else last_action(clip.actions)
    specs, closes = [], []
    for i, segment in enumerate(segments):
        frames = int(round(segment.seconds * FPS))
        if segment.actions is None:  # read from where the figure is: after the clip or segment before
            timeline = engine.timeline(segment.text, frames, after=last)
            closes.append(close_calls(segment.text, engine.plan, engine.text_encoder, after=last))
        else:
            timeline = given_timeline(segment.actions, frames)
            closes.append([])
        last = last_action(timeline, last)
        specs.append(timeline_spec(timeline, FPS))
        direction = direction_in_text(segment.text)
        closing = end is not None and i == len(segments) - 1
        done = 0
        while done < frames:
            room = WINDOW_FRAMES - (0 if joints is None else context) - (context if closing else 0)
            take = min(frames - done, room)
            if 0 < frames - done - take < context:  # no sliver of a window at the end
                take = (frames - done) // 2
            final = closing and done + take == frames
            chained = done == 0 and joints is not None and previous not in (None, segment.text)
            window = functools.partial(
                _extend, engine, f"{previous}, then {segment.text}" if chained else segment.text,
                timeline[done : done + take], before=None if joints is None else (joints, actions),
                after=(end.joints, end.actions) if final else None,
            )  # fmt: skip
            new = _towards(direction, joints, window)
            new_actions = timeline[done : done + take]
            if final:
                new_actions = np.concatenate([new_actions, end.actions[:1]])
            joints = new if joints is None else np.concatenate([joints, new])
            actions = new_actions if actions is None else np.concatenate([actions, new_actions])
            done += take
        previous = segment.text
    return joints, actions, specs, closes


def _towards(direction: int, before: np.ndarray | None, window: Callable[[], np.ndarray]) -> np.ndarray:
    """The joints `window()` samples; where the text names a `direction` (+1 right, −1 left) and they
    travel the other way (more than MIN_TRAVEL, from `before`'s last pelvis or their own first), up to
    DIRECTION_TRIES samples, keeping the one that goes furthest the named way. `generate` mirrors a
    clip that goes the wrong way instead, but a window that follows kept frames cannot be mirrored."""

    def travel(joints: np.ndarray) -> float:
        start = joints[0] if before is None else before[-1]
        return direction * float(joints[-1, J["pelvis"], 0] - start[J["pelvis"], 0])

    best = window()
    for _ in range(DIRECTION_TRIES - 1):
        if direction == 0 or travel(best) >= -MIN_TRAVEL:
            break
        other = window()
        best = other if travel(other) > travel(best) else best
    return best


def _environment(prompts: Sequence[str], fallback: Motion | None = None) -> str:
    """The first place the prompts name; else the fallback clip's environment; else earth."""
    from stickgen.labels import environment_name

    for prompt in prompts:
        if environment_from_text(prompt) != "earth":
            return environment_from_text(prompt)
    return "earth" if fallback is None else environment_name(fallback.environment)


def _result(joints: np.ndarray, actions: np.ndarray, texts: list[str], environment: str, engine: _Engine,
            **source) -> Motion:  # fmt: skip
    return Motion(
        joints, fps=FPS, texts=texts, actions=actions, environment=environment_vector(environment),
        source={"generator": "stickgen", "seed": engine.seed, "steps": engine.steps,
                "guidance": engine.guidance, **source},
    )  # fmt: skip


def _canonical(motion: Motion | None) -> Motion | None:
    """The clip at 25 fps (resampled when it has another rate), or None."""
    return motion if motion is None or motion.fps == FPS else resample(motion, FPS)


def _segment(
    text: str, seconds: float | None, where: str = "--seconds", actions: str | None = None
) -> Segment:
    from stickgen.text import check_prompt

    prompt = check_prompt(text)
    if seconds is None and actions is None:
        return Segment(prompt, default_seconds(prompt), default=True)
    if actions is not None:
        end = check_given_actions(actions, seconds)
    if seconds is None:  # as long as the given actions: their spans' end, or the names' typical lengths
        seconds = end or default_seconds(prompt, _given_names(actions))
    seconds = float(check_range(where, seconds, MIN_SECONDS, MAX_SEGMENT_SECONDS))
    return Segment(prompt, seconds, actions=actions)


def _given_names(spec: str) -> list[int] | None:
    """The action ids of a segment's own actions given as names ("walk, sit_down"); None when they are
    given as spans ("walk:0-2,sit_down:2-4"). One sentence for an unknown name, none at all or a mix
    (`generation.named_actions`)."""
    if not spec.replace(",", "").strip():
        raise StickgenError('No action follows the "|"; write e.g. | sit_down or | walk:0-2,sit_down:2-4.')
    return named_actions(spec)


def check_given_actions(spec: str, seconds: float | None) -> float:
    """The end (s) of a segment's own actions (`given_timeline`) given as spans, 0 for names; one
    sentence for ones that cannot be read, or whose spans run past its `seconds` (None: no length to
    keep to)."""
    end = 0.0 if _given_names(spec) is not None else _spans_end(spec)
    if seconds is not None and end > seconds:
        raise StickgenError(f"The actions run to {end:g} s, past the segment's {seconds:g} s.")
    return end


def _spans_end(spec: str) -> float:
    """The end (s) of the last span of "walk:0-2,sit_down:2-4", checked as --actions checks spans."""
    return len(parse_action_timeline(spec, FPS, longest=MAX_SEGMENT_SECONDS)) / FPS


def given_timeline(spec: str, frames: int) -> np.ndarray:
    """Per-frame action ids (frames,) of a segment's own actions: names in order ("walk, sit_down")
    share its frames as `generate` shares a chained prompt's (`split_by_length`); spans in the segment's
    own seconds ("walk:0-2,sit_down:2-4") as --actions reads them, with free motion (−1) where no span
    covers a frame."""
    names = _given_names(spec)
    if names is not None:
        return split_by_length(names, frames)
    spans = parse_action_timeline(spec, FPS, longest=MAX_SEGMENT_SECONDS)[:frames]
    return np.concatenate([spans, np.full(frames - len(spans), -1, dtype=np.int64)])


def _settle(engine: _Engine, segments: list[Segment], after: int | None = None) -> list[Segment]:
    """The segments with the lengths `generate` gives them where none was given: each text's actions
    read as the engine's plan reads them, by meaning with the model's encoder, after the action the
    segment before ends with (the first after `after`, the clip it follows), as `_continue` reads them."""
    out = []
    for segment in segments:
        if segment.actions is not None:  # a line's own actions (its length is set): for its last one
            read = given_timeline(segment.actions, round(MAX_SEGMENT_SECONDS * FPS))
        else:
            read = read_actions(segment.text, engine.plan, engine.text_encoder, after)
        if segment.default:
            segment = Segment(segment.text, default_seconds(segment.text, read))
        out.append(segment)
        after = last_action(read, after)
    return out


def last_action(actions: Sequence[int] | np.ndarray | None, otherwise: int | None = None) -> int | None:
    """The last known action (≥ 0) of a clip's or a reading's actions; `otherwise` where none is."""
    known = [int(a) for a in ([] if actions is None else actions) if a >= 0]
    return known[-1] if known else otherwise


def _check_total(seconds: float) -> None:
    if seconds > MAX_STORY_SECONDS:
        raise StickgenError(
            f"The result would last {seconds / 60:.1f} minutes; stickgen makes at most "
            f"{MAX_STORY_SECONDS / 60:g} minutes at a time."
        )


# -----------------------------------------------------------------------------
# the calls


def compose(
    text: str,
    *,
    then: Sequence[str] = (),
    after: Motion | None = None,
    start: Motion | None = None,
    end: Motion | None = None,
    seconds: float | None = None,
    environment: str | None = None,
    actions: str | None = None,
    **options,
) -> Motion:
    """What `stickgen generate` makes with --then, --after, --start or --end: `text` and then each of
    `then`, every one for `seconds` (default: the duration `generate` chooses for it), after the clip
    `after` (kept, in front) or from `start`'s last pose (the result starts there), and into `end`'s
    first pose. `environment` adds a place to every text that names none. `actions`, without `then`:
    the new motion's actions instead of the text's reading, as a story line gives them
    (`given_timeline`, seconds from the new motion's start). Options as for `continue_motion`."""
    from stickgen.generation import with_environment

    if after is not None and start is not None:
        raise StickgenError("Give --after (keep the clip) or --start (begin at its last pose), not both.")
    if actions is not None and then:
        raise StickgenError(
            "--actions cannot be combined with --then; in a story file (stickgen story) each line can "
            "give its own actions after a |."
        )
    texts = [text, *then]
    if environment is not None:
        texts = [with_environment(_segment(t, None).text, environment) for t in texts]
    segments = [_segment(t, seconds, actions=actions if k == 0 else None) for k, t in enumerate(texts)]
    before, start, end = _canonical(after if after is not None else start), _canonical(start), _canonical(end)
    _check_total(sum(s.seconds for s in segments) + (0.0 if after is None else before.duration))
    engine = _engine(options)
    segments = _settle(engine, segments, None if before is None else last_action(before.actions))
    _check_total(sum(s.seconds for s in segments) + (0.0 if after is None else before.duration))
    joints, actions, specs, closes = _continue(engine, before, segments, end=end)
    if start is not None:
        joints, actions = joints[start.num_frames - 1 :].copy(), actions[start.num_frames - 1 :]
    if after is None:
        joints[..., 0] -= joints[0, J["pelvis"], 0]
    story = ", then ".join(s.text for s in segments)
    texts = [f"{after.texts[0]}, then {story}"] if after is not None and after.texts else [story]
    fallback = before if before is not None else end
    return _result(joints, actions, texts, _environment([s.text for s in segments], fallback), engine,
                   segments=[[s.seconds, s.text] for s in segments], read=specs,
                   given=[s.actions or "" for s in segments], close=closes)  # fmt: skip


def continue_motion(clip: Motion, text: str, *, seconds: float | None = None, end: Motion | None = None,
                    actions: str | None = None, **options) -> Motion:  # fmt: skip
    """`clip` followed by `seconds` of new motion for `text` (default: the duration `generate` chooses)
    that starts where the clip ends, in position, pose and speed; the clip's frames come back unchanged
    (a clip at another frame rate is first resampled to 25 fps). With `end`, the new motion leads into
    `end`'s first pose, which closes the result. `actions`: the new motion's actions (`given_timeline`)
    instead of the text's reading. Options (keyword): seed, steps, guidance, plan, checkpoint, device,
    as for `generate`."""
    return compose(text, after=clip, end=end, seconds=seconds, actions=actions, **options)


def inbetween(text: str, *, start: Motion | None = None, end: Motion | None = None,
              seconds: float | None = None, actions: str | None = None, **options) -> Motion:  # fmt: skip
    """New motion for `text` that begins at `start`'s last pose and/or ends at `end`'s first pose: those
    frames come back as the result's first and last (pelvis-relative and in height; the result starts
    at x = 0 and the end pose stands where the motion arrives). `actions` and options as for
    `continue_motion`."""
    if start is None and end is None:
        raise StickgenError("In-betweening needs a start clip, an end clip or both.")
    return compose(text, start=start, end=end, seconds=seconds, actions=actions, **options)


def tell_story(segments: Sequence[Segment | tuple[float | None, str]], **options) -> Motion:
    """One continuous clip in which each segment, `Segment(text, seconds)` or `(seconds, text)` with
    seconds None for the duration `generate` would choose, follows the one before it. Options as for
    `continue_motion`."""
    story = [s if isinstance(s, Segment) else _segment(s[1], s[0]) for s in segments]
    if not story:
        raise StickgenError("The story has no segments; give at least one line of text.")
    _check_total(sum(s.seconds for s in story))
    engine = _engine(options)
    story = _settle(engine, story)
    _check_total(sum(s.seconds for s in story))
    joints, actions, specs, closes = _continue(engine, None, story)
    text = ", then ".join(s.text for s in story)
    return _result(joints, actions, [text], _environment([s.text for s in story]), engine,
                   story=[[s.seconds, s.text] for s in story], read=specs,
                   given=[s.actions or "" for s in story], close=closes)  # fmt: skip


def guessed_segment_readings(motion: Motion, plan: str) -> list[tuple[int, str, str, list]]:
    """(segment number from 1, text, timeline, close calls) for each segment of a story or of `compose`
    whose action timeline is a guess (`generation.reading_is_a_guess`), as `generation.guessed_readings`
    says it of one clip; the timeline as `timeline_spec` writes it, in the segment's own seconds, the
    close calls as `generation.close_calls` gives them. Segments that followed no timeline, and those
    whose story line gave its actions, are left out."""
    segments = motion.source.get("story") or motion.source.get("segments") or []
    read = motion.source.get("read") or []
    given = motion.source.get("given") or [""] * len(segments)  # a story line's own "| ACTIONS"
    close = motion.source.get("close") or [[]] * len(segments)
    return [
        (k, text, spec, near)
        for k, ((_, text), spec, own, near) in enumerate(zip(segments, read, given, close, strict=False), 1)
        if spec and not own and reading_is_a_guess(text, plan)
    ]


def guessed_edit_reading(motion: Motion, plan: str) -> str | None:
    """The action timeline an `edit_motion` result followed (in seconds from its span's start, as
    `timeline_spec` writes it) where that is a guess (`generation.reading_is_a_guess`), else None."""
    edited = motion.source.get("edited") or {}
    guess = edited.get("read") and not edited.get("given") and reading_is_a_guess(edited["text"], plan)
    return edited["read"] if guess else None


def parse_story(text: str, name: str = "the story") -> list[Segment]:
    """Segments from a story text: one a line, `SECONDS TEXT` or just `TEXT` (the duration `generate`
    would choose), either followed by `| ACTIONS` to give the segment's actions instead of having its
    text read (`given_timeline`: "| sit_down", "| walk, sit_down" or "| walk:0-2,sit_down:2-4" in the
    segment's own seconds; without SECONDS the segment lasts as long as they need); `#` starts a
    comment; blank lines are skipped."""
    segments = []
    for number, raw in enumerate(text.splitlines(), 1):
        line, bar, actions = raw.split("#", 1)[0].partition("|")
        line = line.strip()
        if not line and not bar:
            continue
        first, _, rest = line.partition(" ")
        seconds = _number(first)
        words = line if seconds is None else rest.strip()
        if not words:
            raise StickgenError(
                f"Line {number} of {name} has {'a duration but ' * (seconds is not None)}no text; "
                "write e.g. 3 a person jumps."
            )
        if not any(ch.isalpha() for ch in words):
            raise StickgenError(
                f"Line {number} of {name} has no words; describe a motion, e.g. 3 a person jumps."
            )
        where = f"The duration on line {number} of {name}"
        if bar:
            try:
                check_given_actions(actions, seconds)
            except StickgenError as e:
                raise StickgenError(f"Line {number} of {name}: {_lower_first(str(e))}") from None
        segments.append(_segment(words, seconds, where, actions.strip() if bar else None))
    if not segments:
        raise StickgenError(
            f"{name[:1].upper()}{name[1:]} has no segments; write one a line, e.g. 3 a person jumps."
        )
    _check_total(sum(s.seconds for s in segments))
    return segments


def _lower_first(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:] if sentence[1:2].islower() else sentence


def _number(word: str) -> float | None:
    """A duration such as 3, 2.5 or 4s; None when the word is not one."""
    match = re.fullmatch(r"([-+]?[0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)s?", word.lower())
    return None if match is None else float(match.group(1))  # a negative one is then refused


def read_story(path: str | Path) -> list[Segment]:
    """`parse_story` of a UTF-8 text file; one sentence for a missing or unreadable file."""
    path = Path(path)
    if path.is_dir():
        raise StickgenError(f"{path} is a folder; give a story text file.")
    if not path.is_file():
        raise StickgenError(f"No such story file: {path}.")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise StickgenError(f"{path} is not a UTF-8 text file.") from None
    except OSError as e:
        raise StickgenError(f"Cannot read {path}: {e.strerror or e}.") from None
    return parse_story(text, str(path))


def edit_motion(clip: Motion, text: str, *, part: str, start: float | None = None,
                stop: float | None = None, actions: str | None = None, **options) -> Motion:  # fmt: skip
    """`clip` with the joints of `part` (see `PARTS`) regenerated to follow `text` between `start` and
    `stop` seconds (default: the whole clip); every other joint and frame comes back exactly (with the
    pelvis in the part, the kept joints stay exact relative to the pelvis). The edited joints keep the
    clip's bone lengths in every frame. `actions`: the span's actions as a story line gives them
    (`given_timeline`: names, or spans in seconds from the span's start) instead of the text's reading;
    the result's `source["edited"]["read"]` is the timeline followed. Options as for `continue_motion`."""
    from stickgen.text import check_prompt

    prompt = check_prompt(text)
    edited = part_joints(part)
    given = actions  # (`actions` is the clip's below)
    end = 0.0 if given is None else check_given_actions(given, None)  # refused before the clip is read
    clip = _canonical(clip)
    span = _span(clip, start, stop)
    length = (span[1] - span[0]) / FPS
    if end > length:
        raise StickgenError(
            f"The actions run to {end:g} s, past the edited span's {length:g} s (their seconds count from "
            "the span's start)."
        )
    a, b = _calm_edges(clip.joints, *span, edited)
    engine = _engine(options)
    context = int(round(CONTEXT_SECONDS * FPS))
    # read as a prompt of its own: an edit often keeps the legs (arms that wave while seated), so the
    # posture the clip holds does not decide what the words mean
    timeline = engine.timeline(prompt, b - a) if given is None else given_timeline(given, b - a)
    part_known = known_features(edited)
    moves_pelvis = J["pelvis"] in edited
    moves_legs = J["l_ankle"] in edited or J["r_ankle"] in edited
    result, actions = clip.joints.copy(), clip.actions.copy()
    step = WINDOW_FRAMES - 2 * context
    for ca in range(a, b, step):
        cb = min(b, ca + step)
        wa, wb = max(0, ca - context), min(clip.num_frames, cb + context)
        lo, hi = ca - wa, cb - wa  # the edited frames inside the window
        feats = _window_features(result[wa:wb], result[wa - 1] if wa > 0 else None)
        if wb < clip.num_frames:  # the last frame's velocity as the clip has it
            feats[-1, _VX:] = fg.motion_features(result[wb - 2 : wb + 1], FPS)[1, _VX:]
        known = np.ones(feats.shape)  # weights: 1 known, 0 free
        known[lo : min(b, wb) - wa] = part_known  # frames of the span after this window's are free too
        _soft_edges(known, lo, hi, left=ca > 0, right=cb == b < clip.num_frames)
        window_actions = actions[wa:wb].copy()
        window_actions[lo:hi] = np.where(timeline[ca - a : cb - a] >= 0, timeline[ca - a : cb - a],
                                         window_actions[lo:hi])  # fmt: skip
        sampled, contacts = engine.fill(prompt, feats, known, window_actions)
        if moves_pelvis:
            sampled[:, _X] = _pelvis_path(feats, sampled, lo, hi)
        generated = fg.features_to_joints(sampled) + np.array([result[wa, J["pelvis"], 0], 0.0])
        window = rebuild_part(result[wa:wb], generated, edited)
        if moves_legs:  # pinned feet, eased in from the span's edges so the kept frames join smoothly
            near = np.maximum(
                _fade(hi - lo) * (ca > 0), _fade(hi - lo, reverse=True) * (cb == b < clip.num_frames)
            )
            ease = np.concatenate([np.zeros(lo), 1.0 - near, np.zeros(wb - cb)])
            pinned = pin_feet(window, contacts)
            window = rebuild_part(result[wa:wb], window + ease[:, None, None] * (pinned - window), edited)
            if moves_pelvis:
                window = lift_above_floor(window)
        result[ca:cb] = window[lo:hi]
        actions[ca:cb] = window_actions[lo:hi]
    texts = [*clip.texts, prompt]
    return clip.replace(joints=result, actions=actions, texts=texts, camera=None,
                        source={"edited": {"part": part, "from": a / FPS, "to": b / FPS, "text": prompt,
                                           "seed": engine.seed, "read": timeline_spec(timeline, FPS),
                                           "given": given or "", "close": [] if given else close_calls(
                                               prompt, engine.plan, engine.text_encoder)},
                                "original": clip.source})  # fmt: skip


def _calm_edges(joints: np.ndarray, a: int, b: int, edited: Sequence[int]) -> tuple[int, int]:
    """The span a..b moved inward by up to EDGE_SEARCH_FRAMES at each end that the clip does not
    start or end, to the frame where the edited joints move slowest in the clip: an edit that begins
    mid-stride must carry on the swing it cuts into, a jump of speed at the seam."""
    speed = np.linalg.norm(np.diff(joints[:, list(edited)], axis=0), axis=-1).max(axis=1)  # step f-1 → f
    room = max(0, (b - a - 2) // 2)
    if a > 0:
        a = min(range(a, a + min(EDGE_SEARCH_FRAMES, room) + 1), key=lambda f: (speed[f - 1], f - a))
    if b < len(joints):
        b = min(range(b - min(EDGE_SEARCH_FRAMES, room), b + 1), key=lambda f: (speed[f - 1], b - f))
    return a, b


def _soft_edges(known: np.ndarray, lo: int, hi: int, *, left: bool, right: bool) -> None:
    """Weights (in place) that pull the free entries of frames lo..hi−1 next to a kept frame (lo − 1
    when `left`, hi when `right`) towards the clip's own values, less and less over BLEND_FRAMES
    frames, so an edit eases out of the clip and back into it; the pelvis x stays free."""
    free = known[lo:hi] < 1.0
    for on, reverse in ((left, False), (right, True)):
        if on:
            fade = _fade(hi - lo, BLEND_FRAMES, reverse=reverse)[:, None] * free
            known[lo:hi] = np.maximum(known[lo:hi], fade)
    known[lo:hi, _X] = np.where(free[:, _X], 0.0, known[lo:hi, _X])


def _pelvis_path(known: np.ndarray, sampled: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Pelvis x (T,) for a window whose frames lo..hi−1 have a new pelvis: the integral of their new
    velocity from the known frame before them, bent linearly to meet the known frame after them."""
    x = known[:, _X].copy()
    first = max(lo - 1, 0)
    last = min(hi, len(x) - 1)
    path = _path(sampled[first : last + 1, _VX], x[first] if lo > 0 else 0.0)
    if hi < len(x):  # the kept frame after the span stays where it was
        path -= (path[-1] - x[hi]) * np.linspace(0.0, 1.0, len(path))
    x[first : last + 1] = np.where(np.arange(first, last + 1) < lo, x[first : last + 1], path)
    return x


def _span(clip: Motion, start: float | None, stop: float | None) -> tuple[int, int]:
    """Frames [a, b) of the time span start..stop seconds (default: the whole clip)."""
    duration = clip.duration
    a = 0.0 if start is None else float(check_range("--from", start, 0.0, None))
    b = duration if stop is None else float(check_range("--to", stop, 0.0, None))
    if a >= b or b > duration + 1e-9:
        raise StickgenError(
            f"The span {a:g}–{b:g} s is not inside the {duration:g} s clip; "
            f"give 0 ≤ --from < --to ≤ {duration:g}."
        )
    fa, fb = int(round(a * FPS)), min(clip.num_frames, int(round(b * FPS)))
    if fb - fa < 2:
        raise StickgenError(f"The span {a:g}–{b:g} s is shorter than two frames; give a longer one.")
    return fa, fb
