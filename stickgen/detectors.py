"""Physical facts about a clip: does the figure rise, travel, sit, lie, wave, kick ...?

Pure functions of a `Motion`'s joints (T, 16, 2): metres, y up, the floor at y = 0, `motion.fps`
frames per second. Each detector answers one yes/no question about the whole clip; its keyword
arguments are its thresholds (metres, seconds, degrees, shares of the frames), with defaults tuned on
synthesized ground-truth clips of the actions they are meant for (docs/prompt-suite.md lists them).
`window(motion, start, stop)` cuts a share of a clip ((0, 0.5) is the first half), so a chained
prompt is checked in order: "walks, then sits down" is `travels` early and `ends_seated` late.

Lengths (m) and speeds (m/s) are for an adult-sized figure, whose legs (hip → knee → ankle) are at
least `ADULT_LEG` = 0.7 m long; a smaller figure, a child, scales them down in proportion to its legs
(`size`), so a child's jump or sit is judged by its own body. "Standing height" is the pelvis height
in the first frames of the clip (or window): detectors that compare with it assume the figure starts
upright, as the actions they are meant for do.
"""

from __future__ import annotations

import numpy as np

from stickgen.figure import CONTACT_HEIGHT, J
from stickgen.motion import Motion

_ANKLES = [J["l_ankle"], J["r_ankle"]]
_KNEES = [J["l_knee"], J["r_knee"]]
_WRISTS = [J["l_wrist"], J["r_wrist"]]
ADULT_LEG = 0.7  # m, hip to ankle: the shortest adult of the synthesizer (1.5 m tall)


def window(motion: Motion, start: float, stop: float) -> Motion:
    """The part of a clip between two shares of its length: frames [floor(start·T), ceil(stop·T)), at
    least two. (0, 0.5) is the first half, (0.5, 1) the second."""
    if not 0.0 <= start < stop <= 1.0:
        raise ValueError(f"a window needs 0 <= start < stop <= 1, not ({start}, {stop})")
    frames = motion.num_frames
    a = max(0, min(int(np.floor(start * frames)), frames - 2))
    b = max(int(np.ceil(stop * frames)), a + 2)
    return motion.replace(joints=motion.joints[a:b], actions=motion.actions[a:b], camera=None)


def size(motion: Motion) -> float:
    """The factor (≤ 1) that scales a detector's lengths to a figure: its leg length (hip → knee →
    ankle, the median over frames and legs) over `ADULT_LEG`, at most 1."""
    j = motion.joints

    def bone(a: str, b: str) -> np.ndarray:
        return np.linalg.norm(j[:, J[a]] - j[:, J[b]], axis=1)  # (T,)

    legs = [bone(side + "hip", side + "knee") + bone(side + "knee", side + "ankle") for side in ("l_", "r_")]
    return min(1.0, float(np.median(legs)) / ADULT_LEG)


def _pelvis(motion: Motion) -> np.ndarray:
    return motion.joints[:, J["pelvis"]]  # (T, 2)


def _standing(y: np.ndarray) -> float:
    """The height a signal starts at: the median of its first 5 frames."""
    return float(np.median(y[:5]))


def _lean(joints: np.ndarray) -> np.ndarray:
    """(T,) degrees between the torso (pelvis → neck) and the vertical: 0 upright, 90 lying."""
    torso = joints[..., J["neck"], :] - joints[..., J["pelvis"], :]
    return np.degrees(np.arctan2(np.abs(torso[..., 0]), torso[..., 1]))


def _cycles(signal: np.ndarray, amplitude: float) -> int:
    """How many times a signal falls at least `amplitude` below its running high and then rises at
    least `amplitude` above its low (a hysteresis counter: wobbles smaller than `amplitude` count
    nothing)."""
    count, high, low, down = 0, -np.inf, np.inf, False
    for value in signal:
        if not down:
            high = max(high, value)
            if value < high - amplitude:
                down, low = True, value
        else:
            low = min(low, value)
            if value > low + amplitude:
                count, down, high = count + 1, False, value
    return count


def _rising_edges(flags: np.ndarray) -> int:
    """How many separate runs of True a (T,) boolean array holds."""
    return int(np.count_nonzero(np.diff(flags.astype(int)) == 1) + int(flags[0]))


# -----------------------------------------------------------------------------
# the pelvis: jumping, travelling, staying


