"""The stick figure (DESIGN §1–2): joint and segment tables and the pure functions on them.

Units are metres and seconds; `x` to the right, `y` up, the floor at `y = 0`. Every function takes
arrays with any leading batch shape `...` and is vectorised over it; time is the axis just before the
joint axis (`(..., T, 16, 2)`) where a function needs time.

- `joints_to_segments` / `segments_to_joints`: the 48-dim "v3 canonical" pose and back. The way
  back averages every copy of a shared joint, so any 48 numbers project onto a connected figure.
- `mirror_joints` / `mirror_segments`: negate x and swap left and right.
- `bone_lengths`, `pose_features`, `pelvis_position`, `velocity`, `motion_features`.
- `center_of_mass`, `foot_contacts`, `physics`: the labels, losses and metrics all call these.
"""

from __future__ import annotations

import numpy as np

JOINTS: tuple[str, ...] = (
    "pelvis", "chest", "neck", "head",
    "l_shoulder", "l_elbow", "l_wrist",
    "r_shoulder", "r_elbow", "r_wrist",
    "l_hip", "l_knee", "l_ankle",
    "r_hip", "r_knee", "r_ankle",
)  # fmt: skip
NUM_JOINTS = len(JOINTS)  # 16
J = {name: i for i, name in enumerate(JOINTS)}

# (name, from joint, to joint), in the order of the 48-dim pose.
SEGMENTS: tuple[tuple[str, str, str], ...] = (
    ("head", "neck", "head"),
    ("upper_torso", "neck", "chest"),
    ("lower_torso", "chest", "pelvis"),
    ("l_upper_arm", "l_shoulder", "l_elbow"),
    ("l_forearm", "l_elbow", "l_wrist"),
    ("r_upper_arm", "r_shoulder", "r_elbow"),
    ("r_forearm", "r_elbow", "r_wrist"),
    ("l_thigh", "l_hip", "l_knee"),
    ("l_shin", "l_knee", "l_ankle"),
    ("r_thigh", "r_hip", "r_knee"),
    ("r_shin", "r_knee", "r_ankle"),
    ("pelvis_width", "l_hip", "r_hip"),
)
NUM_SEGMENTS = len(SEGMENTS)  # 12
POSE_DIM = 4 * NUM_SEGMENTS  # 48
FEATURE_DIM = POSE_DIM + 2 + 2  # pose, pelvis position, pelvis velocity
PHYSICS_DIM = 6

# (12, 2) joint index of each segment's two endpoints.
SEGMENT_JOINTS = np.array([(J[a], J[b]) for _, a, b in SEGMENTS], dtype=np.int64)
# Drawn by the renderer and written to BVH, never stored.
CLAVICLES: tuple[tuple[str, str], ...] = (("neck", "l_shoulder"), ("neck", "r_shoulder"))

# Joint index after mirroring: left and right swap.
MIRROR_JOINTS = np.array(
    [J[n.replace("l_", "#").replace("r_", "l_").replace("#", "r_")] for n in JOINTS], dtype=np.int64
)


def _endpoint_average_matrix() -> np.ndarray:
    """(16, 24) matrix that averages the 24 segment endpoints onto the 16 joints."""
    m = np.zeros((NUM_JOINTS, 2 * NUM_SEGMENTS))
    m[SEGMENT_JOINTS.reshape(-1), np.arange(2 * NUM_SEGMENTS)] = 1.0
    return m / m.sum(axis=1, keepdims=True)


def _mirror_endpoint_source() -> np.ndarray:
    """(24,) for each endpoint of the mirrored pose, the endpoint of the original it comes from."""
    lookup = {(int(a), int(b)): s for s, (a, b) in enumerate(SEGMENT_JOINTS)}
    source = np.empty(2 * NUM_SEGMENTS, dtype=np.int64)
    for s, (a, b) in enumerate(SEGMENT_JOINTS):
        ma, mb = int(MIRROR_JOINTS[a]), int(MIRROR_JOINTS[b])
        if (ma, mb) in lookup:
            src = lookup[(ma, mb)]
            source[2 * s : 2 * s + 2] = (2 * src, 2 * src + 1)
        else:  # pelvis_width: l_hip → r_hip mirrors to r_hip → l_hip, the same segment reversed
            src = lookup[(mb, ma)]
            source[2 * s : 2 * s + 2] = (2 * src + 1, 2 * src)
    return source


ENDPOINT_AVERAGE = _endpoint_average_matrix()
MIRROR_ENDPOINTS = _mirror_endpoint_source()

