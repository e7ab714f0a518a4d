"""Floor and posture actions: physical checks everywhere, words, labels, postures that chain, mirroring."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from stickgen.figure import J
from stickgen.labels import ENVIRONMENT_NAMES, environment
from stickgen.synth.actions import ACTION_BY_NAME, floor
from stickgen.synth.body import sample_body
from stickgen.synth.checks import check_clip, summarize
from stickgen.synth.context import ActionContext
from stickgen.synth.kinematics import Track, forward_kinematics
from stickgen.synth.physics import World
from stickgen.synth.sampler import ClipPlan, synthesize
from stickgen.synth.style import STYLES, style
from stickgen.synth.transitions import chain
from tests.synth_helpers import assert_described_and_labelled, assert_physical

ACTIONS = tuple(spec.name for spec in floor.SPECS)
# Every posture get_up and sit_up may start from, including the mirrored ones a roll leaves.
GET_UP_STARTS = ("lie", "lie_back", "lie_front", "lie_back_flipped", "lie_front_flipped", "kneel",
                 "kneel_left", "kneel_right", "kneel_both", "sit", "sit_floor", "sit_chair")  # fmt: skip
SIT_UP_STARTS = ("lie", "lie_back", "lie_front", "lie_back_flipped", "lie_front_flipped")


def _plans(action: str, count: int) -> list[ClipPlan]:
    """Clips of one action over environments, views, facings, styles, lengths and starting postures."""
    spec = ACTION_BY_NAME[action]
    starts = {"get_up": GET_UP_STARTS, "sit_up": SIT_UP_STARTS}.get(action, spec.starts)
    return [
        ClipPlan(seed=k, index=k, environment=ENVIRONMENT_NAMES[k % 8], view=spec.views[k % len(spec.views)],
                 facing=1 if k % 3 else -1, style=STYLES[k % len(STYLES)].name, actions=(action,),
                 seconds=(1.5 + 0.7 * (k % 9),), start_state=starts[k % len(starts)], camera="follow",
                 texts=4)
        for k in range(count)
    ]  # fmt: skip


@pytest.fixture(scope="module")
def clips():
    return {action: [synthesize(p) for p in _plans(action, 16)] for action in ACTIONS}


@pytest.mark.parametrize("action", ACTIONS)
def test_floor_actions_are_physical_everywhere(clips, action):
    assert_physical(clips[action])


@pytest.mark.parametrize("action", ACTIONS)
def test_floor_actions_are_described_and_labelled(clips, action):
    assert_described_and_labelled(action, clips[action])


def test_manner_phrases_name_the_posture_with_the_subjects_pronoun(clips):
    texts = [t.lower() for m in clips["lie_down"] + clips["kneel"] for t in m.texts]
    assert any(re.search(r"\bon (his|her|their) back\b|\bface (up|down)\b|\bon (his|her|their) stomach\b", t)
               for t in texts)  # fmt: skip
    knees = r"\bon (one|both) knees?\b|\bon (his|her|their) (left|right) knee\b"
    assert any(re.search(knees, t) for t in texts)
    for t in texts:
        if re.match(r"(a|the) (man|woman|guy|lady|boy|girl)\b", t):
            assert not re.search(r"\bits\b", t), t


def test_repetitions_and_speed_reach_the_descriptions(clips):
    texts = " ".join(t.lower() for a in ("squat", "push_up", "sit_up") for m in clips[a] for t in m.texts)
    assert re.search(r"\b(twice|three times|thrice|four times|five times|\d+ times)\b", texts)
    assert re.search(r"\b(quickly|slowly|fast|rapidly|at a slow pace|at a fast pace)\b", texts)


def _ctx(start: str, seed: int = 0, seconds: float = 4.0, env: str = "earth") -> ActionContext:
    rng = np.random.default_rng(seed)
    body = sample_body(rng, "side")
    return ActionContext(
        rng, body, World.of(environment(env), 1), style("neutral"), "side", start, seconds, 250
    )


def _final_joints(out, ctx) -> np.ndarray:
    return forward_kinematics(out.track.slice(out.track.num_frames - 1, out.track.num_frames), ctx.body)[0]


@pytest.mark.parametrize("seed", range(6))
def test_postures_end_where_the_next_action_starts(seed):
    """lie_down, kneel and sit_up end exactly in the pose get_up (and sit_up) start from."""
    for first in ("lie_down", "kneel", "sit_up"):
        ctx = _ctx("lie" if first == "sit_up" else "stand", seed)
        out = ACTION_BY_NAME[first].generate(ctx)
        assert out.end_state.split("_")[0] == ACTION_BY_NAME[first].ends
        end = _final_joints(out, ctx)
        for second in ("get_up", "sit_up"):
            if out.end_state.split("_")[0] not in ACTION_BY_NAME[second].starts:
                continue
            nxt_ctx = replace(ctx, rng=np.random.default_rng(seed + 100), start_state=out.end_state)
            nxt = ACTION_BY_NAME[second].generate(nxt_ctx)
            start = forward_kinematics(nxt.track.slice(0, 1), ctx.body)[0]
            shift = end[J["pelvis"]] - start[J["pelvis"]]
            # Only the breathing of the torso differs: within a few centimetres everywhere.
            assert np.abs(start + shift - end).max() < 0.04, (first, out.end_state, second)
            assert abs(shift[1]) < 0.01


def test_lying_pose_rests_on_the_floor_with_the_head_the_right_way():
    for seed in range(4):
        body = sample_body(np.random.default_rng(seed), "side")
        for on_back in (True, False):
            joints = forward_kinematics(floor.lying_pose(body, on_back), body)[0]
            assert joints[:, 1].min() >= 0.0 and joints[:, 1].max() < 0.3
            head = joints[J["head"], 0] - joints[J["pelvis"], 0]
            assert (head < -0.25 * body.height) if on_back else (head > 0.25 * body.height)
            # The head circle (radius 0.8 × neck → head, as drawn) just touches the floor.
            radius = np.clip(0.8 * body.head, 0.07, 0.14)
            assert joints[J["head"], 1] == pytest.approx(radius, abs=0.01)


def test_rolling_over_mirrors_the_body_on_the_floor():
    """Sit-ups from lying face down roll onto the back, which turns the head the other way."""
    ctx = _ctx("lie_front", seed=3)
    out = floor.sit_up(ctx)
    assert out.end_state == "lie_back_flipped"
    end = _final_joints(out, ctx)
    assert end[J["head"], 0] > end[J["pelvis"], 0] + 0.25 * ctx.body.height  # head toward +x, on the back
    mirrored = forward_kinematics(floor._mirror(floor.lying_pose(ctx.body, on_back=True), 0.0), ctx.body)[0]
    assert np.abs((end - end[J["pelvis"]]) - (mirrored - mirrored[J["pelvis"]])).max() < 0.04
    again = floor.get_up(replace(ctx, rng=np.random.default_rng(5), start_state=out.end_state))
    first = forward_kinematics(again.track.slice(0, 1), ctx.body)[0]
    assert np.abs((first - first[J["pelvis"]]) - (end - end[J["pelvis"]])).max() < 0.04
    assert _final_joints(again, ctx)[J["pelvis"], 1] == pytest.approx(ctx.body.stand_height, abs=0.01)


def test_get_up_ends_standing_from_every_posture():
    for k, start in enumerate(GET_UP_STARTS):
        ctx = _ctx(start, seed=k)
        out = floor.get_up(ctx)
        assert out.end_state == "stand"
        joints = _final_joints(out, ctx)
        assert joints[[J["l_ankle"], J["r_ankle"]], 1] == pytest.approx([0.0, 0.0], abs=1e-6)
        assert joints[J["pelvis"], 1] == pytest.approx(ctx.body.stand_height, abs=0.01)


def test_slower_environments_take_longer_and_repetitions_follow_the_time():
    earth = floor.push_up(_ctx("stand", seed=2, seconds=6.0)).track.num_frames
    moon = floor.push_up(_ctx("stand", seed=2, seconds=6.0, env="moon")).track.num_frames
    assert moon > earth
    few = floor.squat(_ctx("stand", seed=4, seconds=2.0)).params["reps"]
    many = floor.squat(_ctx("stand", seed=4, seconds=8.0)).params["reps"]
    assert many > few


def test_actions_fit_a_small_frame_budget():
    for action in ACTIONS:
        spec = ACTION_BY_NAME[action]
        ctx = replace(_ctx(spec.starts[0], seed=1, seconds=8.0, env="underwater"), max_frames=40)
        assert spec.generate(ctx).track.num_frames <= 40


def test_push_ups_go_down_and_up_with_the_hands_planted():
    for seed in range(4):
        ctx = _ctx("stand", seed=seed, seconds=7.0)
        out = floor.push_up(ctx)
        joints = forward_kinematics(out.track, ctx.body)
        wrists = joints[:, [J["l_wrist"], J["r_wrist"]]]
        planted = wrists[..., 1].max(axis=1) < 0.05
        assert np.ptp(wrists[planted][..., 0]) < 0.01
        # One dip of the chest toward the floor per push-up, all with the hands on the floor.
        low = joints[:, J["neck"], 1] < 0.5 * ctx.body.arm + 0.1
        dips = np.flatnonzero(np.diff(np.concatenate([[0], low.astype(int)])) == 1)
        assert len(dips) == out.params["reps"] and planted[low].all()


CHAINS = [("walk", "kneel", "get_up"), ("lie_down", "sit_up", "get_up"), ("sit_down", "get_up"),
          ("idle", "push_up", "walk"), ("lunge", "squat")]  # fmt: skip


@pytest.mark.parametrize("chain", CHAINS)
def test_chains_with_floor_actions_are_smooth_and_physical(chain):
    for seed in range(3):
        plan = ClipPlan(seed, seed, ENVIRONMENT_NAMES[seed * 3 % 8], "side", 1, "neutral", chain,
                        (3.0,) * len(chain), ACTION_BY_NAME[chain[0]].starts[0], "follow", 3)  # fmt: skip
        m = synthesize(plan)
        report = summarize([check_clip(m)])
        assert report.passed, report.failures
        # No joint jumps in the floor actions or where they blend with their neighbours.
        ours = np.isin(m.actions, [ACTION_BY_NAME[a].id for a in ACTIONS])
        near = np.convolve(ours, np.ones(17), mode="same")[:-1] > 0
        speed = np.linalg.norm(np.diff(m.joints, axis=0), axis=-1).max(axis=1) * m.fps  # (T - 1,) m/s
        assert speed[near].max() < 8.0


def test_blending_two_lying_poses_keeps_the_arms_out_of_the_floor():
    """Arms overhead on the floor blending into arms at the sides go round over the top (`transitions`)."""
    body = sample_body(np.random.default_rng(0), "side")
    lying = floor.lying_pose(body, on_back=True)
    n = 12
    sides = Track(*(np.repeat(getattr(lying, c), n, axis=0) for c in ("root", "spine", "arms", "legs")))
    overhead = sides.with_(arms=np.broadcast_to([[-1.6, 0.3], [-1.6, 0.3]], (n, 2, 2)).copy())
    joints = forward_kinematics(chain([overhead, sides], body, 25.0)[0], body)
    assert joints[:, [J["l_wrist"], J["r_wrist"], J["l_elbow"], J["r_elbow"]], 1].min() > -0.01
    # Poses and bone lengths are those of the two tracks: only the way round changed.
    assert np.allclose(joints[-1], forward_kinematics(sides, body)[-1])
