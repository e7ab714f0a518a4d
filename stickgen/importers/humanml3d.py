"""HumanML3D and KIT-ML (in HumanML3D's processed layout) → raw clips.

A dataset folder holds `new_joints/ID.npy` (joint positions over time), `texts/ID.txt` and the split
files `train.txt`, `val.txt`, `test.txt` (one ID per line).

| | joints | frame rate | unit | up |
|---|---|---|---|---|
| `humanml3d` | (T, 22, 3), SMPL's first 22 joints | 20 fps | metres | y |
| `kit` | (T, 21, 3), KIT-ML's reduced MMM skeleton | 12.5 fps | millimetres | y |

Each line of a text file is `caption#tokens#start#end`. `start` and `end` are seconds into the clip;
`0.0#0.0` (or NaN, or a missing pair) means the caption describes the whole clip. Captions with a
span describe only those frames, so, as the field's own loaders do, each distinct span becomes a clip
of its own, from frame ⌊start·fps⌋ to ⌊end·fps⌋, with every caption of that span. All the clips of one
ID keep that ID's split. IDs that no split file lists are skipped (the datasets leave out clips
they found faulty); without any split file, every ID is imported and split by the seed.

Joints: SMPL's neck (12) and head (15) are the figure's neck and head, its spine joints (3, 6, 9)
place the chest, its feet (10, 11) are the toes. KIT's sides follow the HumanML3D code's convention
(right leg 11–15 and arm 5–7, left leg 16–20 and arm 8–10); the importer's handedness check
(geometry.py) corrects a clip whose sides disagree with its toes either way.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stickgen.errors import StickgenError
from stickgen.importers.clips import RawClip, Skip
from stickgen.importers.geometry import check_options, to_y_up
from stickgen.importers.skeleton import figure_from_indices

SPLIT_FILES = {"train": "train.txt", "val": "val.txt", "test": "test.txt"}


@dataclass(frozen=True)
class Skeleton:
    joints: int
    fps: float
    scale: float  # metres per unit
    indices: dict[str, int]
    spine: tuple[int, ...]
    toes: tuple[int, int]


SKELETONS = {
    "humanml3d": Skeleton(
        joints=22, fps=20.0, scale=1.0,
        indices={"neck": 12, "head": 15, "l_shoulder": 16, "l_elbow": 18, "l_wrist": 20,
                 "r_shoulder": 17, "r_elbow": 19, "r_wrist": 21, "l_hip": 1, "l_knee": 4, "l_ankle": 7,
                 "r_hip": 2, "r_knee": 5, "r_ankle": 8},
        spine=(3, 6, 9), toes=(10, 11),
    ),
    "kit": Skeleton(
        joints=21, fps=12.5, scale=0.001,
        indices={"neck": 3, "head": 4, "l_shoulder": 8, "l_elbow": 9, "l_wrist": 10,
                 "r_shoulder": 5, "r_elbow": 6, "r_wrist": 7, "l_hip": 16, "l_knee": 17, "l_ankle": 18,
                 "r_hip": 11, "r_knee": 12, "r_ankle": 13},
        spine=(1, 2), toes=(19, 14),
    ),
}  # fmt: skip


@dataclass(frozen=True)
class HumanML3DSource:
    """`kind` is "humanml3d" or "kit"; fps, scale and up override the table above."""

    kind: str = "humanml3d"
    fps: float | None = None
    scale: float | None = None
    up: str = "y"

    def __post_init__(self) -> None:
        if self.kind not in SKELETONS:
            raise StickgenError(f"Unknown joint layout {self.kind!r}; choose one of: {', '.join(SKELETONS)}.")
        check_options(self.up, self.scale, self.fps)

    @property
    def format(self) -> str:
        return self.kind

    @property
    def skeleton(self) -> Skeleton:
        return SKELETONS[self.kind]

    def describe(self) -> dict[str, Any]:
        return {"fps": self.rate, "scale": self.unit, "up": self.up}

    @property
    def rate(self) -> float:
        return self.fps if self.fps is not None else self.skeleton.fps

    @property
    def unit(self) -> float:
        return self.scale if self.scale is not None else self.skeleton.scale

    def items(self, src: Path) -> list[str]:
        joints = src / "new_joints"
        if not joints.is_dir():
            raise StickgenError(
                f"{src} has no new_joints folder; give the {self.kind} dataset's root folder."
            )
        items = sorted(p.stem for p in joints.glob("*.npy"))
        if not items:
            raise StickgenError(f"{joints} holds no .npy files.")
        return items

    def read(self, src: Path, item: str) -> tuple[list[RawClip], list[str]]:
        split = _splits(src).get(item)
        if _splits(src) and split is None:
            raise Skip("is not listed in train.txt, val.txt or test.txt")
        positions = self._positions(src / "new_joints" / f"{item}.npy")
        captions, warnings = _captions(src / "texts" / f"{item}.txt")
        sk = self.skeleton
        points, toes = figure_from_indices(positions * self.unit, sk.indices, sk.spine, sk.toes)
        points, toes = to_y_up(points, self.up), to_y_up(toes, self.up)
        spans: dict[tuple[float, float], list[str]] = {}
        for caption, start, end in captions:
            spans.setdefault((start, end), []).append(caption)
        clips = []
        for (start, end), texts in sorted(spans.items()):
            if start == end == 0.0:
                a, b, part = 0, len(points), "whole"
            else:
                a, b = int(math.floor(start * self.rate)), int(math.floor(end * self.rate))
                b = min(b, len(points))
                part = f"{start:g}-{end:g} s"
                if b - a < 1:
                    warnings.append(f"the span {part} holds no frames of the {len(points)}-frame clip")
                    continue
            source = {"format": self.kind, "file": item, "part": part}
            clips.append(RawClip(points[a:b], self.rate, texts, item, split, toes[a:b], source))
        if not clips:
            raise Skip("has no caption for any of its frames")
        return clips, warnings

    def _positions(self, path: Path) -> np.ndarray:
        try:
            array = np.load(path, allow_pickle=False)
        except FileNotFoundError:
            raise Skip(f"has no {path.name}") from None
        except (OSError, ValueError, EOFError):
            raise Skip(f"{path.name} is not a readable .npy array (truncated or corrupt)") from None
        want = (self.skeleton.joints, 3)
        if array.ndim != 3 or array.shape[1:] != want or array.shape[0] == 0:
            raise Skip(f"{path.name} has shape {array.shape}, not (frames, {want[0]}, 3)")
        if not np.issubdtype(array.dtype, np.number):
            raise Skip(f"{path.name} does not hold numbers")
        array = array.astype(np.float64)
        if not np.isfinite(array).all():
            raise Skip(f"{path.name} has NaN or infinite positions")
        return array


def _splits(src: Path) -> dict[str, str]:
    """ID → split from the split files (empty when there are none); read once per folder."""
    return _read_splits(str(src.resolve()))


@functools.lru_cache(maxsize=4)
def _read_splits(root: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for name, file in SPLIT_FILES.items():
        path = Path(root) / file
        if path.is_file():
            try:
                ids = path.read_text(encoding="utf-8").split()
            except (OSError, UnicodeDecodeError):
                raise StickgenError(f"{path} is not a readable UTF-8 list of clip IDs.") from None
            for clip_id in ids:
                table.setdefault(clip_id, name)
    return table


def _captions(path: Path) -> tuple[list[tuple[str, float, float]], list[str]]:
    """(caption, start s, end s) for every usable line, and warnings for the others."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise Skip(f"has no texts/{path.name}") from None
    except OSError as e:
        raise Skip(f"texts/{path.name} cannot be read ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Skip(f"texts/{path.name} is not UTF-8 text") from None
    captions, warnings = [], []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("#")
        caption = fields[0].strip()
        start, end = 0.0, 0.0
        if len(fields) >= 4:
            try:
                start, end = float(fields[2]), float(fields[3])
            except ValueError:
                warnings.append(f"texts/{path.name} line {n} has a span that is not two numbers")
                continue
            if math.isnan(start) or math.isnan(end):
                start, end = 0.0, 0.0
            if not (math.isfinite(start) and math.isfinite(end) and 0.0 <= start <= end):
                warnings.append(f"texts/{path.name} line {n} has an invalid span {start:g}-{end:g}")
                continue
        if not caption:
            warnings.append(f"texts/{path.name} line {n} has no caption")
            continue
        captions.append((caption, start, end))
    return captions, warnings