def rises(motion: Motion, *, min_m: float = 0.15, back_m: float | None = 0.1) -> bool:
    """A jump: the pelvis rises more than `min_m` (m) above its standing height and afterwards comes
    back down to within `back_m` (m) of it (None: it need not come down, as in zero gravity)."""
    y, k = _pelvis(motion)[:, 1], size(motion)
    stand, peak = _standing(y), int(np.argmax(y))
    landed = back_m is None or y[peak:].min() < stand + back_m * k
    return bool(y[peak] - stand > min_m * k and landed)


def travels(motion: Motion, *, min_m: float = 1.0, min_speed: float = 0.0) -> bool:
    """Walking, running: the pelvis ends more than `min_m` (m) from where it started, horizontally, at
    an average speed (that distance over the clip's duration) of at least `min_speed` (m/s)."""
    x, k = _pelvis(motion)[:, 0], size(motion)
    distance = abs(float(x[-1] - x[0]))
    return distance > min_m * k and distance / motion.duration >= min_speed * k


def facing(motion: Motion) -> int:
    """+1 when the figure faces +x, −1 when it faces −x, 0 when it cannot tell (seen from the front):
    the side of the hip–ankle line that the knees bend towards, averaged over the clip and added for
    the two legs (more than 1 cm)."""
    j = motion.joints
    bend = 0.0
    for hip, knee, ankle in (("l_hip", "l_knee", "l_ankle"), ("r_hip", "r_knee", "r_ankle")):
        line = 0.5 * (j[:, J[hip], 0] + j[:, J[ankle], 0])
        bend += float((j[:, J[knee], 0] - line).mean())
    return int(np.sign(bend)) if abs(bend) > 0.01 else 0


def travels_backward(motion: Motion, *, min_m: float = 0.5) -> bool:
    """Walking backward: the pelvis travels more than `min_m` (m) away from where the figure faces
    (`facing`)."""
    x = _pelvis(motion)[:, 0]
    return facing(motion) * float(x[-1] - x[0]) < -min_m * size(motion)


def upright(motion: Motion, *, max_drop: float = 0.25) -> bool:
    """Staying on its feet: the pelvis never drops more than `max_drop` (m) below its standing height."""
    y = _pelvis(motion)[:, 1]
    return bool(y.min() >= _standing(y) - max_drop * size(motion))


def stays(motion: Motion, *, max_m: float = 0.3) -> bool:
    """Staying in place: the pelvis never gets more than `max_m` (m) from where it started."""
    p = _pelvis(motion)
    return bool(np.linalg.norm(p - p[0], axis=1).max() <= max_m * size(motion))


def still(motion: Motion, *, max_m: float = 0.15) -> bool:
    """Standing still: no joint ever gets more than `max_m` (m) from where it was in the first frame."""
    return bool(np.linalg.norm(motion.joints - motion.joints[:1], axis=-1).max() <= max_m * size(motion))


# -----------------------------------------------------------------------------
# postures: sitting, kneeling, lying, crouching, bending


def ends_lower(motion: Motion, *, min_m: float = 0.25) -> bool:
    """Sitting, kneeling, lying down: the pelvis is more than `min_m` (m) lower in the last frame than
    in the first."""
    y = _pelvis(motion)[:, 1]
    return float(y[0] - y[-1]) > min_m * size(motion)


def ends_higher(motion: Motion, *, min_m: float = 0.25) -> bool:
    """Standing up, getting up, climbing: the pelvis is more than `min_m` (m) higher in the last frame
    than in the first."""
    y = _pelvis(motion)[:, 1]
    return float(y[-1] - y[0]) > min_m * size(motion)


def ends_seated(motion: Motion, *, max_lean: float = 45.0, min_knee: float = 0.2) -> bool:
    """Sitting (on a chair or the floor): in the last frame the torso leans less than `max_lean`
    degrees from vertical and both knees are higher than `min_knee` (m), so the figure is not kneeling."""
    last = motion.joints[-1]
    return bool(_lean(last) < max_lean and last[_KNEES, 1].min() > min_knee * size(motion))


def ends_kneeling(motion: Motion, *, max_lean: float = 45.0, max_knee: float = 0.15) -> bool:
    """Kneeling: in the last frame the torso leans less than `max_lean` degrees from vertical and a
    knee is lower than `max_knee` (m)."""
    last = motion.joints[-1]
    return bool(_lean(last) < max_lean and last[_KNEES, 1].min() < max_knee * size(motion))


def lies(motion: Motion, *, min_share: float = 0.2, min_lean: float = 60.0, max_m: float = 0.35) -> bool:
    """Lying: for at least `min_share` of the frames the torso leans more than `min_lean` degrees from
    vertical and the pelvis is lower than `max_m` (m)."""
    flat = (_lean(motion.joints) > min_lean) & (_pelvis(motion)[:, 1] < max_m * size(motion))
    return float(flat.mean()) >= min_share


