"""The sports family of the synthesizer: physical checks, labels and words of each action, and the poses
that make each one recognisable (a punch reaches forward, a kick rises, a throw goes over the head...)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from stickgen.figure import J, bone_lengths
from stickgen.labels import ENVIRONMENT_NAMES
from stickgen.synth.actions import ACTION_BY_NAME
from stickgen.synth.actions.sports import SPECS
from stickgen.synth.checks import (
    BONE_CV_MAX,
    FLIGHT_TOLERANCE,
    FLOOR_MIN,
    SLIDE_SHARE_MAX,
    check_clip,
    flight_errors,
    summarize,
)
from stickgen.synth.sampler import ClipPlan, synthesize
from stickgen.synth.style import STYLES
from stickgen.synth.text import gerund
from tests.synth_helpers import word_pattern

NAMES = [spec.name for spec in SPECS]
STYLE_NAMES = [s.name for s in STYLES]


def _plan(action, env="earth", seed=0, view=None, seconds=4.0, style="neutral", facing=1, actions=None):
    spec = ACTION_BY_NAME[action]
    view = view or spec.views[0]
    actions = actions or (action,)
    return ClipPlan(seed, 0, env, view, facing if view == "side" else 1, style, actions,
                    (seconds,) * len(actions), "stand", "follow", 4)  # fmt: skip


def _variety(action: str, count: int, offset: int = 0) -> list:
    """`count` clips of one action over every environment, its views, both facings, styles and lengths."""
    spec = ACTION_BY_NAME[action]
    clips = []
    for i in range(offset, offset + count):
        rng = np.random.default_rng(i)
        plan = _plan(action, ENVIRONMENT_NAMES[i % 8], seed=i, view=spec.views[(i // 8) % len(spec.views)],
                     seconds=float(rng.uniform(1.5, 8.0)), style=STYLE_NAMES[i % len(STYLE_NAMES)],
                     facing=1 if i % 3 else -1)  # fmt: skip
        clips.append(synthesize(plan))
    return clips


def _assert_physical(clips):
    report = summarize([check_clip(m) for m in clips])
    assert report.bone_cv < BONE_CV_MAX
    assert report.min_y >= FLOOR_MIN
    assert report.slide_share < SLIDE_SHARE_MAX
    assert report.flight_error < FLIGHT_TOLERANCE
    assert report.passed, report.failures


@pytest.mark.parametrize("action", NAMES)
def test_each_action_is_physical_labelled_and_named_in_every_environment(action):
    spec = ACTION_BY_NAME[action]
    clips = _variety(action, 16)
    _assert_physical(clips)
    pattern = word_pattern(spec.words, spec.descriptions)
    for m in clips:
        assert (m.actions == spec.id).all()
        assert m.source["actions"][0]["name"] == action
        for text in m.texts:
            assert re.search(pattern, text.lower()), (action, text)
        # It starts and ends standing on both feet (the next action of a chain starts from there);
        # in zero gravity the sampler lets the whole clip drift off the floor.
        if m.environment[7] == 0:
            assert np.abs(m.joints[[0, -1]][:, [J["l_ankle"], J["r_ankle"]], 1]).max() < 0.01
            assert abs(m.joints[-1, J["pelvis"], 1] - m.joints[0, J["pelvis"], 1]) < 0.03


@pytest.mark.parametrize("action", NAMES)
def test_each_action_chains_with_walking_and_standing(action):
    spec = ACTION_BY_NAME[action]
    before = "walk" if spec.views[0] == "side" else "idle"
    # Two chains, not one of three: a walk lasts until it has reached its speed (about 3 s), and a
    # long action such as lift (about 6 s) then leaves too little of the 10 s clip for a third.
    for chain in ((before, action), (action, "idle")):
        m = synthesize(_plan(action, seed=5, seconds=2.0, actions=chain))
        _assert_physical([m])
        runs = [int(a) for k, a in enumerate(m.actions) if k == 0 or a != m.actions[k - 1]]
        assert runs == [ACTION_BY_NAME[a].id for a in chain]
        # No pops where the actions meet: the pelvis moves less than 10 cm a frame, and around each
        # change of label no joint's velocity jumps by more than 0.2 m/frame between two frames.
        # (A jump shot's take-off may move the pelvis faster, away from the seam.)
        step = np.linalg.norm(np.diff(m.joints[:, J["pelvis"]], axis=0), axis=-1)  # (T − 1,) m/frame
        jerk = np.linalg.norm(np.diff(m.joints, 2, axis=0), axis=-1).max(axis=1)  # (T − 2,) m/frame²
        for change in np.flatnonzero(np.diff(m.actions)):
            assert step[max(change - 5, 0) : change + 5].max() < 0.1
            assert jerk[max(change - 5, 0) : change + 5].max() < 0.2


def _forward(m, joint: str, frames=slice(None)) -> np.ndarray:
    """How far `joint` is ahead of the pelvis in the direction the figure faces (m)."""
    facing = 1.0 if m.source["facing"] == "right" else -1.0
    return facing * (m.joints[frames, J[joint], 0] - m.joints[frames, J["pelvis"], 0])


def _arm_length(m) -> float:
    lengths = bone_lengths(m.joints)[0]  # segments: 5 r_upper_arm, 6 r_forearm
    return float(lengths[5] + lengths[6])


def test_a_punch_extends_an_arm_straight_ahead_at_shoulder_height():
    for seed in range(4):
        m = synthesize(_plan("punch", seed=seed))
        reach = np.maximum(_forward(m, "l_wrist"), _forward(m, "r_wrist"))
        k = int(np.argmax(reach))
        assert reach[k] > 0.75 * _arm_length(m)
        wrist = J["l_wrist"] if _forward(m, "l_wrist", k) > _forward(m, "r_wrist", k) else J["r_wrist"]
        assert abs(m.joints[k, wrist, 1] - m.joints[k, J["neck"], 1]) < 0.2
        assert m.source["actions"][0]["reps"] >= 1


def test_a_kick_raises_one_foot_forward_while_the_other_stays_planted():
    for seed in range(4):
        m = synthesize(_plan("kick", seed=seed))
        side = m.source["actions"][0]["side"][0]
        support = J[("r" if side == "l" else "l") + "_ankle"]
        ahead = _forward(m, side + "_ankle")
        k = int(np.argmax(ahead))
        leg = m.joints[0, J["pelvis"], 1]
        assert ahead[k] > 0.6 * leg  # the leg snapped out forward...
        assert m.joints[k, J[side + "_ankle"], 1] > 0.4 * leg  # ...at least to knee height
        assert np.ptp(m.joints[:, support], axis=0).max() < 1e-9


def test_a_block_holds_the_forearms_up_in_front_of_the_face():
    m = synthesize(_plan("block", seed=1))
    middle = slice(m.num_frames // 3, 2 * m.num_frames // 3)
    for wrist in ("l_wrist", "r_wrist"):
        assert (m.joints[middle, J[wrist], 1] > m.joints[middle, J["neck"], 1] - 0.05).all()


def test_a_dodge_moves_the_head_out_of_the_way_and_back():
    for seed, view in ((0, "side"), (1, "front"), (2, "side"), (3, "front")):
        m = synthesize(_plan("dodge", seed=seed, view=view))
        head = m.joints[:, J["head"]] - m.joints[:1, J["head"]]
        assert np.linalg.norm(head, axis=1).max() > 0.15
        assert np.linalg.norm(head[-1] - (m.joints[-1, J["pelvis"]] - m.joints[0, J["pelvis"]])) < 0.05


def test_a_throw_swings_the_hand_over_the_head_and_steps_toward_the_target():
    for seed in range(4):
        m = synthesize(_plan("throw", seed=seed))
        wrist = J[m.source["actions"][0]["side"][0] + "_wrist"]
        assert (m.joints[:, wrist, 1] > m.joints[:, J["head"], 1]).any()
        facing = 1.0 if m.source["facing"] == "right" else -1.0
        assert facing * (m.joints[-1, J["pelvis"], 0] - m.joints[0, J["pelvis"], 0]) > 0.2


def test_a_catch_reaches_out_then_brings_the_hands_in_to_the_body():
    m = synthesize(_plan("catch", seed=2))
    reach = np.maximum(_forward(m, "l_wrist"), _forward(m, "r_wrist"))
    out = int(np.argmax(reach))
    assert reach[out] > 0.3
    assert reach[out:].min() < 0.6 * reach[out]


@pytest.mark.parametrize("action", ["swing_bat", "golf_swing"])
def test_both_hands_hold_one_grip_through_the_swing(action):
    for seed in range(3):
        m = synthesize(_plan(action, seed=seed))
        gap = np.linalg.norm(m.joints[:, J["l_wrist"]] - m.joints[:, J["r_wrist"]], axis=1)
        x = m.joints[:, J["l_wrist"], 0] - m.joints[:, J["pelvis"], 0]
        holding = gap < 0.1
        assert holding.mean() > 0.25
        # The hands travel from one side of the body to the other while gripping.
        assert x[holding].min() < -0.15 and x[holding].max() > 0.15


def test_a_jump_shot_flies_as_long_as_gravity_says_and_longer_on_the_moon():
    durations = {}
    kinds = {s: synthesize(_plan("shoot_basketball", seed=s)).source["actions"][0]["kind"] for s in range(20)}
    seed = next(s for s, kind in kinds.items() if kind == "jump shot")
    for env in ("earth", "moon"):
        m = synthesize(_plan("shoot_basketball", env, seed))
        (measured, expected), *_ = flight_errors(m)
        assert measured == pytest.approx(expected, rel=FLIGHT_TOLERANCE)
        durations[env] = measured
        # The arms are up over the head at the top of the flight.
        top = int(np.argmax(m.joints[:, J["pelvis"], 1]))
        assert m.joints[top, J["l_wrist"], 1] > m.joints[top, J["head"], 1]
    assert durations["moon"] / durations["earth"] == pytest.approx(9.81 / 1.62, rel=0.05)


def _period(signal: np.ndarray, fps: float) -> float:
    """Mean period (s) of an oscillation, from its upward mean crossings."""
    centred = signal - signal.mean()
    ups = np.flatnonzero((centred[:-1] < 0) & (centred[1:] >= 0))
    return float(np.diff(ups).mean() / fps)


def test_the_dribbling_hand_keeps_the_rhythm_of_the_ball_which_is_slower_on_the_moon():
    periods = {}
    for env in ("earth", "moon"):
        m = synthesize(_plan("dribble", env, seed=4, view="front", seconds=6.0))
        params = m.source["actions"][0]
        wrist = J[params["side"][0] + "_wrist"]
        middle = slice(m.num_frames // 4, 3 * m.num_frames // 4)
        height = m.joints[middle, wrist, 1] - m.joints[middle, J["pelvis"], 1]
        assert _period(height, m.fps) == pytest.approx(params["bounce_s"], rel=0.1)
        periods[env] = params["bounce_s"]
    assert periods["moon"] > periods["earth"]


def test_a_ball_kick_swings_the_foot_through_low_and_up_high_ahead():
    for seed in range(4):
        m = synthesize(_plan("kick_ball", seed=seed))
        side = m.source["actions"][0]["side"][0]
        ahead = _forward(m, side + "_ankle")
        high = m.joints[:, J[side + "_ankle"], 1]
        assert ahead.max() > 0.4 and ahead.min() < -0.2  # drawn back behind the hip, then swung through
        assert high[np.argmax(ahead)] > 0.2


@pytest.mark.parametrize(("action", "sign"), [("push", 1.0), ("pull", -1.0)])
def test_pushing_leans_into_the_load_and_walks_on_pulling_leans_back_and_steps_back(action, sign):
    moved = 0
    for seed in range(6):
        m = synthesize(_plan(action, seed=seed, seconds=5.0, facing=1 if seed % 2 else -1))
        lean = _forward(m, "neck", slice(m.num_frames // 3, 2 * m.num_frames // 3))
        assert (sign * lean > 0.1).all()
        travel = m.source["actions"][0]["travel"]
        facing = 1.0 if m.source["facing"] == "right" else -1.0
        shift = facing * (m.joints[-1, J["pelvis"], 0] - m.joints[0, J["pelvis"], 0])
        if travel:
            assert sign * shift > 0.2
            moved += 1
        else:
            assert abs(shift) < 0.05
    assert moved


def test_a_lift_reaches_down_low_then_raises_the_hands_to_the_chest_or_overhead():
    seen = set()
    for seed in range(8):
        m = synthesize(_plan("lift", seed=seed, view=("side", "front")[seed % 2]))
        wrists = m.joints[:, [J["l_wrist"], J["r_wrist"]], 1].mean(axis=1)
        assert wrists.min() < m.joints[0, J["l_knee"], 1] + 0.1
        overhead = m.source["actions"][0]["height"] == "high"
        assert (wrists.max() > m.joints[0, J["head"], 1]) == overhead
        seen.add(overhead)
    assert seen == {True, False}


def test_kicks_name_the_kicking_foot_and_new_verbs_conjugate():
    texts = " ".join(t for seed in range(10) for t in synthesize(_plan("kick", seed=seed)).texts).lower()
    assert re.search(r"\bwith (the|their|his|her|its) (left|right) (foot|leg)\b", texts)
    assert gerund("jab") == "jabbing" and gerund("tug") == "tugging" and gerund("hit") == "hitting"
    assert gerund("bat") == "batting" and gerund("drag") == "dragging"


@pytest.mark.slow
def test_physical_checks_hold_over_200_clips_of_each_action():
    for action in NAMES:
        _assert_physical(_variety(action, 200, offset=1000))
