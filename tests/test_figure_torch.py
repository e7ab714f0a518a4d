"""The torch twins equal their numpy originals."""

import numpy as np
import pytest
import torch

from stickgen import figure as fg
from stickgen import figure_torch as ft
from tests.clips import walking_clip


@pytest.fixture(scope="module")
def clip_joints() -> np.ndarray:
    joints = walking_clip(frames=30).joints.copy()
    joints[:, fg.J["l_ankle"]] = (0.5, 0.01)  # one foot planted, so contacts are not all zero
    return joints


def test_segments_round_trip_and_projection(clip_joints):
    rng = np.random.default_rng(0)
    noisy = fg.joints_to_segments(clip_joints) + rng.normal(scale=0.05, size=(30, 48))
    t = torch.from_numpy(noisy)
    np.testing.assert_allclose(ft.segments_to_joints(t).numpy(), fg.segments_to_joints(noisy), atol=1e-12)
    np.testing.assert_allclose(
        ft.joints_to_segments(torch.from_numpy(clip_joints)).numpy(), fg.joints_to_segments(clip_joints)
    )
    gap = ft.connectivity_gap(t).amax(dim=-1).numpy()
    np.testing.assert_allclose(gap, fg.connectivity_error(noisy), atol=1e-12)
    lengths = ft.segment_lengths(ft.joints_to_segments(torch.from_numpy(clip_joints))).numpy()
    np.testing.assert_allclose(lengths, fg.bone_lengths(clip_joints), atol=1e-12)


def test_features_velocity_com_contacts_physics(clip_joints):
    t = torch.from_numpy(clip_joints)
    feats = fg.motion_features(clip_joints, 25.0)
    back = ft.features_to_joints(torch.from_numpy(feats)).numpy()
    np.testing.assert_allclose(back, clip_joints, atol=1e-12)
    pos = fg.pelvis_position(clip_joints)
    np.testing.assert_allclose(ft.velocity(torch.from_numpy(pos), 25.0).numpy(), fg.velocity(pos, 25.0))
    np.testing.assert_allclose(ft.center_of_mass(t).numpy(), fg.center_of_mass(clip_joints), atol=1e-12)
    contacts = ft.foot_contacts(t, 25.0).numpy()
    np.testing.assert_array_equal(contacts, fg.foot_contacts(clip_joints, 25.0))
    assert contacts[:, 0].any()
    np.testing.assert_allclose(ft.physics(t, 25.0).numpy(), fg.physics(clip_joints, 25.0), atol=1e-9)


def test_batched_and_differentiable(clip_joints):
    batch = torch.from_numpy(np.stack([clip_joints, fg.mirror_joints(clip_joints)])).requires_grad_(True)
    feats = torch.from_numpy(np.stack([fg.motion_features(j, 25.0) for j in batch.detach().numpy()]))
    assert ft.features_to_joints(feats).shape == (2, 30, 16, 2)
    ft.center_of_mass(batch).sum().backward()
    assert batch.grad is not None and torch.isfinite(batch.grad).all()
    assert ft.velocity(torch.zeros(1, 2), 25.0).abs().sum() == 0
