"""The NTU RGB+D importer: Kinect joints to the figure, the followed body, and bad files in the report."""

import json

import numpy as np
import pytest

from stickgen.dataset import Dataset
from stickgen.errors import StickgenError
from stickgen.figure import J
from stickgen.importers.build import import_dataset
from stickgen.importers.clips import Skip
from stickgen.importers.ntu import CLASS_NAMES, KINECT_JOINTS, NTUSource
from tests.clips import walking_clip

K = {name: i for i, name in enumerate(KINECT_JOINTS)}
FRAMES = 90  # 3 s at 30 fps


def kinect_walk(frames: int = FRAMES, seed: int = 0) -> np.ndarray:
    """A person facing the camera (−z) 3 m away, gliding sideways along x: (T, 25, 3) camera metres.

    The camera is 1 m above the floor, so the feet are near y = −1. SpineBase and Neck sit off the
    points the figure takes (the hips' midpoint, SpineShoulder), so a mapping that used them shows.
    """
    joints = walking_clip(frames, fps=30.0, seed=seed).joints  # (T, 16, 2): x, y
    ours = np.concatenate([joints, np.full((*joints.shape[:2], 1), 3.0)], axis=-1)
    ours[..., 1] -= 1.0

    def at(name):
        return ours[:, J[name]]

    offsets = {"HandLeft": ("l_wrist", (0.0, -0.08, 0.0)), "HandRight": ("r_wrist", (0.0, -0.08, 0.0)),
               "HandTipLeft": ("l_wrist", (0.0, -0.15, 0.0)), "HandTipRight": ("r_wrist", (0.0, -0.15, 0.0)),
               "ThumbLeft": ("l_wrist", (0.03, -0.1, -0.02)), "ThumbRight": ("r_wrist", (-0.03, -0.1, -0.02)),
               "FootLeft": ("l_ankle", (0.0, -0.03, -0.15)), "FootRight": ("r_ankle", (0.0, -0.03, -0.15)),
               "SpineBase": ("pelvis", (0.0, 0.04, 0.0)), "Neck": ("neck", (0.0, 0.06, 0.0))}  # fmt: skip
    same = {"SpineMid": "chest", "Head": "head", "SpineShoulder": "neck", "ShoulderLeft": "l_shoulder",
            "ElbowLeft": "l_elbow", "WristLeft": "l_wrist", "ShoulderRight": "r_shoulder",
            "ElbowRight": "r_elbow", "WristRight": "r_wrist", "HipLeft": "l_hip", "KneeLeft": "l_knee",
            "AnkleLeft": "l_ankle", "HipRight": "r_hip", "KneeRight": "r_knee",
            "AnkleRight": "r_ankle"}  # fmt: skip
    kinect = np.zeros((frames, len(KINECT_JOINTS), 3))
    for name, (base, offset) in offsets.items():
        kinect[:, K[name]] = at(base) + np.array(offset)
    for name, base in same.items():
        kinect[:, K[name]] = at(base)
    kinect[:, [K["KneeLeft"], K["KneeRight"]], 2] -= 0.03  # knees bend forward
    return kinect


def skeleton_text(*bodies: np.ndarray) -> str:
    """A `.skeleton` file's text of bodies (T, 25, 3) with ids 1001, 1002, ...; a body whose frame is
    all NaN is absent from that frame. Each frame lists the present bodies in the order given."""
    frames = bodies[0].shape[0]
    lines = [str(frames)]
    for t in range(frames):
        present = [(1001 + k, b[t]) for k, b in enumerate(bodies) if not np.isnan(b[t]).all()]
        lines.append(str(len(present)))
        for body_id, xyz in present:
            lines.append(f"{body_id} 0 1 1 1 1 0 0.01 -0.02 2")
            lines.append(str(len(KINECT_JOINTS)))
            for x, y, z in xyz:
                lines.append(f"{x:.7f} {y:.7f} {z:.7f} 250.1 200.2 960.3 540.4 0.9 0.1 0.2 0.3 2")
    return "\n".join(lines) + "\n"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    return path


def read_one(path, source=None):
    raws, warnings = (source or NTUSource()).read(path.parent, path.name)
    assert len(raws) == 1
    return raws[0], warnings


def test_class_names_are_ntu120s():
    assert len(CLASS_NAMES) == 120 and len(set(CLASS_NAMES)) == 120
    assert CLASS_NAMES[0] == "drink water" and CLASS_NAMES[12] == "tear up paper"
    assert CLASS_NAMES[59] == "walking apart from each other" and CLASS_NAMES[60] == "put on headphone"
    assert CLASS_NAMES[119] == "finger-guessing game (playing rock-paper-scissors)"


