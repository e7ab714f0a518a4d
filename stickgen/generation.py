"""Text to motion: embed the prompts, sample the model, turn its features into clean `Motion`s.

- `generate(text, seed=...)`: the user-facing call, with the bundled model by default; returns a
  `Motion`. `generate_batch` gives several samples of one prompt.
- `generate_motions(model, prompts, ...)`: the core, used by the above, by training (sample GIFs) and
  by evaluation; it takes a model and its normalisation statistics. `generate_requests` samples
  several such calls in one batch, each as it would come alone (the web studio's batching).

Decisions where DESIGN is silent:
- the duration defaults to the length the synthesizer's clips of the prompt's actions typically take
  (`TYPICAL_SECONDS`: a jump 3 s, a walk 5 s, push-ups 6 s; at least 3 s each), the actions read as
  the default plan reads them (`read_actions`: by meaning, with the model's encoder), plus 3 s per
  further part ("then", "after that"); a prompt read as no action gets 3 s, 5 s when it speaks of
  travelling or a change of posture; longer in slow environments (a jump on the moon flies 2.5 times
  as long), at most 10 s. On the prompt suite this passed 2 to 3 points more samples than the old 3 s /
  5 s rule (docs/prompt-suite.md);
- the environment comes from the text, as the model learned it; `environment=` adds a place phrase
  ("on the moon") to a prompt that names no place; a generated clip is labelled with the environment
  its prompt names (earth when it names none), not with the model's environment head, which reads the
  sampled motion and can disagree with the prompt;
- the pelvis's horizontal path is the integral of the predicted horizontal velocity
  (`horizontal_from_velocity`); its height is the predicted position;
- without an `actions=` timeline, `plan=` decides how the model is also conditioned on a per-frame
  action timeline (`PLANS`): the actions the prompt's words name ("sits down", "waving") in the order
  named (`actions_in_text`), the actions it means (`action_meaning`: each part of the prompt read by
  the nearest phrases of the vocabulary in sentence-embedding space), each given a share of the clip
  in proportion to how long it lasts in the data's chained clips (`split_by_length`), and/or the
  model's own plan, its action head read from the text alone (`sampling.plan_actions`). The default,
  "auto" (the words, else the meaning, else the model's plan), was chosen on totals, never on a
  prompt's own result: reading the actions of `benchmarks/plan_dev.yaml` (280 everyday prompts written
  apart from the prompt suite), the model's plan gets 34 % right, meaning 59 %; on the suite, the
  words-else-model plan passed 54.9 % of samples (paraphrased 40.0 %), meaning 60.4 % (50.4 %)
  (docs/prompt-suite.md);
- without any timeline (plan "none"), a prompt of several parts gives each part's own sentence an equal
  share of the clip, in order (`text_by_parts`), instead of one sentence vector blending them; with a
  timeline the whole sentence stays, as the prompt suite found the parts no help there;
- with a timeline, a clip is drawn as several candidates in one batch, as many as fit in the frames of
  one 10 s clip (`candidates_for`), so no call costs more model time than a 10 s clip drawn once; the
  one whose planned actions the model's own action head recognises best in the finished motion
  (`sampling.plan_agreement`, text and actions left out) is kept. On the prompt suite with the
  fourth-stage model this raised the samples passing from 73.3 % to 77.3 % (docs/prompt-suite.md);
- a prompt that names a direction of travel ("walks to the left", `action_words.direction_in_text`)
  gets it: a clip that travels the other way is mirrored (`towards_named_direction`);
- `camera=` sets the camera track of the result (the synthesizer's camera modes, fitted to the
  generated motion); the model's own camera condition is left null.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from stickgen import action_meaning
from stickgen import figure as fg
from stickgen.action_meaning import part_sentences
from stickgen.action_words import actions_in_text, count_in_text, direction_in_text, split_in_proportion
from stickgen.errors import StickgenError
from stickgen.labels import ACTIONS, environment_vector
from stickgen.motion import Motion
from stickgen.place_words import environment_from_text, with_environment
from stickgen.postprocess import clean_up
from stickgen.ranges import DEFAULT_GUIDANCE, DEFAULT_STEPS, MAX_SEED, check_range, check_sampling, check_seed
from stickgen.sampling import Solver, plan_actions, sample_best_of

if TYPE_CHECKING:
    from stickgen.text import TextEncoder

FPS = 25.0
BUNDLED_MODEL = "stickgen-default"


@dataclass(frozen=True)
class Request:
    """The prompts of one `generate_motions` call, with its noise seed and optional action timeline."""

    prompts: tuple[str, ...]
    seed: int = 0
    actions: np.ndarray | None = None  # (T,) or (B, T) action ids, −1 = unknown; sets the frames


def sample_requests(prompt: str, n: int, seed: int, actions: np.ndarray | None = None) -> list[Request]:
    """The `n` samples of one prompt as `n` requests, sample k with seed `seed + k`: each is the motion
    that seed gives alone (`generate_requests`), so any sample of a grid can be made again on its own.
    """
    return [Request((prompt,), seed + k, actions) for k in range(n)]


def sample_captions(prompt: str, n: int, seed: int) -> list[str]:
    """The captions under a grid of `n` samples: the prompt and each sample's own seed."""
    return [f"{prompt} (seed {seed + k})" for k in range(n)]


