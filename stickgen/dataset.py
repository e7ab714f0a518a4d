"""The on-disk dataset format (DESIGN §6), shared by the synthesizer and the real-data importers.

A dataset is a folder (documented in docs/data.md):

    manifest.json      format "stickgen.dataset", version, fps, counts, shards, source, seed, splits
    shards/00000.npz   clips k·S .. (k+1)·S − 1, their arrays concatenated along frames
    splits.json        train / val / test clip indices, fixed by the seed
    stats.npz          mean and std of the 52 model features (and of the 6 physics channels) over train

A shard holds `joints (F, 16, 2)` float32, `offsets (n + 1,)` int64 frame offsets of its n clips,
`actions (F,)` int16, `camera (F, 3)` float32 (NaN rows for a clip without a camera track),
`environment (n, 32)` float32, and the JSON strings `texts` (a list per clip) and `meta` (the clip's
`source`). Every file is written atomically, and byte for byte the same for the same clips: shards and
stats are zip archives with fixed timestamps, JSON has sorted keys. The manifest is written last, so a
folder without one is visibly incomplete; a writer that stopped part-way resumes by writing only the
shards that are missing.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stickgen.errors import StickgenError
from stickgen.figure import FEATURE_DIM, PHYSICS_DIM, motion_features, physics
from stickgen.files import atomic_path, atomic_write_text
from stickgen.motion import Motion

FORMAT = "stickgen.dataset"
FORMAT_VERSION = 1
FPS = 25.0
SPLITS = ("train", "val", "test")
SPLIT_SHARES = (0.9, 0.05, 0.05)
STD_FLOOR = 1e-3  # features are metres and metres per second: below a millimetre is noise
DEFAULT_SHARD_SIZE = 250
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip entry can carry; fixed for stable bytes
_SHARD_KEYS = ("joints", "offsets", "actions", "camera", "environment", "texts", "meta")


def write_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> Path:
    """Write arrays as an .npz (readable by np.load) whose bytes depend only on the arrays, atomically.

    np.savez stamps the current time into each zip entry; this writes the entries in name order with a
    fixed date, deflate-compressed, no pickles.
    """
    with atomic_path(path) as tmp:
        with zipfile.ZipFile(tmp, "w") as z:
            for name in sorted(arrays):
                buffer = io.BytesIO()
                np.lib.format.write_array(
                    buffer, np.require(arrays[name], requirements="C"), allow_pickle=False
                )
                info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                z.writestr(info, buffer.getvalue(), compresslevel=6)
    return Path(path)


def shard_path(root: str | Path, index: int) -> Path:
    return Path(root) / "shards" / f"{index:05d}.npz"


def shard_arrays(motions: list[Motion]) -> dict[str, np.ndarray]:
    """The arrays of a shard holding `motions` (all at 25 fps)."""
    if not motions:
        raise StickgenError("A shard must hold at least one clip.")
    for m in motions:
        if m.fps != FPS:
            raise StickgenError(
                f"Dataset clips must be at {FPS:g} fps; one is at {m.fps:g} (resample it first)."
            )
    lengths = np.array([m.num_frames for m in motions], dtype=np.int64)
    camera = [m.camera if m.camera is not None else np.full((m.num_frames, 3), np.nan) for m in motions]
    return {
        "joints": np.concatenate([m.joints for m in motions]).astype(np.float32),
        "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        "actions": np.concatenate([m.actions for m in motions]).astype(np.int16),
        "camera": np.concatenate(camera).astype(np.float32),
        "environment": np.stack([m.environment for m in motions]).astype(np.float32),
        "texts": np.array(json.dumps([m.texts for m in motions], sort_keys=True)),
        "meta": np.array(json.dumps([m.source for m in motions], sort_keys=True)),
    }


def write_shard(root: str | Path, index: int, motions: list[Motion]) -> Path:
    """Write clips as shard `index` of the dataset at `root` (atomically). All clips must be at 25 fps."""
    if not motions:
        raise StickgenError(f"Shard {index} would hold no clips.")
    arrays = shard_arrays(motions)
    path = shard_path(root, index)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_npz(path, arrays)


def read_shard(path: Path) -> dict[str, Any]:
    """A shard's arrays, with `texts` and `meta` decoded; one StickgenError sentence if it is unreadable."""
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in _SHARD_KEYS if k not in z.files]
            if missing:
                raise StickgenError(f"{path} lacks the {missing[0]!r} array, so the dataset is broken.")
            arrays: dict[str, Any] = {k: z[k] for k in _SHARD_KEYS}
        arrays["texts"] = json.loads(str(arrays["texts"]))
        arrays["meta"] = json.loads(str(arrays["meta"]))
    except StickgenError:
        raise
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        raise StickgenError(
            f"{path} is not a readable dataset shard (missing, truncated or corrupt)."
        ) from None
    return arrays