def horizontal(motion: Motion, *, min_share: float = 0.5, min_lean: float = 60.0) -> bool:
    """Swimming: for at least `min_share` of the frames the torso leans more than `min_lean` degrees
    from vertical, at any height."""
    return float((_lean(motion.joints) > min_lean).mean()) >= min_share


def dips(motion: Motion, *, min_m: float = 0.25, times: int = 1) -> bool:
    """Crouching, squatting, lunging: the pelvis goes down more than `min_m` (m) and back up as much,
    at least `times` times."""
    return _cycles(_pelvis(motion)[:, 1], min_m * size(motion)) >= times


def bends(motion: Motion, *, min_lean: float = 45.0, max_drop: float = 0.25) -> bool:
    """Bowing, bending over: in some frame the torso leans more than `min_lean` degrees from vertical
    while the pelvis is less than `max_drop` (m) below its standing height (so it is not sitting)."""
    y = _pelvis(motion)[:, 1]
    return bool(((_lean(motion.joints) > min_lean) & (y > _standing(y) - max_drop * size(motion))).any())


# -----------------------------------------------------------------------------
# the legs and the floor: flight, one leg, kicks, lunges, all fours, push-ups, sit-ups


def count_jumps(motion: Motion, *, min_m: float = 0.1) -> int:
    """How many times the pelvis rises more than `min_m` (m) above its low and comes back down as much:
    jumps, hops, jumping jacks, one each (a count, for "jumps three times"; `benchmarks/counts.py`)."""
    return _cycles(-_pelvis(motion)[:, 1], min_m * size(motion))


def airborne_seconds(motion: Motion) -> float:
    """Seconds with both ankles more than 5 cm (`figure.CONTACT_HEIGHT`) above the floor."""
    ankles = motion.joints[:, _ANKLES, 1]
    return float((ankles.min(axis=1) > CONTACT_HEIGHT).sum()) / motion.fps


def airborne(motion: Motion, *, min_s: float = 0.3) -> bool:
    """Both feet are off the floor (`airborne_seconds`) for more than `min_s` seconds in all."""
    return airborne_seconds(motion) > min_s


def one_foot_up(motion: Motion, *, min_share: float = 0.5, min_m: float = 0.15) -> bool:
    """Balancing on one leg: for at least `min_share` of the frames the same ankle is more than
    `min_m` (m) higher than the other."""
    gap = (motion.joints[:, _ANKLES[0], 1] - motion.joints[:, _ANKLES[1], 1]) / size(motion)
    return max(float((gap > min_m).mean()), float((gap < -min_m).mean())) >= min_share


def kicks(motion: Motion, *, min_m: float = 0.1, min_speed: float = 2.0) -> bool:
    """A kick: an ankle rises more than `min_m` (m) above the knee of the other leg, and in the frames
    before it does, it moves up faster than `min_speed` (m/s)."""
    j, k = motion.joints, size(motion)
    for ankle, knee in ((_ANKLES[0], _KNEES[1]), (_ANKLES[1], _KNEES[0])):
        y = j[:, ankle, 1]
        speed = np.concatenate([[0.0], np.diff(y) * motion.fps])  # (T,) m/s, up = +
        up = np.flatnonzero(y - j[:, knee, 1] > min_m * k)
        if up.size and speed[max(0, up[0] - 5) : up[0] + 1].max() > min_speed * k:
            return True
    return False


def feet_apart(motion: Motion, *, min_m: float = 0.6) -> bool:
    """A lunge or a wide stance: in some frame the ankles are more than `min_m` (m) apart horizontally."""
    gap = np.abs(motion.joints[:, _ANKLES[0], 0] - motion.joints[:, _ANKLES[1], 0])
    return bool(gap.max() > min_m * size(motion))


def on_all_fours(
    motion: Motion, *, min_share: float = 0.3, max_m: float = 0.2, min_pelvis: float = 0.25
) -> bool:
    """Crawling, a push-up's plank: for at least `min_share` of the frames both wrists are lower than
    `max_m` (m), each leg has its knee or its ankle lower than `max_m`, and the pelvis is higher than
    `min_pelvis` (m), so the figure is not lying on the floor."""
    j, k = motion.joints, size(motion)
    hands = j[:, _WRISTS, 1].max(axis=1) < max_m * k
    legs = np.minimum(j[:, _KNEES, 1], j[:, _ANKLES, 1]).max(axis=1) < max_m * k
    return float((hands & legs & (j[:, J["pelvis"], 1] > min_pelvis * k)).mean()) >= min_share


