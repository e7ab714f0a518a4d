"""`Motion`, the clip type, and its two file formats (.npz and .json).

A clip stores joints, not segments: `joints (T, 16, 2)` in world metres, plus its frame rate, texts,
per-frame action ids, an optional camera track, the environment vector and free-form `source`
metadata. Everything else (pose, velocity, physics) is derived by the functions in `figure.py`.

Files:
- `.npz`: arrays `joints`, `fps`, `actions`, `camera` ((0, 3) when the clip has no camera track),
  `environment`, and the JSON strings `texts` and `meta`. Written without pickles.
- `.json`: the interchange format documented in docs/formats.md (`format: "stickgen.motion"`,
  `schema_version: 1`).
"""

from __future__ import annotations

import json
import math
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from stickgen.errors import StickgenError
from stickgen.figure import JOINTS, NUM_JOINTS
from stickgen.files import atomic_path, atomic_write_text
from stickgen.labels import (
    ENVIRONMENT_DIM,
    NUM_ACTIONS,
    action_name,
    action_spans,
    environment_name,
    environment_vector,
)

JSON_FORMAT = "stickgen.motion"
JSON_SCHEMA_VERSION = 1
SUFFIXES = (".npz", ".json")


@dataclass
class Motion:
    """One clip. Arrays are converted to float64 / int64 and validated on construction.

    joints: (T, 16, 2) world metres, y up, floor at y = 0.
    fps: frames per second (25 is canonical).
    texts: descriptions of the clip (may be empty).
    actions: (T,) action id per frame, −1 = unknown; defaults to all −1.
    camera: (T, 3) camera centre x, y (m) and zoom (1 = a 3 m tall view), or None for no track.
    environment: (32,) environment vector; defaults to earth.
    source: metadata (where the clip came from, generator parameters, ...), JSON-serialisable.
    """

    joints: np.ndarray
    fps: float = 25.0
    texts: list[str] = field(default_factory=list)
    actions: np.ndarray | None = None
    camera: np.ndarray | None = None
    environment: np.ndarray | None = None
    source: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.joints = np.asarray(self.joints, dtype=np.float64)
        if self.actions is None and self.joints.ndim >= 1:
            self.actions = np.full(self.joints.shape[0], -1, dtype=np.int64)
        self.actions = np.asarray(self.actions)
        if self.camera is not None:
            self.camera = np.asarray(self.camera, dtype=np.float64)
        self.environment = (
            environment_vector("earth") if self.environment is None else np.asarray(self.environment)
        ).astype(np.float32)
        self.texts = [str(t) for t in self.texts]
        self.source = dict(self.source)
        validate(self)
        self.fps = float(self.fps)
        self.actions = self.actions.astype(np.int64)

    @property
    def num_frames(self) -> int:
        return int(self.joints.shape[0])

    @property
    def duration(self) -> float:
        """Seconds from the first frame's start to the last frame's end: T / fps."""
        return self.num_frames / self.fps

    def replace(self, **changes: Any) -> Motion:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)


