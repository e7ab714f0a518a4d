"""The dataset format: round trip, splits, statistics, byte-stable and resumable synthesis, errors, CLI."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from stickgen.cli import app
from stickgen.dataset import FORMAT, Dataset, DatasetWriter, split_indices, write_npz
from stickgen.errors import StickgenError
from stickgen.figure import motion_features
from stickgen.labels import environment_vector
from stickgen.motion import Motion
from stickgen.synth.build import synthesize_dataset
from stickgen.synth.sampler import sample_clip


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _motions(n: int) -> list[Motion]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        t = int(rng.integers(1, 40))
        joints = rng.normal(size=(t, 16, 2))
        camera = None if i % 3 == 0 else np.abs(rng.normal(size=(t, 3))) + 0.1
        out.append(Motion(joints, texts=[f"clip {i}", "a person waves"], actions=rng.integers(-1, 60, size=t),
                          camera=camera, environment=environment_vector("moon" if i % 2 else "earth"),
                          source={"index": i, "nested": {"a": [1, 2]}}))  # fmt: skip
    return out


def test_round_trip_keeps_every_clip(tmp_path):
    motions = _motions(11)
    writer = DatasetWriter(tmp_path / "d", source={"kind": "test"}, seed=1, shard_size=4)
    writer.add_all(motions)
    path = writer.finalize()
    data = Dataset(path)
    assert len(data) == 11 and len(data.manifest["shards"]) == 3
    assert data.manifest["format"] == FORMAT and data.manifest["frames"] == sum(m.num_frames for m in motions)
    for i, m in enumerate(motions):
        back = data.motion(i)
        np.testing.assert_allclose(back.joints, m.joints, rtol=1e-6, atol=1e-6)
        assert np.array_equal(back.actions, m.actions)
        assert (back.camera is None) == (m.camera is None)
        if m.camera is not None:
            np.testing.assert_allclose(back.camera, m.camera, rtol=1e-6)
        np.testing.assert_array_equal(back.environment, m.environment)
        assert back.texts == m.texts and back.source == m.source and data.texts(i) == m.texts
    arrays = data.arrays()
    assert arrays.offsets[-1] == len(arrays.joints) == data.manifest["frames"]
    np.testing.assert_allclose(
        arrays.joints[arrays.offsets[5] : arrays.offsets[6]], motions[5].joints, atol=1e-6
    )


def test_splits_are_disjoint_cover_everything_and_follow_the_seed():
    s = split_indices(1000, 7)
    assert [len(s[k]) for k in ("train", "val", "test")] == [900, 50, 50]
    assert np.array_equal(np.sort(np.concatenate(list(s.values()))), np.arange(1000))
    assert all(np.array_equal(s[k], split_indices(1000, 7)[k]) for k in s)
    assert not np.array_equal(s["val"], split_indices(1000, 8)["val"])
    assert all(len(v) >= 1 for v in split_indices(3, 0).values())


def test_stats_are_the_train_features_moments(tmp_path):
    motions = _motions(30)
    writer = DatasetWriter(tmp_path / "d", source={}, seed=2, shard_size=8)
    writer.add_all(motions)
    data = Dataset(writer.finalize())
    train = data.split("train")
    feats = np.concatenate([motion_features(data.motion(int(i)).joints, 25.0) for i in train])
    stats = data.stats
    assert stats["feature_mean"].dtype == np.float32 and stats["feature_mean"].shape == (52,)
    np.testing.assert_allclose(stats["feature_mean"], feats.mean(axis=0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        stats["feature_std"], np.maximum(feats.std(axis=0), 1e-3), rtol=1e-3, atol=1e-5
    )
    assert stats["physics_std"].shape == (6,) and (stats["physics_std"] > 0).all()
    assert int(stats["frames"]) == len(feats)


def test_npz_bytes_do_not_depend_on_time(tmp_path):
    arrays = {"b": np.arange(5.0), "a": np.array("text")}
    write_npz(tmp_path / "one.npz", arrays)
    write_npz(tmp_path / "two.npz", dict(reversed(arrays.items())))
    assert (tmp_path / "one.npz").read_bytes() == (tmp_path / "two.npz").read_bytes()
    with np.load(tmp_path / "one.npz", allow_pickle=False) as z:
        assert str(z["a"]) == "text" and z["b"].tolist() == [0, 1, 2, 3, 4]


def test_synthesis_is_byte_for_byte_deterministic(tmp_path):
    a = synthesize_dataset(tmp_path / "a", clips=30, seed=5, workers=1, shard_size=8)
    b = synthesize_dataset(tmp_path / "b", clips=30, seed=5, workers=1, shard_size=8)
    assert _files(a) == _files(b)
    c = synthesize_dataset(tmp_path / "c", clips=30, seed=6, workers=1, shard_size=8)
    assert _files(a)["shards/00000.npz"] != _files(c)["shards/00000.npz"]
    data = Dataset(a)
    assert np.array_equal(data.motion(13).joints, sample_clip(5, 13).joints.astype(np.float32))


def test_synthesis_resumes_to_the_same_bytes(tmp_path):
    full = _files(synthesize_dataset(tmp_path / "full", clips=30, seed=5, workers=1, shard_size=8))

    # Interrupted after two shards: the progress callback raises, as a Ctrl-C would.
    calls = []

    def stop_after_two(n):
        calls.append(n)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        synthesize_dataset(
            tmp_path / "cut", clips=30, seed=5, workers=1, shard_size=8, progress=stop_after_two
        )
    assert not (tmp_path / "cut" / "manifest.json").exists()
    assert len(list((tmp_path / "cut" / "shards").glob("*.npz"))) == 2
    seen = []
    synthesize_dataset(tmp_path / "cut", clips=30, seed=5, workers=1, shard_size=8, progress=seen.append)
    assert seen[0] == 16  # the two finished shards are counted, not regenerated
    assert _files(tmp_path / "cut") == full

    # A finished dataset that lost its manifest and a shard is finished again, identically.
    (tmp_path / "cut" / "manifest.json").unlink()
    (tmp_path / "cut" / "shards" / "00001.npz").unlink()
    synthesize_dataset(tmp_path / "cut", clips=30, seed=5, workers=1, shard_size=8)
    assert _files(tmp_path / "cut") == full


@pytest.mark.slow
def test_parallel_synthesis_gives_the_same_bytes(tmp_path):
    one = synthesize_dataset(tmp_path / "one", clips=40, seed=9, workers=1, shard_size=10)
    two = synthesize_dataset(tmp_path / "two", clips=40, seed=9, workers=2, shard_size=10)
    assert _files(one) == _files(two)


def test_synthesis_refuses_another_dataset_in_the_folder(tmp_path):
    synthesize_dataset(tmp_path / "d", clips=5, seed=1, workers=1, shard_size=4)
    with pytest.raises(StickgenError, match="different synthetic dataset"):
        synthesize_dataset(tmp_path / "d", clips=5, seed=2, workers=1, shard_size=4)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(StickgenError, match="not empty"):
        synthesize_dataset(tmp_path / "other", clips=5, seed=1, workers=1)
    with pytest.raises(StickgenError, match="already holds a finished dataset"):
        DatasetWriter(tmp_path / "d", source={}, seed=0)


def test_broken_datasets_raise_one_sentence(tmp_path):
    with pytest.raises(StickgenError, match="No dataset folder"):
        Dataset(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(StickgenError, match="no manifest.json"):
        Dataset(tmp_path / "empty")
    path = synthesize_dataset(tmp_path / "d", clips=5, seed=1, workers=1, shard_size=4)
    shutil.copytree(path, tmp_path / "bad")
    (tmp_path / "bad" / "manifest.json").write_text("{not json")
    with pytest.raises(StickgenError, match="not valid JSON"):
        Dataset(tmp_path / "bad")
    manifest = json.loads((path / "manifest.json").read_text())
    (tmp_path / "bad" / "manifest.json").write_text(json.dumps({**manifest, "format_version": 99}))
    with pytest.raises(StickgenError, match="format version 99"):
        Dataset(tmp_path / "bad")
    (tmp_path / "bad" / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "bad" / "shards" / "00001.npz").write_bytes(b"truncated")
    data = Dataset(tmp_path / "bad")
    with pytest.raises(StickgenError, match="not a readable dataset shard"):
        data.motion(4)
    with pytest.raises(StickgenError, match="out of range"):
        data.motion(5)


def test_cli_synth_stats_and_preview(tmp_path):
    runner = CliRunner()
    out = tmp_path / "d"
    result = runner.invoke(
        app, ["data", "synth", "--out", str(out), "--clips", "12", "--seed", "3", "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    assert str(out) in result.stdout and (out / "manifest.json").exists()
    result = runner.invoke(app, ["data", "stats", str(out)])
    assert result.exit_code == 0, result.output
    assert "clips: 12" in result.stdout and "physical checks over 12 clips" in result.stdout
    gif = tmp_path / "preview.gif"
    result = runner.invoke(app, ["data", "preview", str(out), "--n", "2", "-o", str(gif)])
    assert result.exit_code == 0, result.output
    from PIL import Image

    with Image.open(gif) as im:
        assert im.n_frames > 1


def test_an_interrupted_synth_says_how_to_resume_and_no_worker_speaks(tmp_path):
    """Ctrl-C reaches the whole process group (the workers too), here while the workers start up."""
    command = [sys.executable, "-m", "stickgen", "data", "synth", "--out", "d", "--clips", "4000",
               "--workers", "2"]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_ctrl_c_as_in_a_terminal,
    )  # fmt: skip
    time.sleep(3.0)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert process.returncode == 130, stderr
    assert lines[-1] == "stickgen: interrupted; rerun the same command to resume.", stderr
    assert all(line.startswith("synth:") for line in lines[:-1]), stderr
    assert (tmp_path / "d" / "plan.json").exists()


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child: Ctrl-C does what it does in a terminal, even when these tests were started in the
    background by a shell, which makes its children ignore SIGINT (and Python then installs no handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
