"""Merging datasets: splits kept, weights repeat training clips only, arrays copied, stats recomputed,
bad input refused with one sentence and nothing left behind."""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from stickgen.dataset import SPLITS, Dataset, DatasetWriter, finalize_dataset, write_shard
from stickgen.errors import StickgenError
from stickgen.merge import merge_datasets
from stickgen.motion import Motion
from tests.clips import walking_clip

SIZES = {"alpha": 150, "beta": 40}


def _clips(name: str, n: int) -> list[Motion]:
    """Short distinct clips, every third without a camera track; texts and meta name the dataset."""
    return [
        walking_clip(frames=8 + i % 13, seed=1000 * len(name) + i).replace(
            texts=[f"{name} clip {i}", "a person walks"],
            camera=None if i % 3 == 0 else walking_clip(frames=8 + i % 13).camera,
            source={"kind": name, "index": i},
        )
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sources")
    paths = {}
    for seed, (name, n) in enumerate(SIZES.items()):
        writer = DatasetWriter(root / name, source={"generator": name}, seed=seed, shard_size=32)
        writer.add_all(_clips(name, n))
        paths[name] = writer.finalize()
    return paths


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _origins(data: Dataset) -> list[tuple[str, int]]:
    """(source dataset, source clip index) of every merged clip, in order."""
    return [(data.meta(i)["dataset"], data.meta(i)["index"]) for i in range(len(data))]


def test_weights_one_keep_every_clip_once_in_its_split_with_identical_arrays(sources, tmp_path):
    calls = []
    out = merge_datasets(
        [sources["alpha"], sources["beta"]], tmp_path / "ab", progress=lambda d, t: calls.append((d, t))
    )
    merged = Dataset(out)
    total = sum(SIZES.values())
    assert out == tmp_path / "ab" and len(merged) == total
    assert _origins(merged) == [(name, i) for name, n in SIZES.items() for i in range(n)]
    for name in SIZES:
        src = Dataset(sources[name])
        for s in SPLITS:
            from_src = [idx for d, idx in (_origins(merged)[i] for i in merged.split(s)) if d == name]
            assert from_src == src.split(s).tolist()
    offset = 0
    for name, n in SIZES.items():
        src = Dataset(sources[name])
        for i in range(n):
            a, b = src.motion(i), merged.motion(offset + i)
            assert a.joints.astype(np.float32).tobytes() == b.joints.astype(np.float32).tobytes()
            assert a.actions.tobytes() == b.actions.tobytes()
            assert a.environment.tobytes() == b.environment.tobytes()
            assert (a.camera is None) == (b.camera is None)
            if a.camera is not None:
                assert a.camera.astype(np.float32).tobytes() == b.camera.astype(np.float32).tobytes()
            assert b.texts == a.texts and b.source == {**a.source, "dataset": name}
        offset += n
    entries = merged.manifest["source"]["merged"]
    assert [e["path"] for e in entries] == list(SIZES)  # outside the working folder: by name
    assert [(e["weight"], e["clips"], e["source_clips"]) for e in entries] == [
        (1.0, n, n) for n in SIZES.values()
    ]
    assert [e["source"] for e in entries] == [{"generator": n} for n in SIZES]
    assert calls[0] == (0, total) and calls[-1] == (total, total)
    source_shards = sum(len(Dataset(p).manifest["shards"]) for p in sources.values())
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and len(calls) == 1 + source_shards

    again = Dataset(merge_datasets([out, sources["alpha"]], tmp_path / "again"))
    assert again.meta(0)["dataset"] == "ab/alpha" and again.meta(total)["dataset"] == "alpha"


def test_integer_weights_repeat_training_clips_exactly_and_keep_evaluation_clips_once(sources, tmp_path):
    merged = Dataset(merge_datasets([sources["alpha"], sources["beta"]], tmp_path / "m", weights=[2, 0]))
    alpha, beta = Dataset(sources["alpha"]), Dataset(sources["beta"])
    for s in SPLITS:
        got = Counter(_origins(merged)[i] for i in merged.split(s))
        want = Counter({("alpha", int(i)): 2 if s == "train" else 1 for i in alpha.split(s)})
        if s != "train":
            want.update({("beta", int(i)): 1 for i in beta.split(s)})
        assert got == want
    n_train = len(alpha.split("train"))
    assert len(merged.split("train")) == 2 * n_train
    assert len(merged) == 2 * n_train + sum(len(d.split(s)) for d in (alpha, beta) for s in ("val", "test"))
    assert len(merged.manifest["shards"]) == 2  # more than one merged shard of 250 clips
    assert [e["clips"] for e in merged.manifest["source"]["merged"]] == [
        len(alpha) + n_train,
        len(beta) - len(beta.split("train")),
    ]


def test_fractional_weight_keeps_about_that_share_and_depends_only_on_the_seed(sources, tmp_path):
    alpha = Dataset(sources["alpha"])
    n_train = len(alpha.split("train"))
    runs = {}
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        out = merge_datasets(
            [sources["alpha"], sources["beta"]], tmp_path / name, weights=[0.5, 1], seed=seed
        )
        runs[name] = Dataset(out)
        counts = Counter(_origins(runs[name])[i] for i in runs[name].split("train"))
        alpha_train = [k for k in counts if k[0] == "alpha"]
        assert all(counts[k] == 1 for k in counts)
        # Binomial(n_train, 0.5): 4 standard deviations either side of the mean.
        assert abs(len(alpha_train) - 0.5 * n_train) <= 4 * math.sqrt(0.25 * n_train)
        for s in ("val", "test"):
            assert sorted(
                i for d, i in (_origins(runs[name])[j] for j in runs[name].split(s)) if d == "alpha"
            ) == (alpha.split(s).tolist())
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert _origins(runs["a"]) != _origins(runs["c"])


def test_statistics_are_those_of_the_merged_train_split(sources, tmp_path):
    """The merge equals a dataset written directly from the same clips, train clips of alpha doubled."""
    out = merge_datasets([sources["alpha"], sources["beta"]], tmp_path / "m", weights=[2, 1], seed=5)
    motions, splits = [], {s: [] for s in SPLITS}
    for name, n in SIZES.items():
        src = Dataset(sources[name])
        for i, m in enumerate(_clips(name, n)):
            split = next(s for s in SPLITS if i in src.split(s))
            for _ in range(2 if name == "alpha" and split == "train" else 1):
                splits[split].append(len(motions))
                motions.append(m.replace(source={**m.source, "dataset": name}))
    direct = tmp_path / "direct"
    for k in range(0, len(motions), 250):
        write_shard(direct, k // 250, motions[k : k + 250])
    finalize_dataset(
        direct, source={}, seed=5, shard_size=250, splits={s: np.array(v) for s, v in splits.items()}
    )
    merged, expected = _files(out), _files(direct)
    assert merged.keys() == expected.keys()
    assert all(merged[f] == expected[f] for f in merged if f != "manifest.json")
    stats = Dataset(out).stats
    assert stats["frames"] == sum(m.num_frames for i, m in enumerate(motions) if i in splits["train"])
    assert not np.array_equal(stats["feature_mean"], Dataset(sources["alpha"]).stats["feature_mean"])


def _make_dataset(path: Path, name: str = "other") -> Path:
    writer = DatasetWriter(path, source={"generator": name}, seed=0)
    writer.add_all(_clips(name, 3))
    return writer.finalize()


def _with_fps(src: Path, dst: Path, fps: float) -> Path:
    shutil.copytree(src, dst)
    manifest = json.loads((dst / "manifest.json").read_text())
    (dst / "manifest.json").write_text(json.dumps({**manifest, "fps": fps}))
    return dst


BAD = {
    "one source": lambda s, t: ([s["alpha"]], t / "out", {}),
    "missing source": lambda s, t: ([s["alpha"], t / "nowhere"], t / "out", {}),
    "unfinished source": lambda s, t: ([s["alpha"], t], t / "out", {}),
    "weight count": lambda s, t: ([s["alpha"], s["beta"]], t / "out", {"weights": [1.0]}),
    "negative weight": lambda s, t: ([s["alpha"], s["beta"]], t / "out", {"weights": [1.0, -0.5]}),
    "nan weight": lambda s, t: ([s["alpha"], s["beta"]], t / "out", {"weights": [float("nan"), 1.0]}),
    "infinite weight": lambda s, t: ([s["alpha"], s["beta"]], t / "out", {"weights": [float("inf"), 1.0]}),
    "weight over 100": lambda s, t: ([s["alpha"], s["beta"]], t / "out", {"weights": [1e9, 1.0]}),
    "all zero": lambda s, t: ([s["alpha"], s["beta"]], t / "out", {"weights": [0, 0.0]}),
    "no train clip left": lambda s, t: ([s["alpha"], s["beta"]], t / "out", {"weights": [1e-9, 0]}),
    "same source twice": lambda s, t: ([s["alpha"], s["alpha"]], t / "out", {}),
    "negative seed": lambda s, t: ([s["alpha"], s["beta"]], t / "out", {"seed": -1}),
    "other fps": lambda s, t: ([s["alpha"], _with_fps(s["beta"], t / "b30", 30.0)], t / "out", {}),
    "out is a source": lambda s, t: ([s["alpha"], s["beta"]], s["beta"], {}),
    "out is a dataset": lambda s, t: ([s["alpha"], s["beta"]], _make_dataset(t / "out"), {}),
    "out is not empty": lambda s, t: ([s["alpha"], s["beta"]], _non_empty(t / "out"), {}),
    "out is a file": lambda s, t: ([s["alpha"], s["beta"]], _non_empty(t / "dir") / "note.txt", {}),
}


def _non_empty(path: Path) -> Path:
    path.mkdir()
    (path / "note.txt").write_text("mine")
    return path


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_sentence_and_leaves_nothing(sources, tmp_path, case):
    work = tmp_path / "work"
    work.mkdir()
    before_sources = {name: _files(p) for name, p in sources.items()}
    srcs, out, kwargs = BAD[case](sources, work)
    before_out = _files(out) if out.is_dir() else out.read_bytes() if out.exists() else None
    listing = sorted(p.name for p in work.iterdir())
    with pytest.raises(StickgenError) as info:
        merge_datasets(srcs, out, **kwargs)
    message = str(info.value)
    assert message.endswith(".") and "\n" not in message
    after_out = _files(out) if out.is_dir() else out.read_bytes() if out.exists() else None
    assert after_out == before_out
    assert sorted(p.name for p in work.iterdir()) == listing  # no output, no temporary folder
    assert {name: _files(p) for name, p in sources.items()} == before_sources


def test_a_failure_part_way_leaves_no_output(sources, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(sources["beta"], broken)
    (broken / "shards" / "00001.npz").write_bytes(b"not a zip")
    outs = tmp_path / "outs"
    outs.mkdir()
    with pytest.raises(StickgenError, match="00001.npz"):
        merge_datasets([sources["alpha"], broken], outs / "merged")
    assert list(outs.iterdir()) == []
