"""Each evaluation metric against a value computed by hand on a tiny array."""

import math

import numpy as np
import pytest

from stickgen import figure as fg
from stickgen import metrics as mt
from tests.clips import standing_pose

FPS = 25.0


def random_spd(dim: int, rng: np.random.Generator) -> np.ndarray:
    a = rng.normal(size=(dim, dim))
    return a @ a.T + 0.1 * np.eye(dim)


# -----------------------------------------------------------------------------
# FID


def test_frechet_distance_of_identical_gaussians_is_zero():
    rng = np.random.default_rng(0)
    mu, cov = rng.normal(size=6), random_spd(6, rng)
    assert mt.frechet_distance(mu, cov, mu, cov) == pytest.approx(0.0, abs=1e-9)


def test_frechet_distance_of_two_1d_gaussians_matches_the_closed_form():
    mu1, s1, mu2, s2 = 1.0, 2.0, 4.0, 0.5
    expected = (mu1 - mu2) ** 2 + s1**2 + s2**2 - 2 * s1 * s2  # 9 + 4 + 0.25 − 2 = 11.25
    got = mt.frechet_distance(np.array([mu1]), np.array([[s1**2]]), np.array([mu2]), np.array([[s2**2]]))
    assert got == pytest.approx(expected) == pytest.approx(11.25)


def test_frechet_distance_with_an_identity_covariance_uses_the_square_root_of_the_other():
    rng = np.random.default_rng(1)
    cov = random_spd(4, rng)
    # Σ1 = I: tr (Σ1 Σ2)^½ = Σ √λ(Σ2), by hand from the eigenvalues.
    expected = 4 + np.trace(cov) - 2 * np.sqrt(np.linalg.eigvalsh(cov)).sum()
    assert mt.frechet_distance(np.zeros(4), np.eye(4), np.zeros(4), cov) == pytest.approx(expected)


def test_frechet_distance_is_symmetric_for_non_commuting_covariances():
    rng = np.random.default_rng(2)
    mu1, mu2 = rng.normal(size=5), rng.normal(size=5)
    cov1, cov2 = random_spd(5, rng), random_spd(5, rng)
    assert not np.allclose(cov1 @ cov2, cov2 @ cov1)
    assert mt.frechet_distance(mu1, cov1, mu2, cov2) == pytest.approx(
        mt.frechet_distance(mu2, cov2, mu1, cov1)
    )


def test_fid_of_a_shifted_copy_is_the_squared_shift_even_with_fewer_samples_than_dims():
    rng = np.random.default_rng(3)
    feats = rng.normal(size=(5, 8))  # rank-deficient covariance
    shift = np.array([3.0, 4.0] + [0.0] * 6)
    assert mt.fid(feats, feats + shift) == pytest.approx(25.0, abs=1e-6)


def test_fid_needs_two_samples_per_side():
    with pytest.raises(ValueError):
        mt.fid(np.zeros((1, 3)), np.zeros((4, 3)))


# -----------------------------------------------------------------------------
# R-precision, MM-Dist, diversity, multimodality


