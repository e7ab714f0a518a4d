"""NTU RGB+D (60 and 120) Kinect v2 skeleton files → raw clips.

- **Files**: `.skeleton` text files, one per sample, named `SsssCcccPpppRrrrAaaa.skeleton` (setup,
  camera, performer, replication, action class). A file holds its frame count, then per frame its
  body count and per body a line of 10 values (the body id first), the joint count (25) and one line
  of 12 values per joint, of which the first three are x y z in metres in the camera's space (y up,
  right-handed). The other values are checked to be numbers and otherwise not used.
- **Body**: the first body of the first frame that has one is followed by its id through the file.
  Frames without it at the start or end are trimmed, gaps inside are filled by linear interpolation
  (and named in the import report's warnings), and a file missing it in more than half its frames is
  skipped. The second person of the two-person classes (A050–A060, A106–A120) is not imported.
- **Joints** (Kinect v2): neck is SpineShoulder, the base of the neck where the figure's clavicles
  meet; the pelvis is the midpoint of the hips (not SpineBase) and the chest lies on the spine pelvis
  → SpineMid → SpineShoulder (`skeleton.py`); the feet (FootLeft, FootRight) serve as toes for the
  handedness check. The Kinect's SpineBase, Neck, hands, thumbs and hand tips are not used.
- **Text**: the name of the action class of the file name's `A` number, in the dataset's own words
  ("tear up paper") without remarks in brackets and with "a/b" read "a or b" (`description`); a
  file name without one is skipped.
- **Rate and splits**: 30 fps; the cross-subject and cross-view protocols are not encoded, so clips
  are split by the import's seed, file by file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stickgen.clip_ops import interpolate_frames
from stickgen.errors import StickgenError
from stickgen.importers.clips import RawClip, Skip
from stickgen.importers.geometry import check_options, to_y_up
from stickgen.importers.skeleton import figure_from_indices

KINECT_JOINTS: tuple[str, ...] = (
    "SpineBase", "SpineMid", "Neck", "Head",
    "ShoulderLeft", "ElbowLeft", "WristLeft", "HandLeft",
    "ShoulderRight", "ElbowRight", "WristRight", "HandRight",
    "HipLeft", "KneeLeft", "AnkleLeft", "FootLeft",
    "HipRight", "KneeRight", "AnkleRight", "FootRight",
    "SpineShoulder", "HandTipLeft", "ThumbLeft", "HandTipRight", "ThumbRight",
)  # fmt: skip
_K = {name: i for i, name in enumerate(KINECT_JOINTS)}
# Our joints (other than pelvis and chest, placed by rule) → Kinect joint index.
FIGURE_INDICES = {
    "neck": _K["SpineShoulder"], "head": _K["Head"],
    "l_shoulder": _K["ShoulderLeft"], "l_elbow": _K["ElbowLeft"], "l_wrist": _K["WristLeft"],
    "r_shoulder": _K["ShoulderRight"], "r_elbow": _K["ElbowRight"], "r_wrist": _K["WristRight"],
    "l_hip": _K["HipLeft"], "l_knee": _K["KneeLeft"], "l_ankle": _K["AnkleLeft"],
    "r_hip": _K["HipRight"], "r_knee": _K["KneeRight"], "r_ankle": _K["AnkleRight"],
}  # fmt: skip
SPINE = (_K["SpineMid"],)
TOES = (_K["FootLeft"], _K["FootRight"])
BODY_VALUES = 10  # bodyID, clippedEdges, hand confidences and states, isRestricted, lean x y, trackingState
JOINT_VALUES = 12  # x y z, depth x y, colour x y, orientation w x y z, trackingState

# NTU RGB+D 120's action classes, A001 at index 0 (A001–A060 are NTU RGB+D's). The dataset's own
# words, except "hush (quiet)" for its "hush (quite)" and plain apostrophes.
CLASS_NAMES: tuple[str, ...] = (
    "drink water", "eat meal/snack", "brushing teeth", "brushing hair", "drop", "pickup", "throw",
    "sitting down", "standing up (from sitting position)", "clapping", "reading", "writing",
    "tear up paper", "wear jacket", "take off jacket", "wear a shoe", "take off a shoe",
    "wear on glasses", "take off glasses", "put on a hat/cap", "take off a hat/cap", "cheer up",
    "hand waving", "kicking something", "put something inside pocket / take out something from pocket",
    "hopping (one foot jumping)", "jump up", "make a phone call/answer phone",
    "playing with phone/tablet", "typing on a keyboard", "pointing to something with finger",
    "taking a selfie", "check time (from watch)", "rub two hands together", "nod head/bow",
    "shake head", "wipe face", "salute", "put the palms together", "cross hands in front (say stop)",
    "sneeze/cough", "staggering", "falling", "touch head (headache)",
    "touch chest (stomachache/heart pain)", "touch back (backache)", "touch neck (neckache)",
    "nausea or vomiting condition", "use a fan (with hand or paper)/feeling warm",
    "punching/slapping other person", "kicking other person", "pushing other person",
    "pat on back of other person", "point finger at the other person", "hugging other person",
    "giving something to other person", "touch other person's pocket", "handshaking",
    "walking towards each other", "walking apart from each other",
    "put on headphone", "take off headphone", "shoot at the basket", "bounce ball",
    "tennis bat swing", "juggling table tennis balls", "hush (quiet)", "flick hair", "thumb up",
    "thumb down", "make ok sign", "make victory sign", "staple book", "counting money",
    "cutting nails", "cutting paper (using scissors)", "snapping fingers", "open bottle",
    "sniff (smell)", "squat down", "toss a coin", "fold paper", "ball up paper", "play magic cube",
    "apply cream on face", "apply cream on hand back", "put on bag", "take off bag",
    "put something into a bag", "take something out of a bag", "open a box", "move heavy objects",
    "shake fist", "throw up cap/hat", "hands up (both hands)", "cross arms", "arm circles",
    "arm swings", "running on the spot", "butt kicks (kick backward)", "cross toe touch",
    "side kick", "yawn", "stretch oneself", "blow nose", "hit other person with something",
    "wield knife towards other person", "knock over other person (hit with body)",
    "grab other person's stuff", "shoot at other person with a gun", "step on foot", "high-five",
    "cheers and drink", "carry something with other person", "take a photo of other person",
    "follow other person", "whisper in other person's ear", "exchange things with other person",
    "support somebody with one's hand (someone is sick, help him to walk)",
    "finger-guessing game (playing rock-paper-scissors)",
)  # fmt: skip
_CLASS_NUMBER = re.compile(r"A(\d{3})(?!\d)")


@dataclass(frozen=True)
class NTUSource:
    format = "ntu"
    up: str = "y"
    scale: float = 1.0  # metres per unit; Kinect camera space is in metres
    fps: float = 30.0

    def __post_init__(self) -> None:
        check_options(self.up, self.scale, self.fps)

    def describe(self) -> dict[str, Any]:
        return {"up": self.up, "scale": self.scale, "fps": self.fps}

    def items(self, src: Path) -> list[str]:
        if src.is_file():
            return [src.name]
        items = sorted(
            str(p.relative_to(src)) for p in src.rglob("*") if p.suffix.lower() == ".skeleton" and p.is_file()
        )
        if not items:
            raise StickgenError(f"{src} holds no .skeleton files.")
        return items

    def read(self, src: Path, item: str) -> tuple[list[RawClip], list[str]]:
        path = src if src.is_file() else src / item
        number = class_number(Path(item).name)
        try:
            data = path.read_bytes()
        except OSError as e:
            raise Skip(f"cannot be read ({e.strerror or e})") from None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise Skip("is not UTF-8 text") from None
        positions, warnings = first_body(parse_skeleton(text))
        points, toes = figure_from_indices(positions, FIGURE_INDICES, SPINE, TOES)
        points = to_y_up(points * self.scale, self.up)
        toes = to_y_up(toes * self.scale, self.up)
        source = {"format": "ntu", "file": item, "class": number}
        raw = RawClip(points, self.fps, [description(number)], group=item, toes=toes, source=source)
        return [raw], warnings


def description(number: int) -> str:
    """Class `number`'s name as a description: without its remarks in brackets, "a/b" read "a or b".

    "standing up (from sitting position)" → "standing up"; "nod head/bow" → "nod head or bow".
    """
    name = re.sub(r"\s*\([^)]*\)", "", CLASS_NAMES[number - 1])
    return re.sub(r"\s*/\s*", " or ", name).strip()


def class_number(name: str) -> int:
    """The action class (1..120) of a file name such as `S001C002P003R002A013.skeleton` (→ 13)."""
    found = _CLASS_NUMBER.findall(Path(name).stem)
    if not found:
        raise Skip("has no action class in its name (NTU names end in A001 to A120)")
    number = int(found[-1])
    if not 1 <= number <= len(CLASS_NAMES):
        raise Skip(f"has action class A{number:03d} in its name, outside A001 to A{len(CLASS_NAMES):03d}")
    return number


class _Lines:
    """The non-blank lines of a file as tokens, read in order, with one sentence for what is wrong."""

    def __init__(self, text: str):
        self.lines = [(n, line.split()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        self.pos = 0

    def next(self, what: str) -> tuple[int, list[str]]:
        if self.pos >= len(self.lines):
            raise Skip(f"is truncated: it ends where {what} should be")
        self.pos += 1
        return self.lines[self.pos - 1]

    def count(self, what: str) -> int:
        n, tokens = self.next(what)
        if len(tokens) != 1 or not (tokens[0].isascii() and tokens[0].isdigit()):
            raise Skip(f"has {' '.join(tokens)[:40]!r} on line {n}, where {what} should be")
        return int(tokens[0])

    def values(self, size: int, what: str) -> tuple[list[str], np.ndarray]:
        n, tokens = self.next(what)
        if len(tokens) < size and self.pos == len(self.lines):
            raise Skip(f"is truncated: it ends inside {what}")
        if len(tokens) != size:
            plural = "" if len(tokens) == 1 else "s"
            raise Skip(f"has {len(tokens)} value{plural} on line {n}, where {what} ({size} values) should be")
        try:
            return tokens, np.array([float(t) for t in tokens])
        except ValueError:
            raise Skip(f"has a value that is not a number on line {n}") from None


def parse_skeleton(text: str) -> list[dict[str, np.ndarray]]:
    """The bodies of each frame of a `.skeleton` file's text: per frame, body id → x y z (25, 3)."""
    lines = _Lines(text)
    if not lines.lines:
        raise Skip("is empty")
    num_frames = lines.count("the frame count")
    if num_frames == 0:
        raise Skip("has no frames")
    frames = []
    for f in range(1, num_frames + 1):
        bodies: dict[str, np.ndarray] = {}
        for _ in range(lines.count(f"the body count of frame {f}")):
            header, _ = lines.values(BODY_VALUES, f"a body's header line in frame {f}")
            joints = lines.count(f"the joint count in frame {f}")
            if joints != len(KINECT_JOINTS):
                raise Skip(f"has a body of {joints} joints in frame {f}, not {len(KINECT_JOINTS)}")
            rows = [lines.values(JOINT_VALUES, f"a joint's line in frame {f}")[1] for _ in KINECT_JOINTS]
            bodies.setdefault(header[0], np.stack(rows)[:, :3])
        frames.append(bodies)
    if lines.pos < len(lines.lines):
        n, _ = lines.lines[lines.pos]
        raise Skip(f"has more lines (from line {n}) than its {num_frames} frames hold")
    return frames


