"""Evaluating a text-to-motion model: real vs generated test motion, sanity checks, and a report.

`run_evaluation(checkpoint, data, evaluator, out)` is `stickgen eval run`. On the dataset's test split,
for the real clips and for clips generated from the same captions at the same lengths, it measures in
the evaluator's embedding space (docs/evaluation.md): FID, R-precision top-1/2/3 in batches of 32 and
among the whole test set, MM-Dist, Diversity, MultiModality and the action accuracy (over all clips,
and apart over the clips of one action and the chained ones); on the joints the
physics metrics of `stickgen.metrics`; and the generation time. Every seed draws its own captions (one
of each clip's descriptions), batches and noise; the report gives the mean and the 95 % interval over
seeds. Three sanity checks run every time, on the real clips:

1. shuffled captions: R-precision must be at chance (k / 32), within three standard errors;
2. jitter: Gaussian noise of growing std on the joints of one half of the test set must raise its FID
   to the other half at every step;
3. halves: the FID between two random halves of the test set must be small next to the FID to a
   jittered half (below `HALVES_RATIO` times the FID at `HALVES_REFERENCE_JITTER`).

The output folder gets `report.md`, `metrics.json`, three plots and `grid.gif` (real and generated
clips side by side for the same captions), each written atomically.

`evaluate(real, generate, evaluator, embed, options)` is the core, with the generator passed in as a
function, so it runs with any model or with none (the tests pass synthetic generators).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from stickgen import __version__
from stickgen import metrics as mt
from stickgen.clip_ops import CANONICAL_FPS, resample
from stickgen.config import to_dict
from stickgen.errors import StickgenError
from stickgen.evaluator import Evaluator, majority_action
from stickgen.files import atomic_path, atomic_write_text, bundled_asset, check_folder_for, portable_path
from stickgen.motion import Motion
from stickgen.ranges import DEFAULT_GUIDANCE, DEFAULT_STEPS, GUIDANCE_UNTIL, check_range, check_sampling

BATCH = 32  # R-precision pool size, as in the field
TOP_K = 3
HALVES_REFERENCE_JITTER = 0.05  # m
HALVES_RATIO = 0.25
PLOTS = ("retrieval.png", "physics.png", "sanity.png")
BUNDLED_EVALUATOR = "evaluator-minilm"
# What a failed sanity check means, said in the report under the checks.
FAILED = {
    "shuffled_captions": "Shuffled captions score away from chance: R-precision is not trustworthy here.",
    "jitter_monotonic": "FID does not rise with jitter: the evaluator does not see joint noise, so FID is "
    "not trustworthy here.",
    "halves": "With {n} test clips the sampling floor of FID is too high to tell 5 cm of jitter from noise: "
    "read FID with care, or evaluate on a test split of a few hundred clips or more.",
}
PHYSICS = ("foot_skating_ratio", "penetration", "floating", "jerk", "bone_length_variation")

# A generator: (prompts, frames, seed) → one clip of `frames` frames per prompt.
Generate = Callable[[list[str], int, int], list[Motion]]
# A sentence encoder: texts → (N, D) embeddings, the evaluator's own text encoder.
Embed = Callable[[list[str]], np.ndarray]

REPORT_TITLE = "# stickgen evaluation"  # the first line of every report.md


@dataclass(frozen=True)
class EvalOptions:
    """What `stickgen eval run` measures and how much of it."""

    seeds: int = 3
    """Repetitions (captions, batches and noise drawn anew) for the 95 % intervals."""
    steps: int = DEFAULT_STEPS
    guidance: float = DEFAULT_GUIDANCE
    plan: str = "none"
    """How captions get an action timeline (stickgen.generation.PLANS): "none" measures the text alone;
    the default of `stickgen generate` measures what users get."""
    as_generate: bool = True
    """Also generate every caption the way `stickgen generate` does (its default plan) and report that
    as a second row (no MultiModality); `run_evaluation` skips it when `plan` is that default already."""
    max_clips: int = 0
    """Evaluate a fixed random subset of this many test clips; 0 = all of them."""
    mm_texts: int = 100
    """Captions used for MultiModality (Guo et al.: 100)..."""
    mm_repeats: int = 10
    """...each generated this many times..."""
    mm_pairs: int = 10
    """...and this many pairs of different generations compared per caption."""
    diversity_pairs: int = 300
    batch_size: int = 64
    """Clips generated per call of the model."""
    jitter: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1)
    """Joint noise std (m) of the jitter sanity check, increasing; must include HALVES_REFERENCE_JITTER."""
    grid_clips: int = 4
    """Captions shown, real beside generated, in grid.gif."""
    device: str = "cpu"

    def __post_init__(self) -> None:
        for key in ("seeds", "steps", "mm_texts", "diversity_pairs", "batch_size", "grid_clips", "mm_pairs"):
            if getattr(self, key) < 1:
                raise StickgenError(f"{key} must be a positive integer, not {getattr(self, key)}.")
        if self.max_clips < 0:
            raise StickgenError(f"max_clips must be 0 (all) or positive, not {self.max_clips}.")
        check_range("--seeds", self.seeds, 1, 100)  # each one a whole evaluation
        check_range("--mm-repeats", self.mm_repeats, 2, 1000)
        check_sampling(self.steps, self.guidance)
        from stickgen.generation import PLANS

        if self.plan not in PLANS:
            raise StickgenError(f"Unknown plan {self.plan!r}; use one of {', '.join(PLANS)}.")
        if self.device not in ("cpu", "cuda") and not self.device.startswith("cuda:"):
            raise StickgenError(f"Unknown device {self.device!r}; use cpu or cuda.")
        if list(self.jitter) != sorted(set(self.jitter)) or HALVES_REFERENCE_JITTER not in self.jitter:
            raise StickgenError(
                f"jitter must be increasing distinct noise levels that include {HALVES_REFERENCE_JITTER} m."
            )


@dataclass
class EvalResult:
    """Per-seed values of every metric and check; `summary()` gives means and 95 % half widths."""

    setup: dict[str, Any]
    real: dict[str, list[float]] = field(default_factory=dict)
    generated: dict[str, list[float]] = field(default_factory=dict)
    as_generate: dict[str, list[float]] = field(default_factory=dict)
    sanity: dict[str, list[float]] = field(default_factory=dict)
    passed: dict[str, list[bool]] = field(default_factory=dict)
    grid: list[tuple[str, Motion, Motion]] = field(default_factory=list)

    @staticmethod
    def add(table: dict[str, list], values: dict[str, Any]) -> None:
        """Append one seed's `values` to `table`."""
        for key, value in values.items():
            table.setdefault(key, []).append(value)

    def summary(self) -> dict[str, Any]:
        """JSON-ready: setup; real, generated and sanity as {metric: {mean, ci95, per_seed}}; passed."""

        def stats(table: dict[str, list[float]]) -> dict[str, dict[str, Any]]:
            out = {}
            for key, values in table.items():
                # NaN (floating when every frame was airborne) is left out; a metric never defined is absent.
                finite = [float(v) for v in values if np.isfinite(v)]
                if finite:
                    mean, ci = mt.confidence_interval(finite)
                    out[key] = {"mean": mean, "ci95": ci, "per_seed": finite}
            return out

        return {
            "setup": self.setup,
            "real": stats(self.real),
            "generated": stats(self.generated),
            "as_generate": stats(self.as_generate),
            "sanity": stats(self.sanity),
            "passed": {key: all(values) for key, values in self.passed.items()},
            "passed_per_seed": {key: [bool(v) for v in values] for key, values in self.passed.items()},
        }