def push_ups(motion: Motion, *, min_m: float = 0.15, times: int = 1, max_hands: float = 0.2) -> bool:
    """Push-ups: while both wrists are lower than `max_hands` (m), the chest goes down more than
    `min_m` (m) and back up as much, at least `times` times."""
    j, k = motion.joints, size(motion)
    down = j[:, _WRISTS, 1].max(axis=1) < max_hands * k
    return bool(down.any()) and _cycles(j[down, J["chest"], 1], min_m * k) >= times


def sit_ups(motion: Motion, *, min_m: float = 0.2, times: int = 1, max_pelvis: float = 0.3) -> bool:
    """Sit-ups: while the pelvis is lower than `max_pelvis` (m), the neck rises more than `min_m` (m)
    and comes back down as much, at least `times` times."""
    j, k = motion.joints, size(motion)
    low = j[:, J["pelvis"], 1] < max_pelvis * k
    return bool(low.any()) and _cycles(-j[low, J["neck"], 1], min_m * k) >= times


# -----------------------------------------------------------------------------
# the arms and the head: waving, cheering, jumping jacks, looking around


def waves(motion: Motion, *, min_share: float = 0.3, swings: int = 2, max_move: float | None = 0.2) -> bool:
    """A wave: one wrist is above its shoulder for at least `min_share` of the frames and, while it is,
    swings sideways back and forth (`swings` changes of direction, ignoring steps under 1 mm); the
    pelvis stays within `max_move` (m) of where it started (None: it may drift, as in zero gravity)."""
    if max_move is not None and not stays(motion, max_m=max_move):
        return False
    for side in ("l_", "r_"):
        wrist, shoulder = motion.joints[:, J[side + "wrist"]], motion.joints[:, J[side + "shoulder"]]
        up = wrist[:, 1] > shoulder[:, 1]
        if up.mean() < min_share:
            continue
        dx = np.diff((wrist - shoulder)[up, 0])
        if np.count_nonzero(np.diff(np.sign(dx[np.abs(dx) > 1e-3]))) >= swings:
            return True
    return False


def arms_up(motion: Motion, *, min_share: float = 0.3) -> bool:
    """Cheering, stretching: both wrists are above the head (its centre) for at least `min_share` of
    the frames."""
    above = motion.joints[:, _WRISTS, 1].min(axis=1) > motion.joints[:, J["head"], 1]
    return float(above.mean()) >= min_share


def count_arm_raises(motion: Motion) -> int:
    """How many times both wrists go above the head (its centre)."""
    above = motion.joints[:, _WRISTS, 1].min(axis=1) > motion.joints[:, J["head"], 1]
    return _rising_edges(above)


def arms_up_times(motion: Motion, *, times: int = 2) -> bool:
    """Jumping jacks: both wrists go above the head (its centre) and back down, at least `times` times."""
    return count_arm_raises(motion) >= times


def turns_head(motion: Motion, *, min_m: float = 0.06, max_lean: float = 20.0) -> bool:
    """Looking around: while the torso leans less than `max_lean` degrees from vertical, the head's
    horizontal offset from the neck (which a turn of the head changes in 2D) spans more than `min_m`
    (m)."""
    j = motion.joints
    straight = _lean(j) < max_lean
    offset = j[straight, J["head"], 0] - j[straight, J["neck"], 0]
    return bool(offset.size) and float(np.ptp(offset)) > min_m * size(motion)


DETECTORS = {
    f.__name__: f
    for f in (rises, travels, travels_backward, upright, stays, still, ends_lower, ends_higher, ends_seated,
              ends_kneeling, lies, horizontal, dips, bends, airborne, one_foot_up, kicks, feet_apart,
              on_all_fours, push_ups, sit_ups, waves, arms_up, arms_up_times, turns_head)
}  # fmt: skip


def seam_speed(
    joints: np.ndarray, seams: list[int], which: list[int] | None = None, fps: float = 25.0
) -> tuple[float, float]:
    """(the largest joint speed across the seams, the 99th percentile of the other joint speeds), m/s.

    A seam at frame s is the step from frame s − 1 to frame s; `which` limits the speed across the
    seams to those joints. Editing's rule (issue 16): a seam without a jump has the first at most the
    second.
    """
    speed = np.linalg.norm(np.diff(joints, axis=0), axis=-1) * fps  # (T − 1, 16)
    steps = [s - 1 for s in seams]
    across = speed[steps][:, which if which is not None else slice(None)].max()
    return float(across), float(np.percentile(np.delete(speed, steps, axis=0), 99))