def test_r_precision_of_perfectly_matched_embeddings_is_one():
    rng = np.random.default_rng(4)
    emb = rng.normal(size=(64, 8))
    np.testing.assert_allclose(mt.r_precision(emb, emb, rng=rng), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(mt.r_precision(emb, emb, batch_size=None), [1.0, 1.0, 1.0])


def test_r_precision_follows_a_ranking_worked_out_by_hand():
    # 1-D: motion 0 and 3 find their text first; motion 1 (at 1) has texts 0.9 and 0 nearer than its
    # own 2.1, so it is third; motion 2 (at 2) has 2.1 and 3 nearer than its own 0.9, also third.
    motions = np.array([[0.0], [1.0], [2.0], [3.0]])
    texts = np.array([[0.0], [2.1], [0.9], [3.0]])
    np.testing.assert_allclose(mt.r_precision(texts, motions, batch_size=None), [0.5, 0.5, 1.0])
    in_one_batch = mt.r_precision(texts, motions, batch_size=4, rng=np.random.default_rng(0))
    np.testing.assert_allclose(in_one_batch, [0.5, 0.5, 1.0])


def test_r_precision_counts_a_duplicate_caption_as_a_fair_tie():
    a, b = [1.0, 0.0], [0.0, 1.0]
    texts = np.array([a, a, b])
    motions = texts.copy()
    # Motions 0 and 1 each tie with the other's identical caption: top-1 with probability ½.
    np.testing.assert_allclose(mt.r_precision(texts, motions, top_k=2, batch_size=None), [2 / 3, 1.0])


def test_r_precision_is_exactly_chance_when_texts_cannot_be_told_apart():
    rng = np.random.default_rng(5)
    texts = np.ones((96, 4))
    motions = rng.normal(size=(96, 4))
    np.testing.assert_allclose(mt.r_precision(texts, motions, rng=rng), [1 / 32, 2 / 32, 3 / 32])


def test_r_precision_of_shuffled_captions_is_near_chance():
    rng = np.random.default_rng(6)
    emb = rng.normal(size=(3200, 16))
    shuffled = mt.r_precision(emb[rng.permutation(3200)], emb, rng=rng)
    np.testing.assert_allclose(shuffled, [1 / 32, 2 / 32, 3 / 32], atol=0.015)


def test_r_precision_in_batches_drops_the_incomplete_batch_and_needs_one_full_batch():
    emb = np.arange(40, dtype=float)[:, None]
    np.testing.assert_allclose(mt.r_precision(emb, emb, rng=np.random.default_rng(0)), [1, 1, 1])
    with pytest.raises(ValueError):
        mt.r_precision(emb[:31], emb[:31], rng=np.random.default_rng(0))


def test_mm_dist_is_the_mean_distance_of_matched_pairs():
    texts = np.array([[0.0, 0.0], [1.0, 1.0]])
    motions = np.array([[3.0, 4.0], [1.0, 1.0]])
    assert mt.mm_dist(texts, motions) == pytest.approx(2.5)


def test_diversity_of_two_points_is_their_distance():
    feats = np.array([[0.0, 0.0], [3.0, 4.0]])
    assert mt.diversity(feats, pairs=300, rng=np.random.default_rng(0)) == pytest.approx(5.0)


def test_multimodality_averages_distinct_pairs_per_text():
    feats = np.array([[[0.0, 0.0], [0.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]]])  # (2 texts, 2 repeats, 2)
    assert mt.multimodality(feats, pairs=10, rng=np.random.default_rng(0)) == pytest.approx(1.0)


def test_confidence_interval_is_mean_and_196_std_over_root_n():
    mean, half = mt.confidence_interval([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert half == pytest.approx(1.96 * math.sqrt(1.25) / 2)
    assert mt.confidence_interval([0.7]) == (0.7, 0.0)


# -----------------------------------------------------------------------------
# physics


def still_clip(frames: int) -> np.ndarray:
    return np.repeat(standing_pose()[None], frames, axis=0)


def test_jerk_of_a_cubic_trajectory_is_six_times_its_coefficient():
    t = np.arange(20) / FPS
    joints = still_clip(20)
    joints[..., 0] += 0.5 * t[:, None] ** 3  # every joint: x = 0.5 t³ → x''' = 3
    joints[..., 1] += 2.0 * t[:, None] ** 3  # y''' = 12
    assert mt.jerk(joints, FPS) == pytest.approx(math.hypot(3.0, 12.0))
    assert mt.jerk(still_clip(20) + 1.2 * t[:, None, None], FPS) == pytest.approx(0.0, abs=1e-6)
    assert math.isnan(mt.jerk(still_clip(3), FPS))


def test_foot_skating_counts_a_sliding_ankle_on_the_floor_only():
    joints = still_clip(11)
    ankle = fg.J["l_ankle"]
    joints[:, ankle, 0] += np.minimum(np.arange(11), 5) / FPS  # 1 m/s for the first 5 steps, then still
    assert mt.foot_skating_ratio(joints, FPS) == pytest.approx(0.5)
    # The contact labels never call that foot in contact, which is why skating cannot use them.
    assert not fg.foot_contacts(joints, FPS)[1:5, 0].any()

    lifted = joints.copy()
    lifted[:, ankle, 1] = 0.10  # the same slide 10 cm above the floor is a swing, not a skate
    assert mt.foot_skating_ratio(lifted, FPS) == 0.0
    slow = still_clip(11)
    slow[:, ankle, 0] += 0.4 * np.arange(11) / FPS  # 0.4 m/s: under the 0.5 m/s threshold
    assert mt.foot_skating_ratio(slow, FPS) == 0.0


def test_penetration_and_floating_measure_the_lowest_joint():
    joints = still_clip(10)
    joints[:5, :, 1] -= 0.02  # 2 cm under the floor for half the frames
    assert mt.penetration(joints) == pytest.approx(0.01)
    assert mt.floating(joints) == pytest.approx(0.0)

    hover = still_clip(10)
    hover[..., 1] += 0.03
    hover[8:, :, 1] += 0.5  # two airborne frames do not count
    assert mt.floating(hover) == pytest.approx(0.03)
    assert mt.penetration(hover) == 0.0
    assert math.isnan(mt.floating(still_clip(4) + np.array([0.0, 1.0])))


def test_bone_length_variation_is_the_mean_coefficient_of_variation_of_the_segments():
    assert mt.bone_length_variation(still_clip(6)) == pytest.approx(0.0)
    joints = still_clip(6)
    neck = joints[0, fg.J["neck"], 1]
    joints[:, fg.J["head"], 1] = neck + np.array([0.1, 0.3] * 3)  # head segment: CV = 0.1 / 0.2
    assert mt.bone_length_variation(joints) == pytest.approx(0.5 / 12)


def test_physics_metrics_pool_frames_over_clips():
    sunk = still_clip(10)
    sunk[..., 1] -= 0.02
    result = mt.physics_metrics([sunk, still_clip(30)], FPS)
    assert result["penetration"] == pytest.approx(0.02 * 10 / 40)
    assert result["foot_skating_ratio"] == 0.0
    assert result["jerk"] == pytest.approx(0.0, abs=1e-9)
    assert result["bone_length_variation"] == pytest.approx(0.0)
    assert set(result) == {"foot_skating_ratio", "penetration", "floating", "jerk", "bone_length_variation"}
