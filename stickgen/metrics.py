"""Evaluation metrics: the text-to-motion field's distribution and retrieval metrics, and physics.

Pure numpy functions. The distribution and retrieval metrics follow Guo et al., "Generating Diverse
and Natural 3D Human Motions from Text" (CVPR 2022) and its released evaluation code; they work on
embeddings from any evaluator (`stickgen.evaluator`). Where we differ, the docstring says so.

- `frechet_distance`, `fid`: Fréchet distance between Gaussians fitted to two sets of embeddings.
- `r_precision`: retrieval of each motion's own text among 32 (batches, as in the field) or among all.
- `mm_dist`, `diversity`, `multimodality`.
- Physics on joints `(T, 16, 2)` in metres at `fps` frames per second: `foot_skating_ratio`,
  `penetration`, `floating`, `jerk`, `bone_length_variation`, and `physics_metrics` over many clips.
- `confidence_interval`: mean ± 1.96·std/√n over repeated runs (seeds).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from stickgen import figure as fg

SKATE_HEIGHT = fg.CONTACT_HEIGHT  # m: an ankle this low is on the floor
# An ankle on the floor that slides faster than this skates: 2.5 cm per frame at 20 fps, the threshold
# of Karunratanakul et al., "Guided Motion Diffusion" (ICCV 2023), as a speed so it holds at any fps.
SKATE_SPEED = 0.5  # m/s
# A frame whose lowest joint is higher than this is airborne (a jump, a swim): it does not count
# towards floating. A figure hovering lower than this while it should stand is what `floating` finds.
AIRBORNE_HEIGHT = 0.15  # m


# -----------------------------------------------------------------------------
# distributions and retrieval


def _symmetric_sqrt(matrix: np.ndarray) -> np.ndarray:
    """Square root of a symmetric positive semi-definite matrix (D, D), negative eigenvalues as zero."""
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T


def frechet_distance(mu1: np.ndarray, cov1: np.ndarray, mu2: np.ndarray, cov2: np.ndarray) -> float:
    """Fréchet distance between N(mu1, cov1) and N(mu2, cov2): means (D,), covariances (D, D).

    d² = |μ1 − μ2|² + tr Σ1 + tr Σ2 − 2 tr (Σ1 Σ2)^½. The trace of the square root is computed as
    tr (Σ1^½ Σ2 Σ1^½)^½, which has the same eigenvalues but is symmetric, so it needs only symmetric
    eigendecompositions and stays real and stable for singular covariances (fewer samples than dims).
    """
    mu1, mu2 = np.asarray(mu1, np.float64), np.asarray(mu2, np.float64)
    cov1, cov2 = np.atleast_2d(np.asarray(cov1, np.float64)), np.atleast_2d(np.asarray(cov2, np.float64))
    root1 = _symmetric_sqrt(cov1)
    product = root1 @ cov2 @ root1
    trace_root = np.sqrt(np.clip(np.linalg.eigvalsh((product + product.T) / 2), 0.0, None)).sum()
    diff = mu1 - mu2
    value = diff @ diff + np.trace(cov1) + np.trace(cov2) - 2.0 * trace_root
    return float(max(value, 0.0))  # rounding can leave −1e-12 for equal distributions


def fid(feats_a: np.ndarray, feats_b: np.ndarray) -> float:
    """Fréchet distance between two sets of embeddings (N, D) and (M, D), N, M ≥ 2.

    Mean and unbiased covariance (np.cov, as in Guo et al.'s code) of each set.
    """
    feats_a, feats_b = np.asarray(feats_a, np.float64), np.asarray(feats_b, np.float64)
    if len(feats_a) < 2 or len(feats_b) < 2:
        raise ValueError("FID needs at least two embeddings on each side")
    return frechet_distance(
        feats_a.mean(axis=0),
        np.cov(feats_a, rowvar=False),
        feats_b.mean(axis=0),
        np.cov(feats_b, rowvar=False),
    )


def _squared_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances (N, M) between rows of a (N, D) and b (M, D), float64."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T
    return np.clip(sq, 0.0, None)


def _retrieval_hits(motion: np.ndarray, text: np.ndarray, top_k: int) -> np.ndarray:
    """(N, top_k) hit rates: does motion i retrieve text i among the N texts within the top 1..top_k?

    Ties count fractionally, as a random tie-break would in expectation: when the matched text has
    `c` strictly closer rivals and `t` rivals at the same distance (a duplicate caption), it is in the
    top k with probability clip((k − c) / (t + 1), 0, 1). Shuffled captions therefore give exactly
    the chance level k / N in expectation, duplicates or not.
    """
    sq = _squared_distances(motion, text)  # (N, N): row = motion, column = text
    matched = np.diag(sq)[:, None]
    # Equal embeddings can differ in the last bits through the matrix product; within this is a tie.
    tol = 1e-9 * ((motion * motion).sum(1)[:, None] + (text * text).sum(1).max())
    closer = (sq < matched - tol).sum(axis=1)
    ties = (np.abs(sq - matched) <= tol).sum(axis=1) - 1
    k = np.arange(1, top_k + 1)[None, :]
    return np.clip((k - closer[:, None]) / (ties[:, None] + 1), 0.0, 1.0)


def r_precision(
    text_emb: np.ndarray,
    motion_emb: np.ndarray,
    *,
    top_k: int = 3,
    batch_size: int | None = 32,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """R-precision at 1..top_k: how often a motion's own text is among its k nearest texts. → (top_k,)

    text_emb, motion_emb: (N, D), row i of each describes the same clip. Distance is Euclidean.
    batch_size 32 (Guo et al.): the clips are shuffled with `rng` and cut into batches of 32 (the last
    incomplete batch is dropped, as in their code); each motion ranks its text against the other 31
    texts of its batch; the hit rates are averaged. batch_size None: each motion ranks its text against
    all N texts (no randomness). Guo et al.'s code ranks motions per text; we rank texts per motion, as
    their paper describes. Ties (duplicate captions) count fractionally, see `_retrieval_hits`.
    """
    text_emb, motion_emb = np.asarray(text_emb, np.float64), np.asarray(motion_emb, np.float64)
    n = len(text_emb)
    if len(motion_emb) != n:
        raise ValueError(f"got {n} texts but {len(motion_emb)} motions")
    if batch_size is None:
        return _retrieval_hits(motion_emb, text_emb, top_k).mean(axis=0)
    if n < batch_size:
        raise ValueError(f"R-precision in batches of {batch_size} needs at least {batch_size} clips, got {n}")
    if rng is None:
        raise ValueError("R-precision in batches needs an rng to shuffle the clips")
    order = rng.permutation(n)
    batches = [order[i : i + batch_size] for i in range(0, n - batch_size + 1, batch_size)]
    hits = [_retrieval_hits(motion_emb[b], text_emb[b], top_k) for b in batches]
    return np.concatenate(hits).mean(axis=0)


def mm_dist(text_emb: np.ndarray, motion_emb: np.ndarray) -> float:
    """Multimodal distance: mean Euclidean distance between each motion (N, D) and its text (N, D)."""
    diff = np.asarray(text_emb, np.float64) - np.asarray(motion_emb, np.float64)
    return float(np.linalg.norm(diff, axis=-1).mean())


def _random_pairs(n: int, pairs: int, rng: np.random.Generator, size: tuple[int, ...] = ()) -> tuple:
    """`pairs` index pairs (i, j) with i ≠ j, uniform over all ordered pairs: two arrays (*size, pairs)."""
    first = rng.integers(n, size=(*size, pairs))
    second = (first + rng.integers(1, n, size=(*size, pairs))) % n
    return first, second


def diversity(feats: np.ndarray, *, pairs: int = 300, rng: np.random.Generator) -> float:
    """Mean Euclidean distance between `pairs` random pairs of distinct embeddings of (N, D), N ≥ 2.

    Guo et al. draw the two sides of the 300 pairs independently, so a pair can hold one motion twice
    (distance 0); we draw pairs of two different motions, the quantity they mean to estimate.
    """
    feats = np.asarray(feats, np.float64)
    if len(feats) < 2:
        raise ValueError("diversity needs at least two embeddings")
    i, j = _random_pairs(len(feats), pairs, rng)
    return float(np.linalg.norm(feats[i] - feats[j], axis=-1).mean())


def multimodality(feats_per_text: np.ndarray, *, pairs: int = 10, rng: np.random.Generator) -> float:
    """Mean distance between two different motions generated for the same text.

    feats_per_text: (N_texts, R, D), R ≥ 2 generations per text. For each text `pairs` random pairs of
    distinct generations are drawn (Guo et al.: 10 pairs; like `diversity`, never a motion with itself).
    """
    feats = np.asarray(feats_per_text, np.float64)
    if feats.ndim != 3 or feats.shape[1] < 2:
        raise ValueError(f"multimodality needs (N_texts, R >= 2, D) embeddings, got {feats.shape}")
    i, j = _random_pairs(feats.shape[1], pairs, rng, size=(feats.shape[0],))
    rows = np.arange(feats.shape[0])[:, None]
    return float(np.linalg.norm(feats[rows, i] - feats[rows, j], axis=-1).mean())


def confidence_interval(values: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """(mean, half width of the 95 % interval) over repeated runs: mean ± 1.96·std/√n.

    std is the population standard deviation (ddof 0), as in Guo et al.'s code; one run gives 0.
    """
    values = np.asarray(values, np.float64)
    if values.size == 0:
        raise ValueError("a confidence interval needs at least one value")
    return float(values.mean()), float(1.96 * values.std() / np.sqrt(values.size))


# -----------------------------------------------------------------------------
# physics on joints (T, 16, 2)


def _ankles(joints: np.ndarray) -> np.ndarray:
    """(T, 2, 2): the left and right ankle positions over time."""
    return np.asarray(joints, np.float64)[:, [fg.J["l_ankle"], fg.J["r_ankle"]], :]


def skating_frames(joints: np.ndarray, fps: float) -> np.ndarray:
    """bool (T − 1,): does some foot skate between frame t and t + 1?

    A foot skates when its ankle is below `SKATE_HEIGHT` (5 cm) in both frames and moves horizontally
    faster than `SKATE_SPEED` (0.5 m/s) between them. This is not `figure.foot_contacts`, which calls a
    foot in contact only when it is slow, so a sliding foot would never count.
    """
    ankles = _ankles(joints)
    low = ankles[..., 1] < SKATE_HEIGHT  # (T, 2)
    speed = np.abs(np.diff(ankles[..., 0], axis=0)) * fps  # (T − 1, 2)
    return (low[1:] & low[:-1] & (speed > SKATE_SPEED)).any(axis=1)


def foot_skating_ratio(joints: np.ndarray, fps: float) -> float:
    """Share of frame steps in which a foot skates (see `skating_frames`); 0 for a one-frame clip."""
    skating = skating_frames(joints, fps)
    return float(skating.mean()) if skating.size else 0.0


def lowest_height(joints: np.ndarray) -> np.ndarray:
    """Height (m) of the lowest joint in each frame: joints (T, 16, 2) → (T,)."""
    return np.asarray(joints, np.float64)[..., 1].min(axis=-1)


def penetration(joints: np.ndarray) -> float:
    """Mean depth (m) of the lowest joint below the floor over all frames (0 in frames above it)."""
    return float(np.clip(-lowest_height(joints), 0.0, None).mean())


def floating(joints: np.ndarray) -> float:
    """Mean height (m) of the lowest joint above the floor over the frames that are not airborne.

    A frame is airborne when its lowest joint is above `AIRBORNE_HEIGHT` (15 cm): jumps and flights are
    meant to leave the floor. In the other frames a grounded figure should touch the floor, so the gap
    is float. NaN when every frame is airborne.
    """
    h = lowest_height(joints)
    grounded = h <= AIRBORNE_HEIGHT
    return float(np.clip(h[grounded], 0.0, None).mean()) if grounded.any() else float("nan")


def jerk_magnitudes(joints: np.ndarray, fps: float) -> np.ndarray:
    """|d³x/dt³| (m/s³) of every joint: the third forward difference × fps³, (T − 3, 16); empty if T < 4."""
    joints = np.asarray(joints, np.float64)
    if len(joints) < 4:
        return np.zeros((0, joints.shape[1]))
    third = np.diff(joints, n=3, axis=0) * fps**3  # (T − 3, 16, 2)
    return np.linalg.norm(third, axis=-1)


def jerk(joints: np.ndarray, fps: float) -> float:
    """Mean jerk magnitude (m/s³) over joints and frames; NaN when the clip has fewer than 4 frames."""
    magnitudes = jerk_magnitudes(joints, fps)
    return float(magnitudes.mean()) if magnitudes.size else float("nan")


def bone_length_variation(joints: np.ndarray) -> float:
    """Mean over the 12 segments of the coefficient of variation (std / mean) of its length over time.

    0 for a rigid figure. Imported real clips vary (a 3D bone seen from the side looks shorter).
    """
    lengths = fg.bone_lengths(joints)  # (T, 12)
    mean = lengths.mean(axis=0)
    return float((lengths.std(axis=0) / np.where(mean > 0, mean, 1.0)).mean())


def physics_metrics(clips: Sequence[np.ndarray], fps: float) -> dict[str, float]:
    """The physics metrics over many clips (each joints (T, 16, 2) at `fps`), pooled over frames.

    foot_skating_ratio: skating frame steps / all frame steps. penetration (m), floating (m) and jerk
    (m/s³): means over all frames (grounded frames for floating) of all clips, so a long clip weighs
    more. bone_length_variation: mean over clips.
    """
    if not clips:
        raise ValueError("physics metrics need at least one clip")
    skating = np.concatenate([skating_frames(j, fps) for j in clips])
    heights = np.concatenate([lowest_height(j) for j in clips])
    grounded = heights <= AIRBORNE_HEIGHT
    jerks = np.concatenate([jerk_magnitudes(j, fps).ravel() for j in clips])
    return {
        "foot_skating_ratio": float(skating.mean()) if skating.size else 0.0,
        "penetration": float(np.clip(-heights, 0.0, None).mean()),
        "floating": float(np.clip(heights[grounded], 0.0, None).mean()) if grounded.any() else float("nan"),
        "jerk": float(jerks.mean()) if jerks.size else float("nan"),
        "bone_length_variation": float(np.mean([bone_length_variation(j) for j in clips])),
    }
