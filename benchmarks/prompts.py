"""The prompt suite: how often the figure does what the sentence says.

    python benchmarks/prompts.py [--checkpoint DIR] [--seeds 5] [--first-seed 0] [--subset N]
                                 [--grep TEXT] [--json FILE] [--compare OLD.json]

Generates every prompt of `prompts.yaml` (beside this file) with seeds 0 .. N−1 exactly as the
product does (`stickgen.generation.generate(prompt, seed=s, checkpoint=DIR)`; `--first-seed F` takes
seeds F .. F+N−1 instead, to add samples to an earlier run), checks each sample with
the prompt's automatic check (detectors of `stickgen.detectors`, or the evaluator's action classifier)
and prints the share of samples that pass: overall, for plain and paraphrased prompts, for chained
ones, per environment, per action family (the synthesizer module of the action's generator), and the
10 worst prompts. `--json` writes every sample's result; `--compare` prints an earlier run's tables
beside this one's. It is a benchmark, not a timed test: docs/prompt-suite.md has the rules and the
results.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from stickgen import detectors
from stickgen.labels import ACTIONS, ENVIRONMENT_NAMES, action_id
from stickgen.motion import Motion

SUITE = Path(__file__).with_name("prompts.yaml")
KINDS = ("plain", "paraphrased")
_ENTRY_KEYS = {"text", "actions", "kind", "chained", "environment", "check"}


@dataclass(frozen=True)
class CheckItem:
    """One thing a generated motion must show: a detector with its thresholds, or the classifier's
    first choice; `window` (start, stop), shares of the clip, limits it to part of the clip."""

    detector: str | None = None
    classifier: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    window: tuple[float, float] | None = None

    def describe(self) -> str:
        """E.g. "rises(min_m=0.15) in 0-0.6" or "classifier(salute)"."""
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        what = f"{self.detector}({args})" if self.detector else f"classifier({self.classifier})"
        return what + (f" in {self.window[0]:g}-{self.window[1]:g}" if self.window else "")


@dataclass(frozen=True)
class Prompt:
    """One entry of the suite (see the comment at the top of prompts.yaml)."""

    text: str
    actions: tuple[str, ...]
    kind: str  # "plain" or "paraphrased"
    chained: bool
    environment: str
    check: tuple[CheckItem, ...]

    @property
    def families(self) -> tuple[str, ...]:
        """The action families of its targets, each once, in order."""
        return tuple(dict.fromkeys(action_family(a) for a in self.actions))


def action_family(action: str) -> str:
    """The family of an action: the synthesizer module its generator lives in ("jumps", "floor", ...)."""
    from stickgen.synth.actions import ACTION_BY_NAME

    return ACTION_BY_NAME[action].generate.__module__.rsplit(".", 1)[-1]


# -----------------------------------------------------------------------------
# reading the suite


def _check_item(raw: Any, where: str) -> CheckItem:
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: a check item is a mapping, not {raw!r}")
    raw = dict(raw)
    window = raw.pop("window", None)
    if window is not None:
        if not (isinstance(window, list) and len(window) == 2 and 0 <= window[0] < window[1] <= 1):
            raise ValueError(f"{where}: window must be [start, stop], 0 <= start < stop <= 1, not {window}")
        window = (float(window[0]), float(window[1]))
    if "classifier" in raw:
        if set(raw) != {"classifier"} or raw["classifier"] not in ACTIONS:
            raise ValueError(f"{where}: a classifier item names one known action and nothing else: {raw}")
        return CheckItem(classifier=raw["classifier"], window=window)
    name = raw.pop("detector", None)
    if name not in detectors.DETECTORS:
        raise ValueError(f"{where}: unknown detector {name!r}; known: {', '.join(detectors.DETECTORS)}")
    signature = inspect.signature(detectors.DETECTORS[name])
    for key, value in raw.items():
        parameter = signature.parameters.get(key)
        if parameter is None or parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise ValueError(f"{where}: detector {name} has no threshold {key!r}")
        if not (value is None or isinstance(value, (int, float))) or isinstance(value, bool):
            raise ValueError(f"{where}: {name}.{key} must be a number, not {value!r}")
    return CheckItem(detector=name, params=raw, window=window)


def load_suite(path: str | Path = SUITE) -> list[Prompt]:
    """The prompts of a suite file, validated (every error names the entry): known actions,
    environments, kinds, detectors and thresholds, windows inside the clip."""
    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    prompts = []
    for n, entry in enumerate(doc["prompts"]):
        where = f"{path} entry {n + 1} ({entry.get('text', '?')!r})"
        if set(entry) != _ENTRY_KEYS:
            raise ValueError(f"{where}: the keys must be {sorted(_ENTRY_KEYS)}, not {sorted(entry)}")
        actions = tuple(entry["actions"])
        if not actions or any(a not in ACTIONS for a in actions):
            raise ValueError(f"{where}: unknown or missing actions {list(actions)}")
        if entry["kind"] not in KINDS or entry["environment"] not in ENVIRONMENT_NAMES:
            raise ValueError(f"{where}: kind must be one of {KINDS}, environment one of {ENVIRONMENT_NAMES}")
        if entry["chained"] is not (len(actions) > 1) or not entry["check"]:
            raise ValueError(f"{where}: chained must say whether it has several actions, and check is needed")
        check = tuple(_check_item(item, where) for item in entry["check"])
        prompts.append(Prompt(str(entry["text"]), actions, entry["kind"], entry["chained"],
                              entry["environment"], check))  # fmt: skip
    return prompts


def select(prompts: Sequence[Prompt], *, subset: int | None = None, grep: str | None = None) -> list[Prompt]:
    """Prompts whose text or actions contain `grep`, then `subset` of them spread evenly over the list."""
    chosen = [p for p in prompts if grep is None or grep.lower() in f"{p.text} {' '.join(p.actions)}".lower()]
    if subset is not None and subset < len(chosen):
        chosen = [chosen[int(i)] for i in np.linspace(0, len(chosen) - 1, subset).round()]
    return chosen


# -----------------------------------------------------------------------------
# checking motions


def classifier() -> Callable[[Motion], int]:
    """The bundled evaluator's action classifier: a clip → its predicted majority action id."""
    from stickgen.evaluator import load_evaluator
    from stickgen.files import bundled_asset

    evaluator = load_evaluator(bundled_asset("evaluator-minilm", "evaluator.safetensors"))
    return lambda motion: int(evaluator.encode_motions([motion])[1][0])