# Segment mass fractions of total body mass and the position of each segment's centre of mass
# along it, from Dempster's cadaver data as tabulated by D. A. Winter, "Biomechanics and Motor
# Control of Human Movement", 4th ed. (2009), Table 4.1. The figure has no hands or feet: their mass
# (hand 0.006, foot 0.0145) sits at the wrist and the ankle. Head and neck (0.081) sit at the head
# centre; the trunk (0.497) halfway between the pelvis and the midpoint of the shoulders.
# Entries: (mass fraction, proximal joint, distal joint, COM fraction from proximal).
_MASS_TABLE: tuple[tuple[float, str, str, float], ...] = (
    (0.081, "head", "head", 0.0),
    (0.028, "l_shoulder", "l_elbow", 0.436),
    (0.016, "l_elbow", "l_wrist", 0.430),
    (0.006, "l_wrist", "l_wrist", 0.0),
    (0.028, "r_shoulder", "r_elbow", 0.436),
    (0.016, "r_elbow", "r_wrist", 0.430),
    (0.006, "r_wrist", "r_wrist", 0.0),
    (0.100, "l_hip", "l_knee", 0.433),
    (0.0465, "l_knee", "l_ankle", 0.433),
    (0.0145, "l_ankle", "l_ankle", 0.0),
    (0.100, "r_hip", "r_knee", 0.433),
    (0.0465, "r_knee", "r_ankle", 0.433),
    (0.0145, "r_ankle", "r_ankle", 0.0),
)
TRUNK_MASS = 0.497


def _com_weights() -> np.ndarray:
    """(16,) joint weights whose weighted sum of joint positions is the centre of mass."""
    w = np.zeros(NUM_JOINTS)
    for mass, a, b, frac in _MASS_TABLE:
        w[J[a]] += mass * (1.0 - frac)
        w[J[b]] += mass * frac
    # Trunk centre: 0.5·pelvis + 0.5·(l_shoulder + r_shoulder)/2.
    w[J["pelvis"]] += TRUNK_MASS * 0.5
    w[J["l_shoulder"]] += TRUNK_MASS * 0.25
    w[J["r_shoulder"]] += TRUNK_MASS * 0.25
    return w / w.sum()


COM_WEIGHTS = _com_weights()

CONTACT_HEIGHT = 0.05  # m: an ankle below this is on the floor...
CONTACT_SPEED = 0.3  # m/s: ...if it also moves horizontally slower than this


def joints_to_segments(joints: np.ndarray) -> np.ndarray:
    """Joints (..., 16, 2) → segments (..., 48) as 12 × (x1, y1, x2, y2). Exact."""
    joints = np.asarray(joints)
    seg = joints[..., SEGMENT_JOINTS, :]  # (..., 12, 2, 2)
    return seg.reshape(*joints.shape[:-2], POSE_DIM)


def segments_to_joints(segments: np.ndarray) -> np.ndarray:
    """Segments (..., 48) → joints (..., 16, 2), averaging every copy of a shared joint.

    For the segments of a figure this is exact; for any other 48 numbers (a network's output) it is
    the least-squares connected figure: each joint is the mean of the endpoints that claim it.
    """
    segments = np.asarray(segments)
    endpoints = segments.reshape(*segments.shape[:-1], 2 * NUM_SEGMENTS, 2)  # (..., 24, 2)
    return np.einsum("je,...ec->...jc", ENDPOINT_AVERAGE, endpoints)


def connectivity_error(segments: np.ndarray) -> np.ndarray:
    """Largest distance (m) between a segment endpoint and its joint after projection, per pose.

    segments (..., 48) → (...). Zero (to rounding) exactly when the segments form a connected figure.
    """
    segments = np.asarray(segments)
    back = joints_to_segments(segments_to_joints(segments))
    gap = (back - segments).reshape(*segments.shape[:-1], 2 * NUM_SEGMENTS, 2)
    return np.linalg.norm(gap, axis=-1).max(axis=-1)


def mirror_joints(joints: np.ndarray) -> np.ndarray:
    """Mirror joints (..., 16, 2) about x = 0: negate x and swap left and right."""
    out = np.asarray(joints)[..., MIRROR_JOINTS, :].copy()
    out[..., 0] = -out[..., 0]
    return out


def mirror_segments(segments: np.ndarray) -> np.ndarray:
    """Mirror segments (..., 48) about x = 0; exact for any 48 numbers, connected or not."""
    segments = np.asarray(segments)
    endpoints = segments.reshape(*segments.shape[:-1], 2 * NUM_SEGMENTS, 2)[..., MIRROR_ENDPOINTS, :].copy()
    endpoints[..., 0] = -endpoints[..., 0]
    return endpoints.reshape(segments.shape)


def bone_lengths(joints: np.ndarray) -> np.ndarray:
    """Length (m) of each of the 12 segments: joints (..., 16, 2) → (..., 12)."""
    joints = np.asarray(joints)
    a = joints[..., SEGMENT_JOINTS[:, 0], :]
    b = joints[..., SEGMENT_JOINTS[:, 1], :]
    return np.linalg.norm(b - a, axis=-1)


def clavicle_lengths(joints: np.ndarray) -> np.ndarray:
    """Length (m) of the two drawn clavicles, neck → l_shoulder and neck → r_shoulder: (..., 2)."""
    joints = np.asarray(joints)
    idx = np.array([(J[a], J[b]) for a, b in CLAVICLES])
    return np.linalg.norm(joints[..., idx[:, 1], :] - joints[..., idx[:, 0], :], axis=-1)