def split_indices(num_clips: int, seed: int) -> dict[str, np.ndarray]:
    """Train / val / test clip indices (sorted) for `num_clips` clips: a permutation fixed by `seed`.

    Every split gets at least one clip when there are at least three clips.
    """
    order = np.random.default_rng([seed, 0x5EED]).permutation(num_clips)
    n_val = int(round(num_clips * SPLIT_SHARES[1]))
    n_test = int(round(num_clips * SPLIT_SHARES[2]))
    if num_clips >= 3:
        n_val, n_test = max(n_val, 1), max(n_test, 1)
    n_train = num_clips - n_val - n_test
    cuts = np.cumsum([n_train, n_val])
    return {name: np.sort(part) for name, part in zip(SPLITS, np.split(order, cuts), strict=True)}


class DatasetWriter:
    """Writes a dataset folder clip by clip: `add` clips, then `finalize`.

    `add` buffers clips and writes a shard every `shard_size` clips. `finalize` checks that the
    shards are contiguous, then writes splits.json, stats.npz and, last, manifest.json. Parallel
    writers (the synthesizer) call the module's `write_shard` for shard k from several processes and
    `finalize_dataset` once at the end, which is all this class does in sequence.
    """

    def __init__(
        self, path: str | Path, *, source: dict[str, Any], seed: int, shard_size: int = DEFAULT_SHARD_SIZE
    ):
        self.path = Path(path)
        if (self.path / "manifest.json").exists():
            raise StickgenError(f"{self.path} already holds a finished dataset; choose another folder.")
        if self.path.exists() and not self.path.is_dir():
            raise StickgenError(f"{self.path} is a file, not a dataset folder.")
        self.source, self.seed, self.shard_size = dict(source), int(seed), int(shard_size)
        self._buffer: list[Motion] = []
        self._next_shard = 0

    def add(self, motion: Motion) -> None:
        self._buffer.append(motion)
        if len(self._buffer) == self.shard_size:
            self._flush()

    def add_all(self, motions: Iterable[Motion]) -> None:
        for m in motions:
            self.add(m)

    def _flush(self) -> None:
        if self._buffer:
            write_shard(self.path, self._next_shard, self._buffer)
            self._next_shard += 1
            self._buffer = []

    def finalize(self) -> Path:
        """Write splits, statistics and the manifest; returns the dataset folder."""
        self._flush()
        return finalize_dataset(self.path, source=self.source, seed=self.seed, shard_size=self.shard_size)


