"""Chaining actions: each track continues where the previous one stopped, blended over ~0.3 s.

Every action starts and ends at rest in a known posture (standing, seated), so consecutive actions
meet in nearly the same pose. The last `BLEND` seconds of one overlap the first of the next and are
blended in root and angle space with a smoothstep weight: positions and velocities stay continuous
(no pops), and because the blend is over angles the bone lengths stay exactly constant. The legs are
the exception: the two actions' ankle positions are blended in world space (kept on or above the
floor) and reached by IK, so feet standing in both actions stay where they are. An arm whose blend
would sweep through the floor (two poses far apart on the floor, such as arms overhead and arms at
the sides of a lying figure) takes the other way round instead (`_arms_clear_of_floor`).
"""

from __future__ import annotations

import numpy as np

from stickgen.figure import J
from stickgen.synth.body import Body
from stickgen.synth.keyframes import smoothstep
from stickgen.synth.kinematics import Track, forward_kinematics, leg_ik

BLEND = 0.32  # s
_ANKLES = [J["l_ankle"], J["r_ankle"]]
_HANDS = [[J["l_elbow"], J["l_wrist"]], [J["r_elbow"], J["r_wrist"]]]
# Whole turns (× 2π) added to an arm's (upper-arm angle, elbow flexion), the unchanged way first.
_TURNS = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1))


def chain(tracks: list[Track], body: Body, fps: float) -> tuple[Track, list[tuple[int, int]]]:
    """Play tracks one after another with blended overlaps.

    Returns the chained track and, per input track, the (start, stop) frames it owns in the result
    (a blend's frames belong to the earlier action up to its middle).
    """
    out = tracks[0]
    spans = [(0, out.num_frames)]
    for nxt in tracks[1:]:
        k = int(min(round(BLEND * fps), out.num_frames - 1, nxt.num_frames - 1))
        root = nxt.root.copy()
        root[:, 0] += out.root[-1, 0] - nxt.root[0, 0]  # continue from where the figure stands
        nxt = nxt.with_(root=root)
        w = smoothstep(np.arange(1, k + 1) / (k + 1))
        cut = out.num_frames - k
        channels = {}
        for name in ("root", "spine", "arms", "legs"):
            a, b = getattr(out, name), getattr(nxt, name)
            if name != "root":
                # Angles are periodic: the next action's turn nearest the previous one's, or the blend
                # would spin a limb all the way round (two solvers may return angles 2π apart).
                b = b + 2.0 * np.pi * np.round((a[-1] - b[0]) / (2.0 * np.pi))
            wk = w.reshape(-1, *([1] * (a.ndim - 1)))
            blended = a[cut:] * (1.0 - wk) + b[:k] * wk
            channels[name] = np.concatenate([a[:cut], blended, b[k:]])
        start = cut + k // 2
        spans[-1] = (spans[-1][0], start)
        if k:
            ankles_a = forward_kinematics(out.slice(cut, out.num_frames), body)[:, _ANKLES]
            ankles_b = forward_kinematics(nxt.slice(0, k), body)[:, _ANKLES]
            feet = ankles_a * (1.0 - w[:, None, None]) + ankles_b * w[:, None, None]
            feet[..., 1] = np.maximum(feet[..., 1], 0.0)
            window = Track(**{name: channels[name][cut : cut + k] for name in channels})
            channels["legs"][cut : cut + k] = leg_ik(window, body, feet)
            channels["arms"][cut:] = _arms_clear_of_floor(Track(**channels).slice(cut, None), k, w, body)
        out = Track(**channels)
        spans.append((start, out.num_frames))
    return out, spans


def _arms_clear_of_floor(track: Track, k: int, w: np.ndarray, body: Body) -> np.ndarray:
    """Arms (T, 2, 2) of `track`, whose first `k` frames blend into the rest with weights `w` (k,),
    with whole turns added to the later action's angles of any arm that the blend sweeps through the
    floor (deeper than at either end), where another way round keeps it out.

    A whole turn leaves every pose as it is and changes only the way the blend goes round.
    """
    arms = track.arms.copy()
    window = track.slice(0, k)
    ramp = np.concatenate([w, np.ones(track.num_frames - k)])[:, None]  # (T, 1) the turn's share
    for side, joints in enumerate(_HANDS):
        ends = forward_kinematics(track.slice(0, 1), body)[0, joints, 1].min()
        ends = min(ends, forward_kinematics(track.slice(k - 1, k), body)[0, joints, 1].min(), 0.0)
        best, best_low = None, -np.inf
        for turns in _TURNS:
            turn = 2.0 * np.pi * np.array(turns, dtype=float)
            trial = arms[:k].copy()
            trial[:, side] += turn * w[:, None]
            low = forward_kinematics(window.with_(arms=trial), body)[:, joints, 1].min()
            if low >= ends - 0.005:
                best = turn
                break
            if low > best_low:
                best, best_low = turn, low
        arms[:, side] += best * ramp
    return arms
