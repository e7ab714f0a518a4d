"""Writing a synthetic dataset: shards generated in parallel processes, resumable, byte-for-byte stable.

Shard k holds clips k·S .. (k+1)·S − 1 and each clip comes from its own `(seed, clip index)` random
streams, so a shard's bytes do not depend on which process wrote it, in which order, or whether the
run was interrupted. `plan.json` records what is being written; rerunning the same command skips the
shards that exist and finishes the dataset (a different request for the same folder is refused).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path

from stickgen import __version__
from stickgen.dataset import DEFAULT_SHARD_SIZE, finalize_dataset, shard_path, write_shard
from stickgen.errors import StickgenError
from stickgen.files import atomic_write_text
from stickgen.ranges import check_range, check_seed
from stickgen.synth.sampler import GENERATOR_NAME, implemented_actions, sample_clip
from stickgen.workers import worker_pool

PLAN_FILE = "plan.json"
MAX_CLIPS = 10_000_000  # 17,000 hours of motion at 25 fps; more is surely a typo


def generator_source(clips: int, seed: int) -> dict:
    """The manifest's description of a synthetic dataset."""
    return {
        "generator": GENERATOR_NAME,
        "stickgen_version": __version__,
        "seed": seed,
        "clips": clips,
        "actions": list(implemented_actions()),
    }


def _write_one_shard(job: tuple[str, int, int, int, int]) -> int:
    """Worker: generate and write one shard; returns its number of clips."""
    root, index, start, stop, seed = job
    write_shard(root, index, [sample_clip(seed, i) for i in range(start, stop)])
    return stop - start


def synthesize_dataset(
    path: str | Path,
    *,
    clips: int,
    seed: int,
    workers: int | None = None,
    shard_size: int = DEFAULT_SHARD_SIZE,
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Write (or finish writing) a synthetic dataset of `clips` clips at `path`; returns the folder.

    workers: processes (default: all CPU cores). progress: called with the number of clips each time
    a shard is done (including, once at the start, the clips of shards already written).
    """
    check_range("--clips", clips, 1, MAX_CLIPS)
    check_seed("--seed", seed)
    if workers is not None and workers < 1:
        raise StickgenError(f"--workers must be at least 1; got {workers}.")
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise StickgenError(f"{path} is a file, not a dataset folder.")
    source = generator_source(clips, seed)
    plan = {"source": source, "shard_size": shard_size}
    plan_path = path / PLAN_FILE
    if plan_path.exists():
        try:
            existing = json.loads(plan_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            existing = None
        if existing != json.loads(json.dumps(plan)):
            raise StickgenError(
                f"{path} holds a different synthetic dataset (another seed, size or stickgen version); "
                "choose another folder or delete it."
            )
    elif path.exists() and any(path.iterdir()):
        raise StickgenError(
            f"{path} is not empty and is not a synthetic dataset in progress; choose another folder."
        )
    else:
        path.mkdir(parents=True, exist_ok=True)
        atomic_write_text(plan_path, json.dumps(plan, indent=1, sort_keys=True) + "\n")
    if (path / "manifest.json").exists():
        if progress:
            progress(clips)
        return path

    num_shards = math.ceil(clips / shard_size)
    jobs, done = [], 0
    for k in range(num_shards):
        start, stop = k * shard_size, min((k + 1) * shard_size, clips)
        if shard_path(path, k).exists():
            done += stop - start
        else:
            jobs.append((str(path), k, start, stop, seed))
    if progress and done:
        progress(done)
    workers = min(workers or os.cpu_count() or 1, max(len(jobs), 1))
    if workers == 1:
        for job in jobs:
            n = _write_one_shard(job)
            if progress:
                progress(n)
    elif jobs:
        with worker_pool(workers) as pool:
            for n in pool.imap_unordered(_write_one_shard, jobs):
                if progress:
                    progress(n)
    return finalize_dataset(path, source=source, seed=seed, shard_size=shard_size)
