"""Expressive actions: physical everywhere, described and labelled, recognisable poses, hops that obey
gravity, chains with walking and standing, and frame budgets that are respected."""

from __future__ import annotations

import re

import numpy as np
import pytest

from stickgen.figure import J, center_of_mass
from stickgen.labels import ENVIRONMENT_NAMES, action_id, environment
from stickgen.synth.actions import ACTION_BY_NAME, expressive
from stickgen.synth.body import sample_body
from stickgen.synth.checks import (
    FLIGHT_TOLERANCE,
    check_clip,
    flight_errors,
    summarize,
)
from stickgen.synth.context import ActionContext
from stickgen.synth.kinematics import forward_kinematics
from stickgen.synth.physics import World
from stickgen.synth.sampler import ClipPlan, synthesize
from stickgen.synth.style import STYLES, style
from tests.synth_helpers import assert_described_and_labelled, assert_physical

ACTIONS = tuple(spec.name for spec in expressive.SPECS)
WRISTS = [J["l_wrist"], J["r_wrist"]]


def _plans(action: str, count: int) -> list[ClipPlan]:
    """Clips of one action over environments, views, facings, styles and lengths."""
    spec = ACTION_BY_NAME[action]
    return [
        ClipPlan(seed=k, index=k, environment=ENVIRONMENT_NAMES[k % 8],
                 view=spec.views[k % len(spec.views)], facing=1 if k % 3 else -1,
                 style=STYLES[k % len(STYLES)].name, actions=(action,), seconds=(1.5 + 0.6 * (k % 8),),
                 start_state="stand", camera="follow", texts=4)
        for k in range(count)
    ]  # fmt: skip


@pytest.fixture(scope="module")
def clips():
    return {action: [synthesize(p) for p in _plans(action, 16)] for action in ACTIONS}


def _context(seed: int, view: str, env: str, style_name: str = "neutral", budget: int = 250) -> ActionContext:
    """What a generator receives for a clip of `env` seen from `view`, with a fresh body."""
    rng = np.random.default_rng(seed)
    body = sample_body(rng, view)
    return ActionContext(
        rng, body, World.of(environment(env), 1), style(style_name), view, "stand", 5.0, budget
    )


def _distance(m, a: str, b: str) -> np.ndarray:
    """Distance (T,) m between two joints of a clip."""
    return np.linalg.norm(m.joints[:, J[a]] - m.joints[:, J[b]], axis=-1)


def _earth(action: str, view: str, count: int = 6) -> list:
    """Neutral clips on earth facing right, for measuring poses."""
    return [
        synthesize(ClipPlan(k, k, "earth", view, 1, "neutral", (action,), (3.0,), "stand", "follow", 3))
        for k in range(count)
    ]


def test_the_family_declares_its_ten_actions():
    assert set(ACTIONS) == {"clap", "point", "salute", "shrug", "bow", "cheer", "beckon", "look_around",
                            "celebrate", "dance"}  # fmt: skip
    for spec in expressive.SPECS:
        assert spec.starts == ("stand",) and spec.ends == "stand"
        assert len(spec.words) >= 8 and len(set(spec.words)) == len(spec.words)
    assert ACTION_BY_NAME["bow"].views == ("side",)
    assert ACTION_BY_NAME["clap"].views[0] == ACTION_BY_NAME["shrug"].views[0] == "front"


@pytest.mark.parametrize("action", ACTIONS)
def test_expressive_actions_are_physical_everywhere(clips, action):
    assert_physical(clips[action])


@pytest.mark.parametrize("action", ACTIONS)
def test_expressive_actions_are_described_and_labelled(clips, action):
    assert_described_and_labelled(action, clips[action])
    for m in clips[action]:
        for text in m.texts:
            # A manner phrase is said at most once, and never repeats the verb phrase.
            for phrase in m.source["actions"][0].get("manner", ()):
                assert " " not in phrase or text.lower().count(phrase) <= 1, text


def test_descriptions_carry_the_sampled_parameters(clips):
    texts = " ".join(t.lower() for a in ("point", "beckon", "clap", "bow", "dance") for m in clips[a]
                     for t in m.texts)  # fmt: skip
    assert re.search(r"\bwith (the|his|her|their) (left|right) (hand|arm)\b", texts)
    assert re.search(r"\b(twice|three times|thrice|\w+ times|\d+ times)\b", texts)
    assert re.search(r"\b(deeply|slightly|a little|low|politely|from the waist)\b", texts)
    assert re.search(r"\bto the (left|right)\b|\b(leftward|rightward)\b", texts)


def test_clapping_hands_meet_again_and_again():
    for view in ("front", "side"):
        for m in _earth("clap", view):
            gap = np.linalg.norm(m.joints[:, WRISTS[0]] - m.joints[:, WRISTS[1]], axis=-1)
            # From the side the hands part across the line of sight, so their images part only a little.
            met = gap < (0.08 * m.source["height_m"] / 1.75 + 0.02 if view == "front" else 0.015)
            meetings = int((np.diff(met.astype(int)) == 1).sum())
            assert meetings >= min(m.source["actions"][0]["reps"], 3), (view, meetings)
            assert gap.max() > gap.min() + (0.1 if view == "front" else 0.04)  # they open between claps