def _derived_seed(*keys: int) -> int:
    """A 63-bit seed determined by the integers `keys`."""
    return int(np.random.SeedSequence(list(keys)).generate_state(2, np.uint64)[0] >> np.uint64(1))


def generate_like(
    generate: Generate, captions: Sequence[str], frames: Sequence[int], seed: int, batch_size: int
) -> tuple[list[Motion], float]:
    """Generate one clip per caption with the given frame counts; returns (clips in order, seconds).

    Clips of equal length are generated together, `batch_size` at a time, each call seeded from
    `(seed, frames, chunk)`.
    """
    out: list[Motion | None] = [None] * len(captions)
    frames = np.asarray(frames)
    elapsed = 0.0
    for length in np.unique(frames):
        idx = np.flatnonzero(frames == length)
        for chunk, start in enumerate(range(0, len(idx), batch_size)):
            part = idx[start : start + batch_size]
            began = time.perf_counter()
            clips = generate(
                [captions[i] for i in part], int(length), _derived_seed(seed, int(length), chunk)
            )
            elapsed += time.perf_counter() - began
            for i, clip in zip(part, clips, strict=True):
                out[i] = clip
    return out, elapsed


def jittered(motions: Sequence[Motion], noise: Sequence[np.ndarray], sigma: float) -> list[Motion]:
    """The clips with `sigma` (m) times the standard-normal `noise` (T, 16, 2) added to their joints."""
    return [
        Motion(m.joints + sigma * z, fps=m.fps, texts=m.texts, actions=m.actions)
        for m, z in zip(motions, noise, strict=True)
    ]


