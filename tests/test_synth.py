"""The motion synthesizer: physical checks, coverage, descriptions, determinism, environments."""

from __future__ import annotations

import re

import numpy as np
import pytest

from stickgen.figure import J, bone_lengths
from stickgen.labels import ENVIRONMENT_NAMES, action_id
from stickgen.synth.actions import ACTION_BY_NAME, ACTION_SPECS
from stickgen.synth.checks import (
    BONE_CV_MAX,
    FLIGHT_TOLERANCE,
    FLOOR_MIN,
    SLIDE_SHARE_MAX,
    check_clip,
    flight_errors,
    summarize,
)
from stickgen.synth.physics import World, ballistic, flight_time
from stickgen.synth.sampler import MAX_FRAMES, ClipPlan, plan_clip, sample_clip, synthesize
from stickgen.synth.text import gerund, third_person
from tests.synth_helpers import word_pattern


@pytest.fixture(scope="module")
def clips():
    return [sample_clip(11, i) for i in range(250)]


def _plan(action: str, env: str = "earth", seed: int = 0, view: str | None = None, seconds: float = 4.0):
    spec = ACTION_BY_NAME[action]
    return ClipPlan(seed, 0, env, view or spec.views[0], 1, "neutral", (action,), (seconds,), spec.starts[0],
                    "follow", 4)  # fmt: skip


def _assert_physical(checks):
    report = summarize(checks)
    assert report.bone_cv < BONE_CV_MAX
    assert report.min_y >= FLOOR_MIN
    assert report.slide_share < SLIDE_SHARE_MAX
    assert report.flights > 0 and report.flight_error < FLIGHT_TOLERANCE
    assert report.passed, report.failures


def test_physical_checks_hold(clips):
    _assert_physical([check_clip(m) for m in clips])


@pytest.mark.slow
def test_physical_checks_hold_over_1000_clips():
    _assert_physical([check_clip(sample_clip(0, i)) for i in range(1000)])


def test_every_action_and_environment_is_sampled_in_2000_clips():
    plans = [plan_clip(0, i) for i in range(2000)]
    actions = {a for p in plans for a in p.actions}
    assert actions == set(ACTION_BY_NAME)
    assert {p.environment for p in plans} == set(ENVIRONMENT_NAMES)
    assert {p.view for p in plans} == {"side", "front"}
    assert {len(p.actions) for p in plans} == {1, 2, 3}


def test_generated_clips_follow_the_storage_conventions(clips):
    for m in clips:
        assert 1 <= m.num_frames <= MAX_FRAMES
        assert m.fps == 25.0
        assert m.joints[0, J["pelvis"], 0] == 0.0
        assert (m.actions >= 0).all()
        assert set(m.actions.tolist()) <= {ACTION_BY_NAME[a["name"]].id for a in m.source["actions"]}
        assert 3 <= len(m.texts) <= 5 and len(set(m.texts)) == len(m.texts)
        # The camera keeps every joint inside a square view of half-size 1.5 / zoom.
        half = 1.5 / m.camera[:, 2]
        assert (np.abs(m.joints - m.camera[:, None, :2]).max(axis=(1, 2)) < half).all()


def test_no_two_clips_are_identical(clips):
    keys = {m.joints.tobytes() for m in clips}
    assert len(keys) == len(clips)


def test_the_same_seed_gives_the_same_clip_and_another_seed_another():
    a, b, c = sample_clip(3, 17), sample_clip(3, 17), sample_clip(4, 17)
    assert np.array_equal(a.joints, b.joints) and a.texts == b.texts and a.source == b.source
    assert not (a.joints.shape == c.joints.shape and np.allclose(a.joints, c.joints))


def test_descriptions_use_each_actions_words(clips):
    for m in clips:
        for text in m.texts:
            for action in m.source["actions"]:
                spec = ACTION_BY_NAME[action["name"]]
                pattern = word_pattern(spec.words, spec.descriptions)
                assert re.search(pattern, text.lower()), (action["name"], text)


def test_descriptions_name_the_place_and_the_parameters():
    texts = []
    for seed in range(12):
        texts += synthesize(_plan("hop", "moon", seed)).texts
    joined = " ".join(texts).lower()
    assert "moon" in joined
    assert re.search(r"\b(left|right) (leg|foot)\b", joined)
    assert re.search(r"\b(twice|three times|four times|five times|six times|\d times|thrice)\b", joined)
    # short plain prompts such as "a person hops on the moon"; away from earth every text names the place
    assert any(len(t.split()) <= 8 and not re.search(r"\b(twice|times|left|right)\b", t) for t in texts)
    from stickgen.generation import environment_from_text

    assert all(environment_from_text(t) == "moon" for t in texts)
    earth = [t for seed in range(12) for t in synthesize(_plan("hop", "earth", seed)).texts]
    assert any(len(t.split()) <= 4 for t in earth)  # "a person hops": earth, the default, goes unnamed


def test_conjugation():
    assert third_person("walk forward") == "walks forward"
    assert third_person("catch") == "catches"
    assert third_person("hurry") == "hurries"
    assert gerund("sit down") == "sitting down"
    assert gerund("take a seat") == "taking a seat"
    assert gerund("run") == "running"


@pytest.mark.parametrize("action", sorted(ACTION_BY_NAME))
def test_every_action_is_physical_in_every_environment(action):
    checks = [
        check_clip(synthesize(_plan(action, env, seed))) for env in ENVIRONMENT_NAMES for seed in range(2)
    ]
    report = summarize(checks)
    assert report.bone_cv < BONE_CV_MAX and report.min_y >= FLOOR_MIN
    assert report.flight_error < FLIGHT_TOLERANCE


