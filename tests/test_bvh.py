"""BVH: clips written and read back exactly, a reader general enough for other tools' files, and
one-sentence errors for broken ones."""

import re

import numpy as np
import pytest

from stickgen.bvh import (
    BVHError,
    axis_rotation,
    bvh_text,
    bvh_to_motion,
    euler_zxy,
    facing_direction,
    lift_to_3d,
    parse_bvh,
    read_bvh,
    rotation_between,
    write_bvh,
)
from stickgen.errors import StickgenError
from stickgen.figure import J
from stickgen.motion import Motion
from tests.test_render import jump, side_walk


def projected_clip() -> Motion:
    """A walk whose bones change length, as a 3D clip projected onto a plane does."""
    m = side_walk(60, distance=3.0)
    j = m.joints.copy()
    pelvis = j[:, J["pelvis"] : J["pelvis"] + 1]
    squeeze = 0.55 + 0.45 * np.abs(np.cos(np.arange(60) / 9.0))[:, None]  # turning toward the viewer
    j[..., 0] = pelvis[..., 0] + (j[..., 0] - pelvis[..., 0]) * squeeze
    j[:, J["l_hip"], 0] -= 0.08 * np.sin(np.arange(60) / 7.0)  # hips that separate and cross
    j[:, J["r_hip"], 0] += 0.08 * np.sin(np.arange(60) / 7.0)
    j[:, J["l_shoulder"], 0] += 0.12  # shoulders off the neck, so the clavicles show
    j[:, J["r_shoulder"], 0] -= 0.1
    return Motion(j)


@pytest.mark.parametrize(
    "make", [side_walk, projected_clip, lambda: jump(40, 2.0), lambda: side_walk(30, facing=-1.0)]
)
def test_write_read_and_forward_kinematics_reproduce_the_clip_within_a_millimetre(tmp_path, make):
    motion = make()
    path = write_bvh(motion, tmp_path / "clip.bvh")
    clip = read_bvh(path)
    back = bvh_to_motion(clip)
    assert back.fps == 25.0 and back.num_frames == motion.num_frames
    assert np.abs(back.joints - motion.joints).max() < 1e-3


def test_bones_of_almost_no_length_and_single_frames_are_written_exactly():
    joints = side_walk(30).joints.copy()
    joints[::2, J["l_hip"], 0] += 3e-6  # a hip that flickers a few micrometres off the pelvis
    joints[:, J["r_hip"], 0] += 2e-5 * (np.arange(30) % 3)
    for motion in (Motion(joints), Motion(joints[:1])):
        back = bvh_to_motion(parse_bvh(bvh_text(motion)))
        assert np.abs(back.joints - motion.joints).max() < 1e-3


def test_a_clip_with_constant_bones_stays_in_the_x_y_plane(tmp_path):
    clip = read_bvh(write_bvh(side_walk(40), tmp_path / "walk.bvh"))
    positions, names = clip.forward_kinematics(end_sites=True)
    assert np.abs(positions[..., 2]).max() < 1e-5
    assert len(names) == 20 + 5


def test_shortened_bones_turn_out_of_the_plane_and_keep_their_length(tmp_path):
    motion = projected_clip()
    clip = read_bvh(write_bvh(motion, tmp_path / "turn.bvh"))
    positions, names = clip.forward_kinematics()
    assert np.abs(positions[..., 2]).max() > 0.05  # a 3D skeleton...
    idx = {n: i for i, n in enumerate(names)}
    for a, b in [("l_shoulder", "l_elbow"), ("l_hip", "l_knee"), ("pelvis", "l_hip"), ("neck", "l_shoulder")]:
        length = np.linalg.norm(positions[:, idx[b]] - positions[:, idx[a]], axis=-1)
        flat = np.linalg.norm(motion.joints[:, J[b]] - motion.joints[:, J[a]], axis=-1)
        assert np.ptp(length) < 1e-4  # ...of rigid bones...
        assert length[0] == pytest.approx(flat.max(), abs=1e-4)  # ...as long as the longest 2D bone