def generate_motions(
    model: torch.nn.Module,
    prompts: Sequence[str],
    *,
    encoder: str,
    mean: np.ndarray,
    std: np.ndarray,
    seed: int = 0,
    seconds: float = 4.0,
    actions: np.ndarray | None = None,
    plan: str = "none",
    steps: int = DEFAULT_STEPS,
    guidance: float = DEFAULT_GUIDANCE,
    solver: Solver = "euler",
    candidates: int | None = None,
) -> list[Motion]:
    """One clean `Motion` per prompt, sampled together in one batch.

    encoder: the text encoder's name or folder (the one the model was trained with).
    mean, std: (52,) the model's feature statistics. seed: the noise seed; the same seed and prompts
    give the same motions. actions: per-frame action ids (−1 = unknown), (T,) shared by all prompts or
    (B, T) one row per prompt; it sets the number of frames. plan: how prompts without `actions` get
    a timeline (see `PLANS`). candidates: motions drawn per result, the clearest kept (see
    `generate_requests`). The environment of each Motion is the one its prompt names (earth when it
    names none).
    """
    return generate_requests(
        model, [Request(tuple(prompts), seed, actions)], encoder=encoder, mean=mean, std=std,
        seconds=seconds, plan=plan, steps=steps, guidance=guidance, solver=solver, candidates=candidates,
    )[0]  # fmt: skip


def generate_requests(
    model: torch.nn.Module,
    requests: Sequence[Request],
    *,
    encoder: str,
    mean: np.ndarray,
    std: np.ndarray,
    seconds: float = 4.0,
    plan: str = "none",
    steps: int = DEFAULT_STEPS,
    guidance: float = DEFAULT_GUIDANCE,
    solver: Solver = "euler",
    candidates: int | None = None,
) -> list[list[Motion]]:
    """The motions of several `generate_motions` calls (same length and settings), sampled in one batch.

    Each request's noise is drawn from its own seed, in the order its own call would draw it (the
    plan's, then the sampler's), so each gets the motions it would get alone, up to float rounding:
    the web studio batches the requests that queue up while one runs.

    candidates: how many motions to draw for each one returned, keeping the one in which the model
    recognises its planned actions best (`sampling.plan_agreement`); None = `candidates_for(frames)`.
    The first candidate is the motion a single draw gives; the others' noise comes after it from the
    same seed. Motions without an action timeline are drawn once.
    """
    from stickgen.text import TextEncoder

    if plan not in PLANS:
        raise StickgenError(f"Unknown plan {plan!r}; use one of {', '.join(PLANS)}.")
    lengths = {r.actions.shape[-1] if r.actions is not None else max(1, int(round(seconds * FPS)))
               for r in requests}  # fmt: skip
    if len(lengths) != 1:
        raise StickgenError("Requests sampled together need the same number of frames.")
    frames = lengths.pop()
    device = next(model.parameters()).device
    prompts = [prompt for r in requests for prompt in r.prompts]
    text_encoder = TextEncoder(encoder)
    text = torch.from_numpy(text_encoder.encode(prompts)).to(device)
    timelines, noises, generators, first = [], [], [], 0
    for r in requests:
        generator = torch.Generator().manual_seed(r.seed)
        generators.append(generator)
        rows = slice(first, first + len(r.prompts))
        first = rows.stop
        if r.actions is not None:
            own = np.broadcast_to(np.asarray(r.actions, dtype=np.int64), (len(r.prompts), frames))
        else:
            own = plan_timelines(model, r.prompts, text[rows], frames, plan, guidance=guidance,
                                 generator=generator, encoder=text_encoder)  # fmt: skip
        timelines.append(np.full((len(r.prompts), frames), -1, np.int64) if own is None else np.array(own))
        noises.append(torch.randn((len(r.prompts), frames, fg.FEATURE_DIM), generator=generator))
    all_timelines = np.concatenate(timelines)
    text = text_by_parts(prompts, text, frames, all_timelines, text_encoder)
    action_tensor = None if (all_timelines < 0).all() else torch.as_tensor(all_timelines, device=device)
    count = 1 if action_tensor is None else candidates_for(frames) if candidates is None else candidates
    check_range("candidates", count, 1, MAX_CANDIDATES)
    for _ in range(count - 1):  # each request's further candidates, drawn after its first
        noises += [torch.randn((len(r.prompts), frames, fg.FEATURE_DIM), generator=g)
                   for r, g in zip(requests, generators, strict=True)]  # fmt: skip
    out = sample_best_of(
        model, count, frames=frames, batch=len(prompts), text=text, actions=action_tensor, steps=steps,
        guidance=guidance, solver=solver, noise=torch.cat(noises),
    )  # fmt: skip
    x = torch.cat([out.pose, out.position, out.velocity], dim=-1).float().cpu().numpy()
    feats = horizontal_from_velocity(x * std + mean)  # (B, T, 52)
    contacts = torch.sigmoid(out.physics[..., 4:]).float().cpu().numpy() > 0.5  # (B, T, 2)
    action_ids = out.action_logits.argmax(dim=-1).cpu().numpy()  # (B, T)
    results, b = [], 0
    closes: dict[str, list] = {}  # a prompt's close calls, read once however many samples it has
    for r, timeline in zip(requests, timelines, strict=True):
        motions = []
        for k, prompt in enumerate(r.prompts):
            joints = clean_up(fg.features_to_joints(feats[b]), contacts[b])
            joints[:, :, 0] -= joints[0, fg.J["pelvis"], 0]
            joints = towards_named_direction(joints, prompt)
            # the action timeline the motion followed, which its `actions` then are: "given" with the
            # request, "planned" by `plan`, or None (its `actions` are the action head's reading of it)
            followed = None if (timeline[k] < 0).all() else "given" if r.actions is not None else "planned"
            if followed == "planned" and prompt not in closes:
                closes[prompt] = close_calls(prompt, plan, text_encoder)
            close = closes.get(prompt, []) if followed == "planned" else []
            motions.append(
                Motion(
                    joints,
                    fps=FPS,
                    texts=[prompt],
                    actions=action_ids[b] if (timeline < 0).all() else timeline[k].copy(),
                    environment=environment_vector(environment_from_text(prompt)),
                    source={
                        "generator": "stickgen",
                        "seed": r.seed,
                        "steps": steps,
                        "guidance": guidance,
                        "candidates": count,
                        "timeline": followed,
                        **({"close": close} if close else {}),
                    },
                )  # fmt: skip
            )
            b += 1
        results.append(motions)
    return results