def split_halves(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two random disjoint halves of range(n), n // 2 indices each."""
    order = rng.permutation(n)
    return order[: n // 2], order[n // 2 : 2 * (n // 2)]


def sanity_checks(
    evaluator: Evaluator,
    real: Sequence[Motion],
    motion_emb: np.ndarray,
    text_emb: np.ndarray,
    halves: tuple[np.ndarray, np.ndarray],
    jitter: Sequence[float],
    rng: np.random.Generator,
) -> tuple[dict[str, float], dict[str, bool]]:
    """The three sanity checks on the real clips (their embeddings (N, E) and their captions' (N, E)).

    halves: two disjoint index arrays of equal size (`split_halves`). Returns the values (the
    shuffled-caption R-precision, the FID between the halves, the FID of the first half to the
    jittered second half at each noise level) and whether each check held: `shuffled_captions`,
    `jitter_monotonic`, `halves`.
    """
    n = len(real)
    out: dict[str, float] = {}
    shuffled = mt.r_precision(text_emb[rng.permutation(n)], motion_emb, top_k=TOP_K, rng=rng)
    evaluated = BATCH * (n // BATCH)
    at_chance = []
    for k in range(1, TOP_K + 1):
        chance = k / BATCH
        tolerance = 3.0 * np.sqrt(chance * (1 - chance) / evaluated)
        out[f"shuffled_r_precision_top{k}"] = float(shuffled[k - 1])
        at_chance.append(abs(shuffled[k - 1] - chance) <= tolerance)
    first, second = halves
    out["halves_fid"] = mt.fid(motion_emb[first], motion_emb[second])
    half = [real[i] for i in second]
    noise = [rng.standard_normal(m.joints.shape) for m in half]
    curve = []
    for sigma in jitter:
        emb, _ = evaluator.encode_motions(jittered(half, noise, sigma))
        curve.append(mt.fid(motion_emb[first], emb))
        out[f"jitter_fid_{sigma:g}"] = curve[-1]
    reference = curve[list(jitter).index(HALVES_REFERENCE_JITTER)]
    passed = {
        "shuffled_captions": all(at_chance),
        "jitter_monotonic": all(b > a for a, b in zip(curve, curve[1:], strict=False)),
        "halves": out["halves_fid"] < HALVES_RATIO * reference,
    }
    return out, passed


def _text_metrics(
    text_emb: np.ndarray, motion_emb: np.ndarray, rng: np.random.Generator, options: EvalOptions
) -> dict[str, float]:
    batched = mt.r_precision(text_emb, motion_emb, top_k=TOP_K, rng=rng)
    whole = mt.r_precision(text_emb, motion_emb, top_k=TOP_K, batch_size=None)
    out = {f"r_precision_top{k + 1}": batched[k] for k in range(TOP_K)}
    out.update({f"r_precision_all_top{k + 1}": whole[k] for k in range(TOP_K)})
    out["mm_dist"] = mt.mm_dist(text_emb, motion_emb)
    out["diversity"] = mt.diversity(motion_emb, pairs=options.diversity_pairs, rng=rng)
    return out


def one_action(motion: Motion) -> bool:
    """Whether a clip's known frames are all one action (a chained clip's majority action depends on
    how long each of its actions lasts, which its caption rarely says)."""
    known = motion.actions[motion.actions >= 0]
    return known.size > 0 and bool((known == known[0]).all())


def _action_accuracy(predicted: np.ndarray, labels: np.ndarray, single: np.ndarray) -> dict[str, float]:
    """The share of clips whose predicted majority action is the real one: over all clips with a known
    action, and apart over those with one action (`single`) and those with several."""
    known = labels >= 0
    right = predicted == labels
    out = {}
    for key, chosen in [("action_accuracy", known), ("action_accuracy_one", known & single),
                        ("action_accuracy_several", known & ~single)]:  # fmt: skip
        if chosen.any():
            out[key] = float(right[chosen].mean())
    return out


def evaluate(
    real: Sequence[Motion],
    generate: Generate,
    evaluator: Evaluator,
    embed: Embed,
    options: EvalOptions = EvalOptions(),
    *,
    setup: dict[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
    generate_as: Generate | None = None,
) -> EvalResult:
    """Measure generated against real clips over `options.seeds` seeds (see the module docstring).

    real: the test clips, each with at least one description, at 25 fps. embed: the evaluator's
    sentence encoder. setup: what to record about the run (checkpoint, dataset...). generate_as: a
    second generator measured on the same captions and noise seeds (FID, R-precision, action accuracy,
    physics; no MultiModality), reported as its own row: how `stickgen generate` makes clips.
    """
    real = [m if m.fps == CANONICAL_FPS else resample(m) for m in real if m.texts]
    if len(real) < BATCH:
        raise StickgenError(
            f"The evaluation needs at least {BATCH} test clips with a description; got {len(real)}."
        )
    say = progress or (lambda message: None)
    frames = [m.num_frames for m in real]
    labels = np.array([majority_action(m.actions) for m in real])
    single = np.array([one_action(m) for m in real], dtype=bool)
    real_emb, real_pred = evaluator.encode_motions(real)
    real_physics = mt.physics_metrics([m.joints for m in real], real[0].fps)
    counts = {"test_clips": len(real), "one_action_clips": int(single.sum())}
    result = EvalResult(setup={**(setup or {}), **counts, "options": to_dict(options)})
    for seed in range(options.seeds):
        rng = np.random.default_rng([seed, 20220])
        captions = [m.texts[int(rng.integers(len(m.texts)))] for m in real]
        text_emb = evaluator.encode_texts(embed(captions))
        say(f"seed {seed + 1}/{options.seeds}: generating {len(real)} clips")
        result.add(result.real, _text_metrics(text_emb, real_emb, rng, options))
        result.add(result.real, _action_accuracy(real_pred, labels, single))
        result.add(result.real, real_physics)

        halves = split_halves(len(real), rng)
        measured = (captions, frames, seed, options, real_emb, text_emb, (labels, single), evaluator, halves)
        values, generated = _generated_metrics(generate, *measured, rng)
        say(f"seed {seed + 1}/{options.seeds}: multimodality")
        values["multimodality"] = _multimodality(generate, evaluator, real, captions, seed, rng, options)
        result.add(result.generated, values)
        if generate_as is not None:
            say(f"seed {seed + 1}/{options.seeds}: generating {len(real)} clips as `stickgen generate` does")
            values, _ = _generated_metrics(generate_as, *measured, np.random.default_rng([seed, 20221]))
            result.add(result.as_generate, values)

        say(f"seed {seed + 1}/{options.seeds}: sanity checks")
        values, passed = sanity_checks(evaluator, real, real_emb, text_emb, halves, options.jitter, rng)
        result.add(result.sanity, values)
        result.add(result.passed, passed)
        if seed == 0:
            shown = rng.choice(len(real), size=min(options.grid_clips, len(real)), replace=False)
            result.grid = [(captions[i], real[i], generated[i]) for i in shown]
    return result


def _generated_metrics(
    generate: Generate,
    captions: list[str],
    frames: list[int],
    seed: int,
    options: EvalOptions,
    real_emb: np.ndarray,
    text_emb: np.ndarray,
    labels: tuple[np.ndarray, np.ndarray],
    evaluator: Evaluator,
    halves: tuple[np.ndarray, np.ndarray],
    rng: np.random.Generator,
) -> tuple[dict[str, float], list[Motion]]:
    """FID, R-precision, MM-Dist, diversity, action accuracy and physics of one generator's clips,
    and the clips. labels: the real clips' majority actions, and whether each has one action only."""
    generated, seconds = generate_like(generate, captions, frames, seed, options.batch_size)
    gen_emb, gen_pred = evaluator.encode_motions(generated)
    values = {
        "fid": mt.fid(real_emb, gen_emb),
        "fid_half": mt.fid(real_emb[halves[0]], gen_emb[halves[1]]),
        **_text_metrics(text_emb, gen_emb, rng, options),
    }
    values.update(_action_accuracy(gen_pred, *labels))
    values.update(mt.physics_metrics([m.joints for m in generated], generated[0].fps))
    values["seconds_per_clip"] = seconds / len(generated)
    return values, generated


def _multimodality(
    generate: Generate,
    evaluator: Evaluator,
    real: Sequence[Motion],
    captions: Sequence[str],
    seed: int,
    rng: np.random.Generator,
    options: EvalOptions,
) -> float:
    """MultiModality over `mm_texts` random captions, each generated `mm_repeats` times."""
    chosen = rng.choice(len(real), size=min(options.mm_texts, len(real)), replace=False)
    repeats = options.mm_repeats
    prompts = [captions[i] for i in chosen for _ in range(repeats)]
    lengths = [real[i].num_frames for i in chosen for _ in range(repeats)]
    clips, _ = generate_like(generate, prompts, lengths, _derived_seed(seed, 1), options.batch_size)
    emb, _ = evaluator.encode_motions(clips)
    return mt.multimodality(emb.reshape(len(chosen), repeats, -1), pairs=options.mm_pairs, rng=rng)


# -----------------------------------------------------------------------------
# the report


def _cell(entry: dict[str, Any] | None, scale: float = 1.0, digits: int = 3) -> str:
    if entry is None:
        return "—"
    return f"{entry['mean'] * scale:.{digits}f} ± {entry['ci95'] * scale:.{digits}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table as lines."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _interval(setup: dict[str, Any]) -> str:
    """' while t < 0.625' when the sampler guided only part of the path (reports before it say nothing)."""
    until = setup.get("guidance_until", 1.0)
    return f" while t < {until:g}" if until < 1.0 else ""


def _action_accuracy_split(
    setup: dict[str, Any], real: dict[str, Any], generated: list[tuple[str, dict[str, Any]]]
) -> list[str]:
    """The report's paragraph on action accuracy over clips of one action and of several (none for a
    summary from before the split was measured)."""
    if "action_accuracy_one" not in real or "action_accuracy_several" not in real:
        return []
    rows = [("real", real), *generated]
    counts = setup.get("one_action_clips")
    of = f" ({counts} of the {setup['test_clips']} test clips)" if counts is not None else ""
    return [
        f"Action accuracy over the clips of one action{of} / over the chained clips: "
        + "; ".join(
            f"{name} {_cell(t.get('action_accuracy_one'))} / {_cell(t.get('action_accuracy_several'))}"
            for name, t in rows
        )
        + ". A chained clip's majority action is the one that lasts longest, which its caption seldom "
        "says (docs/evaluation.md).",
        "",
    ]


def report_markdown(summary: dict[str, Any]) -> str:
    """The Markdown report of a summary (`EvalResult.summary()`)."""
    setup, real, gen, sanity = summary["setup"], summary["real"], summary["generated"], summary["sanity"]
    passed, options = summary["passed"], setup["options"]
    # The generated rows: from the captions as the options say, then (if measured) as `generate` does.
    plan = options.get("plan", "none")
    generated = [("generated" if plan == "none" else f"generated (plan {plan})", gen)]
    if summary.get("as_generate"):
        generated.append((f"as `stickgen generate` (plan {setup.get('as_generate_plan', '?')})",
                          summary["as_generate"]))  # fmt: skip
    halves = sanity["halves_fid"]
    ks = range(1, TOP_K + 1)
    lines = [
        REPORT_TITLE,
        "",
        f"stickgen {__version__}. Model `{setup.get('checkpoint', '—')}`, dataset "
        f"`{setup.get('dataset', '—')}`, evaluator `{setup.get('evaluator', '—')}`. {setup['test_clips']} "
        "test clips, each generated from one of its captions at its own length; "
        f"{options['steps']} sampling steps, guidance {options['guidance']}{_interval(setup)}. Every "
        f"number is the mean ± the 95 % interval over {options['seeds']} seeds (captions, batches and "
        "noise drawn anew). The metrics are defined in docs/evaluation.md.",
        "",
        "## Text and motion",
        "",
        "The generated row with no plan is made from the caption alone (a caption of several parts, each "
        "part's sentence over an equal share of the clip: `stickgen.generation.text_by_parts`); the row as "
        "`stickgen generate` does it adds the action timeline that `generate` gives the model "
        "(`stickgen.generation.PLANS`).",
        "",
    ]
    header = ["motion", "FID ↓", "R-precision top-1 ↑", "top-2 ↑", "top-3 ↑", "MM-Dist ↓", "Diversity →"]
    header += ["MultiModality ↑", "action accuracy ↑"]
    rows = []
    for name, table, fid in [("real", real, halves)] + [(n, t, t.get("fid")) for n, t in generated]:
        rows.append(
            [name, _cell(fid), *(_cell(table[f"r_precision_top{k}"]) for k in ks), _cell(table["mm_dist"])]
            + [
                _cell(table["diversity"]),
                _cell(table.get("multimodality")),
                _cell(table.get("action_accuracy")),
            ]
        )
    lines += _table(header, rows)
    lines += [
        "",
        f"R-precision ranks each motion's caption among {BATCH}: its own and the other captions of its "
        "batch. The real row's FID is between two random halves of the test set: the floor that sampling "
        "noise alone gives at that sample size. At the same size, the FID of the clips generated for one "
        f"half to the real other half is {_cell(gen['fid_half'])}.",
        "",
        f"R-precision among all {setup['test_clips']} test captions, top-1 / top-2 / top-3: real "
        + " / ".join(_cell(real[f"r_precision_all_top{k}"]) for k in ks)
        + "; generated "
        + " / ".join(_cell(gen[f"r_precision_all_top{k}"]) for k in ks)
        + ".",
        "",
        *_action_accuracy_split(setup, real, generated),
        "## Physics",
        "",
    ]
    header = ["motion", "foot skating ratio ↓", "penetration (cm) ↓", "floating (cm) ↓", "jerk (m/s³)"]
    header += ["bone length variation ↓"]
    rows = [
        [name, _cell(t.get("foot_skating_ratio")), _cell(t.get("penetration"), 100, 2)]
        + [
            _cell(t.get("floating"), 100, 2),
            _cell(t.get("jerk"), 1, 1),
            _cell(t.get("bone_length_variation"), 1, 4),
        ]
        for name, t in [("real", real), *generated]
    ]
    lines += _table(header, rows)
    lines += [
        "",
        f"Generation: {_cell(gen['seconds_per_clip'], 1000, 1)} ms per clip on `{options['device']}` "
        f"(batches of up to {options['batch_size']} clips of equal length).",
        "",
        "## Sanity checks",
        "",
    ]
    jitter = ", ".join(f"{s * 100:g} cm: {_cell(sanity[f'jitter_fid_{s:g}'])}" for s in options["jitter"])
    reference = sanity[f"jitter_fid_{HALVES_REFERENCE_JITTER:g}"]["mean"]
    rows = [
        [
            "shuffled captions: R-precision top-1 / 2 / 3",
            " / ".join(_cell(sanity[f"shuffled_r_precision_top{k}"]) for k in ks),
            "chance: " + " / ".join(f"{k / BATCH:.3f}" for k in ks),
            _yes(passed["shuffled_captions"]),
        ],
        [
            "jitter on the joints: FID of a half to the other, jittered",
            jitter,
            "rising",
            _yes(passed["jitter_monotonic"]),
        ],
        [
            "FID between two halves of the real test set",
            _cell(halves),
            f"below {HALVES_RATIO:g} × {reference:.3f}, "
            f"the FID at {HALVES_REFERENCE_JITTER * 100:g} cm jitter",
            _yes(passed["halves"]),
        ],
    ]
    lines += _table(["check", "value", "expected", "held in every seed"], rows)
    lines += [f"\n{FAILED[name].format(n=setup['test_clips'])}" for name, held in passed.items() if not held]
    lines += [
        "",
        "## Plots",
        "",
        "![R-precision, MM-Dist, Diversity, action accuracy](retrieval.png)",
        "",
        "![Physics](physics.png)",
        "",
        "![Sanity checks](sanity.png)",
        "",
        "Real (left) and generated (right) motion for the same captions:",
        "",
        "![real and generated motion](grid.gif)",
        "",
    ]
    return "\n".join(lines)


def _yes(passed: bool) -> str:
    return "yes" if passed else "**no**"


def _bars(
    ax, names: Sequence[str], real: dict, gen: dict, keys: Sequence[str], title: str, scale: float = 1.0
):
    """Grouped bars of real and generated means with 95 % error bars."""
    x = np.arange(len(keys))
    for offset, (label, table) in zip((-0.2, 0.2), (("real", real), ("generated", gen)), strict=True):
        means = [table[k]["mean"] * scale if k in table else np.nan for k in keys]
        errors = [table[k]["ci95"] * scale if k in table else 0.0 for k in keys]
        ax.bar(x + offset, means, width=0.4, yerr=errors, capsize=3, label=label)
    ax.set_xticks(x, names)
    ax.set_title(title)


def write_plots(summary: dict[str, Any], out: Path) -> list[Path]:
    """retrieval.png, physics.png and sanity.png in `out`.

    Drawn on `matplotlib.figure.Figure` objects, which render with Agg and leave pyplot's global
    state and backend alone.
    """
    from matplotlib.figure import Figure

    real, gen, sanity = summary["real"], summary["generated"], summary["sanity"]
    ks = range(1, TOP_K + 1)
    written = []

    fig = Figure(figsize=(13, 4), layout="constrained")
    axes = fig.subplots(1, 3)
    keys = [f"r_precision_top{k}" for k in ks]
    _bars(axes[0], [f"top-{k}" for k in ks], real, gen, keys, f"R-precision ({BATCH})")
    axes[0].plot(range(TOP_K), [k / BATCH for k in ks], "k:", marker="o", label="chance")
    shuffled = [sanity[f"shuffled_r_precision_top{k}"]["mean"] for k in ks]
    axes[0].plot(range(TOP_K), shuffled, "r--", marker="x", label="real, shuffled captions")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=4)
    names, keys = ["MM-Dist", "Diversity", "MultiModality"], ["mm_dist", "diversity", "multimodality"]
    _bars(axes[1], names, real, gen, keys, "Distances in the embedding space")
    _bars(axes[2], ["action accuracy"], real, gen, ["action_accuracy"], "Action classifier")
    written.append(_save_figure(fig, out / PLOTS[0]))

    fig = Figure(figsize=(15, 3.8), layout="constrained")
    axes = fig.subplots(1, len(PHYSICS))
    units = {"penetration": (100, "cm"), "floating": (100, "cm"), "jerk": (1, "m/s³")}
    for ax, key in zip(axes, PHYSICS, strict=True):
        scale, unit = units.get(key, (1, ""))
        _bars(ax, [""], real, gen, [key], key.replace("_", " ") + (f" ({unit})" if unit else ""), scale)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2)
    written.append(_save_figure(fig, out / PLOTS[1]))

    fig = Figure(figsize=(6.5, 4.2), layout="constrained")
    ax = fig.subplots()
    jitter = summary["setup"]["options"]["jitter"]
    curve = [sanity[f"jitter_fid_{s:g}"] for s in jitter]
    centimetres = [s * 100 for s in jitter]
    ax.errorbar(
        centimetres, [c["mean"] for c in curve], yerr=[c["ci95"] for c in curve], marker="o", capsize=3,
        label="real half vs jittered real half",
    )  # fmt: skip
    ax.axhline(sanity["halves_fid"]["mean"], color="k", linestyle=":", label="real half vs real half")
    ax.axhline(gen["fid_half"]["mean"], color="r", linestyle="--", label="real half vs generated half")
    ax.set_xticks(centimetres, [f"{s:g}" for s in centimetres])
    ax.set_xlabel("std of the noise on every joint (cm)")
    ax.set_ylabel("FID")
    ax.set_title("FID sanity checks")
    ax.legend()
    written.append(_save_figure(fig, out / PLOTS[2]))
    return written


def _save_figure(fig, path: Path) -> Path:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    return path


def check_report_folder(out: str | Path) -> Path:
    """`out` as a Path if a report may be written there: a new or empty folder, or an earlier report
    (its report.md starts with `REPORT_TITLE`); any other folder is refused, never overwritten."""
    return check_folder_for(out, marker="report.md", kind="report", starts=REPORT_TITLE)


def write_report(result: EvalResult, out: str | Path) -> list[Path]:
    """Write report.md, metrics.json, the plots and grid.gif into the folder `out`; return the paths."""
    from stickgen.render import save_grid

    out = check_report_folder(out)
    summary = result.summary()
    written = [atomic_write_text(out / "metrics.json", json.dumps(summary, indent=1) + "\n")]
    written += write_plots(summary, out)
    if result.grid:
        # Both sides framed by the renderer's automatic camera: a stored camera track would zoom one.
        clips = [clip.replace(camera=None) for _, real, gen in result.grid for clip in (real, gen)]
        captions = [f"{kind}: {text}" for text, _, _ in result.grid for kind in ("real", "generated")]
        written.append(save_grid(clips, out / "grid.gif", captions=captions, columns=2))
    written.append(atomic_write_text(out / "report.md", report_markdown(summary)))
    return written


# -----------------------------------------------------------------------------
# the command


def run_evaluation(
    checkpoint: str | Path | None,
    data: str | Path,
    evaluator: str | Path | None,
    out: str | Path,
    *,
    options: EvalOptions = EvalOptions(),
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """`stickgen eval run`: evaluate a checkpoint (None: the bundled model) on a dataset's test split
    with an evaluator (None: the bundled one).

    Returns the files written. The report names the bundled model and evaluator as such, and other
    folders by `files.portable_path`.
    """
    from stickgen.checkpoint import load_checkpoint
    from stickgen.evaluator import load_evaluator, load_split
    from stickgen.generation import BUNDLED_MODEL, DEFAULT_PLAN, default_checkpoint, generate_motions
    from stickgen.text import EncoderIdentity, TextEncoder

    out = check_report_folder(out)
    setup = {
        "checkpoint": portable_path(checkpoint) if checkpoint is not None else f"bundled {BUNDLED_MODEL}",
        "dataset": portable_path(data),
        "evaluator": portable_path(evaluator) if evaluator is not None else f"bundled {BUNDLED_EVALUATOR}",
    }
    checkpoint = Path(checkpoint) if checkpoint is not None else default_checkpoint()
    if evaluator is None:
        evaluator = bundled_asset(BUNDLED_EVALUATOR, "evaluator.safetensors")
    scorer = load_evaluator(evaluator)
    text_encoder = TextEncoder(scorer.encoder["name"])
    if text_encoder.identity != EncoderIdentity.from_dict(scorer.encoder):
        raise StickgenError(
            f"The evaluator was trained with the text encoder {scorer.encoder['name']} "
            f"(id {scorer.encoder['id']}), but that name now gives other files "
            f"(id {text_encoder.identity.id})."
        )
    model = load_checkpoint(checkpoint, device=options.device)
    mean, std = model.norm_mean.cpu().numpy(), model.norm_std.cpu().numpy()
    real = load_split(data, "test")
    if options.max_clips and len(real) > options.max_clips:
        keep = np.sort(np.random.default_rng(0).choice(len(real), size=options.max_clips, replace=False))
        real = [real[i] for i in keep]

    def generator(plan: str) -> Generate:
        def generate(prompts: list[str], frames: int, seed: int) -> list[Motion]:
            return generate_motions(
                model.model, prompts, encoder=model.encoder["name"], mean=mean, std=std, seed=seed,
                seconds=frames / CANONICAL_FPS, steps=options.steps, guidance=options.guidance, plan=plan,
            )  # fmt: skip

        return generate

    # generate_motions samples with the sampler's own guidance interval; the report says which
    setup |= {"text_encoder": scorer.encoder, "generator_text_encoder": model.encoder,
              "guidance_until": GUIDANCE_UNTIL}  # fmt: skip
    generate_as = None
    if options.as_generate and options.plan != DEFAULT_PLAN:
        generate_as = generator(DEFAULT_PLAN)
        setup["as_generate_plan"] = DEFAULT_PLAN
    result = evaluate(
        real, generator(options.plan), scorer, text_encoder.encode, options, setup=setup, progress=progress,
        generate_as=generate_as,
    )  # fmt: skip
    return write_report(result, out)