def test_pointing_holds_one_straight_arm_out():
    for view in ("front", "side"):
        for m in _earth("point", view):
            s = m.source["actions"][0]["side"][0]
            arm = _distance(m, s + "_shoulder", s + "_elbow") + _distance(m, s + "_elbow", s + "_wrist")
            held = _distance(m, s + "_shoulder", s + "_wrist") > 0.97 * arm
            out = np.abs(m.joints[:, J[s + "_wrist"], 0] - m.joints[:, J[s + "_shoulder"], 0]) > 0.6 * arm
            assert (held & out).sum() >= 10, view


def test_salute_brings_the_right_hand_to_the_brow():
    for view in ("front", "side"):
        for m in _earth("salute", view):
            assert (_distance(m, "r_wrist", "head") < 0.3 * m.source["height_m"] / 1.75).sum() >= 10, view
            # The left arm stays down at the side.
            assert (m.joints[:, J["l_wrist"], 1] < m.joints[:, J["chest"], 1]).all()


def test_shrug_turns_the_forearms_up_and_out():
    for m in _earth("shrug", "front"):
        j = m.joints
        up = (j[:, WRISTS, 1] > j[:, [J["l_elbow"], J["r_elbow"]], 1] + 0.1).all(axis=1)
        out = (j[:, J["l_wrist"], 0] > j[:, J["l_elbow"], 0]) & (
            j[:, J["r_wrist"], 0] < j[:, J["r_elbow"], 0]
        )
        assert (up & out).sum() >= 5


def test_bow_bends_at_the_hips_and_keeps_the_balance():
    for m in _earth("bow", "side", 8):
        j = m.joints
        torso = j[:, J["neck"]] - j[:, J["pelvis"]]
        lean = np.arctan2(torso[:, 0], torso[:, 1])
        assert lean.max() - lean[0] > 0.3
        # The hips go back as the torso goes forward, so the centre of mass stays over the feet.
        com = center_of_mass(j)[:, 0]
        feet = j[:, [J["l_ankle"], J["r_ankle"]], 0].mean(axis=1)
        assert np.abs(com - feet).max() < 0.12
        assert j[lean.argmax(), J["pelvis"], 0] < j[0, J["pelvis"], 0] - 0.03


def test_cheering_raises_both_hands_above_the_head():
    for view in ("front", "side"):
        for m in _earth("cheer", view):
            above = (m.joints[:, WRISTS, 1] > m.joints[:, J["head"], 1][:, None]).all(axis=1)
            assert above.sum() >= 10, view


def test_beckoning_curls_the_forearm_back_repeatedly():
    for view in ("side", "front"):
        for m in _earth("beckon", view):
            side = m.source["actions"][0]["side"][0]
            reach = _distance(m, side + "_wrist", side + "_shoulder")
            # Local minima of the hand's distance from the shoulder: one per curl.
            curls = int(((reach[1:-1] < reach[:-2]) & (reach[1:-1] <= reach[2:])).sum())
            assert curls >= m.source["actions"][0]["reps"], view


def test_looking_around_turns_the_head_both_ways_from_the_front():
    for m in _earth("look_around", "front"):
        head = m.joints[:, J["head"], 0] - m.joints[:, J["neck"], 0]
        turn = 0.15 * np.median(np.linalg.norm(m.joints[:, J["head"]] - m.joints[:, J["neck"]], axis=-1))
        assert head.max() > turn and head.min() < -turn


def test_celebrating_raises_an_arm_and_differs_from_cheering():
    for view in ("front", "side"):
        for m in _earth("celebrate", view):
            params = m.source["actions"][0]
            assert 1 <= len(params["moves"]) <= 3 and set(params["moves"]) <= {"pump", "jump", "spin"}
            assert (m.joints[:, WRISTS, 1].max(axis=1) > m.joints[:, J["neck"], 1]).any()


def test_dancing_bobs_to_a_beat_and_steps_lift_the_feet():
    styles = set()
    for view in ("front", "side"):
        for m in _earth("dance", view, 8):
            params = m.source["actions"][0]
            styles.add(params["dance_style"])
            y = m.joints[:, J["pelvis"], 1]
            dips = int(((y[1:-1] < y[:-2]) & (y[1:-1] <= y[2:])).sum())
            beats = m.num_frames / m.fps * params["bpm"] / 60.0
            assert dips >= 0.5 * beats - 2
            if params["dance_style"] == "steps":
                assert m.joints[:, [J["l_ankle"], J["r_ankle"]], 1].max() > 0.06
    assert len(styles) >= 3


