"""Training batches: the packed clip bank and `collate`, checked against padding clip by clip."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from stickgen import figure as fg
from stickgen.batches import BucketSampler, ClipBank, collate
from stickgen.objective import Draws
from tests.clips import walking_clip


def bank() -> ClipBank:
    """Clips of different lengths; every third without a camera track, every fourth without text."""
    motions = []
    for i in range(9):
        clip = walking_clip(frames=10 + 4 * i, seed=i)
        motions.append(clip.replace(camera=None) if i % 3 == 1 else clip)
    rows = [[] if i % 4 == 2 else list(range(i % 3 + 1)) for i in range(9)]
    table = np.random.default_rng(1).normal(size=(3, 8)).astype(np.float32)
    return ClipBank.from_motions(motions, rows, table)


def padded(bank: ClipBank, indices, mean, std, choice) -> dict[str, np.ndarray]:
    """The batch written out clip by clip: the definition `collate` must match bit for bit."""
    clips = [bank.clips[i] for i in indices]
    B, T = len(clips), max(len(c.features) for c in clips)
    out = {
        "features": np.zeros((B, T, fg.FEATURE_DIM), np.float32),
        "mask": np.zeros((B, T), bool),
        "actions": np.full((B, T), -1, np.int64),
        "camera": np.zeros((B, T, 3), np.float32),
        "has_camera": np.zeros(B, bool),
        "physics": np.zeros((B, T, fg.PHYSICS_DIM), np.float32),
        "bones": np.stack([c.bones for c in clips]),
        "environment": np.stack([c.environment for c in clips]),
        "text": np.zeros((B, bank.text_table.shape[1]), np.float32),
        "has_text": np.zeros(B, bool),
    }
    for b, clip in enumerate(clips):
        n = len(clip.features)
        out["features"][b, :n] = (clip.features - mean) / std
        out["mask"][b, :n] = True
        out["actions"][b, :n] = clip.actions
        out["physics"][b, :n] = clip.physics
        if clip.camera is not None:
            out["camera"][b, :n] = clip.camera
            out["has_camera"][b] = True
        if len(clip.text_rows):
            k = min(int(choice[b] * len(clip.text_rows)), len(clip.text_rows) - 1)
            out["text"][b] = bank.text_table[clip.text_rows[k]]
            out["has_text"][b] = True
    return out


def test_collate_equals_padding_clip_by_clip():
    data = bank()
    features = np.concatenate([c.features for c in data.clips])
    mean, std = features.mean(axis=0), features.std(axis=0) + 1e-3
    rng = np.random.default_rng(0)
    for batch_size in (1, 4, 9):
        for indices in BucketSampler(data.lengths, batch_size, seed=2).epoch(0):
            choice = rng.random(batch_size).astype(np.float32)
            choice[0] = np.nextafter(np.float32(1), np.float32(0))  # the top of [0, 1): a clip's last text
            got = vars(collate(data, indices, mean, std, torch.from_numpy(choice)))
            want = padded(data, indices, mean, std, choice)
            assert set(got) == set(want)
            for name, value in want.items():
                assert got[name].dtype == torch.from_numpy(value).dtype, name
                np.testing.assert_array_equal(got[name].numpy(), value, err_msg=name)


def test_bank_holds_each_frame_once():
    data = bank()
    assert len(data.features) == data.frames == int(data.lengths.sum())
    for clip, start in zip(data.clips, data.starts, strict=True):
        assert np.shares_memory(clip.features, data.features)
        np.testing.assert_array_equal(clip.features, data.features[start : start + len(clip.features)])
    assert data.clips[1].camera is None and data.clips[0].camera is not None
    assert len(data.clips[2].text_rows) == 0 and list(data.clips[4].text_rows) == [0, 1]
    # On the CPU the tensors a batch is gathered from are the bank's own arrays, not copies.
    assert data.tensors("cpu")["features"].data_ptr() == data.features.ctypes.data


def test_a_bank_without_any_text():
    motions = [walking_clip(frames=10 + i, seed=i) for i in range(3)]
    data = ClipBank.from_motions(motions, [[], [], []], np.zeros((0, 8), np.float32))
    batch = collate(data, [0, 2], np.zeros(52, np.float32), np.ones(52, np.float32), np.zeros(2))
    assert not batch.has_text.any() and batch.text.shape == (2, 8) and not batch.text.any()


def test_draws_on_the_cpu_are_fixed_by_the_generator():
    a = Draws.draw(3, 5, torch.Generator().manual_seed(7))
    b = Draws.draw(3, 5, torch.Generator().manual_seed(7), "cpu")
    for x, y in zip(vars(a).values(), vars(b).values(), strict=True):
        assert torch.equal(x, y)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_collate_on_a_gpu_equals_the_cpu():
    data = bank()
    mean, std = np.zeros(52, np.float32), np.ones(52, np.float32)
    choice = torch.rand(5)
    cpu = collate(data, [0, 3, 4, 7, 8], mean, std, choice)
    gpu = collate(data, [0, 3, 4, 7, 8], mean, std, choice, device="cuda")
    for name, value in vars(cpu).items():
        assert torch.equal(getattr(gpu, name).cpu(), value), name
    draws = Draws.draw(4, 6, torch.Generator().manual_seed(3), "cuda")
    again = Draws.draw(4, 6, torch.Generator().manual_seed(3), "cuda")
    assert draws.noise.device.type == "cuda" and torch.equal(draws.noise, again.noise)


def test_a_clips_runs_count_its_changes_of_action_and_unknown_frames_stay_in_the_run_before():
    from stickgen.batches import clip_runs

    assert clip_runs(np.array([3, 3, -1, 5, 5, -1, 3])).tolist() == [0, 0, 0, 1, 1, 1, 2]
    assert clip_runs(np.array([-1, -1, 4, 4])).tolist() == [0, 0, 0, 0]
    assert clip_runs(np.array([-1, -1])).tolist() == [0, 0]


def test_a_description_of_as_many_parts_as_runs_gives_each_run_its_parts_sentence():
    # walking_clip walks for its first half, then jumps: two runs
    two = walking_clip(frames=20, seed=0)
    three = two.replace(actions=np.repeat([1, 15, 19], [7, 7, 6]))
    table = np.random.default_rng(2).normal(size=(4, 8)).astype(np.float32)
    parts = [[1, 2], [], [], []]  # row 0 is "walks, then jumps", rows 1 and 2 its parts; row 3 one part
    data = ClipBank.from_motions([two, walking_clip(frames=16, seed=1), three], [[0], [3], [0]], table, parts)
    mean, std = np.zeros(fg.FEATURE_DIM), np.ones(fg.FEATURE_DIM)
    choice = np.zeros(3)
    whole = collate(data, [0, 1, 2], mean, std, choice)
    assert whole.text.shape == (3, 8)  # without parts: a sentence per clip, as before
    assert collate(data, [0, 1, 2], mean, std, choice, parts=np.zeros(3, bool)).text.shape == (3, 8)
    batch = collate(data, [0, 1, 2], mean, std, choice, parts=np.ones(3, bool))
    text = batch.text.numpy()
    assert text.shape == (3, 20, 8)
    np.testing.assert_array_equal(text[0, :10], np.broadcast_to(table[1], (10, 8)))  # the walk's part
    np.testing.assert_array_equal(text[0, 10:], np.broadcast_to(table[2], (10, 8)))  # the jump's
    np.testing.assert_array_equal(text[1], np.broadcast_to(table[3], (20, 8)))  # one part: its sentence
    np.testing.assert_array_equal(text[2], np.broadcast_to(table[0], (20, 8)))  # three runs, two parts
    # where no clip's description splits into its runs, the batch keeps a sentence per clip
    others = collate(data, [0, 1, 2], mean, std, choice, parts=np.array([False, True, True])).text
    torch.testing.assert_close(others, whole.text)
