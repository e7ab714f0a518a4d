"""Training batches: clips held in memory as model features, a length-bucketed sampler, padding.

`ClipBank` turns `Motion`s into everything a training step needs, computed once: the 52 model features
(`figure.motion_features`), action ids, camera, the physics targets (`figure.physics`), the clip's
bone lengths, the environment vector, and for each clip the rows of its descriptions in a table of
text embeddings.

`BucketSampler` yields global batches of clip indices: an epoch is a permutation fixed by
`(seed, epoch)`, cut into chunks of similar length so little padding is wasted, and the batches are
shuffled, again by `(seed, epoch)`. Its position is `(epoch, batch)`, so a resumed run picks up exactly
where it stopped. Under DDP every rank builds the same global batch and takes its own slice. With
per-clip weights (`clip_weights`: some actions drawn more often than others) an epoch is as many clips
drawn with replacement in proportion to their weights, fixed by `(seed, epoch)` the same way.

`collate` pads a list of clips into tensors with a boolean mask (True = real frame).

`load_training_data` reads a dataset folder into the train and val banks, embedding every description
once through the persistent embedding cache.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from stickgen import figure as fg
from stickgen.errors import StickgenError
from stickgen.labels import ACTIONS
from stickgen.motion import Motion

# The camera condition is scaled by fixed constants rather than dataset statistics, so that a camera
# track built at generation time needs nothing from the training data: x / 10 m, (y − 1 m) / 1 m, log zoom.
CAMERA_SCALE = np.array([10.0, 1.0, 1.0])
CAMERA_OFFSET = np.array([0.0, 1.0, 0.0])


def camera_condition(camera: np.ndarray) -> np.ndarray:
    """A camera track (T, 3) of x, y (m) and zoom as the model's input: float32 (T, 3), order one."""
    out = (camera - CAMERA_OFFSET) / CAMERA_SCALE
    out[:, 2] = np.log(camera[:, 2])
    return out.astype(np.float32)


@dataclass
class Clip:
    """One training clip, arrays over its T frames."""

    features: np.ndarray  # (T, 52) float32, not normalised
    actions: np.ndarray  # (T,) int64, −1 = unknown
    camera: np.ndarray | None  # (T, 3) float32 model input (see camera_condition), or None
    physics: np.ndarray  # (T, 6) float32
    bones: np.ndarray  # (12,) float32 median segment lengths, m
    environment: np.ndarray  # (32,) float32
    text_rows: np.ndarray  # (K,) int64 rows in the bank's text table; empty = no description


class ClipBank:
    """Training clips in memory plus the table of their text embeddings."""

    def __init__(self, clips: list[Clip], text_table: np.ndarray):
        if not clips:
            raise StickgenError("There are no clips to train on.")
        self.clips = clips
        self.text_table = np.asarray(text_table, dtype=np.float32)  # (N_texts, D)
        self.lengths = np.array([len(c.features) for c in clips])

    @classmethod
    def from_motions(
        cls, motions: Sequence[Motion], text_rows: Sequence[Sequence[int]], text_table: np.ndarray
    ):
        """Build from clips at 25 fps; `text_rows[i]` are the text-table rows describing clip i."""
        clips = []
        for motion, rows in zip(motions, text_rows, strict=True):
            features = fg.motion_features(motion.joints, motion.fps).astype(np.float32)
            clips.append(
                Clip(
                    features=features,
                    actions=motion.actions.astype(np.int64),
                    camera=None if motion.camera is None else camera_condition(motion.camera),
                    physics=fg.physics(motion.joints, motion.fps).astype(np.float32),
                    bones=np.median(fg.bone_lengths(motion.joints), axis=0).astype(np.float32),
                    environment=motion.environment.astype(np.float32),
                    text_rows=np.asarray(rows, dtype=np.int64),
                )
            )
        return cls(clips, text_table)

    def __len__(self) -> int:
        return len(self.clips)

    @property
    def frames(self) -> int:
        return int(self.lengths.sum())


