"""Motion-capture fixtures the importer tests build: a CMU-named BVH with known forward kinematics,
and a 3D figure in HumanML3D's joint layout."""

from __future__ import annotations

import numpy as np

# A CMU-named skeleton in centimetres, facing +z, left side at +x, y up (right-handed), with every
# rotation zero: (name, parent, offset).
CMU_SKELETON = (
    ("Hips", None, (0, 0, 0)),
    ("LHipJoint", "Hips", (0, 0, 0)),
    ("LeftUpLeg", "LHipJoint", (10, -8, 0)),
    ("LeftLeg", "LeftUpLeg", (0, -44, 0)),
    ("LeftFoot", "LeftLeg", (0, -42, 0)),
    ("LeftToeBase", "LeftFoot", (0, -4, 12)),
    ("RHipJoint", "Hips", (0, 0, 0)),
    ("RightUpLeg", "RHipJoint", (-10, -8, 0)),
    ("RightLeg", "RightUpLeg", (0, -44, 0)),
    ("RightFoot", "RightLeg", (0, -42, 0)),
    ("RightToeBase", "RightFoot", (0, -4, 12)),
    ("LowerBack", "Hips", (0, 0, 0)),
    ("Spine", "LowerBack", (0, 10, 0)),
    ("Spine1", "Spine", (0, 20, 0)),
    ("Neck", "Spine1", (0, 15, 0)),
    ("Neck1", "Neck", (0, 8, 0)),
    ("Head", "Neck1", (0, 8, 0)),
    ("LeftShoulder", "Spine1", (3, 12, 0)),
    ("LeftArm", "LeftShoulder", (15, 3, 0)),
    ("LeftForeArm", "LeftArm", (0, -28, 0)),
    ("LeftHand", "LeftForeArm", (0, -25, 0)),
    ("RightShoulder", "Spine1", (-3, 12, 0)),
    ("RightArm", "RightShoulder", (-15, 3, 0)),
    ("RightForeArm", "RightArm", (0, -28, 0)),
    ("RightHand", "RightForeArm", (0, -25, 0)),
)
END_SITES = {"Head": (0, 20, 0), "LeftToeBase": (0, 0, 5), "RightToeBase": (0, 0, 5),
             "LeftHand": (0, -8, 0), "RightHand": (0, -8, 0)}  # fmt: skip
ROOT_HEIGHT = 100.0  # cm: the hip joints are 8 cm lower, the ankles 6 cm above the floor


def bvh_text(skeleton=CMU_SKELETON, end_sites=END_SITES, motion: np.ndarray | None = None,
             frame_time: float = 0.04, rename=None) -> str:  # fmt: skip
    """A BVH file: root with 6 channels (XYZ position, ZXY rotation), the others 3 (ZXY rotation).

    motion: (T, 6 + 3·(joints − 1)) channel values; rename: optional {name: new name}.
    """
    rename = rename or {}
    children: dict[str | None, list] = {}
    for name, parent, offset in skeleton:
        children.setdefault(parent, []).append((name, offset))
    lines = ["HIERARCHY"]

    def write(name, offset, depth, root=False):
        pad = "  " * depth
        lines.append(f"{pad}{'ROOT' if root else 'JOINT'} {rename.get(name, name)}")
        lines.append(pad + "{")
        lines.append(f"{pad}  OFFSET {offset[0]:g} {offset[1]:g} {offset[2]:g}")
        if root:
            lines.append(f"{pad}  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation")
        else:
            lines.append(f"{pad}  CHANNELS 3 Zrotation Xrotation Yrotation")
        for child, child_offset in children.get(name, []):
            write(child, child_offset, depth + 1)
        if name in end_sites:
            x, y, z = end_sites[name]
            lines.extend([f"{pad}  End Site", pad + "  {", f"{pad}    OFFSET {x:g} {y:g} {z:g}", pad + "  }"])
        lines.append(pad + "}")

    root, root_offset = children[None][0]
    write(root, root_offset, 0, root=True)
    if motion is None:
        motion = walking_channels(30)
    lines += ["MOTION", f"Frames: {len(motion)}", f"Frame Time: {frame_time:g}"]
    lines += [" ".join(f"{v:.6f}" for v in row) for row in motion]
    return "\n".join(lines) + "\n"


def channel_column(name: str, channel: str, skeleton=CMU_SKELETON) -> int:
    """The motion column of a joint's channel in `bvh_text`'s layout."""
    names = _file_order(skeleton)
    k = names.index(name)
    if k == 0:
        return ("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation").index(channel)
    return 6 + 3 * (k - 1) + ("Zrotation", "Xrotation", "Yrotation").index(channel)