def first_body(frames: list[dict[str, np.ndarray]]) -> tuple[np.ndarray, list[str]]:
    """The first body's joints (T', 25, 3), trimmed to the frames it is in and gap-filled, and warnings.

    `Skip` when no frame has a body, the body is missing from more than half of the frames, or its
    positions are not finite.
    """
    body = next((next(iter(bodies)) for bodies in frames if bodies), None)
    if body is None:
        raise Skip("has no tracked body")
    present = np.array([body in bodies for bodies in frames])
    seen = np.flatnonzero(present)
    missing = len(frames) - len(seen)
    if 2 * missing > len(frames):
        raise Skip(f"misses its first body in {missing} of its {len(frames)} frames")
    track = np.stack([frames[t][body] for t in seen])  # (T_seen, 25, 3)
    if not np.isfinite(track).all():
        bad = int(seen[np.flatnonzero(~np.isfinite(track).all(axis=(1, 2)))[0]]) + 1
        raise Skip(f"has NaN or infinite joint positions in frame {bad}")
    first, last = int(seen[0]), int(seen[-1])
    positions = np.empty((last - first + 1, len(KINECT_JOINTS), 3))
    positions[seen - first] = track
    gaps = np.flatnonzero(~present[first : last + 1])
    if len(gaps):
        filled = interpolate_frames(seen - first, track.reshape(len(seen), -1), gaps)
        positions[gaps] = filled.reshape(len(gaps), len(KINECT_JOINTS), 3)
    warnings = []
    if missing:
        warnings.append(
            f"its first body is missing from {missing} of {len(frames)} frames: {first} trimmed at the "
            f"start, {len(frames) - 1 - last} at the end, {len(gaps)} filled by interpolation"
        )
    return positions, warnings
