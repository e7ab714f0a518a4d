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

The bank keeps every per-frame array end to end (`ClipBank.features`, ...; each `Clip` holds views
into them), so `collate` pads a batch with a few gathers, on whatever device the bank's tensors are
copied to once (`ClipBank.tensors`): on a GPU, batches are assembled there and only the clip indices
travel, so the host does not spend a step's time padding clips one by one. The result has a boolean
mask (True = real frame) and is bit for bit what padding clip by clip gives (tests/test_batches.py).

`load_training_data` reads a dataset folder into the train and val banks, embedding every description
once through the persistent embedding cache; with `parts`, also each part of a description of several
(`action_meaning.part_sentences`), so that `collate` can give a clip's runs of one action the
sentences of its caption's parts, in order, where they are as many: the way the sampler gives a prompt's
parts their spans from the text alone (`generation.text_by_parts`).
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


def clip_runs(actions: np.ndarray) -> np.ndarray:
    """Each frame's run of one action (T,) int64: 0 for the first action's frames, 1 for the next one's,
    ...; an unknown frame (−1) stays in the run before it (the first, before any known frame), where
    `labels.action_spans` would make it a run of its own."""
    known = np.flatnonzero(actions >= 0)
    changes = np.zeros(len(actions), dtype=np.int64)
    if len(known) > 1:
        changed = known[1:][actions[known[1:]] != actions[known[:-1]]]
        changes[changed] = 1
    return np.cumsum(changes)


