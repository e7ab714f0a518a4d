"""What `stickgen data stats` and `stickgen data preview` show about a dataset folder."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from stickgen.dataset import SPLITS, Dataset
from stickgen.labels import ACTIONS, ENVIRONMENT_NAMES, environment_name
from stickgen.ranges import check_range, check_seed
from stickgen.synth.checks import check_clip, summarize


def stats_lines(path: str | Path, *, check_clips: int | None = None) -> list[str]:
    """Counts per action (clips and seconds) and environment, clip lengths, and the physical checks.

    check_clips: run the physical checks on the first this many clips (None: all).
    """
    data = Dataset(path)
    arrays = data.arrays()
    fps = data.fps
    lengths = np.diff(arrays.offsets) / fps
    per_clip_actions = [
        set(arrays.actions[a:b].tolist())
        for a, b in zip(arrays.offsets[:-1], arrays.offsets[1:], strict=True)
    ]
    clip_counts = Counter(a for s in per_clip_actions for a in s if a >= 0)
    frame_counts = Counter(arrays.actions.tolist())
    envs = Counter(environment_name(e) for e in arrays.environment)
    m = data.manifest
    splits = ", ".join(f"{k} {m['splits'][k]}" for k in SPLITS)
    lines = [
        f"dataset: {data.path}",
        f"clips: {len(data)} ({splits}), frames: {m['frames']} at {fps:g} fps "
        f"({m['frames'] / fps / 3600:.2f} h)",
        f"clip length: min {lengths.min():.2f} s, median {np.median(lengths):.2f} s, "
        f"mean {lengths.mean():.2f} s, max {lengths.max():.2f} s",
        "length histogram (s): "
        + ", ".join(f"{a}-{a + 1}: {int(((lengths >= a) & (lengths < a + 1)).sum())}" for a in range(10)),
        "",
        "environment    clips",
    ]
    lines += [f"  {name:<12} {envs.get(name, 0):>6}" for name in ENVIRONMENT_NAMES]
    lines += ["", "action             clips   seconds"]
    for i, name in enumerate(ACTIONS):
        if clip_counts.get(i) or frame_counts.get(i):
            lines.append(f"  {name:<16} {clip_counts.get(i, 0):>6} {frame_counts.get(i, 0) / fps:>9.1f}")
    missing = [name for i, name in enumerate(ACTIONS) if i not in clip_counts]
    lines.append(f"  actions without clips: {len(missing)}" + (f" ({', '.join(missing)})" if missing else ""))
    n = len(data) if check_clips is None else min(check_clips, len(data))
    report = summarize([check_clip(data.motion(i)) for i in range(n)])
    lines += ["", f"physical checks over {n} clips: {'pass' if report.passed else 'FAIL'}"]
    lines += [f"  {line}" for line in report.lines()]
    if "importer" in m.get("source", {}):
        lines.append(
            "  (these are the synthesizer's checks: imported clips keep their projected bone lengths, and "
            "real feet move fast just above the floor at touch-down and toe-off, so bone CV and sliding "
            "read high on real data)"
        )
    return lines


def preview(
    path: str | Path, output: str | Path, *, n: int = 12, seed: int = 0, columns: int | None = None
) -> Path:
    """A grid of `n` random clips of the dataset, each captioned with one of its descriptions."""
    from stickgen.render import save_grid

    check_range("-n", n, 1, 100)
    check_seed("--seed", seed)
    data = Dataset(path)
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(data), size=min(n, len(data)), replace=False)
    motions = [data.motion(int(i)) for i in picks]
    captions = [m.texts[int(rng.integers(len(m.texts)))] if m.texts else "" for m in motions]
    return save_grid(motions, output, captions=captions, columns=columns)