def check_motion(
    motion: Motion, check: Sequence[CheckItem], classify: Callable[[Motion], int] | None = None
) -> list[bool]:
    """Whether the motion shows each item of a check (a sample passes when all hold)."""
    results = []
    for item in check:
        clip = motion if item.window is None else detectors.window(motion, *item.window)
        if item.detector is not None:
            results.append(bool(detectors.DETECTORS[item.detector](clip, **item.params)))
        else:
            if classify is None:
                raise ValueError("this check needs the action classifier; pass classify=classifier()")
            results.append(classify(clip) == action_id(item.classifier))
    return results


def run_suite(
    prompts: Sequence[Prompt],
    *,
    seeds: int = 5,
    first_seed: int = 0,
    checkpoint: str | None = None,
    plan: str | None = None,
    steps: int | None = None,
    progress: Callable[[], None] | None = None,
) -> list[dict[str, Any]]:
    """Generate every prompt with seeds first_seed .. first_seed+seeds−1 as the product does; check each.

    Returns one record per sample: the prompt's text, actions, kind, chained, environment and families,
    the seed, each check item's result (`items`) and whether all hold (`passed`). `plan` overrides
    `generate`'s default action timeline (stickgen.generation.PLANS), `steps` its ODE steps, to compare them.
    """
    from stickgen.generation import DEFAULT_PLAN, generate

    plan = plan or DEFAULT_PLAN

    needs_classifier = any(item.classifier for p in prompts for item in p.check)
    classify = classifier() if needs_classifier else None
    options = {} if steps is None else {"steps": steps}  # else generate's own default
    records = []
    for prompt in prompts:
        for seed in range(first_seed, first_seed + seeds):
            motion = generate(prompt.text, seed=seed, checkpoint=checkpoint, plan=plan, **options)
            items = check_motion(motion, prompt.check, classify)
            records.append({
                "text": prompt.text, "actions": list(prompt.actions), "kind": prompt.kind,
                "chained": prompt.chained, "environment": prompt.environment,
                "families": list(prompt.families), "seed": seed, "items": items, "passed": all(items),
            })  # fmt: skip
            if progress is not None:
                progress()
    return records


# -----------------------------------------------------------------------------
# tables


