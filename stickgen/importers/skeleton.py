"""Source skeletons to the 16 joints: joint maps, name matching, and how the derived joints are placed.

A `JointMap` names, for a source skeleton, the joint at each of our joints' positions. Three of ours
are placed by rule, the same for every source, so imported figures agree with the synthesizer's:

- `pelvis` is the midpoint of the two hips (DESIGN §1), not the source's root, which often sits
  higher;
- `chest` is 60 % of the way up the spine from the pelvis to the neck, measured along the source's
  spine joints (`spine`), so a bending back bends the figure's torso;
- `head` is the centre of the head: halfway between the source's head joint and the top of the head
  (`head_top`) when the source has one (CMU's head End Site, Mixamo's `HeadTop_End`), else the head
  joint.

For BVH files the map is found from the joint names (`auto_joint_map`): CMU (`LeftUpLeg`,
`LeftLeg`, `LeftFoot`, `LeftArm`, `LeftForeArm`, `LeftHand`, `Neck1`), Mixamo (`mixamorig:` names,
the same words), 3ds Max Biped (`Bip01 L Thigh`, `L Calf`, `L UpperArm`), SMPL (`left_hip`,
`left_knee`), Kinect (`HipLeft`, `ShoulderLeft`) and most other `Left…`/`L…`/`…_l` names. A
skeleton it cannot map needs a `--joint-map` file (`load_joint_map`), YAML with our joint names as
keys and the source's joint names as values:

    l_hip: LThigh        # ... one line for each of the 14 joints other than pelvis and chest
    neck: Neck
    head: Head
    head_top: HeadEnd    # optional: the top of the head
    spine: [Spine, Chest]  # optional: joints from the pelvis up to the neck, in order
    l_toe: LToe          # optional, with r_toe: toes let the importer check left and right
    pelvis: Hips         # optional: take the pelvis from this joint instead of between the hips
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from stickgen.errors import StickgenError
from stickgen.figure import JOINTS, NUM_JOINTS, J
from stickgen.importers.geometry import CHEST_FRACTION, point_on_chain

# The joints a map must name; pelvis and chest are placed by rule unless named.
MAPPED_JOINTS = tuple(n for n in JOINTS if n not in ("pelvis", "chest"))
_OPTIONAL_KEYS = ("pelvis", "chest", "head_top", "spine", "l_toe", "r_toe")


@dataclass(frozen=True)
class JointMap:
    """Which source joint sits at each of our joints (see the module docstring)."""

    joints: dict[str, str]  # our joint name → source joint name; every name in MAPPED_JOINTS
    spine: tuple[str, ...] = ()
    head_top: str | None = None
    toes: tuple[str, str] | None = None  # left, right
    extra: dict[str, str] = field(default_factory=dict)  # "pelvis" / "chest" when named

    def source_names(self) -> list[str]:
        names = [*self.joints.values(), *self.spine, *self.extra.values()]
        names += [self.head_top] if self.head_top else []
        names += list(self.toes) if self.toes else []
        return names


def build_figure(
    positions: np.ndarray, names: list[str], joint_map: JointMap
) -> tuple[np.ndarray, np.ndarray | None]:
    """Our 16 joints (T, 16, 3) and the toes (T, 2, 3) or None, from source positions (T, K, 3)."""
    index = {n: i for i, n in enumerate(names)}
    missing = [n for n in joint_map.source_names() if n not in index]
    if missing:
        raise StickgenError(f"The skeleton has no joint named {missing[0]!r}, which the joint map names.")

    def at(name: str) -> np.ndarray:
        return positions[:, index[name]]

    points = np.zeros((positions.shape[0], NUM_JOINTS, 3))
    for ours, theirs in joint_map.joints.items():
        points[:, J[ours]] = at(theirs)
    if "pelvis" in joint_map.extra:
        points[:, J["pelvis"]] = at(joint_map.extra["pelvis"])
    else:
        points[:, J["pelvis"]] = 0.5 * (points[:, J["l_hip"]] + points[:, J["r_hip"]])
    if joint_map.head_top:
        points[:, J["head"]] = 0.5 * (points[:, J["head"]] + at(joint_map.head_top))
    if "chest" in joint_map.extra:
        points[:, J["chest"]] = at(joint_map.extra["chest"])
    else:
        chain = [points[:, J["pelvis"]], *(at(n) for n in joint_map.spine), points[:, J["neck"]]]
        points[:, J["chest"]] = point_on_chain(np.stack(chain, axis=1), CHEST_FRACTION)
    toes = None
    if joint_map.toes:
        toes = np.stack([at(joint_map.toes[0]), at(joint_map.toes[1])], axis=1)
    return points, toes


def figure_from_indices(
    positions: np.ndarray, indices: dict[str, int], spine: tuple[int, ...], toes: tuple[int, int] | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """`build_figure` for a fixed skeleton given by joint indices (HumanML3D, KIT-ML, NTU)."""
    names = [str(i) for i in range(positions.shape[1])]
    joint_map = JointMap(
        joints={ours: str(i) for ours, i in indices.items()},
        spine=tuple(str(i) for i in spine),
        toes=(str(toes[0]), str(toes[1])) if toes else None,
    )
    return build_figure(positions, names, joint_map)


# ---------------------------------------------------------------------------------------------
# Finding a map from joint names


def normalize_name(name: str) -> str:
    """A joint name without namespace, rig prefix, case or separators: 'mixamorig:LeftArm' → 'leftarm'."""
    name = re.split(r"[:|]", name)[-1].lower()
    name = re.sub(r"^(bip0?1|mixamorig\d*|character\d*)", "", name.strip())
    return re.sub(r"[^a-z0-9]", "", name)


# Words for each limb joint, most specific first. A skeleton with both "LeftShoulder" and
# "LeftArm" (CMU, Mixamo) has its shoulder joint at LeftArm (LeftShoulder is the clavicle); one with
# "LeftAnkle" and "LeftFoot" (SMPL) has its ankle at LeftAnkle.
_LIMB_WORDS = {
    "hip": ("hip", "upleg", "upperleg", "thigh", "femur"),
    "knee": ("knee", "leg", "lowerleg", "shin", "calf", "tibia", "crus"),
    "ankle": ("ankle", "foot"),
    "shoulder": ("arm", "upperarm", "humerus", "shoulder"),
    "elbow": ("elbow", "forearm", "lowerarm", "radius"),
    "wrist": ("wrist", "hand"),
}
_CENTRE_WORDS = {
    "neck": ("spineshoulder", "neck1", "neck", "lowerneck", "neckbase"),
    "head": ("head",),
}
_HEAD_TOP_WORDS = ("headtop", "headtopend", "headend", "headsite", "headnub", "headtip")
_TOE_WORDS = ("toebase", "toe", "toes", "ball", "foot")


def _sided(side: str, word: str) -> tuple[str, ...]:
    full = "left" if side == "l" else "right"
    return (f"{full}{word}", f"{side}{word}", f"{word}{full}", f"{word}{side}")


def _find(normalized: dict[str, int], candidates: tuple[str, ...]) -> int | None:
    return next((normalized[c] for c in candidates if c in normalized), None)


def auto_joint_map(names: list[str], parents: list[int]) -> JointMap:
    """A map for a named skeleton (BVH); one sentence naming the first joint it cannot place.

    names: the joints, then End Sites named "<joint>_end"; parents: each joint's parent index (−1 for
    a root; End Sites included).
    """
    normalized: dict[str, int] = {}
    for i, n in enumerate(names):
        normalized.setdefault(normalize_name(n), i)
    found: dict[str, int] = {}
    for ours in MAPPED_JOINTS:
        if ours in _CENTRE_WORDS:
            candidates = _CENTRE_WORDS[ours]
        else:
            side, part = ours.split("_")
            candidates = tuple(c for w in _LIMB_WORDS[part] for c in _sided(side, w))
        i = _find(normalized, candidates)
        if i is None:
            raise StickgenError(
                f"Cannot find the {ours} among the skeleton's {len(names)} joints "
                f"({', '.join(names[:6])}, ...); give a --joint-map file (docs/importing.md)."
            )
        found[ours] = i
    if len(set(found.values())) < len(found):
        raise StickgenError(
            "The skeleton's joint names map two of the figure's joints onto one; give a --joint-map file."
        )
    head_top = _find(normalized, _HEAD_TOP_WORDS + (normalize_name(names[found["head"]]) + "end",))
    spine = _ancestors(found["neck"], parents)
    spine = [i for i in spine if i not in (found["l_hip"], found["r_hip"])]
    toes = tuple(_toe(side, found[f"{side}_ankle"], names, normalized, parents) for side in ("l", "r"))
    return JointMap(
        joints={ours: names[i] for ours, i in found.items()},
        spine=tuple(names[i] for i in spine),
        head_top=names[head_top] if head_top is not None and head_top != found["head"] else None,
        toes=(names[toes[0]], names[toes[1]]) if None not in toes else None,
    )


def _ancestors(i: int, parents: list[int]) -> list[int]:
    """The joints from the root down to i's parent."""
    chain = []
    while parents[i] >= 0:
        i = parents[i]
        chain.append(i)
    return chain[::-1]