def test_the_file_has_the_layout_blender_reads(tmp_path):
    motion = side_walk(25)
    text = write_bvh(motion, tmp_path / "walk.bvh").read_text()
    lines = text.splitlines()
    assert lines[:3] == ["HIERARCHY", "ROOT pelvis", "{"]
    assert lines[4].strip() == "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"
    # Blender's importer reads a keyword per line: JOINT/ROOT, then "{", then OFFSET, then CHANNELS.
    for k, line in enumerate(lines):
        if line.strip().startswith("JOINT "):
            assert lines[k + 1].strip() == "{"
            assert lines[k + 2].strip().startswith("OFFSET ")
            assert lines[k + 3].strip() == "CHANNELS 3 Zrotation Xrotation Yrotation"
        if line.strip() == "End Site":
            offset = np.array(lines[k + 2].split()[1:], dtype=float)
            assert np.linalg.norm(offset) > 0.02
    motion_at = lines.index("MOTION")
    assert lines[motion_at + 1 : motion_at + 3] == ["Frames: 25", "Frame Time: 0.04"]
    rows = [line.split() for line in lines[motion_at + 3 :]]
    assert len(rows) == 25 and {len(r) for r in rows} == {6 + 3 * 19}
    joints = set(re.findall(r"(?:ROOT|JOINT) (\S+)", text))
    assert joints >= {"pelvis", "chest", "neck", "head", "l_clavicle", "r_clavicle", "l_pelvis", "r_ankle"}


def test_offsets_are_the_clips_bone_lengths(tmp_path):
    motion = side_walk(30)
    clip = read_bvh(write_bvh(motion, tmp_path / "walk.bvh"))
    by_name = {j.name: j for j in clip.joints}
    for parent, child in [("pelvis", "chest"), ("l_hip", "l_knee"), ("r_elbow", "r_wrist"), ("neck", "head")]:
        length = np.linalg.norm(motion.joints[0, J[child]] - motion.joints[0, J[parent]])
        assert np.linalg.norm(by_name[child].offset) == pytest.approx(length, abs=1e-6)


def test_other_frame_rates_are_written_at_25_fps(tmp_path):
    clip = read_bvh(write_bvh(side_walk(100, fps=50.0), tmp_path / "fast.bvh"))
    assert clip.frame_time == 0.04 and clip.num_frames == 50


def test_facing_is_read_from_the_knees():
    assert facing_direction(side_walk(30).joints) == 1.0
    assert facing_direction(side_walk(30, facing=-1.0).joints) == -1.0
    lifted = lift_to_3d(projected_clip().joints, 1.0)
    assert np.array_equal(lifted[..., :2], projected_clip().joints)


def test_rotation_helpers_round_trip():
    rng = np.random.default_rng(0)
    angles = rng.uniform(-180, 180, size=(200, 3))
    angles[:, 1] = rng.uniform(-89, 89, size=200)
    r = (axis_rotation(2, np.radians(angles[:, 0])) @ axis_rotation(0, np.radians(angles[:, 1]))
         @ axis_rotation(1, np.radians(angles[:, 2])))  # fmt: skip
    assert np.allclose(euler_zxy(r), angles, atol=1e-9)
    u = np.array([0.0, -1.0, 0.0])
    v = rng.normal(size=(100, 3))
    v = np.concatenate([v, [[0.0, 1.0, 0.0], [1e-9, 1.0, 0.0], [0.0, -1.0, 0.0]]])
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    rot = rotation_between(u, v)
    assert np.allclose(rot @ u, v, atol=1e-9)
    assert np.allclose(rot @ np.swapaxes(rot, 1, 2), np.eye(3), atol=1e-9)


GENERIC = """HIERARCHY
ROOT mixamorig:Hips
{
  OFFSET 1.0 2.0 3.0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Left Up Leg {
    OFFSET 1 0 0
    CHANNELS 3 Xrotation Yrotation Zrotation
    End Site
    {
      OFFSET 0 -2 0
    }
  }
  JOINT Spine
  {
    OFFSET 0 1 0
    CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
    End Site { OFFSET 0 1 0 }
  }
}
ROOT Prop
{
  OFFSET 5 0 0
  CHANNELS 0
}
MOTION
Frames: 2
Frame Time: 0.0333333
10 0 0 90 0 0   0 0 0   0 3 0 0 0 0
10 0 0 0 0 0    0 0 90   0 3 0
0 0 0
"""


