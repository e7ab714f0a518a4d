"""The figure's geometry: segments, mirroring, velocity, centre of mass, contacts, physics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from stickgen import figure as fg
from tests.clips import standing_pose

finite = st.floats(-5.0, 5.0, allow_nan=False, allow_infinity=False, width=64)
joint_arrays = arrays(np.float64, st.tuples(st.integers(1, 6), st.just(16), st.just(2)), elements=finite)
segment_arrays = arrays(np.float64, st.tuples(st.integers(1, 6), st.just(48)), elements=finite)


def test_tables_match_the_design():
    assert len(fg.JOINTS) == 16 and fg.JOINTS[0] == "pelvis" and fg.JOINTS[15] == "r_ankle"
    assert fg.POSE_DIM == 48 and fg.FEATURE_DIM == 52
    assert [s[0] for s in fg.SEGMENTS][:3] == ["head", "upper_torso", "lower_torso"]
    assert fg.SEGMENTS[11] == ("pelvis_width", "l_hip", "r_hip")
    # Every joint is an endpoint of at least one segment, so segments → joints is defined.
    assert set(fg.SEGMENT_JOINTS.reshape(-1)) == set(range(16))


@given(joint_arrays)
def test_joints_segments_joints_is_exact(joints):
    back = fg.segments_to_joints(fg.joints_to_segments(joints))
    np.testing.assert_allclose(back, joints, rtol=0, atol=1e-12)


def test_segments_layout_is_from_then_to():
    joints = np.arange(32, dtype=np.float64).reshape(16, 2)
    seg = fg.joints_to_segments(joints).reshape(12, 4)
    # lower_torso is chest → pelvis.
    np.testing.assert_array_equal(seg[2], [*joints[fg.J["chest"]], *joints[fg.J["pelvis"]]])


@given(segment_arrays)
def test_any_segments_project_onto_a_connected_figure(segments):
    # Raw segments are generally disconnected; their projection is connected and a fixed point.
    projected = fg.joints_to_segments(fg.segments_to_joints(segments))
    assert np.all(fg.connectivity_error(projected) < 1e-9)
    np.testing.assert_allclose(fg.joints_to_segments(fg.segments_to_joints(projected)), projected, atol=1e-12)


def test_connectivity_error_detects_a_broken_figure():
    seg = fg.joints_to_segments(standing_pose())
    broken = seg.copy()
    broken[4 * 4] += 0.1  # l_forearm's start: one of the two copies of l_elbow moves 10 cm
    assert fg.connectivity_error(seg) < 1e-12
    assert fg.connectivity_error(broken) > 0.04


@given(joint_arrays)
def test_mirror_twice_is_identity(joints):
    np.testing.assert_array_equal(fg.mirror_joints(fg.mirror_joints(joints)), joints)
    seg = fg.joints_to_segments(joints)
    np.testing.assert_array_equal(fg.mirror_segments(fg.mirror_segments(seg)), seg)


@given(joint_arrays)
@settings(max_examples=50)
def test_mirror_segments_agrees_with_mirror_joints(joints):
    np.testing.assert_allclose(
        fg.mirror_segments(fg.joints_to_segments(joints)), fg.joints_to_segments(fg.mirror_joints(joints))
    )


def test_mirror_swaps_left_and_right_and_negates_x():
    joints = standing_pose() + np.array([0.3, 0.0])  # off-centre, so negation is visible
    m = fg.mirror_joints(joints)
    for name in ("shoulder", "elbow", "wrist", "hip", "knee", "ankle"):
        left, right = fg.J[f"l_{name}"], fg.J[f"r_{name}"]
        np.testing.assert_allclose(m[left], joints[right] * [-1, 1])
        np.testing.assert_allclose(m[right], joints[left] * [-1, 1])
    np.testing.assert_allclose(m[fg.J["head"]], joints[fg.J["head"]] * [-1, 1])


def test_bone_lengths_are_invariant_to_translation_and_mirroring():
    joints = standing_pose()
    lengths = fg.bone_lengths(joints)
    assert lengths.shape == (12,) and np.all(lengths > 0)
    np.testing.assert_allclose(fg.bone_lengths(joints + [4.0, 1.0]), lengths)
    np.testing.assert_allclose(fg.bone_lengths(fg.mirror_joints(joints))[[0, 1, 2]], lengths[[0, 1, 2]])
    # Mirroring swaps the left and right limbs' lengths.
    np.testing.assert_allclose(fg.bone_lengths(fg.mirror_joints(joints))[3], lengths[5])


@pytest.mark.parametrize("fps", [25.0, 30.0, 60.0])
def test_constant_speed_clip_has_that_velocity(fps):
    t = np.arange(40) / fps
    speed = np.array([1.3, -0.4])
    joints = standing_pose()[None] + (t[:, None] * speed)[:, None, :]
    feats = fg.motion_features(joints, fps)
    assert feats.shape == (40, 52)
    np.testing.assert_allclose(feats[:, 50:52], np.broadcast_to(speed, (40, 2)), atol=1e-9)
    np.testing.assert_allclose(feats[:, 48:50], joints[:, fg.J["pelvis"]])
    # The pose is pelvis-relative, so it does not change while the whole figure translates.
    np.testing.assert_allclose(feats[:, :48], np.broadcast_to(feats[0, :48], (40, 48)), atol=1e-12)


def test_features_back_to_joints():
    rng = np.random.default_rng(0)
    joints = standing_pose()[None] + rng.normal(scale=0.05, size=(10, 16, 2))
    np.testing.assert_allclose(fg.features_to_joints(fg.motion_features(joints, 25.0)), joints, atol=1e-12)


def test_velocity_of_a_single_frame_is_zero():
    assert np.all(fg.velocity(np.ones((1, 2)), 25.0) == 0)


def test_contacts_find_a_planted_foot_not_a_swinging_one():
    fps = 25.0
    t = np.arange(25) / fps
    joints = np.repeat(standing_pose()[None], 25, axis=0)
    # Right foot swings forward 0.5 m above the floor at 1.5 m/s; the left stays planted.
    joints[:, fg.J["r_ankle"], 0] += 1.5 * t
    joints[:, fg.J["r_ankle"], 1] = 0.12
    contacts = fg.foot_contacts(joints, fps)
    assert contacts.shape == (25, 2)
    assert contacts[:, 0].all()
    assert not contacts[:, 1].any()
    # A foot sliding along the floor fast is not in contact either.
    joints[:, fg.J["r_ankle"], 1] = 0.0
    assert not fg.foot_contacts(joints, fps)[:, 1].any()


def test_center_of_mass_of_a_symmetric_pose_lies_on_its_axis():
    joints = standing_pose()
    np.testing.assert_allclose(fg.mirror_joints(joints), joints)  # the pose is symmetric
    com = fg.center_of_mass(joints)
    assert abs(com[0]) < 1e-12
    # A standing adult's centre of mass is a little above the hips (about 55 % of height).
    assert 0.50 * 1.75 < com[1] < 0.62 * 1.75


def test_com_weights_sum_to_one_and_translate_with_the_body():
    assert abs(fg.COM_WEIGHTS.sum() - 1.0) < 1e-12
    joints = standing_pose()
    np.testing.assert_allclose(fg.center_of_mass(joints + [2.0, 0.5]), fg.center_of_mass(joints) + [2.0, 0.5])


def test_physics_of_a_falling_body():
    fps = 25.0
    g = 9.81
    t = np.arange(30) / fps
    joints = standing_pose()[None] + np.stack([0.8 * t, 2.0 + 3.0 * t - 0.5 * g * t**2], axis=1)[:, None, :]
    phys = fg.physics(joints, fps)
    assert phys.shape == (30, 6)
    np.testing.assert_allclose(phys[:, 0], 0.8, atol=1e-9)
    np.testing.assert_allclose(phys[1:-1, 1], 3.0 - g * t[1:-1], atol=1e-9)
    np.testing.assert_allclose(phys[2:-2, 3], -g, atol=1e-6)  # central differences are exact inside
    assert not phys[:, 4:].any()  # in the air, no contact
