"""Real-data importers: BVH (CMU names, joint maps, units, our own export), HumanML3D / KIT-ML, the
shared geometry (views, handedness, floor, windows), robustness, resume, and the real CMU clip."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stickgen.action_words import actions_from_texts
from stickgen.bvh import BVHError, parse_bvh, write_bvh
from stickgen.dataset import Dataset
from stickgen.errors import StickgenError
from stickgen.figure import J, bone_lengths, standing_height
from stickgen.importers import build, make_source
from stickgen.importers.build import import_dataset
from stickgen.importers.bvh import BVHSource
from stickgen.importers.clips import ClipOptions, RawClip, motions_from_raw
from stickgen.importers.geometry import choose_view, to_y_up
from stickgen.importers.humanml3d import SKELETONS, HumanML3DSource
from stickgen.importers.skeleton import figure_from_indices
from stickgen.labels import action_id
from tests import mocap

CMU_FILE = Path(__file__).resolve().parents[2] / "shared" / "data" / "cmu_09_01.bvh"


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def read_one(path: Path, **kw) -> RawClip:
    raws, _ = BVHSource(**kw).read(path, path.name)
    assert len(raws) == 1
    return raws[0]


# ---------------------------------------------------------------------------------------------
# BVH: names, forward kinematics, units, sides


def expected_joints_cm(rest: dict, root: np.ndarray) -> dict[str, np.ndarray]:
    """Where the importer must put our joints for the fixture skeleton at root offset `root` (cm)."""
    p = {k: v + root for k, v in rest.items()}
    pelvis = 0.5 * (p["LeftUpLeg"] + p["RightUpLeg"])
    neck = p["Neck1"]
    return {
        "pelvis": pelvis, "neck": neck, "chest": pelvis + 0.6 * (neck - pelvis),
        "head": 0.5 * (p["Head"] + p["Head_end"]),
        "l_hip": p["LeftUpLeg"], "l_knee": p["LeftLeg"], "l_ankle": p["LeftFoot"],
        "r_hip": p["RightUpLeg"], "r_knee": p["RightLeg"], "r_ankle": p["RightFoot"],
        "l_shoulder": p["LeftArm"], "l_elbow": p["LeftForeArm"], "l_wrist": p["LeftHand"],
        "r_shoulder": p["RightArm"], "r_elbow": p["RightForeArm"], "r_wrist": p["RightHand"],
    }  # fmt: skip


def test_cmu_named_bvh_maps_every_joint_by_forward_kinematics(tmp_path):
    path = write(tmp_path / "walk.bvh", mocap.bvh_text())
    raw = read_one(path, text="a person walks")
    assert raw.source["unit"] == "cm" and not raw.source["dropped_first_frame"]
    rest = mocap.rest_positions_cm()
    for t in (0, 17):
        root = np.array([0.0, mocap.ROOT_HEIGHT, 4.0 * t])
        for name, where in expected_joints_cm(rest, root).items():
            np.testing.assert_allclose(raw.points[t, J[name]], where / 100.0, atol=1e-9, err_msg=name)
    np.testing.assert_allclose(raw.toes[0, 0], (rest["LeftToeBase"] + [0, mocap.ROOT_HEIGHT, 0]) / 100)

    (motion,), notes = motions_from_raw(raw, ClipOptions())
    assert notes == {"views": ["side"], "mirrored": False, "labelled": True}
    # Side view of the travel along +z: x is z, the floor is at the ankles (6 cm up in the file).
    x = raw.points[..., 2] - raw.points[0, J["pelvis"], 2]
    np.testing.assert_allclose(motion.joints[..., 0], x, atol=1e-9)
    np.testing.assert_allclose(motion.joints[..., 1], raw.points[..., 1] - 0.06, atol=1e-9)
    assert (motion.actions == action_id("walk")).all()
    assert motion.camera is not None and motion.camera.shape == (motion.num_frames, 3)


def test_a_bent_knee_moves_the_ankle_as_forward_kinematics_says(tmp_path):
    motion = mocap.walking_channels(30)
    motion[10:, mocap.channel_column("LeftLeg", "Xrotation")] = 90.0  # the shin swings back, level
    raw = read_one(write(tmp_path / "k.bvh", mocap.bvh_text(motion=motion)), text="x")
    knee, ankle = raw.points[12, J["l_knee"]], raw.points[12, J["l_ankle"]]
    np.testing.assert_allclose(ankle - knee, [0.0, 0.0, -0.42], atol=1e-9)
    np.testing.assert_allclose(
        raw.points[5, J["l_ankle"]] - raw.points[5, J["l_knee"]], [0, -0.42, 0], atol=1e-9
    )


def test_units_are_guessed_from_the_figure_height(tmp_path):
    for unit, factor in (("m", 0.01), ("cm", 1.0), ("mm", 10.0), ("inch", 1 / 2.54)):
        skeleton = [(n, p, tuple(factor * v for v in o)) for n, p, o in mocap.CMU_SKELETON]
        ends = {k: tuple(factor * v for v in o) for k, o in mocap.END_SITES.items()}
        motion = mocap.walking_channels(20) * factor
        raw = read_one(write(tmp_path / f"{unit}.bvh", mocap.bvh_text(skeleton, ends, motion)), text="x")
        assert raw.source["unit"] == unit
        assert standing_height(raw.points) == pytest.approx(1.83, abs=0.01)
    raw = read_one(tmp_path / "cm.bvh", text="x", scale=0.02)  # --scale wins over the guess
    assert raw.source["unit"] == "given" and standing_height(raw.points) == pytest.approx(3.66, abs=0.02)


def test_swapped_left_and_right_are_found_and_mirrored(tmp_path):
    swap = {n: n.replace("Left", "@").replace("Right", "Left").replace("@", "Right")
            for n, _, _ in mocap.CMU_SKELETON}  # fmt: skip
    swap.update({"LHipJoint": "RHipJoint", "RHipJoint": "LHipJoint"})
    good = read_one(write(tmp_path / "good.bvh", mocap.bvh_text()), text="x")
    bad = read_one(write(tmp_path / "bad.bvh", mocap.bvh_text(rename=swap)), text="x")
    for raw, mirrored in ((good, False), (bad, True)):
        (m,), notes = motions_from_raw(raw, ClipOptions(view="front"))
        assert notes["mirrored"] is mirrored
        # Seen from the front, the figure's left limbs are on the +x side.
        assert (m.joints[:, J["l_hip"], 0] > m.joints[:, J["r_hip"], 0]).all()
        assert (m.joints[:, J["l_wrist"], 0] > m.joints[:, J["r_wrist"], 0]).all()


def test_a_skeleton_with_unknown_names_needs_a_joint_map(tmp_path):
    names = {n: f"bone{k:02d}" for k, (n, _, _) in enumerate(mocap.CMU_SKELETON)}
    path = write(tmp_path / "odd.bvh", mocap.bvh_text(rename=names))
    with pytest.raises(StickgenError, match="joint-map"):
        read_one(path, text="x")
    ours = {"l_hip": "LeftUpLeg", "l_knee": "LeftLeg", "l_ankle": "LeftFoot", "r_hip": "RightUpLeg",
            "r_knee": "RightLeg", "r_ankle": "RightFoot", "l_shoulder": "LeftArm", "l_elbow": "LeftForeArm",
            "l_wrist": "LeftHand", "r_shoulder": "RightArm", "r_elbow": "RightForeArm",
            "r_wrist": "RightHand", "neck": "Neck1", "head": "Head"}  # fmt: skip
    lines = [f"{k}: {names[v]}" for k, v in ours.items()]
    spine = ", ".join(names[n] for n in ("Hips", "LowerBack", "Spine", "Spine1", "Neck"))
    lines += [f"head_top: {names['Head']}_end", f"l_toe: {names['LeftToeBase']}"]
    lines += [f"r_toe: {names['RightToeBase']}", f"spine: [{spine}]"]
    joint_map = write(tmp_path / "map.yaml", "\n".join(lines) + "\n")
    mapped = read_one(path, **_source_kwargs(make_source("bvh", text="x", joint_map=joint_map)))
    named = read_one(write(tmp_path / "named.bvh", mocap.bvh_text()), text="x")
    np.testing.assert_allclose(mapped.points, named.points, atol=1e-12)
    np.testing.assert_allclose(mapped.toes, named.toes, atol=1e-12)

    write(tmp_path / "bad.yaml", "l_hip: A\nelbow: B\n")
    with pytest.raises(StickgenError, match="unknown key 'elbow'"):
        make_source("bvh", joint_map=tmp_path / "bad.yaml")
    with pytest.raises(StickgenError, match="No such joint map"):
        make_source("bvh", joint_map=tmp_path / "missing.yaml")


def _source_kwargs(source: BVHSource) -> dict:
    return {"text": source.text, "joint_map": source.joint_map}


def test_the_text_comes_from_a_sidecar_then_text_then_the_file_name(tmp_path):
    path = write(tmp_path / "jump_forward_02.bvh", mocap.bvh_text())
    assert read_one(path).texts == ["jump forward"]
    assert read_one(path, text="someone hops").texts == ["someone hops"]
    write(tmp_path / "jump_forward_02.txt", "a person leaps ahead\n\nsomeone jumps forward\n")
    assert read_one(path, text="someone hops").texts == ["a person leaps ahead", "someone jumps forward"]


def test_a_rest_pose_first_frame_is_dropped(tmp_path):
    motion = mocap.walking_channels(30)
    motion[0, mocap.channel_column("LeftArm", "Zrotation")] = 80.0  # a T-pose-like first frame
    motion[0, mocap.channel_column("RightArm", "Zrotation")] = -80.0
    raw = read_one(write(tmp_path / "t.bvh", mocap.bvh_text(motion=motion)), text="x")
    assert raw.source["dropped_first_frame"] and len(raw.points) == 29


def test_a_tpose_first_frame_is_dropped_from_capture_with_fast_noisy_frames_of_its_own(tmp_path):
    fps = 120.0
    run = mocap.noisy_run_channels(150, fps)
    text = mocap.bvh_text(motion=mocap.with_tpose_first(run), frame_time=1 / fps)
    raw = read_one(write(tmp_path / "run.bvh", text), text="a person runs")
    speed = np.linalg.norm(np.diff(raw.points, axis=0), axis=-1).max(axis=1) * fps
    assert speed.max() > 10.0  # the glitches: the run itself has frames the old rule took for a rest pose
    assert raw.source["dropped_first_frame"] and len(raw.points) == 150
    # the T-pose frame is gone: the first frame has its arms down, as the run does
    assert (raw.points[0, [J["l_wrist"], J["r_wrist"]], 1] < raw.points[0, J["neck"], 1] - 0.3).all()
    plain = read_one(write(tmp_path / "plain.bvh", mocap.bvh_text(motion=run, frame_time=1 / fps)), text="x")
    assert not plain.source["dropped_first_frame"] and len(plain.points) == 150


# ---------------------------------------------------------------------------------------------
# Our own export comes back unchanged


def test_bvh_export_then_import_gives_the_same_joints_within_a_millimetre(tmp_path):
    from stickgen.synth.sampler import sample_clip

    clips = [sample_clip(3, i) for i in range(6)]
    for i, m in enumerate(clips):
        write_bvh(m, tmp_path / "src" / f"clip{i}.bvh")
        write(tmp_path / "src" / f"clip{i}.txt", "\n".join(m.texts) + "\n")
    import_dataset(
        BVHSource(), tmp_path / "src", tmp_path / "out", options=ClipOptions(min_seconds=0.04), workers=1
    )
    data = Dataset(tmp_path / "out")
    assert len(data) == len(clips)
    for i, m in enumerate(clips):
        got = data.motion(i)
        expected = m.joints.copy()
        expected[..., 1] -= expected[:, [J["l_ankle"], J["r_ankle"]], 1].min()  # the floor rule
        expected[..., 0] -= expected[0, J["pelvis"], 0]
        assert np.abs(got.joints - expected).max() < 1e-3
        assert got.texts == m.texts and got.source["view"] == "as written"


# ---------------------------------------------------------------------------------------------
# Geometry


def smpl_figure(frames: int, facing: float = 0.0) -> np.ndarray:
    """(frames, 16, 3) our joints from the SMPL rest pose, turned to face `facing` radians from +z."""
    pose = np.repeat(mocap.smpl_rest_pose()[None], frames, axis=0)
    sk = SKELETONS["humanml3d"]
    points, _ = figure_from_indices(pose, sk.indices, sk.spine, sk.toes)
    c, s = np.cos(facing), np.sin(facing)
    turn = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])  # about y: +z turns towards +x
    return points @ turn.T


def test_to_y_up_turns_a_z_up_source_properly():
    points = smpl_figure(1)[0]
    z_up = np.stack([points[:, 0], -points[:, 2], points[:, 1]], axis=-1)
    np.testing.assert_allclose(to_y_up(z_up, "z"), points, atol=1e-12)
    assert np.linalg.det(np.stack([to_y_up(np.eye(3)[k], "z") for k in range(3)])) == pytest.approx(1.0)


@pytest.mark.parametrize("facing", [0.0, 0.7, 2.5, -1.9])
def test_the_view_follows_travel_then_limb_motion(facing):
    t = np.arange(50)
    forward = np.array([np.sin(facing), 0.0, np.cos(facing)])
    left = np.cross(np.array([0.0, 1.0, 0.0]), forward)
    walk = smpl_figure(50, facing) + (0.03 * t)[:, None, None] * forward
    axis, view = choose_view(walk)
    assert view == "side" and axis @ forward == pytest.approx(1.0)

    wave = smpl_figure(50, facing)
    wave[:, J["l_wrist"]] += (0.3 * np.sin(t / 4))[:, None] * left  # the arm swings across the body
    axis, view = choose_view(wave)
    assert view == "front" and axis @ left == pytest.approx(1.0, abs=1e-6)

    kick = smpl_figure(50, facing)
    kick[:, J["l_ankle"]] += (0.4 * np.abs(np.sin(t / 4)))[:, None] * forward
    axis, view = choose_view(kick)
    assert view == "side" and axis @ forward == pytest.approx(1.0, abs=1e-6)

    axis, view = choose_view(smpl_figure(50, facing))  # standing still: from the front
    assert view == "front" and axis @ left == pytest.approx(1.0)
    axis, view = choose_view(wave, "side")
    assert view == "side" and axis @ forward == pytest.approx(1.0)


def test_long_clips_are_split_into_windows_with_their_texts():
    points = smpl_figure(26 * 25)  # 26 s at 25 fps
    raw = RawClip(points, 25.0, ["a person stands still"], "g")
    motions, notes = motions_from_raw(raw, ClipOptions())
    assert [m.num_frames for m in motions] == [217, 216, 217]
    assert all(m.texts == ["a person stands still"] for m in motions)
    assert [m.source["frames"] for m in motions] == [[0, 217], [217, 433], [433, 650]]
    assert all((m.actions == action_id("idle")).all() for m in motions)


def test_frame_actions_take_the_majority_of_the_descriptions():
    walk, run = action_id("walk"), action_id("run")
    actions = actions_from_texts(["a man walks", "someone walks slowly", "a person runs"], 10)
    assert (actions == walk).all()
    assert (actions_from_texts(["a man walks", "a person runs"], 4) == -1).all()  # a tie
    split = actions_from_texts(["a person walks, then runs"], 10)
    assert list(split) == [walk] * 5 + [run] * 5
    assert (actions_from_texts(["a person drinks water"], 3) == -1).all()


# ---------------------------------------------------------------------------------------------
# HumanML3D and KIT-ML


def humanml3d_folder(root: Path, kind: str = "humanml3d") -> Path:
    sk = SKELETONS[kind]
    rest = mocap.smpl_rest_pose()
    if kind == "kit":  # the KIT layout from the same figure
        smpl_of = {0: 0, 1: 3, 2: 6, 3: 12, 4: 15, 5: 17, 6: 19, 7: 21, 8: 16, 9: 18, 10: 20,
                   11: 2, 12: 5, 13: 8, 14: 11, 15: 11, 16: 1, 17: 4, 18: 7, 19: 10, 20: 10}  # fmt: skip
        rest = rest[[smpl_of[k] for k in range(21)]]
    frames = 60
    walk = np.repeat(rest[None], frames, axis=0)
    walk[..., 2] += 0.06 * np.arange(frames)[:, None]  # 1.2 m/s along +z at 20 fps
    walk /= sk.scale
    write(root / "new_joints" / "000000.npy", b"")
    np.save(root / "new_joints" / "000000.npy", walk)
    np.save(root / "new_joints" / "000004.npy", walk[:40])
    nan = walk.copy()
    nan[3, 2, 1] = np.nan
    np.save(root / "new_joints" / "000001.npy", nan)
    np.save(root / "new_joints" / "000002.npy", walk[:, :5])
    np.save(root / "new_joints" / "000003.npy", walk)
    np.save(root / "new_joints" / "000005.npy", walk)
    write(root / "texts" / "000000.txt",
          "a person walks forward.#a/DET person/NOUN#0.0#0.0\n"
          "someone walks ahead#someone/PRON#0.0#0.0\n"
          "a person waves#a/DET#1.0#2.5\n"
          "broken#x#one#two\n")  # fmt: skip
    for k in ("000001", "000002", "000003", "000004"):
        write(root / "texts" / f"{k}.txt", "a person walks#x#0.0#0.0\n")
    write(root / "texts" / "000005.txt", b"a person \xff\xfe walks#x#0.0#0.0\n")
    write(root / "train.txt", "000000\n000001\n000002\n000005\n")
    write(root / "val.txt", "000004\n")
    return root


def test_humanml3d_spans_splits_and_bad_files(tmp_path):
    root = humanml3d_folder(tmp_path / "HumanML3D")
    result = import_dataset(HumanML3DSource(), root, tmp_path / "out", workers=1)
    data = Dataset(tmp_path / "out")
    by_part = {data.meta(i)["part"] + data.meta(i)["file"]: i for i in range(len(data))}
    assert sorted(by_part) == ["1-2.5 s000000", "whole000000", "whole000004"]
    whole, span = data.motion(by_part["whole000000"]), data.motion(by_part["1-2.5 s000000"])
    assert whole.texts == ["a person walks forward.", "someone walks ahead"]
    assert whole.num_frames == 74  # 60 frames at 20 fps span 2.95 s: 74 frames at 25 fps
    assert span.texts == ["a person waves"] and span.num_frames == 37  # frames 20..49 at 20 fps
    assert (whole.actions == action_id("walk")).all() and (span.actions == action_id("wave")).all()
    assert whole.source["view"] == "side" and whole.joints[-1, J["pelvis"], 0] == pytest.approx(
        1.2 * 73 / 25, abs=1e-6
    )
    assert set(data.split("train")) == {by_part["whole000000"], by_part["1-2.5 s000000"]}
    assert list(data.split("val")) == [by_part["whole000004"]]
    for clip in (whole, span):
        assert clip.joints[:, [J["l_ankle"], J["r_ankle"]], 1].min() == pytest.approx(0.0, abs=1e-6)
    skipped = {s["item"]: s["reason"] for s in result.report["skipped"]}
    assert "NaN" in skipped["000001"] and "shape" in skipped["000002"]
    assert "not listed" in skipped["000003"] and "UTF-8" in skipped["000005"]
    assert any("line 4" in w["warning"] for w in result.report["warnings"])
    report = json.loads((tmp_path / "out" / "import_report.json").read_text())
    assert report["clips"] == 3 and report["items_skipped"] == 4
    assert not (tmp_path / "out" / build.WORK).exists()


def test_kit_ml_in_millimetres_becomes_metres(tmp_path):
    root = humanml3d_folder(tmp_path / "KIT", kind="kit")
    import_dataset(HumanML3DSource(kind="kit"), root, tmp_path / "out", workers=1)
    data = Dataset(tmp_path / "out")
    clip = data.motion(0)
    assert 1.6 < standing_height(clip.joints) < 2.0
    assert data.meta(0)["file"] == "000000" and clip.num_frames == 119  # 60 frames at 12.5 fps: 4.72 s


# ---------------------------------------------------------------------------------------------
# Robustness, resume, the command line


def test_bad_files_are_skipped_with_reasons_and_good_ones_imported(tmp_path):
    good = mocap.bvh_text()
    src = tmp_path / "src"
    write(src / "good.bvh", good)
    write(src / "truncated.bvh", good[: len(good) * 2 // 3])
    write(
        src / "channels.bvh",
        good.replace(
            "CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 4 Zrotation Xrotation Yrotation", 1
        ),
    )
    lines = good.splitlines()
    lines[-1] = "nan " + lines[-1].split(" ", 1)[1]
    write(src / "nan.bvh", "\n".join(lines) + "\n")
    write(src / "empty.bvh", "")
    write(src / "latin.bvh", good)
    write(src / "latin.txt", "un personnage saute \xe9\n".encode("latin-1"))
    result = import_dataset(BVHSource(text="a person walks"), src, tmp_path / "out", workers=1)
    assert len(Dataset(tmp_path / "out")) == 1
    reasons = {s["item"]: s["reason"] for s in result.report["skipped"]}
    assert set(reasons) == {"truncated.bvh", "channels.bvh", "nan.bvh", "empty.bvh", "latin.bvh"}
    assert "holds" in reasons["truncated.bvh"] and "NaN" in reasons["nan.bvh"]
    assert "UTF-8" in reasons["latin.bvh"] and "MOTION" in reasons["empty.bvh"]
    assert "truncated.bvh" in (tmp_path / "out" / "import_report.md").read_text()


def test_an_import_with_nothing_usable_leaves_no_folder(tmp_path):
    write(tmp_path / "src" / "empty.bvh", "")
    with pytest.raises(StickgenError, match="No clip could be imported"):
        import_dataset(BVHSource(), tmp_path / "src", tmp_path / "out", workers=1)
    assert not (tmp_path / "out").exists()
    with pytest.raises(StickgenError, match="No such file"):
        import_dataset(BVHSource(), tmp_path / "missing", tmp_path / "out2", workers=1)


class Interrupting(BVHSource):
    """A BVH source that is interrupted when it reaches one file."""

    def read(self, src, item):
        if item == "c2.bvh":
            raise KeyboardInterrupt
        return super().read(src, item)


def test_an_interrupted_import_resumes_to_the_same_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "CHUNK", 1)
    for i in range(4):
        motion = mocap.walking_channels(30, speed_cm=2.0 + i)
        write(tmp_path / "src" / f"c{i}.bvh", mocap.bvh_text(motion=motion))
    import_dataset(BVHSource(text="walks"), tmp_path / "src", tmp_path / "straight", workers=1)
    with pytest.raises(KeyboardInterrupt):
        import_dataset(Interrupting(text="walks"), tmp_path / "src", tmp_path / "resumed", workers=1)
    assert not (tmp_path / "resumed" / "manifest.json").exists()
    with pytest.raises(StickgenError, match="unfinished import of something else"):
        import_dataset(BVHSource(text="runs"), tmp_path / "src", tmp_path / "resumed", workers=1)
    import_dataset(BVHSource(text="walks"), tmp_path / "src", tmp_path / "resumed", workers=1)
    for name in ("shards/00000.npz", "shards/00003.npz", "stats.npz", "splits.json", "import_report.json"):
        assert (tmp_path / "straight" / name).read_bytes() == (tmp_path / "resumed" / name).read_bytes()
    # the same import run again once finished is done (as `data synth` run again is), and changes nothing
    before = {f: f.read_bytes() for f in (tmp_path / "resumed").rglob("*") if f.is_file()}
    again = import_dataset(BVHSource(text="walks"), tmp_path / "src", tmp_path / "resumed", workers=1)
    assert again.report == json.loads((tmp_path / "straight" / "import_report.json").read_text())
    assert {f: f.read_bytes() for f in (tmp_path / "resumed").rglob("*") if f.is_file()} == before
    with pytest.raises(StickgenError, match="already holds a finished dataset of something else"):
        import_dataset(BVHSource(text="runs"), tmp_path / "src", tmp_path / "resumed", workers=1)
    with pytest.raises(StickgenError, match="already holds a finished dataset of something else"):
        import_dataset(BVHSource(text="walks"), tmp_path / "src", tmp_path / "resumed", workers=1, seed=5)


def test_one_and_two_workers_write_the_same_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "CHUNK", 2)  # chunks are cut in the calling process
    for i in range(5):
        write(tmp_path / "src" / f"c{i}.bvh", mocap.bvh_text(motion=mocap.walking_channels(30, 2.0 + i)))
    for workers in (1, 2):
        import_dataset(BVHSource(text="walks"), tmp_path / "src", tmp_path / f"w{workers}", workers=workers)
    for name in ("shards/00000.npz", "shards/00002.npz", "stats.npz", "splits.json", "manifest.json"):
        assert (tmp_path / "w1" / name).read_bytes() == (tmp_path / "w2" / name).read_bytes()


def test_data_import_command(tmp_path):
    from tests.test_cli import assert_one_sentence_error, run

    write(tmp_path / "a.bvh", mocap.bvh_text())
    result = run("data", "import", "bvh", str(tmp_path / "a.bvh"), "--out", str(tmp_path / "d"),
                 "--text", "a person walks", "--workers", "1")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(tmp_path / "d") and "1 clips" in result.stderr
    bars = [line for line in result.stderr.splitlines() if line.startswith("import bvh:")]
    assert bars and all("/1 " in bar for bar in bars), result.stderr  # no bar before the total is known
    for name in ("manifest.json", "import_report.json", "import_report.md"):  # no machine paths
        assert str(tmp_path) not in (tmp_path / "d" / name).read_text()
    assert_one_sentence_error(
        run("data", "import", "fbx", str(tmp_path / "a.bvh"), "--out", str(tmp_path / "e"))
    )
    bad_view = ("--out", str(tmp_path / "f"), "--view", "top")
    assert_one_sentence_error(run("data", "import", "bvh", str(tmp_path / "a.bvh"), *bad_view))
    assert not (tmp_path / "e").exists() and not (tmp_path / "f").exists()


# ---------------------------------------------------------------------------------------------
# The BVH parser under random damage


INSERTS = ["{", "}", "JOINT a", "End Site", "nan", "1e400", "CHANNELS 9", "OFFSET", "MOTION", "\n", "ROOT b"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_bvh_raises_nothing_but_bvh_errors(data, tmp_path_factory):
    text = mocap.bvh_text(motion=mocap.walking_channels(4))
    for _ in range(data.draw(st.integers(1, 4))):
        kind = data.draw(st.sampled_from(["replace", "delete", "insert", "truncate", "duplicate_line"]))
        at = data.draw(st.integers(0, max(len(text) - 1, 0)))
        if kind == "replace":
            text = text[:at] + data.draw(st.sampled_from(list("{}0-.9e\n \tx#"))) + text[at + 1 :]
        elif kind == "delete":
            text = text[:at] + text[at + data.draw(st.integers(1, 30)) :]
        elif kind == "insert":
            token = data.draw(st.sampled_from(INSERTS))
            text = text[:at] + token + text[at:]
        elif kind == "truncate":
            text = text[:at]
        else:
            lines = text.splitlines(keepends=True)
            k = data.draw(st.integers(0, max(len(lines) - 1, 0)))
            text = "".join(lines[: k + 1] + lines[k:])
    try:
        parse_bvh(text)
    except BVHError:
        pass
    folder = tmp_path_factory.mktemp("fuzz")
    path = write(folder / "f.bvh", text)
    try:
        BVHSource(text="x").read(path, "f.bvh")
    except StickgenError:
        pass


# ---------------------------------------------------------------------------------------------
# The real CMU clip (read from ../shared/data, absent in a user's clone)


@pytest.fixture(scope="module")
def cmu_clip(tmp_path_factory):
    if not CMU_FILE.is_file():
        pytest.skip(f"the CMU clip is not at {CMU_FILE} (it is not part of the project)")
    src = tmp_path_factory.mktemp("cmu")
    shutil.copy(CMU_FILE, src / CMU_FILE.name)
    out = src / "dataset"
    import_dataset(BVHSource(text="a person runs"), src / CMU_FILE.name, out, workers=1)
    return Dataset(out)


def test_the_cmu_run_has_a_plausible_body(cmu_clip):
    clip = cmu_clip.motion(0)
    meta = cmu_clip.meta(0)
    assert meta["unit"] == "cmu" and meta["dropped_first_frame"]  # Hahne's T-pose line
    lengths = np.percentile(bone_lengths(clip.joints), 95, axis=0)  # (12,) side-on lengths
    for side in (7, 9):  # thigh, shin of each leg
        thigh, shin = lengths[side], lengths[side + 1]
        assert 1 / 1.3 < thigh / shin < 1.3
    assert 1.4 < standing_height(clip.joints) < 2.0
    assert clip.num_frames == 31 and clip.fps == 25.0  # 148 frames at 120 fps


def test_the_cmu_run_has_its_feet_on_the_floor_and_runs_forward(cmu_clip):
    clip = cmu_clip.motion(0)
    ankles = clip.joints[:, [J["l_ankle"], J["r_ankle"]], 1]
    assert ankles.min() == pytest.approx(0.0, abs=1e-6)
    assert (ankles.min(axis=1) < 0.05).mean() > 0.3  # a foot is near the floor in many frames
    assert (clip.joints[..., 1] > -0.05).all()  # nothing sinks into the floor
    assert cmu_clip.meta(0)["view"] == "side"
    speed = (clip.joints[-1, J["pelvis"], 0] - clip.joints[0, J["pelvis"], 0]) / ((clip.num_frames - 1) / 25)
    assert 2.0 < speed < 6.0  # a run, towards +x
    assert (clip.actions == action_id("run")).all()
    head_up = clip.joints[:, J["head"], 1] - clip.joints[:, J["pelvis"], 1]
    assert (head_up > 0.4).all()
