"""BVH motion capture (CMU, Mixamo and similar) → raw clips.

- **Joints**: mapped by name (`skeleton.auto_joint_map`) or by a `--joint-map` file. A file written
  by stickgen (joints named exactly as the 16) maps one to one and is read back in its own X–Y
  plane, so an exported clip imports as the same clip.
- **Units**: BVH files do not say theirs. Unless `--scale` gives metres per file unit, the unit is
  the one of metres, centimetres, millimetres, inches and CMU's skeleton unit (1/0.45 inch) that
  makes the figure's standing height closest to 1.7 m, so a 1.5 m or 1.9 m person keeps their size.
- **Up axis**: y (the BVH convention, and Blender's importer's); `--up z` for Z-up exports.
- **Rest-pose frame**: many converted files (CMU's, in Bruce Hahne's conversion) begin with a
  T-pose frame at the clip's root position that is not part of the motion. The first frame is
  dropped when it is an outlier against the clip's own motion: some joint jumps faster than 10 m/s
  from it to the next frame, while the rest of the clip stays below 10 m/s or, in 9 frames of 10,
  below half that first jump (speeds of the fastest joint per frame). Real capture has fast or noisy
  frames of its own (a marker swap, a glitch): the percentile ignores a few of them.
- **Text**: the lines of a sidecar `NAME.txt` beside `NAME.bvh`, else `--text`, else the words of
  the file name ("jump_forward_02.bvh" → "jump forward").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stickgen.bvh import read_bvh
from stickgen.errors import StickgenError
from stickgen.figure import JOINTS, standing_height
from stickgen.importers.clips import RawClip, Skip
from stickgen.importers.geometry import check_options, to_y_up
from stickgen.importers.skeleton import MAPPED_JOINTS, JointMap, auto_joint_map, build_figure

UNITS = {"m": 1.0, "cm": 0.01, "mm": 0.001, "inch": 0.0254, "cmu": 0.0254 / 0.45}
TYPICAL_HEIGHT = 1.7  # m
REST_POSE_SPEED = 10.0  # m/s: no joint moves this fast in human motion
REST_POSE_OUTLIER = 2.0  # times the clip's 90th-percentile speed


@dataclass(frozen=True)
class BVHSource:
    format = "bvh"
    up: str = "y"
    scale: float | None = None  # metres per file unit; None: guessed per file
    text: str | None = None
    joint_map: JointMap | None = None
    joint_map_file: str | None = None

    def __post_init__(self) -> None:
        check_options(self.up, self.scale, None)

    def describe(self) -> dict[str, Any]:
        return {"up": self.up, "scale": self.scale, "text": self.text, "joint_map": self.joint_map_file}

    def items(self, src: Path) -> list[str]:
        if src.is_file():
            return [src.name]
        items = sorted(
            str(p.relative_to(src)) for p in src.rglob("*") if p.suffix.lower() == ".bvh" and p.is_file()
        )
        if not items:
            raise StickgenError(f"{src} holds no .bvh files.")
        return items

    def read(self, src: Path, item: str) -> tuple[list[RawClip], list[str]]:
        path = src if src.is_file() else src / item
        texts = self._texts(path)
        clip = read_bvh(path)
        if clip.num_frames == 0:
            raise Skip("has no frames")
        positions, names = clip.forward_kinematics(end_sites=True)
        parents = [j.parent for j in clip.joints] + [
            i for i, j in enumerate(clip.joints) if j.end_site is not None
        ]
        own = self.joint_map is None and all(n in names for n in JOINTS)
        if own:
            joint_map = JointMap(
                joints={n: n for n in MAPPED_JOINTS}, extra={"pelvis": "pelvis", "chest": "chest"}
            )
        else:
            joint_map = self.joint_map or auto_joint_map(names, parents)
        points, toes = build_figure(positions, names, joint_map)
        points = to_y_up(points, self.up)
        toes = None if toes is None else to_y_up(toes, self.up)
        if self.scale is not None:
            unit, scale = "given", self.scale
        else:
            unit, scale = guess_unit(points)
        points, toes = points * scale, None if toes is None else toes * scale
        dropped = rest_pose_first(points, clip.fps)
        if dropped:
            points, toes = points[1:], None if toes is None else toes[1:]
        source = {"format": "bvh", "file": item, "unit": unit, "scale": scale, "dropped_first_frame": dropped}
        axis = to_y_up(np.array([1.0, 0.0, 0.0]), self.up) if own else None
        return [RawClip(points, clip.fps, texts, group=item, toes=toes, source=source, axis=axis)], []

    def _texts(self, path: Path) -> list[str]:
        sidecar = path.with_suffix(".txt")
        if sidecar.is_file():
            try:
                lines = sidecar.read_bytes().decode("utf-8-sig").splitlines()
            except UnicodeDecodeError:
                raise Skip(f"its description {sidecar.name} is not UTF-8 text") from None
            texts = [line.strip() for line in lines if line.strip()]
            if texts:
                return texts
        if self.text:
            return [self.text]
        words = [w for w in re.split(r"[\s_\-.]+", path.stem) if re.search("[A-Za-z]", w)]
        return [" ".join(w.lower() for w in words)] if words else []


def guess_unit(points: np.ndarray) -> tuple[str, float]:
    """The unit (name, metres per unit) that gives the figure (T, 16, 3) the most usual height."""
    height = standing_height(points)
    if not (math.isfinite(height) and height > 0):
        raise Skip("has a skeleton of zero size")
    name = min(UNITS, key=lambda u: abs(math.log(height * UNITS[u] / TYPICAL_HEIGHT)))
    return name, UNITS[name]


def rest_pose_first(points: np.ndarray, fps: float) -> bool:
    """Whether the first frame is a rest pose stuck before the motion (see the module docstring)."""
    if len(points) < 3:
        return False
    step = np.linalg.norm(np.diff(points, axis=0), axis=-1).max(axis=1) * fps  # (T − 1,) m/s
    rest = step[1:]
    outlier = rest.max() < REST_POSE_SPEED or step[0] > REST_POSE_OUTLIER * np.percentile(rest, 90)
    return bool(step[0] > REST_POSE_SPEED and outlier)
