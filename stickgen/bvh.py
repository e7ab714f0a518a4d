"""BVH motion capture files: a writer for clips, and a general reader with forward kinematics.

**Writing** (DESIGN §7). The skeleton is rooted at the pelvis, Y up, metres, the figure in the X–Y
plane, 25 fps (`Frame Time: 0.04`; other rates are resampled). Each joint has three rotation
channels in degrees, `Zrotation Xrotation Yrotation` (the rotation is Rz·Rx·Ry), unwrapped over
time; the root also has `Xposition Yposition Zposition`. The hierarchy:

    pelvis ─ chest ─ neck ─ head ─ End Site
      │               ├─ l_clavicle ─ l_shoulder ─ l_elbow ─ l_wrist ─ End Site
      │               └─ r_clavicle ─ r_shoulder ─ r_elbow ─ r_wrist ─ End Site
      ├─ l_pelvis ─ l_hip ─ l_knee ─ l_ankle ─ End Site
      └─ r_pelvis ─ r_hip ─ r_knee ─ r_ankle ─ End Site

A BVH joint's rotation turns every child offset with it, so a joint with several children can aim
only one bone. `l_clavicle`, `r_clavicle`, `l_pelvis` and `r_pelvis` sit exactly on their parent
(zero OFFSET, like CMU's `LHipJoint`) and aim the bones neck → shoulder and pelvis → hip, so
every bone of the figure turns on its own and the file reproduces any clip exactly.

OFFSETs are the clip's bone lengths, each bone's longest length over the clip, along the bone's
mean direction (its rest pose). Where a bone looks shorter than that (a projected real clip) it is
turned out of the X–Y plane by z = ±sqrt(L² − d²), so the side view stays exact: right-side bones
toward the viewer (+z) when the figure faces +x, left-side bones away, and the other way round
when it faces −x. End Sites continue the head and the forearms and point the feet forward.

**Reading** parses any BVH hierarchy (several roots, any channel set and order, position channels
on any joint, names with spaces) and computes world positions. Position channels give the joint's
position in its parent's frame, replacing its OFFSET (as Blender's importer reads them). Every
problem with a file is one `BVHError` sentence.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from stickgen.clip_ops import CANONICAL_FPS, resample
from stickgen.errors import StickgenError
from stickgen.figure import JOINTS, J
from stickgen.files import atomic_write_text
from stickgen.motion import Motion

CHANNEL_NAMES = ("Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation")
_CHANNELS = {c.lower(): c for c in CHANNEL_NAMES}
ROOT_CHANNELS = ("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")
JOINT_CHANNELS = ("Zrotation", "Xrotation", "Yrotation")

# (BVH joint, its parent, the stick-figure joint at its position, the joint its rotation aims at).
# Branch joints sit on their parent's position; end joints aim at nothing (End Site only).
_SKELETON: tuple[tuple[str, str | None, str, str | None], ...] = (
    ("pelvis", None, "pelvis", "chest"),
    ("chest", "pelvis", "chest", "neck"),
    ("neck", "chest", "neck", "head"),
    ("head", "neck", "head", None),
    ("l_clavicle", "neck", "neck", "l_shoulder"),
    ("l_shoulder", "l_clavicle", "l_shoulder", "l_elbow"),
    ("l_elbow", "l_shoulder", "l_elbow", "l_wrist"),
    ("l_wrist", "l_elbow", "l_wrist", None),
    ("r_clavicle", "neck", "neck", "r_shoulder"),
    ("r_shoulder", "r_clavicle", "r_shoulder", "r_elbow"),
    ("r_elbow", "r_shoulder", "r_elbow", "r_wrist"),
    ("r_wrist", "r_elbow", "r_wrist", None),
    ("l_pelvis", "pelvis", "pelvis", "l_hip"),
    ("l_hip", "l_pelvis", "l_hip", "l_knee"),
    ("l_knee", "l_hip", "l_knee", "l_ankle"),
    ("l_ankle", "l_knee", "l_ankle", None),
    ("r_pelvis", "pelvis", "pelvis", "r_hip"),
    ("r_hip", "r_pelvis", "r_hip", "r_knee"),
    ("r_knee", "r_hip", "r_knee", "r_ankle"),
    ("r_ankle", "r_knee", "r_ankle", None),
)
_NAMES = [name for name, *_ in _SKELETON]
_PARENT = np.array([-1 if p is None else _NAMES.index(p) for _, p, _, _ in _SKELETON])
_AT = np.array([J[at] for _, _, at, _ in _SKELETON])
_AIM_CHILD = np.array(
    [next((c for c, (_, p, at, _) in enumerate(_SKELETON) if p == name and at == aim), -1)
     for name, _, _, aim in _SKELETON]
)  # fmt: skip
# Fallback rest directions for bones that never have a length: the spine up, the rest down.
_UP = ("chest", "neck", "head")
_CANONICAL = np.array([(0.0, 1.0 if at in _UP else -1.0, 0.0) for *_, at, _ in _SKELETON])
# End Site length as a fraction of the bone before it, and its minimum (m).
_END_SITES = {"head": (0.6, 0.06), "l_wrist": (0.3, 0.04), "r_wrist": (0.3, 0.04),
              "l_ankle": (0.45, 0.06), "r_ankle": (0.45, 0.06)}  # fmt: skip
_EPS = 1e-9
_MIN_BONE = 1e-5  # m: bones shorter than this over the whole clip are written with zero length


class BVHError(StickgenError):
    """A BVH file that cannot be read or does not fit what was asked of it; one sentence."""


@dataclass(frozen=True)
class BVHJoint:
    """One joint of a BVH hierarchy; `parent` is an index into the clip's joints, −1 for a root."""

    name: str
    parent: int
    offset: np.ndarray  # (3,)
    channels: tuple[str, ...]  # canonical names from CHANNEL_NAMES, in file order
    end_site: np.ndarray | None = None  # (3,) offset of the End Site, if the joint has one