def finalize_dataset(
    path: str | Path,
    *,
    source: dict[str, Any],
    seed: int,
    shard_size: int,
    splits: dict[str, np.ndarray] | None = None,
) -> Path:
    """Read every shard once, then write splits.json, stats.npz and manifest.json (last).

    splits: train / val / test clip indices; by default `split_indices(clips, seed)`.
    """
    path = Path(path)
    files = sorted((path / "shards").glob("[0-9][0-9][0-9][0-9][0-9].npz"))
    if not files:
        raise StickgenError(f"{path} has no shards to finalize.")
    expected = [shard_path(path, k).name for k in range(len(files))]
    if [f.name for f in files] != expected:
        raise StickgenError(
            f"{path} has a gap in its shards (expected {expected[-1]} to be the last of a run)."
        )
    counts = []
    for f in files:
        offsets = read_shard(f)["offsets"]
        counts.append((len(offsets) - 1, int(offsets[-1])))
    num_clips = sum(c for c, _ in counts)
    if splits is None:
        splits = split_indices(num_clips, seed)
    else:
        splits = {k: np.sort(np.asarray(splits[k], dtype=np.int64)) for k in SPLITS}
        covered = np.sort(np.concatenate([splits[k] for k in SPLITS]))
        if not np.array_equal(covered, np.arange(num_clips)):
            raise StickgenError(f"The splits of {path} do not cover each of its {num_clips} clips once.")
    atomic_write_text(
        path / "splits.json", json.dumps({k: v.tolist() for k, v in splits.items()}, sort_keys=True)
    )
    write_npz(path / "stats.npz", _train_stats(files, splits["train"]))
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "fps": FPS,
        "clips": num_clips,
        "frames": sum(f for _, f in counts),
        "shard_size": shard_size,
        "shards": [
            {"file": f"shards/{f.name}", "clips": c, "frames": n}
            for f, (c, n) in zip(files, counts, strict=True)
        ],
        "source": source,
        "seed": seed,
        "splits": {k: len(v) for k, v in splits.items()},
    }
    atomic_write_text(path / "manifest.json", json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return path


def _train_stats(files: list[Path], train: np.ndarray) -> dict[str, np.ndarray]:
    """Mean and std (float32) of the model features and physics over the train clips' frames."""
    sums = np.zeros((2, FEATURE_DIM))
    psums = np.zeros((2, PHYSICS_DIM))
    frames, first = 0, 0
    for f in files:
        shard = read_shard(f)
        offsets = shard["offsets"]
        n = len(offsets) - 1
        for i in np.flatnonzero(np.isin(np.arange(first, first + n), train)):
            joints = shard["joints"][offsets[i] : offsets[i + 1]].astype(np.float64)
            feats = motion_features(joints, FPS)
            phys = physics(joints, FPS)
            sums += [feats.sum(axis=0), (feats * feats).sum(axis=0)]
            psums += [phys.sum(axis=0), (phys * phys).sum(axis=0)]
            frames += len(joints)
        first += n
    count = max(frames, 1)

    def moments(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean = s[0] / count
        std = np.sqrt(np.maximum(s[1] / count - mean * mean, 0.0))
        return mean.astype(np.float32), np.maximum(std, STD_FLOOR).astype(np.float32)

    mean, std = moments(sums)
    pmean, pstd = moments(psums)
    return {
        "feature_mean": mean,
        "feature_std": std,
        "physics_mean": pmean,
        "physics_std": pstd,
        "frames": np.int64(frames),
    }


@dataclass(frozen=True)
class DatasetArrays:
    """All clips' arrays concatenated in clip order: slice frames of clip i with offsets[i]:offsets[i+1]."""

    joints: np.ndarray  # (F, 16, 2) float32
    offsets: np.ndarray  # (N + 1,) int64
    actions: np.ndarray  # (F,) int16
    camera: np.ndarray  # (F, 3) float32, NaN where a clip has no camera track
    environment: np.ndarray  # (N, 32) float32


class Dataset:
    """Read a dataset folder: `len`, `motion(i)`, `texts(i)`, `split(name)`, `stats`, `arrays()`."""

    def __init__(self, path: str | Path, *, cache_shards: int = 2):
        self.path = Path(path)
        manifest_path = self.path / "manifest.json"
        if not self.path.is_dir():
            raise StickgenError(f"No dataset folder at {self.path}.")
        if not manifest_path.exists():
            raise StickgenError(
                f"{self.path} has no manifest.json: it is not a dataset or its writing did not finish "
                "(rerun the same command to resume)."
            )
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            raise StickgenError(f"{manifest_path} is not valid JSON (truncated or corrupt).") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise StickgenError(f"{manifest_path} is not a stickgen dataset manifest.")
        if manifest.get("format_version") != FORMAT_VERSION:
            raise StickgenError(
                f"{self.path} has dataset format version {manifest.get('format_version')!r}; "
                f"this stickgen reads version {FORMAT_VERSION}."
            )
        self.manifest = manifest
        counts = [int(s["clips"]) for s in manifest["shards"]]
        self._first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)  # first clip of each shard
        self._cache: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._cache_size = max(1, cache_shards)
        self._splits: dict[str, np.ndarray] | None = None
        self._stats: dict[str, np.ndarray] | None = None

    def __len__(self) -> int:
        return int(self.manifest["clips"])

    @property
    def fps(self) -> float:
        return float(self.manifest["fps"])

    def shard(self, k: int) -> dict[str, Any]:
        """The arrays of shard k (the last few are cached)."""
        if k in self._cache:
            self._cache.move_to_end(k)
            return self._cache[k]
        arrays = read_shard(self.path / self.manifest["shards"][k]["file"])
        self._cache[k] = arrays
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return arrays

    def _locate(self, i: int) -> tuple[dict[str, Any], int]:
        if not 0 <= i < len(self):
            raise StickgenError(f"Clip index {i} is out of range for a dataset of {len(self)} clips.")
        k = int(np.searchsorted(self._first, i, side="right") - 1)
        return self.shard(k), i - int(self._first[k])

    def motion(self, i: int) -> Motion:
        """Clip i as a `Motion` (float32 values widened to float64)."""
        shard, j = self._locate(i)
        a, b = shard["offsets"][j], shard["offsets"][j + 1]
        camera = shard["camera"][a:b]
        return Motion(
            shard["joints"][a:b],
            fps=self.fps,
            texts=shard["texts"][j],
            actions=shard["actions"][a:b].astype(np.int64),
            camera=None if np.isnan(camera).any() else camera,
            environment=shard["environment"][j],
            source=shard["meta"][j],
        )

    def texts(self, i: int) -> list[str]:
        shard, j = self._locate(i)
        return list(shard["texts"][j])

    def meta(self, i: int) -> dict[str, Any]:
        shard, j = self._locate(i)
        return dict(shard["meta"][j])

    def split(self, name: str) -> np.ndarray:
        """Sorted clip indices of "train", "val" or "test"."""
        if name not in SPLITS:
            raise StickgenError(f"Unknown split {name!r}; choose one of: {', '.join(SPLITS)}.")
        if self._splits is None:
            try:
                doc = json.loads((self.path / "splits.json").read_text(encoding="utf-8"))
                self._splits = {k: np.asarray(doc[k], dtype=np.int64) for k in SPLITS}
            except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
                raise StickgenError(f"{self.path / 'splits.json'} is missing or corrupt.") from None
        return self._splits[name]

    @property
    def stats(self) -> dict[str, np.ndarray]:
        """feature_mean, feature_std (52,), physics_mean, physics_std (6,) float32 and frames."""
        if self._stats is None:
            try:
                with np.load(self.path / "stats.npz", allow_pickle=False) as z:
                    self._stats = {k: z[k] for k in z.files}
            except (OSError, ValueError, EOFError, zipfile.BadZipFile):
                raise StickgenError(f"{self.path / 'stats.npz'} is missing or corrupt.") from None
        return self._stats

    def arrays(self) -> DatasetArrays:
        """Every clip's arrays concatenated in clip order (reads all shards once)."""
        parts = [read_shard(self.path / s["file"]) for s in self.manifest["shards"]]
        frame_base = np.concatenate([[0], np.cumsum([p["offsets"][-1] for p in parts])])
        offsets = np.concatenate(
            [[0]] + [p["offsets"][1:] + base for p, base in zip(parts, frame_base, strict=False)]
        )
        return DatasetArrays(
            joints=np.concatenate([p["joints"] for p in parts]),
            offsets=offsets.astype(np.int64),
            actions=np.concatenate([p["actions"] for p in parts]),
            camera=np.concatenate([p["camera"] for p in parts]),
            environment=np.concatenate([p["environment"] for p in parts]),
        )

    def all_texts(self) -> list[list[str]]:
        """The descriptions of every clip, in clip order."""
        return [t for k in range(len(self.manifest["shards"])) for t in self.shard(k)["texts"]]