def test_read_maps_kinect_joints_to_the_figure(tmp_path):
    kinect = kinect_walk()
    path = write(tmp_path / "S001C002P003R002A013.skeleton", skeleton_text(kinect))
    raw, warnings = read_one(path)
    assert warnings == [] and raw.fps == 30.0 and raw.split is None
    assert raw.texts == ["tear up paper"] and raw.group == path.name
    assert raw.source == {"format": "ntu", "file": path.name, "class": 13}
    p = raw.points
    assert p.shape == (FRAMES, 16, 3)
    pairs = {"neck": "SpineShoulder", "head": "Head", "l_shoulder": "ShoulderLeft", "l_elbow": "ElbowLeft",
             "l_wrist": "WristLeft", "r_shoulder": "ShoulderRight", "r_elbow": "ElbowRight",
             "r_wrist": "WristRight", "l_hip": "HipLeft", "l_knee": "KneeLeft", "l_ankle": "AnkleLeft",
             "r_hip": "HipRight", "r_knee": "KneeRight", "r_ankle": "AnkleRight"}  # fmt: skip
    for ours, theirs in pairs.items():
        np.testing.assert_allclose(p[:, J[ours]], kinect[:, K[theirs]], atol=1e-6, err_msg=ours)
    np.testing.assert_allclose(
        p[:, J["pelvis"]], 0.5 * (kinect[:, K["HipLeft"]] + kinect[:, K["HipRight"]]), atol=1e-6
    )
    np.testing.assert_allclose(raw.toes, kinect[:, [K["FootLeft"], K["FootRight"]]], atol=1e-6)
    # The chest lies on the spine pelvis → SpineMid → neck, above the pelvis and below the neck.
    chest_y = p[:, J["chest"], 1]
    assert (chest_y > p[:, J["pelvis"], 1]).all() and (chest_y < p[:, J["neck"], 1]).all()


def test_up_and_scale_turn_and_size_the_points(tmp_path):
    kinect = kinect_walk()
    path = write(tmp_path / "S001C001P001R001A027.skeleton", skeleton_text(kinect * 100.0))
    raw, _ = read_one(path, NTUSource(up="-y", scale=0.01))
    np.testing.assert_allclose(raw.points[:, J["head"]], kinect[:, K["Head"]] * [1, -1, -1], atol=1e-6)
    with pytest.raises(StickgenError):
        NTUSource(up="w")
    with pytest.raises(StickgenError):
        NTUSource(scale=0.0)


def test_import_dataset_writes_clips_with_class_text_on_the_floor(tmp_path):
    src = tmp_path / "ntu"
    for k, name in enumerate(["S001C001P001R001A013", "S001C002P001R001A027", "sub/S002C003P004R002A061"]):
        write(src / f"{name}.skeleton", skeleton_text(kinect_walk(seed=k)))
    result = import_dataset(NTUSource(), src, tmp_path / "out", workers=1)
    assert result.report["items_imported"] == 3 and result.report["skipped"] == []
    data = Dataset(tmp_path / "out")
    assert len(data) == 3 and data.fps == 25.0
    texts = sorted(data.texts(i)[0] for i in range(len(data)))
    assert texts == ["jump up", "put on headphone", "tear up paper"]
    for i in range(len(data)):
        motion = data.motion(i)
        assert motion.fps == 25.0 and motion.num_frames == 75  # 89 / 30 s at 25 fps
        ankles_y = motion.joints[:, [J["l_ankle"], J["r_ankle"]], 1]
        assert abs(ankles_y.min()) < 1e-6
        assert data.meta(i)["format"] == "ntu" and data.meta(i)["view"] == "side"
        assert not data.meta(i)["mirrored"]  # the feet point where the body faces: left stays left


def test_first_body_is_followed_when_a_second_appears(tmp_path):
    main = kinect_walk()
    other = kinect_walk(seed=5) + np.array([1.5, 0.2, 0.5])
    other[:30] = np.nan  # the other person enters at frame 30 and is listed first from then on
    path = write(tmp_path / "S001C001P001R001A052.skeleton", skeleton_text(other, main))
    raw, warnings = read_one(path)
    assert warnings == [] and raw.points.shape[0] == FRAMES
    np.testing.assert_allclose(raw.points[:, J["head"]], main[:, K["Head"]], atol=1e-6)


def test_frames_without_the_body_are_trimmed_at_the_ends_and_filled_inside(tmp_path):
    kinect = kinect_walk()
    gapped = kinect.copy()
    gapped[:10] = np.nan
    gapped[40:43] = np.nan
    gapped[-5:] = np.nan
    path = write(tmp_path / "S001C001P001R001A008.skeleton", skeleton_text(gapped))
    raw, warnings = read_one(path)
    assert raw.points.shape[0] == FRAMES - 15
    head = raw.points[:, J["head"]]  # frame t of the file is row t − 10
    np.testing.assert_allclose(head[:30], kinect[10:40, K["Head"]], atol=1e-6)
    np.testing.assert_allclose(head[33:], kinect[43:-5, K["Head"]], atol=1e-6)
    w = np.array([1.0, 2.0, 3.0])[:, None] / 4.0
    np.testing.assert_allclose(
        head[30:33], (1 - w) * kinect[39, K["Head"]] + w * kinect[43, K["Head"]], atol=1e-6
    )
    assert len(warnings) == 1 and "10 trimmed at the start, 5 at the end, 3 filled" in warnings[0]