@dataclass(frozen=True)
class BVHClip:
    """A parsed BVH file: joints in file order (parents before children) and the motion data.

    motion: (T, C) channel values in file order; rotations in degrees, positions in file units.
    """

    joints: tuple[BVHJoint, ...]
    frame_time: float
    motion: np.ndarray

    @property
    def num_frames(self) -> int:
        return int(self.motion.shape[0])

    @property
    def fps(self) -> float:
        return 1.0 / self.frame_time

    @property
    def joint_names(self) -> list[str]:
        return [j.name for j in self.joints]

    def channel_columns(self) -> list[slice]:
        """For each joint, the columns of `motion` that hold its channels."""
        columns, start = [], 0
        for joint in self.joints:
            columns.append(slice(start, start + len(joint.channels)))
            start += len(joint.channels)
        return columns

    def forward_kinematics(self, *, end_sites: bool = False) -> tuple[np.ndarray, list[str]]:
        """World positions of every joint: (T, J, 3) in file units, and the joint names.

        With `end_sites`, End Sites follow as extra points named "<joint>_end".
        """
        t = self.num_frames
        world_rot: list[np.ndarray] = []
        world_pos: list[np.ndarray] = []
        for joint, cols in zip(self.joints, self.channel_columns(), strict=True):
            values = self.motion[:, cols]  # (T, n)
            local_pos = np.broadcast_to(joint.offset, (t, 3)).copy()
            if any(c.endswith("position") for c in joint.channels):
                local_pos[:] = 0.0
            local_rot = np.broadcast_to(np.eye(3), (t, 3, 3)).copy()
            for k, channel in enumerate(joint.channels):
                axis = "XYZ".index(channel[0])
                if channel.endswith("position"):
                    local_pos[:, axis] = values[:, k]
                else:
                    local_rot = local_rot @ axis_rotation(axis, np.radians(values[:, k]))
            if joint.parent < 0:
                world_rot.append(local_rot)
                world_pos.append(local_pos)
            else:
                r, p = world_rot[joint.parent], world_pos[joint.parent]
                world_rot.append(r @ local_rot)
                world_pos.append(p + np.einsum("tij,tj->ti", r, local_pos))
        names = self.joint_names
        points = list(world_pos)
        if end_sites:
            for i, joint in enumerate(self.joints):
                if joint.end_site is not None:
                    points.append(world_pos[i] + world_rot[i] @ joint.end_site)
                    names.append(f"{joint.name}_end")
        return np.stack(points, axis=1) if points else np.zeros((t, 0, 3)), names


def axis_rotation(axis: int, angle: np.ndarray) -> np.ndarray:
    """Right-handed rotation matrices about x (0), y (1) or z (2): angles (T,) in radians → (T, 3, 3)."""
    c, s = np.cos(angle), np.sin(angle)
    m = np.zeros((*np.shape(angle), 3, 3))
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    m[..., axis, axis] = 1.0
    m[..., i, i] = c
    m[..., j, j] = c
    m[..., i, j] = -s
    m[..., j, i] = s
    return m