def _toe(
    side: str, ankle: int, names: list[str], normalized: dict[str, int], parents: list[int]
) -> int | None:
    """A point ahead of the ankle: a named toe, else the ankle's first child or End Site."""
    named = _find(normalized, tuple(c for w in _TOE_WORDS for c in _sided(side, w)))
    if named is not None and named != ankle:
        return named
    return next((i for i, p in enumerate(parents) if p == ankle), None)


def load_joint_map(path: str | Path) -> JointMap:
    """A joint map from a YAML (or JSON) file; one sentence for anything wrong with it."""
    import yaml

    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StickgenError(f"No such joint map file: {path}.") from None
    except (OSError, UnicodeDecodeError) as e:
        raise StickgenError(
            f"Cannot read the joint map {path}: {getattr(e, 'strerror', None) or e}."
        ) from None
    except yaml.YAMLError:
        raise StickgenError(f"The joint map {path} is not valid YAML.") from None
    if not isinstance(doc, dict):
        raise StickgenError(f"The joint map {path} must map the figure's joint names to source joint names.")
    unknown = [k for k in doc if k not in MAPPED_JOINTS and k not in _OPTIONAL_KEYS]
    if unknown:
        raise StickgenError(
            f"The joint map {path} has an unknown key {unknown[0]!r}; keys are the figure's joints "
            f"({', '.join(MAPPED_JOINTS)}) and {', '.join(_OPTIONAL_KEYS)}."
        )
    missing = [k for k in MAPPED_JOINTS if k not in doc]
    if missing:
        raise StickgenError(f"The joint map {path} does not name a source joint for {missing[0]!r}.")
    spine = doc.get("spine") or []
    if isinstance(spine, str):
        spine = [spine]
    values = [doc[k] for k in doc if k != "spine"] + list(spine)
    if not all(isinstance(v, str) and v for v in values):
        raise StickgenError(f"The joint map {path} must give each joint a source joint name (text).")
    has_toes = "l_toe" in doc or "r_toe" in doc
    if has_toes and not ("l_toe" in doc and "r_toe" in doc):
        raise StickgenError(f"The joint map {path} must name both toes or neither.")
    return JointMap(
        joints={k: doc[k] for k in MAPPED_JOINTS},
        spine=tuple(spine),
        head_top=doc.get("head_top"),
        toes=(doc["l_toe"], doc["r_toe"]) if has_toes else None,
        extra={k: doc[k] for k in ("pelvis", "chest") if k in doc},
    )