def bad_files() -> dict[str, str | bytes]:
    """File name → contents of every kind of bad file, each with a class number in its name."""
    good = skeleton_text(kinect_walk(frames=40))
    lines = good.splitlines()
    mostly_missing = kinect_walk(frames=40)
    mostly_missing[:25] = np.nan
    one_nan = kinect_walk(frames=40)
    one_nan[20, K["Head"], 0] = np.nan
    return {
        "S001C001P001R001A001.skeleton": good[: len(good) // 2],  # truncated
        "S001C001P001R001A002.skeleton": "\n".join(["41", *lines[1:]]) + "\n",  # frame count too high
        "S001C001P001R001A003.skeleton": "\n".join(["39", *lines[1:]]) + "\n",  # frame count too low
        "S001C001P001R001A004.skeleton": good.replace("\n25\n", "\n24\n", 1),  # joint count
        "S001C001P001R001A005.skeleton": good.replace("\n1\n", "\n2\n", 1),  # body count
        "S001C001P001R001A006.skeleton": good.replace(" 540.4 ", " abc ", 1),  # not a number
        "S001C001P001R001A007.skeleton": good.replace(" 250.1 ", " ", 1),  # a value short
        "S001C001P001R001A008.skeleton": skeleton_text(one_nan),
        "S001C001P001R001A009.skeleton": "",
        "S001C001P001R001A010.skeleton": good.encode() + b"\xff\xfe\x00",  # not UTF-8
        "S001C001P001R001A011.skeleton": "3\n0\n0\n0\n",  # no body
        "S001C001P001R001A012.skeleton": skeleton_text(mostly_missing),
        "S001C001P001R001A200.skeleton": good,  # no such class
        "recording_without_class.skeleton": good,
    }


def test_each_bad_file_is_skipped_with_one_reason(tmp_path):
    for name, text in bad_files().items():
        path = write(tmp_path / name, text)
        with pytest.raises(Skip) as info:
            NTUSource().read(tmp_path, name)
        reason = str(info.value)
        assert reason and "\n" not in reason and not reason.endswith("."), (name, reason)
        path.unlink()


def test_bad_files_are_reported_and_good_ones_imported(tmp_path):
    src = tmp_path / "ntu"
    bad = bad_files()
    for name, text in bad.items():
        write(src / name, text)
    write(src / "S001C001P001R001A023.skeleton", skeleton_text(kinect_walk()))
    write(src / "S001C001P001R001A099.skeleton", skeleton_text(kinect_walk(seed=1)))
    result = import_dataset(NTUSource(), src, tmp_path / "out", workers=1)
    report = json.loads((tmp_path / "out" / "import_report.json").read_text())
    reasons = {s["item"]: s["reason"] for s in report["skipped"]}
    assert set(reasons) == set(bad)
    assert all(r and not r.endswith(".") for r in reasons.values())
    assert "truncated" in reasons["S001C001P001R001A001.skeleton"]
    assert "UTF-8" in reasons["S001C001P001R001A010.skeleton"]
    assert reasons["S001C001P001R001A011.skeleton"] == "has no tracked body"
    assert "NaN" in reasons["S001C001P001R001A008.skeleton"]
    assert report["items_imported"] == 2 and result.report == report
    assert sorted(Dataset(tmp_path / "out").all_texts()) == [["hand waving"], ["running on the spot"]]


def test_a_folder_of_only_bad_files_fails_and_leaves_nothing(tmp_path):
    src = tmp_path / "ntu"
    for name, text in bad_files().items():
        write(src / name, text)
    with pytest.raises(StickgenError, match="No clip could be imported"):
        import_dataset(NTUSource(), src, tmp_path / "out", workers=1)
    assert not (tmp_path / "out").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(StickgenError, match="holds no .skeleton files"):
        import_dataset(NTUSource(), empty, tmp_path / "out", workers=1)
    assert not (tmp_path / "out").exists()


def test_corrupted_files_raise_only_skip(tmp_path):
    """Cut or damaged anywhere, a file is read or skipped with a sentence; nothing else escapes."""
    good = skeleton_text(kinect_walk(frames=40)).encode()
    rng = np.random.default_rng(0)
    name = "S001C001P001R001A013.skeleton"
    for k in range(150):
        data = bytearray(good[: rng.integers(1, len(good))] if k % 2 else good)
        for i in rng.integers(0, len(data), size=rng.integers(1, 4)):
            data[i] = int(rng.choice(list(b"0123456789 \n.-eX\xc3")))
        (tmp_path / name).write_bytes(bytes(data))
        try:
            raws, _ = NTUSource().read(tmp_path, name)
        except Skip as e:
            assert str(e) and "\n" not in str(e) and not str(e).endswith("."), str(e)
        else:
            assert np.isfinite(raws[0].points).all()
