"""Real motion data into the dataset format (DESIGN §6): `stickgen data import FORMAT SRC --out DATASET`.

- `bvh.py`: BVH files (CMU, Mixamo, Biped and other named skeletons, or a `--joint-map`);
- `humanml3d.py`: HumanML3D's and KIT-ML's joint arrays with their captions and splits;
- `ntu.py`: NTU RGB+D `.skeleton` files;
- `skeleton.py`: a source skeleton's joints → the 16 joints (pelvis, chest and head by rule);
- `geometry.py`: up axis, handedness, the projection plane, floor, frame rate and windows;
- `clips.py`: one 3D source clip → stored clips with texts, actions and camera;
- `build.py`: the resumable, parallel import run and its report.

Each format is a `Source` (build.py): its items in a fixed order, and the raw 3D clips of one item.
"""

from __future__ import annotations

from pathlib import Path

from stickgen.errors import StickgenError

FORMATS = ("bvh", "humanml3d", "kit", "ntu")


def make_source(
    fmt: str,
    *,
    up: str | None = None,
    scale: float | None = None,
    fps: float | None = None,
    text: str | None = None,
    joint_map: str | Path | None = None,
):
    """The `Source` for a format name, with the user's overrides; one sentence for a bad combination.

    Each source checks its own up axis, scale and frame rate.
    """
    if fmt not in FORMATS:
        raise StickgenError(f"Unknown import format {fmt!r}; choose one of: {', '.join(FORMATS)}.")
    if fmt != "bvh" and (text is not None or joint_map is not None):
        raise StickgenError("--text and --joint-map apply to BVH imports only.")
    if fmt == "bvh" and fps is not None:
        raise StickgenError("A BVH file gives its own frame rate; --fps applies to the other formats.")
    if fmt == "bvh":
        from stickgen.importers.bvh import BVHSource
        from stickgen.importers.skeleton import load_joint_map

        return BVHSource(
            up=up or "y",
            scale=scale,
            text=text,
            joint_map=None if joint_map is None else load_joint_map(joint_map),
            joint_map_file=None if joint_map is None else str(joint_map),
        )
    if fmt in ("humanml3d", "kit"):
        from stickgen.importers.humanml3d import HumanML3DSource

        return HumanML3DSource(kind=fmt, fps=fps, scale=scale, up=up or "y")
    from stickgen.importers.ntu import NTUSource

    return NTUSource(
        up=up or "y", scale=scale if scale is not None else 1.0, fps=fps if fps is not None else 30.0
    )