def test_jumps_fly_as_long_as_the_environment_gravity_says():
    earth = flight_errors(synthesize(_plan("jump", "earth", 1)))
    moon = flight_errors(synthesize(_plan("jump", "moon", 1)))
    assert earth and moon
    # Same take-off speed, so a moon jump flies g_earth / g_moon ≈ 6 times longer.
    assert moon[0][0] / earth[0][0] == pytest.approx(9.81 / 1.62, rel=0.05)


def test_zero_gravity_floats_and_a_jump_never_lands():
    m = synthesize(_plan("jump", "zero_g", 2))
    ankles = m.joints[:, [J["l_ankle"], J["r_ankle"]], 1]
    assert ankles.min() > 0.1
    assert m.joints[-1, J["pelvis"], 1] > m.joints[0, J["pelvis"], 1] + 0.5


def test_wind_makes_the_figure_lean_into_it():
    def lean(env):
        m = synthesize(_plan("idle", env, 3))
        return float(np.mean(m.joints[:, J["neck"], 0] - m.joints[:, J["pelvis"], 0]))

    assert lean("wind") < lean("earth") - 0.05  # the wind blows toward +x: the figure leans toward −x


def test_underwater_and_moon_motion_is_slower():
    walk = synthesize(_plan("walk", "earth", 4, seconds=6.0)).source["actions"][0]["steps"]
    slow = synthesize(_plan("walk", "underwater", 4, seconds=6.0)).source["actions"][0]["steps"]
    assert slow < walk


def test_checks_catch_broken_motion():
    m = synthesize(_plan("jump_forward", "earth", 5))
    base = check_clip(m)
    assert base.bone_cv < BONE_CV_MAX and base.min_y >= FLOOR_MIN
    assert base.sliding_frames / base.contact_frames < 0.1  # take-off and touch-down frames only

    stretched = m.joints.copy()
    stretched[10:, J["l_wrist"], 1] -= 0.1
    assert check_clip(m.replace(joints=stretched)).bone_cv > BONE_CV_MAX

    sunk = m.joints.copy()
    sunk[:, :, 1] -= 0.05
    assert check_clip(m.replace(joints=sunk)).min_y < FLOOR_MIN

    skating = m.joints.copy()
    skating[..., 0] += np.arange(m.num_frames)[:, None] * 0.04  # everything drifts at 1 m/s
    drift = check_clip(m.replace(joints=skating))
    assert drift.sliding_frames / drift.contact_frames > 0.5

    # The same motion labelled as happening on the moon flies far too short for the moon's gravity.
    moon = m.replace(environment=m.environment.copy())
    moon.environment[8] = 1.62 / 9.81
    (measured, expected), *_ = flight_errors(moon)
    assert abs(measured - expected) / expected > 0.5


def test_ballistic_flight_time_matches_the_closed_form():
    for name, drag in (("earth", 0.0), ("underwater", 2.0)):
        world = World(name, 9.81 * (0.15 if drag else 1.0), drag, 0.0, 0.5, 1.0)
        t = flight_time(2.5, world.gravity, world.drag)
        assert ballistic(np.array([t]), (0.0, 2.5), world)[0, 1] == pytest.approx(0.0, abs=1e-9)
    assert flight_time(2.5, 9.81, 0.0) == pytest.approx(2 * 2.5 / 9.81)
    assert flight_time(2.5, 0.0, 0.0) == float("inf")


def test_bones_have_the_sampled_lengths_and_views_differ_in_hip_width():
    side = synthesize(_plan("idle", "earth", 6, view="side"))
    front = synthesize(_plan("idle", "earth", 6, view="front"))
    pelvis_width = [bone_lengths(m.joints)[:, 11].mean() for m in (side, front)]
    assert pelvis_width[0] < 0.05 < pelvis_width[1]


def test_action_table_is_consistent():
    names = [s.name for s in ACTION_SPECS]
    assert len(names) == len(set(names))
    for spec in ACTION_SPECS:
        assert spec.id == action_id(spec.name)
        assert spec.views and set(spec.views) <= {"side", "front"}
        assert spec.words and all(w == w.strip().lower() for w in spec.words)


@pytest.mark.parametrize("action", ["walk", "jog", "run", "sprint", "walk_backward"])
def test_a_short_gait_still_reaches_its_speed(action):
    # However short the wish, a gait lasts until the pelvis has kept its full speed for a stride: a
    # "run" of 1.5 s used to ramp up and down again and travel a few centimetres.
    m = synthesize(_plan(action, "earth", 1, seconds=0.5))
    speed = abs(m.source["actions"][0]["speed_m_s"])
    v = np.abs(np.gradient(m.joints[:, J["pelvis"], 0])) * m.fps
    assert np.count_nonzero(v > 0.95 * speed) > 0.4 * m.fps  # at full speed for most of a stride
    assert abs(m.joints[-1, J["pelvis"], 0] - m.joints[0, J["pelvis"], 0]) > 1.0


def test_a_chain_ends_before_a_gait_that_has_no_room_to_get_going():
    # Underwater a run needs most of the clip to reach its speed: after a long first action it is
    # left out, not labelled on a shuffle.
    plan = ClipPlan(
        0, 0, "underwater", "side", 1, "neutral", ("idle", "run"), (7.0, 3.0), "stand", "follow", 4
    )
    m = synthesize(plan)
    assert [a["name"] for a in m.source["actions"]] == ["idle"]
    assert (m.actions == action_id("idle")).all()