def validate(m: Motion) -> None:
    """Raise `StickgenError` with one sentence for the first problem found in a clip."""
    j = m.joints
    if j.ndim != 3 or j.shape[1:] != (NUM_JOINTS, 2):
        raise StickgenError(f"joints must have shape (T, 16, 2); got {tuple(j.shape)}.")
    if j.shape[0] == 0:
        raise StickgenError("The clip has no frames (T = 0).")
    bad = ~np.isfinite(j).all(axis=(1, 2))
    if bad.any():
        raise StickgenError(f"joints contain NaN or infinite values (first at frame {int(np.argmax(bad))}).")
    if not isinstance(m.fps, (int, float, np.number)) or not math.isfinite(m.fps) or m.fps <= 0:
        raise StickgenError(f"fps must be a positive number; got {m.fps!r}.")
    a = m.actions
    if a.shape != (j.shape[0],):
        raise StickgenError(f"actions must have shape ({j.shape[0]},), one per frame; got {tuple(a.shape)}.")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        if not np.isfinite(a).all() or not np.all(a == np.round(a)):
            raise StickgenError("action ids must be whole numbers.")
    out_of_range = (a < -1) | (a >= NUM_ACTIONS)
    if out_of_range.any():
        k = int(np.argmax(out_of_range))
        raise StickgenError(f"action ids must be in -1..{NUM_ACTIONS - 1}; found {a[k]} at frame {k}.")
    if m.camera is not None:
        c = m.camera
        if c.shape != (j.shape[0], 3):
            raise StickgenError(f"camera must have shape ({j.shape[0]}, 3); got {tuple(c.shape)}.")
        if not np.isfinite(c).all() or (c[:, 2] <= 0).any():
            raise StickgenError("camera must be finite with a positive zoom in every frame.")
    e = m.environment
    if e.shape != (ENVIRONMENT_DIM,) or not np.isfinite(e).all():
        raise StickgenError(f"environment must be {ENVIRONMENT_DIM} finite numbers; got {tuple(e.shape)}.")