@dataclass
class Batch:
    """Padded tensors for B clips of up to T frames."""

    features: torch.Tensor  # (B, T, 52) normalised
    mask: torch.Tensor  # (B, T) bool, True = real frame
    actions: torch.Tensor  # (B, T) long, −1 = unknown or padding
    camera: torch.Tensor  # (B, T, 3)
    has_camera: torch.Tensor  # (B,) bool
    physics: torch.Tensor  # (B, T, 6)
    bones: torch.Tensor  # (B, 12) m
    environment: torch.Tensor  # (B, 32)
    text: torch.Tensor  # (B, D)
    has_text: torch.Tensor  # (B,) bool

    def to(self, device: torch.device | str) -> Batch:
        return Batch(**{k: v.to(device) for k, v in vars(self).items()})


def collate(
    bank: ClipBank, indices: Sequence[int], mean: np.ndarray, std: np.ndarray, text_choice: np.ndarray
) -> Batch:
    """Pad the clips `indices` into a `Batch`.

    text_choice: (B,) uniform numbers in [0, 1) that pick each clip's description among its texts.
    """
    clips = [bank.clips[i] for i in indices]
    B, T = len(clips), max(len(c.features) for c in clips)
    D = bank.text_table.shape[1]
    features = np.zeros((B, T, fg.FEATURE_DIM), np.float32)
    mask = np.zeros((B, T), bool)
    actions = np.full((B, T), -1, np.int64)
    camera = np.zeros((B, T, 3), np.float32)
    has_camera = np.zeros(B, bool)
    physics = np.zeros((B, T, fg.PHYSICS_DIM), np.float32)
    text = np.zeros((B, D), np.float32)
    has_text = np.zeros(B, bool)
    for b, clip in enumerate(clips):
        n = len(clip.features)
        features[b, :n] = (clip.features - mean) / std
        mask[b, :n] = True
        actions[b, :n] = clip.actions
        physics[b, :n] = clip.physics
        if clip.camera is not None:
            camera[b, :n] = clip.camera
            has_camera[b] = True
        if len(clip.text_rows):
            k = min(int(text_choice[b] * len(clip.text_rows)), len(clip.text_rows) - 1)
            text[b] = bank.text_table[clip.text_rows[k]]
            has_text[b] = True
    return Batch(
        features=torch.from_numpy(features),
        mask=torch.from_numpy(mask),
        actions=torch.from_numpy(actions),
        camera=torch.from_numpy(camera),
        has_camera=torch.from_numpy(has_camera),
        physics=torch.from_numpy(physics),
        bones=torch.from_numpy(np.stack([c.bones for c in clips])),
        environment=torch.from_numpy(np.stack([c.environment for c in clips])),
        text=torch.from_numpy(text),
        has_text=torch.from_numpy(has_text),
    )


class BucketSampler:
    """Deterministic, resumable, length-bucketed global batches of clip indices.

    lengths: (N,) frames per clip. batch_size: clips per global batch (a multiple of `world_size`).
    The last incomplete batch of an epoch is dropped, so every batch has the same number of clips.
    """

    def __init__(
        self,
        lengths: np.ndarray,
        batch_size: int,
        seed: int,
        *,
        bucket_batches: int = 16,
        weights: np.ndarray | None = None,
    ):
        if batch_size < 1 or batch_size > len(lengths):
            raise StickgenError(
                f"The batch size must be between 1 and the number of clips ({len(lengths)}), "
                f"not {batch_size}."
            )
        self.lengths = np.asarray(lengths)
        self.probabilities = None
        if weights is not None:
            weights = np.asarray(weights, np.float64)
            if weights.shape != self.lengths.shape or not np.all(np.isfinite(weights)) or weights.min() < 0:
                raise StickgenError("Clip weights must be one finite, non-negative number per clip.")
            if weights.sum() <= 0:
                raise StickgenError("At least one clip needs a weight above 0.")
            self.probabilities = weights / weights.sum()
        self.batch_size = batch_size
        self.seed = seed
        self.bucket = batch_size * bucket_batches
        self.batches_per_epoch = len(self.lengths) // batch_size

    def epoch(self, epoch: int) -> list[np.ndarray]:
        """The global batches of one epoch, in order."""
        rng = np.random.default_rng([self.seed, epoch])
        if self.probabilities is None:
            order = rng.permutation(len(self.lengths))
        else:
            order = rng.choice(len(self.lengths), size=len(self.lengths), p=self.probabilities)
        batches = []
        for start in range(0, len(order), self.bucket):
            chunk = order[start : start + self.bucket]
            chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
            batches.extend(chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size))
        batches = [b for b in batches if len(b) == self.batch_size]
        return [batches[i] for i in rng.permutation(len(batches))]

    def iterate(self, epoch: int, batch: int) -> Iterator[tuple[int, int, np.ndarray]]:
        """Yield `(epoch, batch, indices)` forever, starting at position `(epoch, batch)`."""
        while True:
            batches = self.epoch(epoch)
            for b in range(batch, len(batches)):
                yield epoch, b, batches[b]
            epoch, batch = epoch + 1, 0