# ---------------------------------------------------------------------------------------------
# Reading


def read_bvh(path: str | Path) -> BVHClip:
    """Read a BVH file; any problem with it is one `BVHError` sentence."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BVHError(f"No such file: {path}.") from None
    except IsADirectoryError:
        raise BVHError(f"{path} is a directory, not a BVH file.") from None
    except OSError as e:
        raise BVHError(f"Cannot read {path}: {e.strerror or e}.") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return parse_bvh(text, name=str(path))


def parse_bvh(text: str, name: str = "the BVH text") -> BVHClip:
    """Parse the text of a BVH file into a `BVHClip`; one `BVHError` sentence for malformed input."""
    lines = text.splitlines()
    motion_at = next((i for i, line in enumerate(lines) if line.strip().upper() == "MOTION"), None)
    if motion_at is None:
        raise BVHError(f"{name} is not a BVH file: it has no MOTION section.")
    joints = _parse_hierarchy(lines[:motion_at], name)

    rest = iter(enumerate(lines[motion_at + 1 :], start=motion_at + 1))
    frames_line = _next_nonblank(rest)
    time_line = _next_nonblank(rest)
    m = re.fullmatch(r"\s*frames\s*:\s*(\S+)\s*", frames_line[1] if frames_line else "", re.IGNORECASE)
    if not m or not m.group(1).isdigit():
        raise BVHError(f"{name} lacks a valid 'Frames: N' line after MOTION.")
    num_frames = int(m.group(1))
    m = re.fullmatch(r"\s*frame\s+time\s*:\s*(\S+)\s*", time_line[1] if time_line else "", re.IGNORECASE)
    frame_time = _number(m.group(1)) if m else None
    if frame_time is None or not frame_time > 0:
        raise BVHError(f"{name} lacks a valid 'Frame Time: seconds' line with a positive time.")
    start = time_line[0] + 1
    tokens = " ".join(lines[start:]).split()
    try:
        values = np.array(tokens, dtype=np.float64)
    except ValueError:
        raise BVHError(f"{name} has motion data that are not all numbers.") from None
    width = sum(len(j.channels) for j in joints)
    if values.size != num_frames * width:
        raise BVHError(
            f"{name} declares {num_frames} frames of {width} channels but holds {values.size} numbers."
        )
    if not np.isfinite(values).all():
        raise BVHError(f"{name} has motion data with NaN or infinite values.")
    return BVHClip(tuple(joints), float(frame_time), values.reshape(num_frames, width))


def _parse_hierarchy(lines: list[str], name: str) -> list[BVHJoint]:
    """Parse the HIERARCHY section (the lines before MOTION) without recursion."""
    tokens = [(n + 1, tok) for n, line in enumerate(lines) for tok in re.findall(r"[{}]|[^\s{}]+", line)]
    if not tokens or tokens[0][1].upper() != "HIERARCHY":
        raise BVHError(f"{name} is not a BVH file: it does not start with HIERARCHY.")
    joints: list[dict] = []
    stack: list[int | str] = []  # joint indices and "end" for an open End Site block
    pending: dict | None = None  # a ROOT/JOINT/End Site waiting for its "{"
    pos = 1

    def fail(line: int, what: str) -> BVHError:
        return BVHError(f"{name} line {line}: {what}.")

    while pos < len(tokens):
        line, tok = tokens[pos]
        key = tok.upper()
        if pending is not None and tok != "{":
            raise fail(line, f"expected '{{' after {pending['kind']}")
        if key in ("ROOT", "JOINT"):
            if key == "JOINT" and not (stack and isinstance(stack[-1], int)):
                raise fail(line, "JOINT outside a joint")
            if key == "ROOT" and stack:
                raise fail(line, "ROOT inside a joint")
            words = []
            pos += 1
            while pos < len(tokens) and tokens[pos][0] == line and tokens[pos][1] != "{":
                words.append(tokens[pos][1])
                pos += 1
            if not words:
                raise fail(line, f"{key} without a name")
            parent = stack[-1] if stack else -1
            pending = {"kind": key, "name": " ".join(words), "parent": parent, "line": line}
            continue
        if key == "END":
            if not (stack and isinstance(stack[-1], int)):
                raise fail(line, "End Site outside a joint")
            if joints[stack[-1]]["end_site"] is not None:
                raise fail(line, f"joint {joints[stack[-1]]['name']!r} has a second End Site")
            pos += 1
            while pos < len(tokens) and tokens[pos][0] == line and tokens[pos][1] != "{":
                pos += 1  # "Site" and any name after it
            pending = {"kind": "End Site", "line": line}
            continue
        if tok == "{":
            if pending is None:
                raise fail(line, "unexpected '{'")
            if pending["kind"] == "End Site":
                stack.append("end")
                joints[stack[-2]]["end_site"] = np.full(3, np.nan)
            else:
                joints.append({**pending, "offset": None, "channels": None, "end_site": None})
                stack.append(len(joints) - 1)
            pending = None
            pos += 1
            continue
        if tok == "}":
            if not stack:
                raise fail(line, "unmatched '}'")
            top = stack.pop()
            if top == "end":
                if np.isnan(joints[stack[-1]]["end_site"]).any():
                    raise fail(line, "End Site without an OFFSET")
            elif joints[top]["offset"] is None:
                raise fail(line, f"joint {joints[top]['name']!r} has no OFFSET")
            pos += 1
            continue
        if key == "OFFSET":
            numbers = [_number(t) for _, t in tokens[pos + 1 : pos + 4]]
            if not stack or len(numbers) < 3 or any(v is None for v in numbers):
                raise fail(line, "OFFSET needs three numbers inside a joint")
            if stack[-1] == "end":
                joints[stack[-2]]["end_site"] = np.array(numbers, dtype=np.float64)
            else:
                joints[stack[-1]]["offset"] = np.array(numbers, dtype=np.float64)
            pos += 4
            continue
        if key == "CHANNELS":
            if not (stack and isinstance(stack[-1], int)):
                raise fail(line, "CHANNELS outside a joint")
            count = tokens[pos + 1][1] if pos + 1 < len(tokens) else ""
            if not count.isdigit() or int(count) > 6:
                raise fail(line, "CHANNELS needs a count from 0 to 6")
            names = [t for _, t in tokens[pos + 2 : pos + 2 + int(count)]]
            channels = tuple(_CHANNELS.get(n.lower(), "") for n in names)
            if len(channels) < int(count) or "" in channels or len(set(channels)) != len(channels):
                raise fail(line, f"CHANNELS lists unknown or repeated channels: {' '.join(names)}")
            joints[stack[-1]]["channels"] = channels
            pos += 2 + int(count)
            continue
        raise fail(line, f"unexpected {tok!r}")

    if pending is not None or stack:
        raise BVHError(f"{name} ends its HIERARCHY inside an open block (a missing '}}').")
    if not joints:
        raise BVHError(f"{name} has no ROOT joint.")
    out, seen = [], set()
    for j in joints:
        joint_name = j["name"]
        k = 1
        while joint_name in seen:  # Blender's rule for the rare duplicate name
            joint_name = f"{j['name']}.{k:03d}"
            k += 1
        seen.add(joint_name)
        out.append(BVHJoint(joint_name, j["parent"], j["offset"], j["channels"] or (), j["end_site"]))
    return out


def _number(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _next_nonblank(it):
    return next(((i, line) for i, line in it if line.strip()), None)


# ---------------------------------------------------------------------------------------------
# Writing


def write_bvh(motion: Motion, path: str | Path) -> Path:
    """Write a clip as BVH (see the module docstring), at 25 fps, atomically. Returns the path."""
    return atomic_write_text(path, bvh_text(motion))


def bvh_text(motion: Motion) -> str:
    """The BVH file of a clip as text, resampled to 25 fps."""
    motion = resample(motion, CANONICAL_FPS)
    t = motion.num_frames
    facing = facing_direction(motion.joints)
    points = lift_to_3d(motion.joints, facing)  # (T, 16, 3)

    # Rest pose: each bone (parent's position → joint) along its mean direction, at its longest length.
    bones = points[:, _AT] - points[:, _AT[np.maximum(_PARENT, 0)]]  # (T, K, 3); zero for the root
    lengths = np.linalg.norm(bones, axis=-1).max(axis=0)  # (K,)
    rest_dirs = np.stack([_mean_direction(bones[:, k], _CANONICAL[k]) for k in range(len(_SKELETON))])
    offsets = lengths[:, None] * rest_dirs + 0.0  # (K, 3); + 0.0 turns −0.0 into 0.0

    world: list[np.ndarray] = []
    angles = []
    for k in range(len(_SKELETON)):
        parent_rot = np.broadcast_to(np.eye(3), (t, 3, 3)) if _PARENT[k] < 0 else world[_PARENT[k]]
        c = _AIM_CHILD[k]
        if c < 0 or lengths[c] < _MIN_BONE:
            rot = parent_rot  # an end joint, or a bone too short to aim: no rotation of its own
        else:
            norm = np.linalg.norm(bones[:, c], axis=-1, keepdims=True)
            target = np.where(norm > _EPS, bones[:, c] / np.maximum(norm, _EPS), rest_dirs[c])
            rot = rotation_between(rest_dirs[c], target)
        world.append(rot)
        local = np.swapaxes(parent_rot, -1, -2) @ rot
        angles.append(np.unwrap(euler_zxy(local), period=360.0, axis=0))  # (T, 3) degrees

    out = io.StringIO()
    out.write("HIERARCHY\n")
    _write_joint(out, 0, offsets, _end_sites(lengths, rest_dirs, facing), 0)
    out.write(f"MOTION\nFrames: {t}\nFrame Time: {1.0 / CANONICAL_FPS:g}\n")
    table = np.round(np.concatenate([points[:, J["pelvis"]], *angles], axis=1), 6) + 0.0  # (T, 63)
    np.savetxt(out, table, fmt="%.6f")
    return out.getvalue()


def bvh_to_motion(clip: BVHClip) -> Motion:
    """A clip from a BVH written by `write_bvh`: the x–y positions of the 16 named joints.

    Other BVH files (CMU, Mixamo) need the importer, which maps their names and projects them.
    """
    positions, names = clip.forward_kinematics()
    missing = [n for n in JOINTS if n not in names]
    if missing:
        raise BVHError(f"The BVH has no joint named {missing[0]!r}, so it was not written by stickgen.")
    if clip.num_frames == 0:
        raise BVHError("The BVH has no frames.")
    idx = [names.index(n) for n in JOINTS]
    return Motion(positions[:, idx, :2], fps=clip.fps)


def facing_direction(joints: np.ndarray) -> float:
    """+1 if the figure mostly faces +x, −1 if −x: joints (T, 16, 2) → float.

    Knees bend forward, so the knees' mean lead over the hip–ankle line gives the direction; a
    figure with straight legs faces the way it travels, and one that stays put faces +x.
    """
    joints = np.asarray(joints)
    lead = []
    for side in ("l_", "r_"):
        hip, knee, ankle = (joints[:, J[side + n], 0] for n in ("hip", "knee", "ankle"))
        lead.append(knee - 0.5 * (hip + ankle))
    k = float(np.mean(lead))
    if abs(k) > 0.01:
        return math.copysign(1.0, k)
    travel = float(joints[-1, J["pelvis"], 0] - joints[0, J["pelvis"], 0])
    return math.copysign(1.0, travel) if abs(travel) > 0.1 else 1.0


def lift_to_3d(joints: np.ndarray, facing: float = 1.0) -> np.ndarray:
    """Give every bone its longest length by turning it out of the X–Y plane: (T, 16, 2) → (T, 16, 3).

    A bone of longest length L that is d < L long in a frame gets z = ±sqrt(L² − d²) there, so x
    and y stay exactly the clip's. Right-side bones go to +z·facing (toward a viewer at +z when
    the figure faces +x), left-side bones to −z·facing, the spine and head to +z.
    """
    joints = np.asarray(joints, dtype=np.float64)
    out = np.concatenate([joints, np.zeros((*joints.shape[:-1], 1))], axis=-1)
    for k, (name, _, at, _) in enumerate(_SKELETON):
        parent_at = _AT[_PARENT[k]] if _PARENT[k] >= 0 else None
        if parent_at is None or parent_at == J[at]:
            continue
        d = joints[:, J[at]] - joints[:, parent_at]  # (T, 2)
        d2 = np.sum(d * d, axis=-1)
        side = facing if name.startswith("r_") else -facing if name.startswith("l_") else 1.0
        deficit = d2.max() - d2
        # A deficit under (10 µm)² is rounding in a bone of constant length: keep it in the plane.
        z = side * np.sqrt(np.where(deficit > _MIN_BONE**2, deficit, 0.0))
        out[:, J[at], 2] = out[:, parent_at, 2] + z
    return out


def _mean_direction(vectors: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Unit mean direction of (T, 3) vectors within the X–Y plane, or `fallback` if they cancel out."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    units = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > _EPS)
    mean = units.mean(axis=0)
    mean[2] = 0.0
    n = np.linalg.norm(mean)
    return mean / n if n > 1e-3 else fallback


def rotation_between(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The smallest rotation taking unit vector u (3,) onto unit vectors v (T, 3): (T, 3, 3).

    Rodrigues' formula R = I + [u×v] + [u×v]² / (1 + u·v); for v nearly opposite to u it is
    ill-conditioned, so there R turns u by 180° about an axis square to u (z where possible) and
    then onto v.
    """
    v = np.atleast_2d(v)
    c = v @ u  # (T,)
    opposite = c < -1.0 + 1e-6
    out = _rodrigues(u, v, c)
    if opposite.any():
        n = np.array([0.0, 0.0, 1.0]) if abs(u[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
        n = n - (n @ u) * u
        n /= np.linalg.norm(n)
        half_turn = 2.0 * np.outer(n, n) - np.eye(3)  # maps u to −u
        vo = v[opposite]
        out[opposite] = _rodrigues(-u, vo, vo @ -u) @ half_turn
    return out


def _rodrigues(u: np.ndarray, v: np.ndarray, c: np.ndarray) -> np.ndarray:
    axis = np.cross(u, v)  # (T, 3)
    k = np.zeros((len(v), 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -axis[:, 2], axis[:, 1], -axis[:, 0]
    k -= np.swapaxes(k, 1, 2)
    scale = 1.0 / np.maximum(1.0 + c, 1e-12)
    return np.eye(3) + k + (k @ k) * scale[:, None, None]


def euler_zxy(r: np.ndarray) -> np.ndarray:
    """Angles (degrees) of rotations (T, 3, 3) as Z, X, Y channels: R = Rz(a)·Rx(b)·Ry(c) → (T, 3)."""
    b = np.arcsin(np.clip(r[:, 2, 1], -1.0, 1.0))
    a = np.arctan2(-r[:, 0, 1], r[:, 1, 1])
    c = np.arctan2(-r[:, 2, 0], r[:, 2, 2])
    # Gimbal lock (b = ±90°): only a ± c is defined; put it all in a.
    lock = np.cos(b) < 1e-9
    a = np.where(lock, np.arctan2(r[:, 1, 0], r[:, 0, 0]), a)
    c = np.where(lock, 0.0, c)
    return np.degrees(np.stack([a, b, c], axis=1))


def _end_sites(lengths: np.ndarray, rest_dirs: np.ndarray, facing: float) -> dict[str, np.ndarray]:
    """End Site offsets: along the head and the forearms; the feet point forward, square to the shin."""
    sites = {}
    for name, (frac, minimum) in _END_SITES.items():
        k = _NAMES.index(name)
        d = rest_dirs[k]
        if name.endswith("ankle"):
            d = facing * np.array([-d[1], d[0], 0.0])  # the shin's direction turned 90° forward
        sites[name] = max(frac * float(lengths[k]), minimum) * d
    return sites


def _write_joint(out: io.StringIO, k: int, offsets: np.ndarray, end_sites: dict, depth: int) -> None:
    """Write joint k and its subtree in the strict line layout Blender's importer reads."""
    name = _NAMES[k]
    pad = "\t" * depth
    channels = ROOT_CHANNELS if _PARENT[k] < 0 else JOINT_CHANNELS
    x, y, z = offsets[k]
    out.write(f"{pad}{'ROOT' if _PARENT[k] < 0 else 'JOINT'} {name}\n{pad}{{\n")
    out.write(f"{pad}\tOFFSET {x:.6f} {y:.6f} {z:.6f}\n")
    out.write(f"{pad}\tCHANNELS {len(channels)} {' '.join(channels)}\n")
    for c in np.flatnonzero(_PARENT == k):
        _write_joint(out, int(c), offsets, end_sites, depth + 1)
    if name in end_sites:
        x, y, z = end_sites[name]
        out.write(f"{pad}\tEnd Site\n{pad}\t{{\n{pad}\t\tOFFSET {x:.6f} {y:.6f} {z:.6f}\n{pad}\t}}\n")
    out.write(f"{pad}}}\n")