class ClipBank:
    """Training clips in memory plus the table of their text embeddings.

    text_parts: for each row of `text_table`, the rows of its parts' sentences in the same table, in
    order; fewer than two = a description of one part. None = no description has parts.
    """

    def __init__(
        self, clips: list[Clip], text_table: np.ndarray, text_parts: Sequence[Sequence[int]] | None = None
    ):
        if not clips:
            raise StickgenError("There are no clips to train on.")
        self.text_table = np.asarray(text_table, dtype=np.float32)  # (N_texts, D)
        self.lengths = np.array([len(c.features) for c in clips])
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.int64)
        # Every per-frame array end to end, so that a batch is a few gathers (on any device); each
        # clip's arrays become views into these, so the bank holds its frames once.
        self.features = np.concatenate([c.features for c in clips]).astype(np.float32, copy=False)
        self.actions = np.concatenate([c.actions for c in clips]).astype(np.int64, copy=False)
        self.physics = np.concatenate([c.physics for c in clips]).astype(np.float32, copy=False)
        self.has_camera = np.array([c.camera is not None for c in clips])
        self.camera = np.zeros((len(self.features), 3), np.float32)
        for clip, start, n in zip(clips, self.starts, self.lengths, strict=True):
            if clip.camera is not None:
                self.camera[start : start + n] = clip.camera
        self.bones = np.stack([c.bones for c in clips]).astype(np.float32, copy=False)
        self.environment = np.stack([c.environment for c in clips]).astype(np.float32, copy=False)
        self.text_counts = np.array([len(c.text_rows) for c in clips], np.int64)
        self.text_starts = np.concatenate([[0], np.cumsum(self.text_counts)[:-1]]).astype(np.int64)
        self.text_rows = np.concatenate([np.asarray(c.text_rows, np.int64) for c in clips])
        # each frame's run of one action, and each clip's number of runs (its parts, if its caption's match)
        runs = [clip_runs(c.actions) for c in clips]
        self.runs = np.concatenate(runs)
        self.run_counts = np.array([int(r[-1]) + 1 for r in runs], np.int64)
        parts = [list(rows) if len(rows) > 1 else [] for rows in (text_parts or [])]
        parts += [[] for _ in range(len(self.text_table) - len(parts))]
        self.part_counts = np.array([len(rows) for rows in parts], np.int64)
        self.part_starts = np.concatenate([[0], np.cumsum(self.part_counts)[:-1]]).astype(np.int64)
        self.part_rows = np.array([row for rows in parts for row in rows], np.int64)
        self.clips = [
            Clip(
                features=self.features[start : start + n],
                actions=self.actions[start : start + n],
                camera=self.camera[start : start + n] if has else None,
                physics=self.physics[start : start + n],
                bones=self.bones[i],
                environment=self.environment[i],
                text_rows=self.text_rows[self.text_starts[i] : self.text_starts[i] + self.text_counts[i]],
            )
            for i, (start, n, has) in enumerate(zip(self.starts, self.lengths, self.has_camera, strict=True))
        ]
        self._on: dict[str, dict[str, torch.Tensor]] = {}

    @classmethod
    def from_motions(
        cls,
        motions: Sequence[Motion],
        text_rows: Sequence[Sequence[int]],
        text_table: np.ndarray,
        text_parts: Sequence[Sequence[int]] | None = None,
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
        return cls(clips, text_table, text_parts)

    def __len__(self) -> int:
        return len(self.clips)

    def tensors(self, device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
        """The packed arrays as tensors on `device`, made once per device (on the CPU they share the
        arrays' memory)."""
        key = str(torch.device(device))
        if key not in self._on:
            names = (
                "features", "actions", "physics", "camera", "has_camera", "bones", "environment",
                "starts", "lengths", "text_counts", "text_starts", "text_rows", "text_table", "runs",
                "run_counts", "part_counts", "part_starts", "part_rows",
            )  # fmt: skip
            arrays = {n: np.ascontiguousarray(getattr(self, n)) for n in names}
            self._on[key] = {n: torch.from_numpy(a).to(device) for n, a in arrays.items()}
        return self._on[key]

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
    text: torch.Tensor  # (B, D), or (B, T, D) with a sentence per frame (`collate`'s parts)
    has_text: torch.Tensor  # (B,) bool

    def to(self, device: torch.device | str) -> Batch:
        return Batch(**{k: to_device(v, device) for k, v in vars(self).items()})


def to_device(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    """`tensor` on `device`. A CPU tensor goes to a GPU through pinned memory without waiting, so the
    copy does not make the host wait for the GPU's queued work (a plain copy would)."""
    device = torch.device(device)
    if device.type != "cuda" or tensor.device.type != "cpu":
        return tensor.to(device)
    return tensor.pin_memory().to(device, non_blocking=True)


def collate(
    bank: ClipBank,
    indices: Sequence[int],
    mean: np.ndarray | torch.Tensor,
    std: np.ndarray | torch.Tensor,
    text_choice: np.ndarray | torch.Tensor,
    *,
    device: torch.device | str = "cpu",
    parts: np.ndarray | torch.Tensor | None = None,
) -> Batch:
    """Pad the clips `indices` into a `Batch` on `device`, gathered from the bank's packed tensors there.

    text_choice: (B,) uniform numbers in [0, 1) that pick each clip's description among its texts.
    parts: (B,) bool, the clips whose description, if it has as many parts as the clip has runs of one
    action (`clip_runs`), gives each run its part's sentence: the batch's text is then (B, T, D), a
    sentence per frame (the others' repeated). None or none such: (B, D).
    The features are normalised as `(features − mean) / std`; padded frames are 0 (actions −1).
    """
    on = bank.tensors(device)
    dev = on["features"].device
    index = np.asarray(indices, dtype=np.int64)
    T = int(bank.lengths[index].max())
    idx = to_device(torch.from_numpy(index), dev)
    starts, lengths = on["starts"][idx], on["lengths"][idx]
    offsets = torch.arange(T, device=dev)[None, :]
    mask = offsets < lengths[:, None]  # (B, T)
    frames = torch.where(mask, starts[:, None] + offsets, 0)
    mean_t = torch.as_tensor(mean, dtype=torch.float32, device=dev)
    std_t = torch.as_tensor(std, dtype=torch.float32, device=dev)
    flat = frames.reshape(-1)

    def gather(name: str) -> torch.Tensor:  # per-frame rows of one packed array, (B, T, ...)
        values = on[name].index_select(0, flat)
        return values.view(*frames.shape, *values.shape[1:])

    pad = ~mask[..., None]
    features = gather("features").sub_(mean_t).div_(std_t).masked_fill_(pad, 0.0)
    counts = on["text_counts"][idx]
    has_text = counts > 0
    choice = to_device(torch.as_tensor(text_choice), dev)
    k = torch.minimum((choice * counts).long(), (counts - 1).clamp(min=0))
    # A clip without texts points at any row (0) and gets zeros instead.
    at = torch.where(has_text, on["text_starts"][idx] + k, 0)
    text = torch.zeros((len(index), bank.text_table.shape[1]), device=dev)
    if len(bank.text_rows):
        row = on["text_rows"][at]  # (B,) each clip's description in the text table
        text = torch.where(has_text[:, None], on["text_table"][row], 0.0)
        if parts is not None and len(bank.part_rows):
            count = on["part_counts"][row]
            split = to_device(torch.as_tensor(parts), dev) & has_text & (count > 1)
            split &= count == on["run_counts"][idx]
            if split.any():
                run = torch.minimum(gather("runs"), (count - 1).clamp(min=0)[:, None])  # (B, T)
                part = on["part_rows"][
                    (on["part_starts"][row][:, None] + run).clamp(max=len(bank.part_rows) - 1)
                ]
                frame_rows = torch.where(split[:, None], part, row[:, None])  # (B, T)
                text = torch.where(has_text[:, None, None], on["text_table"][frame_rows], 0.0)
    has_camera = on["has_camera"][idx]
    return Batch(
        features=features,
        mask=mask,
        actions=gather("actions").masked_fill_(~mask, -1),
        camera=gather("camera").masked_fill_(pad, 0.0),  # 0 where a clip has none
        has_camera=has_camera,
        physics=gather("physics").masked_fill_(pad, 0.0),
        bones=on["bones"][idx],
        environment=on["environment"][idx],
        text=text,
        has_text=has_text,
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


def with_part_sentences(texts: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The descriptions followed by the sentences of their parts not among them, and each description
    of several parts with its parts' sentences (`action_meaning.part_sentences`): what `text_parts`
    embeds, here and in `stickgen data embed --parts`."""
    from stickgen.action_meaning import part_sentences

    split_into = {t: p for t in texts if len(p := part_sentences(t)) > 1}
    return texts + sorted({s for p in split_into.values() for s in p} - set(texts)), split_into


def load_training_data(
    path: str | Path, encoder: str, *, progress: bool = True, parts: bool = False
) -> TrainingData:
    """The train and val splits of a dataset folder, with every description embedded by `encoder`, and
    with `parts` each part of a description of several (`action_meaning.part_sentences`)."""
    from stickgen.dataset import Dataset
    from stickgen.files import portable_path
    from stickgen.text import TextEncoder

    dataset = Dataset(path)
    # One pass over the shards in clip order, so each is read and decompressed once (reading the texts
    # first and each split after read every shard three times: a third of the loading time).
    keep = {int(i) for name in ("train", "val") for i in dataset.split(name)}
    texts: list[list[str]] = []
    motions: dict[int, Motion] = {}
    for i in range(len(dataset)):
        texts.append(dataset.texts(i))
        if i in keep:
            motions[i] = dataset.motion(i)
    unique = sorted({t for clip in texts for t in clip})
    split_into: dict[str, list[str]] = {}
    if parts:
        unique, split_into = with_part_sentences(unique)
    row = {t: i for i, t in enumerate(unique)}
    text_encoder = TextEncoder(encoder)
    table = text_encoder.encode(unique, progress=progress) if unique else np.zeros((0, text_encoder.dim))
    text_parts = [[row[s] for s in split_into.get(t, [])] for t in unique] if parts else None

    def bank(split: str) -> ClipBank:
        indices = [int(i) for i in dataset.split(split)]
        clips = [motions.pop(i) for i in indices]  # not kept once the bank holds their features
        return ClipBank.from_motions(clips, [[row[t] for t in texts[i]] for i in indices], table, text_parts)

    stats = dataset.stats
    return TrainingData(
        train=bank("train"),
        val=bank("val"),
        mean=stats["feature_mean"].astype(np.float32),
        std=stats["feature_std"].astype(np.float32),
        encoder=text_encoder.identity.to_dict(),
        description=f"{portable_path(path)} ({len(dataset)} clips, {dataset.manifest.get('source', {})})",
    )