def rates(records: Sequence[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(passed, samples) per row of the report: overall, kinds, chained, environments, families."""
    rows: dict[str, list[bool]] = {"overall": []}
    for kind in KINDS:
        rows[kind] = []
    rows["single"], rows["chained"] = [], []
    for env in ENVIRONMENT_NAMES:
        rows[f"env {env}"] = []
    for r in records:
        groups = ["overall", r["kind"], "chained" if r["chained"] else "single", f"env {r['environment']}"]
        groups += [f"family {f}" for f in r["families"]]
        for group in groups:
            rows.setdefault(group, []).append(r["passed"])
    families = sorted(k for k in rows if k.startswith("family "))
    order = [k for k in rows if not k.startswith("family ")] + families
    return {k: (sum(rows[k]), len(rows[k])) for k in order if rows[k]}


def worst(records: Sequence[dict[str, Any]], count: int = 10) -> list[tuple[str, int, int]]:
    """The `count` prompts with the fewest passing samples: (text, passed, samples)."""
    per: dict[str, list[bool]] = {}
    for r in records:
        per.setdefault(r["text"], []).append(r["passed"])
    order = sorted(per.items(), key=lambda kv: (sum(kv[1]) / len(kv[1]), kv[0]))
    return [(text, sum(v), len(v)) for text, v in order[:count]]


def _rate(cell: tuple[int, int] | None) -> str:
    return "—" if cell is None else f"{cell[0] / cell[1]:.1%} ({cell[0]}/{cell[1]})"


def report(records: Sequence[dict[str, Any]], old: Sequence[dict[str, Any]] | None = None) -> str:
    """The pass-rate table (beside an earlier run's when `old` is given) and the worst prompts."""
    new_rates, old_rates = rates(records), rates(old) if old is not None else {}
    names = list(new_rates) + [k for k in old_rates if k not in new_rates]
    columns = ["earlier run", "this run"] if old is not None else ["samples passing"]
    lines = ["| group | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for name in names:
        cells = ([_rate(old_rates.get(name))] if old is not None else []) + [_rate(new_rates.get(name))]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    blocks = [(" (earlier run)", old), (" (this run)", records)] if old is not None else [("", records)]
    for title, rows in blocks:
        lines += ["", f"10 worst prompts{title}:"]
        lines += [f"  {passed}/{total}  {text}" for text, passed, total in worst(rows)]
        never = [text for text, passed, _ in worst(rows, len(rows)) if passed == 0]
        lines.append(f"  ({len(never)} of {len({r['text'] for r in rows})} prompts pass in no seed)")
    return "\n".join(lines)


def matcher_summary(prompts: Sequence[Prompt]) -> str:
    """How the word matcher of `stickgen generate` reads the suite now (its vocabulary may grow)."""
    from stickgen.action_words import actions_in_text

    para = [p for p in prompts if p.kind == "paraphrased"]
    plain = [p for p in prompts if p.kind == "plain"]
    found = sum(bool(actions_in_text(p.text)) for p in para)
    exact = sum([ACTIONS[a] for a in actions_in_text(p.text)] == list(p.actions) for p in plain)
    return (f"word matcher now: finds an action in {found} of {len(para)} paraphrased prompts; "
            f"names exactly the targets of {exact} of {len(plain)} plain prompts")  # fmt: skip


def read_samples(path: str) -> list[dict]:
    """The samples of an earlier `--json` file; one sentence (exit 1) if it cannot be read, before any run."""
    try:
        samples = json.loads(Path(path).read_text(encoding="utf-8"))["samples"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        samples = None
    if not isinstance(samples, list):
        sys.exit(f"prompts.py: --compare {path} is not a file written by --json")
    return samples


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None, help="a checkpoint folder (default: the bundled model)")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0 .. N-1 per prompt (default 5)")
    parser.add_argument("--first-seed", type=int, default=0, help="start the seeds here (default 0)")
    parser.add_argument("--subset", type=int, default=None, help="only N prompts, spread over the suite")
    parser.add_argument("--grep", default=None, help="only prompts whose text or actions contain this")
    parser.add_argument("--suite", default=str(SUITE), help="the suite file (default: prompts.yaml here)")
    parser.add_argument("--plan", default=None, help="generate's action timeline (default: generate's own)")
    parser.add_argument("--steps", type=int, default=None, help="ODE steps (default: generate's)")
    parser.add_argument("--json", default=None, help="write every sample's result to this file")
    parser.add_argument("--compare", default=None, help="an earlier --json file to print beside this run")
    args = parser.parse_args(argv)
    from tqdm import tqdm

    if args.seeds < 1 or args.first_seed < 0:
        sys.exit("prompts.py: --seeds must be at least 1 and --first-seed at least 0")
    prompts = select(load_suite(args.suite), subset=args.subset, grep=args.grep)
    if not prompts:
        sys.exit("prompts.py: no prompt matches the selection")
    old = read_samples(args.compare) if args.compare else None
    start = time.perf_counter()
    with tqdm(total=len(prompts) * args.seeds, unit="sample", desc="prompts", file=sys.stderr) as bar:
        records = run_suite(
            prompts, seeds=args.seeds, first_seed=args.first_seed, checkpoint=args.checkpoint, plan=args.plan,
            steps=args.steps, progress=bar.update,
        )  # fmt: skip
    seconds = time.perf_counter() - start
    seed_range = f"seeds {args.first_seed}-{args.first_seed + args.seeds - 1}"
    print(f"{len(prompts)} prompts x {args.seeds} seeds ({seed_range}), "
          f"checkpoint {args.checkpoint or 'bundled'}, "
          f"plan {args.plan or 'default'}, steps {args.steps or 'default'}, {seconds:.0f} s\n")  # fmt: skip
    print(report(records, old))
    print("\n" + matcher_summary(prompts))
    if args.json:
        doc = {"checkpoint": args.checkpoint or "bundled", "plan": args.plan or "default",
               "steps": args.steps, "seeds": args.seeds, "first_seed": args.first_seed,
               "seconds": round(seconds, 1),
               "samples": records}  # fmt: skip
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