def clip_weights(clips: Sequence[Clip], action_weights: dict[str, float]) -> np.ndarray | None:
    """Each clip's sampling weight: the mean over its frames of their action's weight in
    `action_weights` (an action it does not name, and a frame of unknown action, weigh 1); None when
    `action_weights` is empty (every clip alike)."""
    if not action_weights:
        return None
    table = np.ones(len(ACTIONS) + 1)  # the last entry is read by the unknown id −1
    for name, weight in action_weights.items():
        if name not in ACTIONS:
            raise StickgenError(f"Unknown action {name!r} in the action weights.")
        table[ACTIONS.index(name)] = weight
    return np.array([table[clip.actions].mean() for clip in clips])


def rank_slice(indices: np.ndarray, rank: int, world_size: int) -> np.ndarray:
    """This rank's share of a global batch: every `world_size`-th clip starting at `rank`."""
    return indices[rank::world_size]


@dataclass
class TrainingData:
    """What training needs from a dataset: clip banks for two splits, statistics, the encoder."""

    train: ClipBank
    val: ClipBank
    mean: np.ndarray  # (52,)
    std: np.ndarray  # (52,)
    encoder: dict[str, Any]  # identity {"name", "id", "dim"}
    description: str  # where the data came from, for the run config and the model card


def in_memory_training_data(
    motions: Sequence[Motion], text_table: np.ndarray, encoder: dict[str, Any], description: str
) -> TrainingData:
    """Training data from clips in memory, clip i described by row i of `text_table`; the same clips
    serve as the validation split and give the statistics (tests, benchmarks, quick experiments)."""
    bank = ClipBank.from_motions(motions, [[i] for i in range(len(motions))], text_table)
    feats = np.concatenate([c.features for c in bank.clips])
    return TrainingData(
        train=bank, val=bank, mean=feats.mean(axis=0), std=np.maximum(feats.std(axis=0), 1e-3),
        encoder=encoder, description=description,
    )  # fmt: skip


def load_training_data(path: str | Path, encoder: str, *, progress: bool = True) -> TrainingData:
    """The train and val splits of a dataset folder, with every description embedded by `encoder`."""
    from stickgen.dataset import Dataset
    from stickgen.files import portable_path
    from stickgen.text import TextEncoder

    dataset = Dataset(path)
    texts = dataset.all_texts()
    unique = sorted({t for clip in texts for t in clip})
    row = {t: i for i, t in enumerate(unique)}
    text_encoder = TextEncoder(encoder)
    table = text_encoder.encode(unique, progress=progress) if unique else np.zeros((0, text_encoder.dim))

    def bank(split: str) -> ClipBank:
        indices = dataset.split(split)
        motions = [dataset.motion(int(i)) for i in indices]
        return ClipBank.from_motions(motions, [[row[t] for t in texts[int(i)]] for i in indices], table)

    stats = dataset.stats
    return TrainingData(
        train=bank("train"),
        val=bank("val"),
        mean=stats["feature_mean"].astype(np.float32),
        std=stats["feature_std"].astype(np.float32),
        encoder=text_encoder.identity.to_dict(),
        description=f"{portable_path(path)} ({len(dataset)} clips, {dataset.manifest.get('source', {})})",
    )
