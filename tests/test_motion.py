"""`Motion`: validation, the .npz and .json files, and clip operations."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stickgen.clip_ops import anchor, concatenate, resample, trim
from stickgen.errors import StickgenError
from stickgen.figure import J
from stickgen.labels import action_id, environment_vector
from stickgen.motion import Motion, describe, load_motion, motion_to_json, save_motion
from tests.clips import standing_pose, walking_clip


def assert_same_motion(a: Motion, b: Motion, atol: float = 0.0) -> None:
    np.testing.assert_allclose(a.joints, b.joints, rtol=0, atol=atol)
    assert a.fps == b.fps and a.texts == b.texts and a.source == b.source
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.environment, b.environment)
    if a.camera is None:
        assert b.camera is None
    else:
        np.testing.assert_allclose(a.camera, b.camera, rtol=0, atol=atol)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"joints": np.zeros((5, 15, 2))}, "shape (T, 16, 2)"),
        ({"joints": np.zeros((0, 16, 2))}, "no frames"),
        ({"joints": np.full((5, 16, 2), np.nan)}, "NaN or infinite"),
        ({"fps": 0}, "fps must be a positive"),
        ({"fps": -25.0}, "fps must be a positive"),
        ({"actions": np.array([0, 1, 60, 2, 3])}, "-1..59"),
        ({"actions": np.array([0, -2, 0, 0, 0])}, "-1..59"),
        ({"actions": np.zeros(4, dtype=int)}, "one per frame"),
        ({"camera": np.ones((5, 2))}, "camera must have shape"),
        ({"environment": np.zeros(31)}, "environment must be 32"),
    ],
)
def test_validation_gives_one_sentence_per_problem(change, message):
    kwargs = {"joints": np.zeros((5, 16, 2))} | change
    with pytest.raises(StickgenError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        Motion(**kwargs)
    text = str(info.value)
    assert text.endswith(".") and "\n" not in text


def test_defaults():
    m = Motion(np.zeros((3, 16, 2)))
    assert m.fps == 25.0 and m.duration == pytest.approx(0.12)
    assert m.actions.tolist() == [-1, -1, -1] and m.camera is None
    np.testing.assert_array_equal(m.environment, environment_vector("earth"))


@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_file_round_trip(tmp_path, suffix):
    clip = walking_clip()
    path = save_motion(clip, tmp_path / f"clip{suffix}")
    back = load_motion(path)
    assert_same_motion(clip, back, atol=0.0 if suffix == ".npz" else 1e-6)
    assert list(tmp_path.iterdir()) == [path]  # no temporary files left behind


@given(
    frames=st.integers(1, 30),
    fps=st.floats(1.0, 120.0),
    scale=st.floats(1e-3, 1e3),
    seed=st.integers(0, 2**32 - 1),
)
@settings(max_examples=25, deadline=None)
def test_json_round_trip_within_1e6(tmp_path_factory, frames, fps, scale, seed):
    rng = np.random.default_rng(seed)
    joints = rng.normal(scale=scale, size=(frames, 16, 2))
    clip = Motion(joints, fps=fps, actions=rng.integers(-1, 60, frames))
    path = save_motion(clip, tmp_path_factory.mktemp("json") / "c.json")
    back = load_motion(path)
    np.testing.assert_allclose(back.joints, clip.joints, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(back.actions, clip.actions)
    assert back.fps == clip.fps


def test_json_document_is_self_describing():
    doc = motion_to_json(walking_clip(frames=3))
    assert doc["format"] == "stickgen.motion" and doc["schema_version"] == 1
    assert doc["frames"] == 3 and len(doc["joint_names"]) == 16
    json.dumps(doc)  # plain JSON types only


def test_load_errors_are_one_sentence(tmp_path):
    good = save_motion(walking_clip(), tmp_path / "good.npz")
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    wrong_schema = tmp_path / "wrong.json"
    wrong_schema.write_text(json.dumps({"format": "stickgen.motion", "schema_version": 99, "joints": []}))
    not_ours = tmp_path / "other.json"
    not_ours.write_text(json.dumps({"hello": 1}))
    broken_json = tmp_path / "broken.json"
    broken_json.write_text('{"format": "stickgen.mo')
    no_joints = tmp_path / "nojoints.npz"
    np.savez(no_joints, fps=25.0)
    cases = {
        tmp_path / "missing.npz": "No such file",
        truncated: "truncated or corrupt",
        wrong_schema: "schema_version 99",
        not_ours: "not a stickgen motion JSON",
        broken_json: "not valid JSON",
        no_joints: "lacks the 'joints' array",
        tmp_path: "is a directory",
        tmp_path / "clip.txt": "No such file",
    }
    for path, message in cases.items():
        with pytest.raises(StickgenError, match=message):
            load_motion(path)
    (tmp_path / "clip.txt").write_text("x")
    with pytest.raises(StickgenError, match="unsupported suffix"):
        load_motion(tmp_path / "clip.txt")


def test_describe_mentions_the_essentials():
    text = describe(walking_clip())
    needles = ("frames:      50", "2.00 s", "moon", "walk", "jump", "a person walks, then jumps", "x -0.")
    for needle in needles:
        assert needle in text


def test_resampling_a_linear_motion_is_exact():
    fps = 30.0
    t = np.arange(61) / fps  # 2 s
    velocity = np.array([0.9, 0.2])
    joints = standing_pose()[None] + (t[:, None] * velocity)[:, None, :]
    clip = Motion(joints, fps=fps, camera=np.column_stack([t, t, np.ones_like(t)]))
    out = resample(clip, 25.0)
    assert out.fps == 25.0 and out.num_frames == 51  # 0..2 s inclusive at 25 fps
    new_t = np.arange(51) / 25.0
    expected = standing_pose()[None] + (new_t[:, None] * velocity)[:, None, :]
    np.testing.assert_allclose(out.joints, expected, atol=1e-12)
    np.testing.assert_allclose(out.camera[:, 0], new_t, atol=1e-12)


def test_resample_keeps_actions_and_handles_one_frame():
    clip = walking_clip(frames=50, fps=50.0)
    out = resample(clip, 25.0)
    assert out.num_frames == 25
    assert out.actions[0] == action_id("walk") and out.actions[-1] == action_id("jump")
    one = resample(Motion(np.zeros((1, 16, 2)), fps=60.0), 25.0)
    assert one.num_frames == 1


def test_trim_and_anchor():
    clip = walking_clip()
    part = trim(clip, 10, 20)
    assert part.num_frames == 10
    np.testing.assert_array_equal(part.joints, clip.joints[10:20])
    np.testing.assert_array_equal(part.camera, clip.camera[10:20])
    assert trim(clip, -5).num_frames == 5
    with pytest.raises(StickgenError, match="leaves no frames"):
        trim(clip, 30, 30)
    anchored = anchor(part)
    assert anchored.joints[0, J["pelvis"], 0] == 0.0
    np.testing.assert_allclose(np.diff(anchored.joints[:, 0, 0]), np.diff(part.joints[:, 0, 0]))


def test_concatenate_continues_where_the_first_clip_ends():
    a = walking_clip(frames=50, seed=1)
    b = walking_clip(frames=40, seed=2)
    out = concatenate(a, b, crossfade=0.2)  # 5 frames of overlap at 25 fps
    assert out.num_frames == 50 + 40 - 5
    np.testing.assert_array_equal(out.joints[:45], a.joints[:45])
    # The second clip is shifted so it starts where the overlap starts: no jump in x.
    dx = a.joints[45, J["pelvis"], 0] - b.joints[0, J["pelvis"], 0]
    np.testing.assert_allclose(out.joints[-1], b.joints[-1] + [dx, 0.0])
    step = np.abs(np.diff(out.joints[:, J["pelvis"], 0]))
    assert step.max() < 0.1  # no pop: 1.2 m/s is 0.048 m per frame
    assert out.texts == ["a person walks, then jumps, then a person walks, then jumps"]
    assert out.actions.shape == (85,)


def test_concatenate_refuses_different_environments():
    a = walking_clip()
    b = a.replace(environment=environment_vector("earth"))
    with pytest.raises(StickgenError, match="different environments"):
        concatenate(a, b)