def _file_order(skeleton) -> list[str]:
    children: dict[str | None, list[str]] = {}
    for name, parent, _ in skeleton:
        children.setdefault(parent, []).append(name)
    order = []

    def visit(name):
        order.append(name)
        for child in children.get(name, []):
            visit(child)

    visit(children[None][0])
    return order


def walking_channels(frames: int, speed_cm: float = 4.0) -> np.ndarray:
    """Root gliding along +z by `speed_cm` per frame at height ROOT_HEIGHT, every rotation zero."""
    motion = np.zeros((frames, 6 + 3 * (len(CMU_SKELETON) - 1)))
    motion[:, 1] = ROOT_HEIGHT
    motion[:, 2] = speed_cm * np.arange(frames)
    return motion


def noisy_run_channels(frames: int = 150, fps: float = 120.0, seed: int = 0) -> np.ndarray:
    """Capture-like running at 3 m/s along +z: swinging legs and arms, half a degree of jitter on every
    rotation, and fast, noisy frames (a forearm and a shin glitching by 60° for a frame, as a swapped
    marker does) at frames 60, 61 and 100, each over 10 m/s."""
    rng = np.random.default_rng(seed)
    t = np.arange(frames) / fps
    phase = 2 * np.pi * 1.4 * t
    motion = np.zeros((frames, 6 + 3 * (len(CMU_SKELETON) - 1)))
    motion[:, 1] = ROOT_HEIGHT
    motion[:, 2] = 300.0 * t
    for side, sign in (("Left", 1.0), ("Right", -1.0)):
        motion[:, channel_column(f"{side}UpLeg", "Xrotation")] = -35.0 * sign * np.sin(phase)
        motion[:, channel_column(f"{side}Leg", "Xrotation")] = 25.0 * (1.0 - np.cos(phase + sign))
        motion[:, channel_column(f"{side}Arm", "Xrotation")] = 30.0 * sign * np.sin(phase)
        motion[:, channel_column(f"{side}ForeArm", "Xrotation")] = -40.0
    motion[:, 3:] += rng.normal(0.0, 0.5, size=(frames, motion.shape[1] - 3))
    for frame, joint in ((60, "LeftForeArm"), (61, "LeftForeArm"), (100, "RightLeg")):
        motion[frame, channel_column(joint, "Xrotation")] += 60.0
    return motion


def with_tpose_first(motion: np.ndarray) -> np.ndarray:
    """`motion` with a T-pose frame before it at its first root position, as Bruce Hahne's
    conversion of the CMU collection writes (every rotation zero but the arms, straight out)."""
    tpose = np.zeros_like(motion[:1])
    tpose[0, :3] = motion[0, :3]
    tpose[0, channel_column("LeftArm", "Zrotation")] = 90.0
    tpose[0, channel_column("RightArm", "Zrotation")] = -90.0
    return np.concatenate([tpose, motion])


def rest_positions_cm() -> dict[str, np.ndarray]:
    """World positions (cm) of every joint and End Site ("<name>_end") with the root at the origin."""
    pos: dict[str, np.ndarray] = {}
    for name, parent, offset in CMU_SKELETON:
        pos[name] = (pos[parent] if parent else np.zeros(3)) + np.asarray(offset, dtype=float)
    for name, offset in END_SITES.items():
        pos[f"{name}_end"] = pos[name] + np.asarray(offset, dtype=float)
    return pos


# HumanML3D's 22 SMPL joints, from the same rest figure (metres, facing +z, left at +x).
SMPL_FROM_CMU = {
    0: ("LeftUpLeg", "RightUpLeg"), 1: "LeftUpLeg", 2: "RightUpLeg", 3: "Spine", 4: "LeftLeg",
    5: "RightLeg", 6: "Spine1", 7: "LeftFoot", 8: "RightFoot", 9: "Neck", 10: "LeftToeBase",
    11: "RightToeBase", 12: "Neck1", 13: "LeftShoulder", 14: "RightShoulder", 15: "Head",
    16: "LeftArm", 17: "RightArm", 18: "LeftForeArm", 19: "RightForeArm", 20: "LeftHand", 21: "RightHand",
}  # fmt: skip


def smpl_rest_pose() -> np.ndarray:
    """(22, 3) metres: the CMU fixture's rest pose in SMPL order, ankles 6 cm above y = 0."""
    pos = rest_positions_cm()
    out = np.zeros((22, 3))
    for i, source in SMPL_FROM_CMU.items():
        out[i] = np.mean([pos[s] for s in source], axis=0) if isinstance(source, tuple) else pos[source]
    out[:, 1] += ROOT_HEIGHT
    return out / 100.0
