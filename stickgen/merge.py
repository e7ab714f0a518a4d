"""Merging finished datasets into one (`stickgen data merge A B ... --out C --weights 2,1`).

Every source keeps its splits: a clip from a source's train split lands in the merged train split,
and the same for val and test, so merging never moves an evaluation clip into training.

Weights set how often each source's TRAINING clips appear. With weight w (0 to 100; one per source,
default 1) every training clip is repeated floor(w) times, plus once more with probability
w − floor(w), drawn from `np.random.default_rng([seed, source index])`: the same seed gives the same
merged dataset. Weight 2 doubles a source in training, 0.5 keeps about half of its training clips, 0
drops them. Validation and test clips are kept exactly once whatever the weight (weight 0 included),
so evaluation on the merged dataset stays comparable to evaluation on its sources.

Clips are copied with their arrays unchanged; each clip's `meta` gains `"dataset"`: the source folder's
name (a clip of an already merged source keeps its trail, "outer/inner"). Shards are written streaming,
one source shard in memory at a time, into a temporary folder beside the output, which is finalized
there (statistics over the merged train split, repeats counted) and then renamed onto the output, so
an interruption or error never leaves a half-written dataset behind.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from stickgen.dataset import DEFAULT_SHARD_SIZE, SPLITS, Dataset, finalize_dataset, write_shard
from stickgen.errors import StickgenError
from stickgen.files import atomic_folder, portable_path
from stickgen.motion import Motion
from stickgen.ranges import check_seed


@dataclass(frozen=True)
class _Plan:
    """One source: where it is, its weight, and how many times each of its clips is copied."""

    path: Path
    weight: float
    split: np.ndarray  # (N,) index into SPLITS of each source clip
    copies: np.ndarray  # (N,) int64 copies of each source clip in the merged dataset


def merge_datasets(
    sources: Sequence[str | Path],
    out: str | Path,
    *,
    weights: Sequence[float] | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Merge the finished datasets `sources` into the new dataset folder `out`; returns `out`.

    weights: one per source (default all 1); scales how often a source's training clips appear.
    progress: called as progress(done, total) with counts of source clips read.
    """
    if len(sources) < 2:
        raise StickgenError(f"Merging needs at least two datasets; got {len(sources)}.")
    weights = _check_weights(weights, len(sources))
    check_seed("--seed", seed)
    datasets = [Dataset(s) for s in sources]
    paths = [d.path.resolve() for d in datasets]
    for k, d in enumerate(datasets):
        if d.fps != datasets[0].fps:
            raise StickgenError(
                f"{d.path} is at {d.fps:g} fps but {datasets[0].path} is at {datasets[0].fps:g} fps; "
                "only datasets at the same frame rate can be merged."
            )
        if paths[k] in paths[:k]:
            raise StickgenError(f"{d.path} is given twice; give it once with a larger weight instead.")
    out = Path(out)
    _check_out(out, paths)
    plans = [_plan(d, w, seed, k) for k, (d, w) in enumerate(zip(datasets, weights, strict=True))]
    if not any(int(p.copies[p.split == 0].sum()) for p in plans):
        raise StickgenError("These weights leave no training clip in the merged dataset; raise a weight.")

    total = sum(len(p.split) for p in plans)
    with atomic_folder(out, marker="manifest.json", kind="dataset") as tmp:
        splits, counts = _write_shards(tmp, plans, total, progress)
        source = {
            "merged": [
                {"path": portable_path(p.path), "weight": p.weight, "clips": n, "source_clips": len(p.split),
                 "source": d.manifest["source"]}
                for p, d, n in zip(plans, datasets, counts, strict=True)
            ]
        }  # fmt: skip
        finalize_dataset(tmp, source=source, seed=seed, shard_size=DEFAULT_SHARD_SIZE, splits=splits)
    return out


MAX_WEIGHT = 100.0  # a training clip copied 100 times already makes a dataset 100 times its source's size