# How a prompt without an explicit action timeline gets one:
# - "auto": the actions it names or means (`action_meaning.ActionMeaning.actions`: the words'
#   actions, `actions_in_text`, where they name one per part of the prompt, else each part's
#   nearest vocabulary phrases by meaning), else the model's own plan;
# - "words": only the actions its words name (none: the text alone);
# - "model": always the model's plan (`sampling.plan_actions`: the action head read at pure noise);
# - "none": no timeline, the text alone.
PLANS = ("auto", "words", "model", "none")
DEFAULT_PLAN = "auto"

# `generate` draws as many candidates of a motion as fit in the frames of one 10 s clip (the sampler's
# cost grows with the frames it draws): 3 for a 3 s clip, 2 for 5 s, 1 from 5.1 s. MAX_CANDIDATES
# bounds an explicit choice.
CANDIDATE_FRAMES = 250
MAX_CANDIDATES = 16


def candidates_for(frames: int) -> int:
    """How many candidates `generate_requests` draws by default for a clip of `frames` frames."""
    return max(1, min(MAX_CANDIDATES, CANDIDATE_FRAMES // max(1, frames)))


def plan_timelines(
    model: torch.nn.Module,
    prompts: Sequence[str],
    text: torch.Tensor,
    frames: int,
    plan: str,
    *,
    guidance: float = DEFAULT_GUIDANCE,
    generator: torch.Generator | None = None,
    encoder: TextEncoder | None = None,
    after: int | None = None,
) -> np.ndarray | None:
    """Per-frame action timelines (B, frames) for the prompts under `plan` (see `PLANS`); −1 = unknown.

    None when no prompt gets one (the sampler then runs on the text alone). encoder: the open sentence
    encoder of `text` (the model's), needed by the "auto" plan. after: the action every prompt follows
    (`read_actions`), for a story's segment.
    """
    if plan not in PLANS:
        raise StickgenError(f"Unknown plan {plan!r}; use one of {', '.join(PLANS)}.")
    if plan == "none":
        return None
    timelines = np.full((len(prompts), frames), -1, dtype=np.int64)
    named = set()
    if plan == "auto" and encoder is None:
        raise ValueError('the "auto" plan needs the sentence encoder')
    for b, prompt in enumerate(prompts):
        if plan in ("words", "auto"):
            actions = read_actions(prompt, plan, encoder, after)
            if any(a >= 0 for a in actions):
                timelines[b] = split_by_length(actions, frames)
                named.add(b)
    todo = [b for b in range(len(prompts)) if plan == "model" or (plan == "auto" and b not in named)]
    if todo:
        planned = plan_actions(model, frames=frames, text=text[todo], guidance=guidance, generator=generator)
        timelines[todo] = planned
    return None if (timelines < 0).all() else timelines


def text_by_parts(
    prompts: Sequence[str], text: torch.Tensor, frames: int, timelines: np.ndarray, encoder: TextEncoder
) -> torch.Tensor:
    """The sentence embedding the sampler gives each frame: (B, frames, D), or `text` (B, D), the whole
    prompts, when no prompt drawn without an action timeline has two parts.

    The model reads a sentence as one vector, so from the text alone a prompt of several parts
    ("walks over, then sits down") blends them, and its motion seldom shows both. A prompt drawn with
    no action timeline (`timelines` (B, frames), all −1 in its row) gets each part's own sentence
    (`action_meaning.part_sentences`) over an equal share of the clip, in order. A prompt with a
    timeline keeps its whole sentence: its actions already come in order, and there the parts'
    sentences did not help (docs/prompt-suite.md, thirty-first session). On 400 chained clips of
    data/synth's val split, the evaluator's classifier recognised the majority action of 0.370 of the
    clips drawn from the whole caption and of 0.415 drawn from its parts (test split, where this was
    chosen: 0.400 and 0.505).
    """
    split = []  # each prompt's part sentences, or [] where it keeps its whole sentence
    for prompt, timeline in zip(prompts, timelines, strict=True):
        own = part_sentences(prompt) if (timeline < 0).all() else []
        split.append(own if len(own) > 1 else [])
    if not any(split):
        return text
    sentences = [s for p in split for s in p]  # every part's sentence, embedded in one call
    embedded = torch.from_numpy(encoder.encode(sentences)).to(device=text.device, dtype=text.dtype)
    rows, first = [], 0
    for b, own in enumerate(split):
        if not own:
            rows.append(text[b].expand(frames, -1))
            continue
        spans = split_in_proportion(range(first, first + len(own)), frames, [1.0] * len(own))
        rows.append(embedded[torch.as_tensor(spans, device=text.device)])
        first += len(own)
    return torch.stack(rows)


# A clip travelling less than this (m, pelvis, first to last frame) has no direction to correct.
MIN_TRAVEL = 0.1


def towards_named_direction(joints: np.ndarray, prompt: str) -> np.ndarray:
    """The clip mirrored left to right when the prompt names a direction ("walks to the left") and the
    pelvis travels the other way (more than `MIN_TRAVEL`); otherwise the clip as it is.

    joints: (T, 16, 2). The model's descriptions had direction words, but which way it travels
    depends on its noise, not on them: 8 prompts naming a direction × 5 seeds went the named way in
    18 of 38 travelling samples (bundled model of 2026-11-25). The mirror image is taken about the
    first frame's pelvis, with left and right swapped (`figure.mirror_joints`), as a mirror shows a
    person: a figure facing the camera (a sidestep) keeps facing it. Negating x alone, as this did
    until the twelfth session, turned such a figure's back to the camera, and the evaluator's
    classifier read 3 of 4 sidesteps "to the left" as walks.
    """
    direction = direction_in_text(prompt)
    start = joints[0, fg.J["pelvis"], 0]
    travel = float(joints[-1, fg.J["pelvis"], 0] - start)
    if direction == 0 or direction * travel >= -MIN_TRAVEL:
        return joints
    centred = joints - np.array([start, 0.0])
    return fg.mirror_joints(centred) + np.array([start, 0.0])


def horizontal_from_velocity(feats: np.ndarray, fps: float = FPS) -> np.ndarray:
    """Features (..., T, 52) whose pelvis x is the integral of the pelvis x velocity, from x = 0.

    The velocity channel is a well-scaled signal (metres per second, a std of about 1.4 m/s), while
    the position x channel spans whole clips (tens of metres for a long sprint), so its normalised
    values carry little precision: integrating the velocity (trapezoid rule, the inverse of the
    central differences used for the labels) gives a smooth path with no jitter.
    """
    out = feats.copy()
    vx = feats[..., fg.POSE_DIM + 2]
    steps = 0.5 * (vx[..., 1:] + vx[..., :-1]) / fps
    out[..., fg.POSE_DIM] = np.concatenate([np.zeros_like(vx[..., :1]), np.cumsum(steps, axis=-1)], axis=-1)
    return out


# -----------------------------------------------------------------------------
# the user-facing call: prompt → Motion with the bundled model by default

MIN_SECONDS, MAX_SECONDS = 0.5, 20.0
# Without a named action: travelling and changes of posture take longer than a jump or a gesture.
_LONG_WORDS = ("walk", "run", "jog", "sprint", "march", "crawl", "swim", "dance", "skip", "limp", "stroll",
               "sit", "lie down", "lies down", "lying down", "kneel", "get up", "gets up", "stand up",
               "stands up", "fall")  # fmt: skip
# How long each action's clips last in the synthesizer's data: the median length (s, to 0.5 s) of the
# earth clips that show only that action (about 100 each) in the 40,000-clip dataset of seed 0 that
# stage 11 trained on; the one the evaluation uses (seed 0, made by the synthesizer of commit 8ef2800)
# gives the same table (`python benchmarks/durations.py --data DIR` prints it). Asked for push-ups in
# 3 s when its push-up clips took 5 to 6, the model drew the figure going down to the floor and
# straight back up, without a push-up.
TYPICAL_SECONDS = {
    "idle": 5,
    "walk": 5,
    "jog": 5,
    "run": 5,
    "sprint": 4.5,
    "walk_backward": 5.5,
    "sidestep": 4.5,
    "tiptoe": 5.5,
    "march": 5,
    "limp": 4.5,
    "skip": 5,
    "crawl": 7.5,
    "climb": 5,
    "swim": 7,
    "jump": 2.5,
    "jump_forward": 2.5,
    "hop": 4,
    "jumping_jacks": 5,
    "leap": 2,
    "sit_down": 5,
    "stand_up": 5,
    "kneel": 4.5,
    "lie_down": 5,
    "get_up": 3,
    "crouch": 5,
    "squat": 5,
    "push_up": 6,
    "sit_up": 7,
    "stretch": 5,
    "bend_over": 5,
    "lunge": 4.5,
    "wave": 3,
    "clap": 3.5,
    "point": 4,
    "salute": 3.5,
    "shrug": 2,
    "bow": 3,
    "cheer": 4,
    "beckon": 4,
    "look_around": 4,
    "punch": 3.5,
    "kick": 4,
    "block": 3.5,
    "dodge": 3.5,
    "throw": 2,
    "catch": 2,
    "swing_bat": 3.5,
    "golf_swing": 5,
    "shoot_basketball": 2,
    "dribble": 5.5,
    "kick_ball": 2,
    "dance": 4.5,
    "spin": 2.5,
    "celebrate": 6.5,
    "fall_down": 2,
    "stumble": 4,
    "balance": 5,
    "push": 5,
    "pull": 5,
    "lift": 6.5,
}
SHORTEST_SECONDS = 3.0
# How much of a chained prompt's clip each of its actions gets (`split_by_length`): the median length (s,
# to 0.5 s) of the action's runs in the earth clips that chain several actions (101 to 443 runs each),
# in the train split of the 40,000-clip dataset of seed 0 (`python benchmarks/durations.py --split
# train`). In a chain an action lasts less than in a clip of its own, and not in the same proportion: an
# idle or a sit 2 s, a walk 4, a crawl 6. The action given the longest share is the clip's majority
# action in 0.683 of the val split's chained clips, against 0.573 with `typical_seconds`.
CHAINED_SECONDS = {
    "idle": 2, "walk": 4, "jog": 3, "run": 3, "sprint": 3, "walk_backward": 4.5, "sidestep": 3,
    "tiptoe": 2, "march": 2, "limp": 2, "skip": 2, "crawl": 6, "climb": 3, "swim": 5, "jump": 2,
    "jump_forward": 2.5, "hop": 3, "jumping_jacks": 2.5, "leap": 2, "sit_down": 2, "stand_up": 2.5,
    "kneel": 2.5, "lie_down": 3.5, "get_up": 2.5, "crouch": 2.5, "squat": 3, "push_up": 5,
    "sit_up": 4.5, "stretch": 3.5, "bend_over": 3, "lunge": 3, "wave": 3, "clap": 3, "point": 2,
    "salute": 2.5, "shrug": 2, "bow": 2.5, "cheer": 3, "beckon": 3.5, "look_around": 3.5, "punch": 2.5,
    "kick": 2, "block": 2.5, "dodge": 2, "throw": 1.5, "catch": 2, "swing_bat": 3.5, "golf_swing": 4.5,
    "shoot_basketball": 2, "dribble": 2, "kick_ball": 2, "dance": 3, "spin": 2.5, "celebrate": 4.5,
    "fall_down": 2, "stumble": 2.5, "balance": 3.5, "push": 3, "pull": 3, "lift": 5,
}  # fmt: skip
# A part read as no action (−1): the median of all those runs.
UNKNOWN_PART_SECONDS = 3.0
# The model does not count: "jumps three times" and "jumps" draw as many jumps in a clip of the same
# length, at its own steady tempo. So a prompt of one of these actions that says how many times gets the
# length (s) in which the bundled model draws that many: `lead` + `each` × the count. Measured on the
# bundled weights (stage 14) with seeds 0–4 (`python benchmarks/counts.py` prints the tempo again for
# other weights); with seeds 5–14 the clips show exactly the count said, 1 to 6 times, in 236 of 240
# (39 with the actions' typical lengths; docs/prompt-suite.md). Earth's tempo: elsewhere the length is
# stretched as any other (`default_seconds`), and the model's jumps on the moon are slower still.
COUNT_SECONDS = {
    "jump": (1.0, 1.0), "jump_forward": (1.0, 1.0), "jumping_jacks": (1.0, 1.0), "hop": (0.5, 0.8),
}  # fmt: skip


def default_checkpoint() -> Path:
    """The bundled model's checkpoint folder."""
    from stickgen.files import bundled_asset

    return bundled_asset(BUNDLED_MODEL, "config.json")


def read_actions(
    prompt: str, plan: str = DEFAULT_PLAN, encoder: TextEncoder | None = None, after: int | None = None
) -> list[int]:
    """The prompt's actions in order, as `plan` reads them (`plan_timelines`, `default_seconds`).

    Under "auto" with the model's sentence encoder: the meaning reader's (`action_meaning`, −1 for a
    part that reads as no action); otherwise the ones its words name (`action_words.actions_in_text`).
    `after`: the action the figure was doing before the prompt (a story's segment before it), whose end
    posture the prompt starts in (`ActionMeaning.actions`); None for a prompt of its own. A rise to the
    feet is put in where an action that starts standing follows a posture off the feet
    (`action_meaning.risen`: "kneels by the trail, then points" is kneel, get_up, point).
    """
    if plan == "auto" and encoder is not None:
        read = action_meaning.for_encoder(encoder).actions(prompt, after)
    else:
        read = actions_in_text(prompt, after)
    return action_meaning.risen(read, after)


def typical_seconds(action: int) -> float:
    """The length a part of a prompt gets: its action's `TYPICAL_SECONDS`, at least `SHORTEST_SECONDS`
    (3 s); 3 s for a part read as no action (−1)."""
    return SHORTEST_SECONDS if action < 0 else max(SHORTEST_SECONDS, TYPICAL_SECONDS[ACTIONS[action]])


def chained_seconds(action: int) -> float:
    """The share of a clip an action gets among others: its runs' typical length in chained clips."""
    return UNKNOWN_PART_SECONDS if action < 0 else CHAINED_SECONDS.get(ACTIONS[action], UNKNOWN_PART_SECONDS)


def split_by_length(actions: Sequence[int], frames: int) -> np.ndarray:
    """A per-frame timeline (frames,) giving each action, in order, a share of the frames in proportion
    to its `chained_seconds`: "walks, then jumps" gives the walk 2 of every 3 frames and the jump 1.

    Splitting evenly gave a chained prompt's short action as much time as its long one; on the suite's
    26 chained prompts × seeds 0–9 shares by `typical_seconds` passed 199 samples against 182, and
    shares by the runs' lengths in chained clips did better again (docs/prompt-suite.md).
    """
    return split_in_proportion(actions, frames, [chained_seconds(a) for a in actions])


def read_seconds(prompt: str, plan: str, encoder: TextEncoder) -> float:
    """The length `generate` gives a prompt when no seconds are asked for: `default_seconds` of its
    actions as `plan` reads them with the model's sentence encoder (`read_actions`). `check_request`,
    which runs before any model is loaded, gives the words' length; `generate_batch`, the studio's
    generation thread and stories read it again with this."""
    return default_seconds(prompt, read_actions(prompt, plan, encoder))


def default_seconds(prompt: str, actions: Sequence[int] | None = None) -> float:
    """A duration suited to the prompt, stretched in slow environments (their time scale, and on the
    moon or mars the longer flights of lower gravity), at most 10 s.

    actions: the prompt's actions in order (`read_actions`; −1 = a part read as none); None = the ones
    its words name. Each known action gets its clips' typical length (`TYPICAL_SECONDS`, at least 3 s),
    and each further part of the prompt (`action_meaning.count_parts`: "then", "after that") 3 s. A
    prompt with no known action gets 3 s, or 5 s if it speaks of travelling or a change of posture
    (walking, sitting down, getting up), and 3 s for each further part. A prompt of one part and one
    action that says how many times it happens ("jumps three times", "does five jumping jacks",
    `count_in_text`) gets the length in which the model draws that many, for the actions of
    `COUNT_SECONDS`.
    """
    from stickgen.labels import environment

    text = f" {prompt.lower()} "
    parts = action_meaning.count_parts(prompt)
    known = [a for a in (actions_in_text(prompt) if actions is None else actions) if a >= 0]
    count = count_in_text(prompt)
    if count is not None and parts == 1 and len(known) == 1 and ACTIONS[known[0]] in COUNT_SECONDS:
        lead, each = COUNT_SECONDS[ACTIONS[known[0]]]
        seconds = lead + each * count
    elif known:
        seconds = sum(typical_seconds(a) for a in known) + SHORTEST_SECONDS * max(0, parts - len(known))
    else:
        seconds = 5.0 if any(word in text for word in _LONG_WORDS) else SHORTEST_SECONDS
        seconds += SHORTEST_SECONDS * (parts - 1)
    env = environment(environment_from_text(prompt))
    stretch = env.time_scale if env.gravity <= 0 else max(env.time_scale, min(2.5, env.gravity**-0.5))
    return float(min(10.0, round(seconds * stretch, 1)))


def parse_action_timeline(
    spec: str, fps: float = FPS, seconds: float | None = None, longest: float = MAX_SECONDS
) -> np.ndarray:
    """Per-frame action ids from "walk:0-2,jump:2-3" (seconds); frames no span covers are −1.

    Spans may leave gaps (frames of free motion) but must not overlap, and must end within the clip:
    by `seconds` when it is given, and by `longest` (MAX_SECONDS; a story's segment may be longer), the
    timeline then setting the clip's length.
    """
    from stickgen.labels import action_id

    spans = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, sep, times = part.partition(":")
        start, dash, stop = times.partition("-")
        try:
            a, b = float(start), float(stop)
        except ValueError:
            raise StickgenError(
                f"Cannot read the action span {part!r}; write NAME:START-END in seconds, e.g. walk:0-2."
            ) from None
        if not sep or not dash or not 0 <= a < b:
            raise StickgenError(f"The action span {part!r} needs 0 ≤ START < END, e.g. walk:0-2.")
        spans.append((action_id(name), a, b, part))
    if not spans:
        raise StickgenError("--actions is empty; write spans such as walk:0-2,jump:2-3.")
    spans.sort(key=lambda span: span[1])
    for earlier, later in zip(spans[:-1], spans[1:], strict=True):
        if later[1] < earlier[2]:
            raise StickgenError(
                f"The action spans {earlier[3]} and {later[3]} overlap; give each moment one action, "
                "e.g. walk:0-2,jump:2-3."
            )
    _, _, end, last = max(spans, key=lambda span: span[2])
    if seconds is not None and end > seconds:
        raise StickgenError(f"The action span {last} ends after the clip's {seconds:g} s (--seconds).")
    if end > longest:
        what = "clip" if longest == MAX_SECONDS else "segment"
        raise StickgenError(
            f"The action span {last} ends after {longest:g} s, the longest {what} stickgen makes."
        )
    frames = int(round(end * fps))
    timeline = np.full(frames, -1, dtype=np.int64)
    for action, a, b, _ in spans:
        timeline[int(round(a * fps)) : int(round(b * fps))] = action
    return timeline


def named_actions(spec: str) -> list[int] | None:
    """The action ids of actions given by name, in order ("walk, sit_down"); None when they are given
    as spans in seconds ("walk:0-2,sit_down:2-4", `parse_action_timeline`) or not at all. One sentence
    for an unknown name, or for names and spans mixed."""
    from stickgen.labels import action_id

    parts = [p.strip() for p in spec.split(",") if p.strip()]
    spans = [":" in p for p in parts]
    if any(spans) and not all(spans):
        raise StickgenError(
            f"{spec.strip()!r} mixes names and spans; write names in order (walk, sit_down) or spans in "
            "seconds (walk:0-2,sit_down:2-4)."
        )
    return [action_id(p) for p in parts] if parts and not any(spans) else None


def timeline_spec(actions: np.ndarray, fps: float = FPS) -> str:
    """A per-frame timeline in the form `parse_action_timeline` reads: "walk:0-3.08,sit_down:3.08-6";
    frames of −1 (free motion) are left out, as gaps. Seconds to two decimals: at 25 fps every frame
    boundary reads back to the same frame."""
    from stickgen.labels import action_spans

    return ",".join(
        f"{ACTIONS[action]}:{round(start / fps, 2):g}-{round(stop / fps, 2):g}"
        for action, start, stop in action_spans(actions)
        if action >= 0
    )


def reading_is_a_guess(text: str, plan: str) -> bool:
    """Whether the action timeline `plan` makes for `text` is a guess: under "auto" when the words do
    not name an action for each of its parts (it then comes from what they mean, or from the model's
    action head), under "model" always; under "words" and "none" never."""
    return plan == "model" or (plan == "auto" and action_meaning.named_in_every_part(text) is None)


def close_calls(prompt: str, plan: str, encoder: TextEncoder | None, after: int | None = None) -> list[list]:
    """`[[action read, [close actions]], ...]` by name, for the parts of a prompt that "auto" reads by
    meaning as a close call (`action_meaning.ActionMeaning.close_calls`, after `after` as
    `read_actions`); [] under other plans."""
    if plan != "auto" or encoder is None or not reading_is_a_guess(prompt, plan):
        return []
    meaning = action_meaning.for_encoder(encoder)
    close = meaning.close_calls(prompt, after=after)
    return [[ACTIONS[a], [ACTIONS[o] for o in others]] for a, others in close]


def close_note(close: Sequence | None, reading: str = "") -> str:
    """`close_calls` as said after a reading (`reading`: its timeline as --actions takes it): " (close:
    lie_down)", or " (close: lie_down for get_up; clap for wave)" where the reading has several actions
    ("stretch, shrug for stand_up" when one of them is close); "" for none."""
    if not close:
        return ""
    if len(close) == 1 and "," not in reading:
        return f" (close: {', '.join(close[0][1])})"
    return " (close: " + "; ".join(f"{', '.join(others)} for {read}" for read, others in close) + ")"


def guessed_readings(motions: Sequence[Motion], plan: str) -> dict[str, list[int]]:
    """The action timelines that motions of one prompt followed where they are a guess, each as
    `timeline_spec` writes it, with the samples (from 0) that followed it; empty when nothing was guessed.

    A guess: a timeline the plan made (`Motion.source["timeline"] == "planned"`), under "auto" for a
    prompt whose words do not name an action for each of its parts (it then comes from what the words
    mean, or from the model's own action head), under "model" always (drawn from each sample's seed, so
    samples may differ). The actions a prompt's words name, a timeline given with the request and motions
    that followed none are no guess.
    """
    planned = [k for k, motion in enumerate(motions) if motion.source.get("timeline") == "planned"]
    if not planned or not reading_is_a_guess(motions[planned[0]].texts[0], plan):
        return {}
    read: dict[str, list[int]] = {}
    for k in planned:
        read.setdefault(timeline_spec(motions[k].actions, motions[k].fps), []).append(k)
    return read


def pick_device(device: str) -> str:
    """"auto", "cpu" or "cuda" -> "cpu" or "cuda"; one sentence if it cannot be had."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise StickgenError("--device cuda was asked for, but no CUDA device is available.")
    if device not in ("cpu", "cuda"):
        raise StickgenError(f"Unknown device {device!r}; use auto, cpu or cuda.")
    return device


def load_generator_checkpoint(checkpoint: str | Path | None = None, device: str = "auto"):
    """Load a checkpoint (the bundled model by default) and check its text encoder is the one here."""
    from stickgen.checkpoint import load_checkpoint, read_checkpoint_config
    from stickgen.text import TextEncoder

    folder = default_checkpoint() if checkpoint is None else Path(checkpoint)
    _, encoder, _ = read_checkpoint_config(folder)
    local = TextEncoder(encoder["name"]).identity.to_dict()
    return load_checkpoint(folder, expected_encoder=local, device=pick_device(device))


def check_request(
    text: str,
    n: int = 1,
    *,
    seed: int = 0,
    seconds: float | None = None,
    guidance: float = DEFAULT_GUIDANCE,
    steps: int = DEFAULT_STEPS,
    actions: str | None = None,
    plan: str = DEFAULT_PLAN,
    camera: str | None = None,
    environment: str | None = None,
    candidates: int | None = None,
) -> tuple[str, float, np.ndarray | None]:
    """Every check of `generate_batch`, before any work, in its order: (prompt with the place phrase,
    seconds, per-frame action timeline of that length or None), or one `StickgenError` sentence.

    The web studio refuses what the command line refuses, with the same sentence, through this.
    """
    from stickgen.text import check_prompt

    prompt = check_prompt(text)
    if environment is not None:
        prompt = with_environment(prompt, environment)
    check_range("-n", n, 1, 64)
    check_sampling(steps, guidance)
    check_seed("--seed", seed)
    if seed + n - 1 > MAX_SEED:  # sample k has seed + k
        raise StickgenError(
            f"--seed must be at most {MAX_SEED - n + 1} for -n {n}: sample k uses --seed + k."
        )
    if candidates is not None:
        check_range("--candidates", candidates, 1, MAX_CANDIDATES)
    if plan not in PLANS:
        raise StickgenError(f"Unknown plan {plan!r}; use one of {', '.join(PLANS)}.")
    if camera is not None and camera.replace("-", "_") not in CAMERA_CHOICES:
        raise StickgenError(f"Unknown camera {camera!r}; use one of {', '.join(CAMERA_CHOICES)}.")
    if seconds is not None:
        check_range("--seconds", seconds, MIN_SECONDS, MAX_SECONDS)
    names = None if actions is None else named_actions(actions)
    if names is not None:  # in order, each a share of the clip in proportion to its typical length
        seconds = default_seconds(prompt, names) if seconds is None else seconds
        return prompt, float(seconds), split_by_length(names, int(round(seconds * FPS)))
    timeline = None if actions is None else parse_action_timeline(actions, seconds=seconds)
    if seconds is None:
        seconds = max(MIN_SECONDS, len(timeline) / FPS) if timeline is not None else default_seconds(prompt)
    frames = int(round(seconds * FPS))
    if timeline is not None:
        timeline = np.concatenate([timeline, np.full(max(0, frames - len(timeline)), -1)])[:frames]
    return prompt, float(seconds), timeline


def generate_batch(
    text: str,
    n: int = 1,
    *,
    seed: int = 0,
    seconds: float | None = None,
    checkpoint: str | Path | None = None,
    guidance: float = DEFAULT_GUIDANCE,
    steps: int = DEFAULT_STEPS,
    actions: str | None = None,
    plan: str = DEFAULT_PLAN,
    camera: str | None = None,
    environment: str | None = None,
    device: str = "auto",
    candidates: int | None = None,
) -> list[Motion]:
    """`n` different motions for one prompt, sampled in one batch: the k-th (from 0) is the motion
    `seed + k` gives alone. See `generate` for the options."""
    from stickgen.synth.camera import camera_track

    prompt, chosen, timeline = check_request(
        text, n, seed=seed, seconds=seconds, guidance=guidance, steps=steps, actions=actions, plan=plan,
        camera=camera, environment=environment, candidates=candidates,
    )  # fmt: skip
    ckpt = load_generator_checkpoint(checkpoint, device)
    if seconds is None and actions is None:  # the length the plan reads: by meaning, with the model's encoder
        from stickgen.text import TextEncoder

        encoder = TextEncoder(ckpt.encoder["name"])
        encoder.encode([prompt])  # one load of the encoder: generate_motions finds the prompt in the cache
        chosen = read_seconds(prompt, plan, encoder)
    mean, std = ckpt.norm_mean.cpu().numpy(), ckpt.norm_std.cpu().numpy()
    sampled = generate_requests(
        ckpt.model, sample_requests(prompt, n, seed, timeline), encoder=ckpt.encoder["name"], mean=mean,
        std=std, seconds=chosen, plan=plan, steps=steps, guidance=guidance, candidates=candidates,
    )  # fmt: skip
    motions = [m for request in sampled for m in request]
    if camera is not None:
        mode = camera.replace("-", "_")
        motions = [m.replace(camera=camera_track(m.joints, mode, m.fps)[0]) for m in motions]
    return motions


CAMERA_CHOICES = ("static", "follow", "pan", "zoom_in", "zoom_out")


def generate(text: str, *, seed: int = 0, **options) -> Motion:
    """One motion for a prompt with the bundled model: `stickgen.generate("a person jumps", seed=0)`.

    Options (all keyword): seconds (default suited to the prompt, 0.5–20), checkpoint (a folder),
    guidance (classifier-free guidance scale, 3.5), steps (ODE steps, 16), actions ("walk:0-2,jump:2-3",
    a per-frame action timeline), plan (how a prompt without `actions` gets a timeline: auto, words,
    model or none; see `PLANS`), camera (static, follow, pan, zoom-in, zoom-out: the camera track of
    the result), environment (a place added to the prompt when it names none), device (auto, cpu,
    cuda), candidates (motions drawn for each one returned, keeping the one whose planned actions the
    model recognises best, 1–16; default `candidates_for`: as many as fit in one 10 s clip's frames).
    The same seed gives the same motion.
    """
    return generate_batch(text, 1, seed=seed, **options)[0]


def output_paths(text: str, output: str | Path | None, n: int) -> list[Path]:
    """Where `stickgen generate` writes: one path (a file, or a grid for n > 1 and an image format),
    or n numbered paths for data formats. Checked before any work, so a bad path fails at once."""
    from stickgen.files import check_not_folder, check_writable
    from stickgen.render import SUFFIXES
    from stickgen.render.video import GRID_SUFFIXES

    if output is None:
        slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "stickgen"
        output = Path(f"{slug}.gif")
    output = check_not_folder(output)
    suffix = output.suffix.lower()
    if suffix not in SUFFIXES:
        raise StickgenError(
            f"Cannot write {output.name}: unknown suffix {suffix or '(none)'!r}; "
            f"use one of {', '.join(SUFFIXES)}."
        )
    check_writable(output)
    if n == 1 or suffix in GRID_SUFFIXES:
        return [output]
    return [output.with_name(f"{output.stem}-{k + 1}{output.suffix}") for k in range(n)]