def pelvis_position(joints: np.ndarray) -> np.ndarray:
    """Pelvis world position (m): joints (..., 16, 2) → (..., 2)."""
    return np.asarray(joints)[..., J["pelvis"], :]


def pose_features(joints: np.ndarray) -> np.ndarray:
    """Segments relative to the pelvis of the same frame: joints (..., 16, 2) → pose (..., 48) in m."""
    joints = np.asarray(joints)
    return joints_to_segments(joints - joints[..., J["pelvis"] : J["pelvis"] + 1, :])


def velocity(position: np.ndarray, fps: float) -> np.ndarray:
    """Time derivative (units/s) of a track (..., T, C) sampled at `fps`; zeros when T = 1.

    Central differences inside the clip, one-sided at its ends (numpy.gradient), so a track that
    moves at constant speed has exactly that velocity in every frame.
    """
    position = np.asarray(position, dtype=np.float64)
    if position.shape[-2] < 2:
        return np.zeros_like(position)
    return np.gradient(position, 1.0 / fps, axis=-2)


def motion_features(joints: np.ndarray, fps: float) -> np.ndarray:
    """The model's per-frame features: joints (..., T, 16, 2) → (..., T, 52).

    Layout: pose 48 (pelvis-relative segments, m), pelvis position 2 (m), pelvis velocity 2 (m/s).
    """
    position = pelvis_position(joints)
    return np.concatenate([pose_features(joints), position, velocity(position, fps)], axis=-1)


def features_to_joints(features: np.ndarray) -> np.ndarray:
    """Features (..., T, 52) → joints (..., T, 16, 2): the connected figure placed at its position.

    The velocity channels are not used: the position channels place the figure.
    """
    features = np.asarray(features)
    local = segments_to_joints(features[..., :POSE_DIM])
    # Re-centre so the pelvis sits exactly at the position channels.
    local = local - local[..., J["pelvis"] : J["pelvis"] + 1, :]
    return local + features[..., None, POSE_DIM : POSE_DIM + 2]


def center_of_mass(joints: np.ndarray) -> np.ndarray:
    """Whole-body centre of mass (m): joints (..., 16, 2) → (..., 2). Weights: Winter (2009)."""
    return np.einsum("j,...jc->...c", COM_WEIGHTS, np.asarray(joints, dtype=np.float64))


def foot_contacts(
    joints: np.ndarray, fps: float, *, height: float = CONTACT_HEIGHT, speed: float = CONTACT_SPEED
) -> np.ndarray:
    """Left and right foot contact per frame: joints (..., T, 16, 2) → bool (..., T, 2).

    A foot (its ankle) is in contact when it is lower than `height` m and its horizontal speed is
    below `speed` m/s.
    """
    ankles = np.asarray(joints, dtype=np.float64)[..., [J["l_ankle"], J["r_ankle"]], :]  # (..., T, 2, 2)
    vx = velocity(ankles[..., 0], fps)  # (..., T, 2): x of left and right ankle over time
    return (ankles[..., 1] < height) & (np.abs(vx) < speed)


def physics(joints: np.ndarray, fps: float) -> np.ndarray:
    """The 6-dim physics vector per frame: joints (..., T, 16, 2) → (..., T, 6) float.

    Layout: centre-of-mass velocity vx, vy (m/s), acceleration ax, ay (m/s²), left and right foot
    contact (0 or 1).
    """
    com = center_of_mass(joints)
    vel = velocity(com, fps)
    acc = velocity(vel, fps)
    contacts = foot_contacts(joints, fps).astype(np.float64)
    return np.concatenate([vel, acc, contacts], axis=-1)


# The ankle → knee → hip → pelvis → chest → neck → head-centre chain is about 0.9 of standing height
# (Drillis & Contini's proportions, as in stickgen.synth.body); the rest is the foot and the crown.
STANDING_CHAIN_SHARE = 0.9
_CHAIN = [("l_ankle", "l_knee"), ("r_ankle", "r_knee"), ("l_knee", "l_hip"), ("r_knee", "r_hip"),
          ("pelvis", "chest"), ("chest", "neck"), ("neck", "head")]  # fmt: skip
_CHAIN_WEIGHTS = np.array([0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0])  # left and right legs averaged


def standing_height(joints: np.ndarray) -> float:
    """A figure's standing height (m) estimated from its bones: joints (T, 16, C), C = 2 or 3.

    Each bone of the ankle-to-head chain counts at its 95th-percentile length over the clip, so a
    projected clip, whose bones look shorter when they turn towards the viewer, is measured by the
    frames that show them side-on.
    """
    joints = np.asarray(joints, dtype=np.float64)
    idx = np.array([(J[a], J[b]) for a, b in _CHAIN])
    lengths = np.linalg.norm(joints[:, idx[:, 1]] - joints[:, idx[:, 0]], axis=-1)  # (T, 7)
    return float(np.percentile(lengths, 95, axis=0) @ _CHAIN_WEIGHTS / STANDING_CHAIN_SHARE)