def _check_weights(weights: Sequence[float] | None, count: int) -> list[float]:
    """The weights as floats (default all 1); one sentence for a wrong count or a bad value."""
    if weights is None:
        return [1.0] * count
    if len(weights) != count:
        got = f"{len(weights)} weight{'' if len(weights) == 1 else 's'}"
        raise StickgenError(f"Got {got} for {count} datasets; give one weight per dataset.")
    values = []
    for w in weights:
        try:
            value = float(w)
        except (TypeError, ValueError):
            raise StickgenError(f"Weights must be numbers; got {w!r}.") from None
        if not math.isfinite(value) or not 0 <= value <= MAX_WEIGHT:
            raise StickgenError(f"Weights must be between 0 and {MAX_WEIGHT:g}; got {w!r}.")
        values.append(value)
    if not any(values):
        raise StickgenError("All weights are 0; give at least one dataset a positive weight.")
    return values


def _check_out(out: Path, sources: list[Path]) -> None:
    """Refuse an output folder that is a source, a file, a finished dataset or a non-empty folder."""
    if out.resolve() in sources:
        raise StickgenError(f"The output folder {out} is one of the datasets being merged; choose another.")
    if out.exists() and not out.is_dir():
        raise StickgenError(f"{out} is a file, not a dataset folder.")
    if (out / "manifest.json").exists():
        raise StickgenError(f"{out} already holds a finished dataset; choose another folder.")
    if out.is_dir() and any(out.iterdir()):
        raise StickgenError(f"{out} is not empty; choose a new or empty folder for the merged dataset.")


def _plan(data: Dataset, weight: float, seed: int, index: int) -> _Plan:
    """The split of each clip of `data`, and its copies: floor(w) plus a draw for each train clip."""
    split = np.full(len(data), -1, dtype=np.int64)
    for s, name in enumerate(SPLITS):
        idx = data.split(name)
        if idx.size and (idx.min() < 0 or idx.max() >= len(data) or (split[idx] != -1).any()):
            raise StickgenError(f"The splits of {data.path} do not match its {len(data)} clips.")
        split[idx] = s
    if (split == -1).any():
        raise StickgenError(f"The splits of {data.path} do not cover each of its {len(data)} clips.")
    train = np.flatnonzero(split == 0)
    whole = math.floor(weight)
    draws = np.random.default_rng([seed, index]).random(len(train))
    copies = np.ones(len(data), dtype=np.int64)
    copies[train] = whole + (draws < weight - whole)
    return _Plan(data.path.resolve(), weight, split, copies)


def _write_shards(
    root: Path, plans: list[_Plan], total: int, progress: Callable[[int, int], None] | None
) -> tuple[dict[str, np.ndarray], list[int]]:
    """Copy every planned clip into shards under `root`, reading one source shard at a time.

    Returns the merged splits (clip indices) and the number of clips each source contributed.
    """
    buffer: list[Motion] = []
    assigned: list[int] = []  # index into SPLITS of each merged clip
    counts, shards, done = [], 0, 0
    if progress:
        progress(0, total)
    for plan in plans:
        data = Dataset(plan.path, cache_shards=1)  # one source shard in memory at a time
        name = plan.path.name
        first = 0
        for entry in data.manifest["shards"]:
            for i in range(first, first + int(entry["clips"])):
                if not plan.copies[i]:
                    continue
                motion = data.motion(i)
                meta = dict(motion.source)
                meta["dataset"] = name if "dataset" not in meta else f"{name}/{meta['dataset']}"
                motion = motion.replace(source=meta)
                for _ in range(int(plan.copies[i])):
                    buffer.append(motion)
                    assigned.append(int(plan.split[i]))
                    if len(buffer) == DEFAULT_SHARD_SIZE:
                        write_shard(root, shards, buffer)
                        shards, buffer = shards + 1, []
            first += int(entry["clips"])
            done += int(entry["clips"])
            if progress:
                progress(done, total)
        counts.append(int(plan.copies.sum()))
    if buffer:
        write_shard(root, shards, buffer)
    labels = np.asarray(assigned, dtype=np.int64)
    return {name: np.flatnonzero(labels == s) for s, name in enumerate(SPLITS)}, counts