@pytest.mark.parametrize("action", ["cheer", "celebrate"])
def test_hops_fly_as_long_as_gravity_says(action):
    """Relabelled as jumps, the hops of cheering and celebrating pass the jump flight-time check."""
    flights, moon, earth = [], [], []
    for k in range(24):
        env = ("earth", "moon", "mars", "underwater", "snow")[k % 5]
        m = synthesize(ClipPlan(k, k, env, ("front", "side")[k % 2], 1, "neutral", (action,), (4.0,), "stand",
                                "follow", 3))  # fmt: skip
        measured = flight_errors(m.replace(actions=np.full(m.num_frames, action_id("jump"))))
        flights += measured
        (moon if env == "moon" else earth if env == "earth" else []).extend(t for t, _ in measured)
    assert len(flights) >= 5
    assert max(abs(t - e) / e for t, e in flights) < FLIGHT_TOLERANCE
    assert moon and earth and min(moon) > max(earth)  # the same legs fly far longer on the moon


@pytest.mark.parametrize("action", ["cheer", "celebrate"])
def test_no_hops_in_zero_gravity_or_a_gale(action):
    spec = ACTION_BY_NAME[action]
    for env in ("zero_g", "wind"):
        for k in range(6):
            ctx = _context(k, "front", env, "energetic")
            feet = forward_kinematics(spec.generate(ctx).track, ctx.body)[:, [J["l_ankle"], J["r_ankle"]], 1]
            assert np.abs(feet).max() < 1e-6, env


@pytest.mark.parametrize("action", ACTIONS)
def test_chains_with_walking_and_standing(action):
    spec = ACTION_BY_NAME[action]
    for k, first in enumerate(("walk", "idle")):
        view = "side" if first == "walk" else spec.views[0]
        actions = (first, action, "idle")
        m = synthesize(ClipPlan(k, k, "earth", view, 1 - 2 * k, "neutral", actions, (2.0, 3.0, 1.5), "stand",
                                "follow", 3))  # fmt: skip
        assert [a["name"] for a in m.source["actions"]] == [first, action, "idle"]
        assert set(m.actions.tolist()) == {action_id(first), spec.id, action_id("idle")}
        check = summarize([check_clip(m)])
        assert check.passed, check.failures
        # No pops where the actions meet: no joint moves faster than a fast gesture there (a fast
        # walk's swinging ankle may, mid-stride).
        speed = np.linalg.norm(np.diff(m.joints, axis=0), axis=-1).max(axis=1) * m.fps  # (T − 1,)
        for change in np.flatnonzero(np.diff(m.actions)):
            assert speed[max(change - 5, 0) : change + 5].max() < 9.0


@pytest.mark.parametrize("action", ACTIONS)
def test_generators_fit_the_frame_budget_and_end_at_rest(action):
    spec = ACTION_BY_NAME[action]
    for k, (env, budget) in enumerate([("earth", 30), ("underwater", 30), ("moon", 45), ("earth", 250)]):
        ctx = _context(k, spec.views[k % len(spec.views)], env, budget=budget)
        out = spec.generate(ctx)
        assert out.end_state == "stand"
        assert 2 <= out.track.num_frames <= budget
        joints = forward_kinematics(out.track, ctx.body)
        assert np.abs(joints[-1] - joints[-2]).max() * ctx.fps < 0.5  # the last frames are at rest
        assert (
            np.abs(joints[0] - forward_kinematics(ctx.standing(1), ctx.body)[0]).max() < 0.05
        )  # from standing


@pytest.mark.parametrize("action", ["clap", "point", "salute", "shrug", "bow", "beckon", "look_around"])
def test_standing_gestures_keep_both_feet_exactly_where_they_stand(action):
    spec = ACTION_BY_NAME[action]
    for k, env in enumerate(ENVIRONMENT_NAMES):
        ctx = _context(k, spec.views[k % len(spec.views)], env, STYLES[k % len(STYLES)].name)
        feet = forward_kinematics(spec.generate(ctx).track, ctx.body)[:, [J["l_ankle"], J["r_ankle"]]]
        assert np.abs(feet - feet[:1]).max() < 1e-9 and np.abs(feet[..., 1]).max() < 1e-9


def test_the_same_seed_gives_the_same_clip():
    plan = _plans("celebrate", 3)[2]
    a, b = synthesize(plan), synthesize(plan)
    assert np.array_equal(a.joints, b.joints) and a.texts == b.texts


def test_front_view_styles_do_not_tilt_the_figure_sideways():
    for name in ("sad", "tired", "happy"):
        assert np.allclose(_context(0, "front", "earth", name).standing(3).spine, 0.0)
    assert _context(0, "side", "earth", "sad").standing(3).spine[0, 2] == pytest.approx(style("sad").head)


@pytest.mark.slow
def test_two_hundred_clips_of_each_action_pass_the_physical_checks():
    checks = [check_clip(synthesize(p)) for action in ACTIONS for p in _plans(action, 200)]
    report = summarize(checks)
    assert report.passed, report.failures