def save_motion(motion: Motion, path: str | Path) -> Path:
    """Write a clip to `.npz` or `.json` (chosen by suffix), atomically. Returns the path."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".npz":
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as f:
                np.savez_compressed(
                    f,
                    joints=motion.joints,
                    fps=np.float64(motion.fps),
                    actions=motion.actions,
                    camera=np.zeros((0, 3)) if motion.camera is None else motion.camera,
                    environment=motion.environment,
                    texts=np.array(json.dumps(motion.texts)),
                    meta=np.array(json.dumps(motion.source)),
                )
        return path
    if suffix == ".json":
        return atomic_write_text(path, json.dumps(motion_to_json(motion), indent=1) + "\n")
    raise StickgenError(f"Cannot save a clip as {suffix or 'a file without suffix'!r}; use .npz or .json.")


def motion_to_json(motion: Motion) -> dict[str, Any]:
    """The JSON interchange document of a clip (see docs/formats.md)."""
    return {
        "format": JSON_FORMAT,
        "schema_version": JSON_SCHEMA_VERSION,
        "fps": motion.fps,
        "frames": motion.num_frames,
        "joint_names": list(JOINTS),
        "joints": np.round(motion.joints, 7).tolist(),
        "texts": motion.texts,
        "actions": motion.actions.tolist(),
        "camera": None if motion.camera is None else np.round(motion.camera, 7).tolist(),
        "environment": motion.environment.tolist(),
        "meta": motion.source,
    }


def motion_from_json(doc: Any, name: str = "the document") -> Motion:
    """Build a clip from a JSON interchange document; one-sentence errors for a wrong schema."""
    if not isinstance(doc, dict) or doc.get("format") != JSON_FORMAT:
        raise StickgenError(f"{name} is not a stickgen motion JSON (it lacks format: {JSON_FORMAT!r}).")
    version = doc.get("schema_version")
    if version != JSON_SCHEMA_VERSION:
        raise StickgenError(
            f"{name} has schema_version {version!r}; this stickgen reads version {JSON_SCHEMA_VERSION}."
        )
    missing = [k for k in ("fps", "joints") if k not in doc]
    if missing:
        raise StickgenError(f"{name} lacks the key {missing[0]!r}.")
    if doc.get("joint_names", list(JOINTS)) != list(JOINTS):
        raise StickgenError(f"{name} lists joint_names that differ from stickgen's 16 joints.")
    try:
        joints = np.asarray(doc["joints"], dtype=np.float64)
        actions = None if doc.get("actions") is None else np.asarray(doc["actions"])
        camera = None if doc.get("camera") is None else np.asarray(doc["camera"], dtype=np.float64)
        env = None if doc.get("environment") is None else np.asarray(doc["environment"], dtype=np.float64)
    except (TypeError, ValueError):
        raise StickgenError(f"{name} holds arrays that are not rectangular lists of numbers.") from None
    texts = doc.get("texts", [])
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise StickgenError(f"{name} has 'texts' that are not a list of strings.")
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        raise StickgenError(f"{name} has 'meta' that is not an object.")
    return Motion(
        joints, fps=doc["fps"], texts=texts, actions=actions, camera=camera, environment=env, source=meta
    )


def load_motion(path: str | Path) -> Motion:
    """Read a clip from `.npz`, `.json` or a `.bvh` that stickgen wrote (`stickgen.bvh`); every problem
    with the file is one `StickgenError` sentence."""
    path = Path(path)
    if path.is_dir():
        raise StickgenError(f"{path} is a directory, not a motion file.")
    if not path.exists():
        raise StickgenError(f"No such file: {path}.")
    suffix = path.suffix.lower()
    if suffix == ".npz":
        return _load_npz(path)
    if suffix == ".json":
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise StickgenError(f"{path} is not valid JSON (truncated or corrupt).") from None
        except OSError as e:
            raise StickgenError(f"Cannot read {path}: {e.strerror or e}.") from None
        return motion_from_json(doc, str(path))
    if suffix == ".bvh":
        from stickgen.bvh import bvh_to_motion, read_bvh  # bvh.py builds on this module

        return bvh_to_motion(read_bvh(path))
    raise StickgenError(
        f"Cannot read {path}: unsupported suffix {suffix or '(none)'!r}; use .npz, .json or .bvh."
    )


def _load_npz(path: Path) -> Motion:
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in ("joints", "fps") if k not in z.files]
            if missing:
                raise StickgenError(f"{path} lacks the {missing[0]!r} array, so it is not a stickgen clip.")
            arrays = {k: z[k] for k in z.files}
    except StickgenError:
        raise
    except (zipfile.BadZipFile, EOFError, ValueError, OSError, KeyError):
        raise StickgenError(f"{path} is not a readable .npz motion file (truncated or corrupt).") from None
    try:
        texts = json.loads(str(arrays["texts"])) if "texts" in arrays else []
        meta = json.loads(str(arrays["meta"])) if "meta" in arrays else {}
    except json.JSONDecodeError:
        raise StickgenError(f"{path} has texts or meta that are not valid JSON.") from None
    camera = arrays.get("camera")
    return Motion(
        arrays["joints"],
        fps=float(arrays["fps"]),
        texts=texts,
        actions=arrays.get("actions"),
        camera=None if camera is None or camera.size == 0 else camera,
        environment=arrays.get("environment"),
        source=meta,
    )


def describe(motion: Motion) -> str:
    """A short human-readable summary of a clip, as `stickgen info` prints it."""
    j = motion.joints
    lo, hi = j.reshape(-1, 2).min(axis=0), j.reshape(-1, 2).max(axis=0)
    env = motion.environment
    lines = [
        f"frames:      {motion.num_frames}",
        f"duration:    {motion.duration:.2f} s",
        f"fps:         {motion.fps:g}",
        f"environment: {environment_name(env)} (gravity {env[8] * 9.81:.2f} m/s²)",
        f"bounding box: x {lo[0]:.2f} .. {hi[0]:.2f} m, y {lo[1]:.2f} .. {hi[1]:.2f} m",
        f"camera:      {'track' if motion.camera is not None else 'none (automatic when rendered)'}",
        "actions:",
    ]
    for action, start, stop in action_spans(motion.actions):
        lines.append(f"  {action_name(action):<16} {start / motion.fps:6.2f} – {stop / motion.fps:6.2f} s")
    lines.append("texts:" if motion.texts else "texts:       (none)")
    lines.extend(f"  - {t}" for t in motion.texts)
    if motion.source:
        lines.append(f"source:      {json.dumps(motion.source, sort_keys=True)[:200]}")
    return "\n".join(lines)