def test_the_reader_handles_any_hierarchy_and_channel_order():
    clip = parse_bvh(GENERIC)
    assert clip.joint_names == ["mixamorig:Hips", "Left Up Leg", "Spine", "Prop"]
    assert clip.fps == pytest.approx(30.0, rel=1e-5)
    positions, names = clip.forward_kinematics(end_sites=True)
    assert names[-2:] == ["Left Up Leg_end", "Spine_end"]
    p = {name: np.round(positions[:, k], 9).tolist() for k, name in enumerate(names)}
    # Frame 0: hips at (10, 0, 0) turned 90° about z; position channels replace the OFFSET.
    assert p["mixamorig:Hips"][0] == [10, 0, 0]
    assert p["Left Up Leg"][0] == [10, 1, 0]  # (1, 0, 0) turned to (0, 1, 0)
    assert p["Left Up Leg_end"][0] == [12, 1, 0]  # (0, −2, 0) turned to (2, 0, 0)
    assert p["Spine"][0] == [7, 0, 0]  # its own position channels (0, 3, 0) turned to (−3, 0, 0)
    assert p["Prop"][0] == [5, 0, 0]
    # Frame 1: the leg turns 90° about z in its own frame; the end site swings to +x.
    assert p["Left Up Leg"][1] == [11, 0, 0]
    assert p["Left Up Leg_end"][1] == [13, 0, 0]


MINIMAL = """HIERARCHY
ROOT a
{
OFFSET 0 0 0
CHANNELS 3 Xrotation Yrotation Zrotation
}
MOTION
Frames: 1
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no MOTION section"),
        ("HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 0.1\n", "no ROOT"),
        ("ROOT a\n{\n}\nMOTION\n", "does not start with HIERARCHY"),
        (MINIMAL + "Frame Time: 0.1\n0 0\n", "declares 1 frames of 3 channels but holds 2 numbers"),
        (MINIMAL + "Frame Time: 0.1\n0 x 0\n", "not all numbers"),
        (MINIMAL + "Frame Time: 0.1\n0 nan 0\n", "NaN"),
        (MINIMAL + "Frame Time: -1\n0 0 0\n", "positive time"),
        (MINIMAL.replace("Frames: 1", "Frames: many") + "Frame Time: 0.1\n", "Frames: N"),
        (MINIMAL.replace("Xrotation", "Wrotation") + "Frame Time: 0.1\n0 0 0\n", "unknown or repeated"),
        (MINIMAL.replace("OFFSET 0 0 0\n", "") + "Frame Time: 0.1\n0 0 0\n", "has no OFFSET"),
        (MINIMAL.replace("}\n", "") + "Frame Time: 0.1\n0 0 0\n", "missing '}'"),
        (MINIMAL.replace("ROOT a\n{", "ROOT a\nOFFSET") + "Frame Time: 0.1\n", "expected '{'"),
        ("HIERARCHY\nJOINT a\n{\n}\nMOTION\nFrames: 0\nFrame Time: 0.1\n", "JOINT outside a joint"),
    ],
)
def test_malformed_files_raise_one_bvh_error_sentence(text, message):
    with pytest.raises(BVHError) as err:
        parse_bvh(text, name="bad.bvh")
    assert message in str(err.value)
    assert str(err.value).endswith(".") and "\n" not in str(err.value)
    assert isinstance(err.value, StickgenError)


def test_any_truncation_of_a_valid_file_is_read_or_refused_with_bvh_error():
    text = bvh_text(side_walk(3))
    for cut in range(0, len(text), 37):
        try:
            parse_bvh(text[:cut])
        except BVHError:
            pass


def test_reading_missing_or_foreign_files_is_one_sentence(tmp_path):
    with pytest.raises(BVHError, match=r"^No such file: .*\.$"):
        read_bvh(tmp_path / "nothing.bvh")
    with pytest.raises(BVHError, match="is a directory"):
        read_bvh(tmp_path)
    (tmp_path / "binary.bvh").write_bytes(bytes(range(256)) * 4)
    with pytest.raises(BVHError):
        read_bvh(tmp_path / "binary.bvh")
    with pytest.raises(BVHError, match="not written by stickgen"):
        bvh_to_motion(parse_bvh(GENERIC))


def test_writing_a_bvh_leaves_nothing_behind_on_a_bad_path(tmp_path):
    (tmp_path / "blocker").write_text("")
    with pytest.raises(StickgenError):
        write_bvh(side_walk(5), tmp_path / "blocker" / "walk.bvh")
    assert [p.name for p in tmp_path.iterdir()] == ["blocker"]
