"""Clean-up after sampling, and the pure helpers of `stickgen generate`."""

import numpy as np
import pytest

from stickgen import figure as fg
from stickgen.action_words import actions_in_text, count_in_text, timeline_from_text
from stickgen.errors import StickgenError
from stickgen.generation import (
    COUNT_SECONDS,
    TYPICAL_SECONDS,
    default_seconds,
    environment_from_text,
    output_paths,
    parse_action_timeline,
    timeline_spec,
    with_environment,
)
from stickgen.labels import ACTIONS, action_id
from stickgen.metrics import floating, foot_skating_ratio
from stickgen.place_words import without_place
from stickgen.postprocess import (
    clean_up,
    constant_bone_lengths,
    floor_contacts,
    ground_feet,
    lift_above_floor,
    pin_feet,
)
from tests.clips import standing_pose


def noisy_walk(frames: int = 40, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(frames) / 25.0
    joints = standing_pose()[None] + np.stack([0.8 * t, np.zeros_like(t)], axis=1)[:, None, :]
    return joints + rng.normal(scale=0.02, size=joints.shape)


def test_constant_bone_lengths():
    joints = noisy_walk()
    assert fg.bone_lengths(joints).std(axis=0).max() > 0.005
    fixed = constant_bone_lengths(joints)
    lengths = fg.bone_lengths(fixed)
    np.testing.assert_allclose(lengths, np.broadcast_to(lengths[0], lengths.shape), atol=1e-9)
    np.testing.assert_allclose(lengths[0], np.median(fg.bone_lengths(joints), axis=0), atol=1e-9)
    # The pelvis stays, and is the midpoint of the hips.
    np.testing.assert_array_equal(fixed[:, fg.J["pelvis"]], joints[:, fg.J["pelvis"]])
    mid = 0.5 * (fixed[:, fg.J["l_hip"]] + fixed[:, fg.J["r_hip"]])
    np.testing.assert_allclose(mid, fixed[:, fg.J["pelvis"]], atol=1e-12)
    # A clean figure is left as it is.
    clean = np.repeat(standing_pose()[None], 5, axis=0)
    np.testing.assert_allclose(constant_bone_lengths(clean), clean, atol=1e-12)


def test_pin_feet_holds_a_sliding_foot_still():
    bent = standing_pose()
    bent[[fg.J["l_knee"], fg.J["r_knee"]], 0] += 0.15  # bent knees: the ankle has room to move
    joints = constant_bone_lengths(np.repeat(bent[None], 30, axis=0))
    slide = np.linspace(0.0, 0.06, 30)  # the left ankle creeps 6 cm while it should stand
    joints[:, fg.J["l_ankle"], 0] += slide
    joints[:, fg.J["l_ankle"], 1] = 0.01
    contacts = np.zeros((30, 2), bool)
    contacts[5:25, 0] = True
    pinned = pin_feet(joints, contacts)
    ankle = pinned[5:25, fg.J["l_ankle"]]
    assert np.ptp(ankle[:, 0]) < 1e-6 and np.allclose(ankle[:, 1], 0.0, atol=1e-6)
    # While pinned, the re-solved leg has constant thigh and shin lengths.
    lengths = fg.bone_lengths(pinned)[5:25, 7:9]
    np.testing.assert_allclose(lengths, np.broadcast_to(lengths[0], lengths.shape), atol=1e-6)
    # The right foot, never in contact, is untouched.
    np.testing.assert_array_equal(pinned[:, fg.J["r_ankle"]], joints[:, fg.J["r_ankle"]])


def test_lift_above_floor():
    joints = np.repeat(standing_pose()[None], 10, axis=0)
    joints[4, :, 1] -= 0.1
    lifted = lift_above_floor(joints)
    assert lifted[..., 1].min() >= -1e-12
    np.testing.assert_array_equal(lifted[0], joints[0])


def test_clean_up_leaves_nothing_below_the_floor():
    joints = noisy_walk()
    joints[..., 1] -= 0.05
    contacts = np.zeros((len(joints), 2), bool)
    contacts[:10, 0] = True
    out = clean_up(joints, contacts)
    assert out[..., 1].min() >= -1e-9
    assert np.ptp(fg.bone_lengths(out)[:, :7], axis=0).max() < 1e-6


def test_a_hovering_figure_is_put_on_the_floor_and_a_shuffling_foot_stands():
    """A figure 3 cm up whose left foot slides along the floor at 1 m/s, with no contact from the head."""
    bent = standing_pose()
    bent[[fg.J["l_knee"], fg.J["r_knee"]], 0] += 0.15
    joints = constant_bone_lengths(np.repeat(bent[None], 40, axis=0))
    joints[:, fg.J["l_ankle"], 0] += np.linspace(0.0, 0.06, 40)  # slides 6 cm in 1.6 s ...
    joints[20:, fg.J["l_ankle"], 0] += np.linspace(0.0, 0.4, 20)  # ... then 40 cm at 0.5 m/s
    joints[..., 1] += 0.03 - joints[:, [fg.J["l_ankle"], fg.J["r_ankle"]], 1].min(axis=1)[:, None]
    none = np.zeros((40, 2), bool)
    assert floating(joints) > 0.025 and foot_skating_ratio(joints, 25.0) > 0.3
    out = clean_up(joints, none)
    assert floating(out) < 0.005 and foot_skating_ratio(out, 25.0) == 0.0
    # The slow, low feet count as contacts even without the head; grounding moves the whole figure.
    contacts = floor_contacts(joints, none)
    assert contacts[:20].all()
    grounded = ground_feet(joints, contacts)
    np.testing.assert_allclose(grounded - joints, np.broadcast_to(grounded[:1] - joints[:1], joints.shape))


def test_a_jump_keeps_its_flight_after_clean_up():
    joints = np.repeat(standing_pose()[None], 30, axis=0)
    lift = np.concatenate([np.zeros(10), 0.4 * np.sin(np.linspace(0, np.pi, 10)), np.zeros(10)])
    joints[..., 1] += lift[:, None]
    contacts = np.zeros((30, 2), bool)
    contacts[:10] = contacts[20:] = True
    out = clean_up(joints, contacts)
    pelvis = out[:, fg.J["pelvis"], 1]
    assert pelvis.max() - pelvis[0] > 0.35


def test_action_timeline():
    timeline = parse_action_timeline("walk:0-2,jump:2-3")
    assert len(timeline) == 75
    assert (timeline[:50] == action_id("walk")).all() and (timeline[50:] == action_id("jump")).all()
    gap = parse_action_timeline("wave:1-2")
    assert (gap[:25] == -1).all() and (gap[25:] == action_id("wave")).all()
    for bad, message in [
        ("fly:0-2", "Unknown action"),
        ("walk:2-1", "START < END"),
        ("walk", "Cannot read"),
        ("walk:a-b", "Cannot read"),
        (",", "empty"),
    ]:
        with pytest.raises(StickgenError, match=message):
            parse_action_timeline(bad)


def test_a_timeline_written_as_a_spec_reads_back_frame_for_frame():
    rng = np.random.default_rng(3)
    for frames in (1, 24, 75, 126, 250):
        cuts = np.sort(rng.choice(np.arange(1, frames), size=min(frames - 1, 4), replace=False))
        values = rng.choice([-1, 1, 14, 19, 31], size=len(cuts) + 1)
        timeline = np.repeat(values, np.diff(np.concatenate([[0], cuts, [frames]])))
        if (timeline < 0).all():
            continue
        spec = timeline_spec(timeline)
        back = parse_action_timeline(spec, seconds=frames / 25.0)
        # the spec says nothing after its last span: read back, the clip ends there unless --seconds says
        np.testing.assert_array_equal(back, timeline[: len(back)])
        assert (timeline[len(back) :] == -1).all()
    spec = "walk:0-3.08,sit_down:3.08-6"
    assert timeline_spec(parse_action_timeline(spec)) == spec
    assert timeline_spec(np.array([-1, -1, 14, 14])) == "jump:0.08-0.16"


def test_environment_and_duration_from_text():
    assert environment_from_text("a person jumps on the moon") == "moon"
    assert environment_from_text("someone swims underwater") == "underwater"
    assert environment_from_text("a man walks in zero gravity") == "zero_g"
    assert environment_from_text("a person jumps") == "earth"
    # a place word counts only at the start of a word; every place the synthesizer writes is read
    assert environment_from_text("a nice man jumps at his honeymoon") == "earth"
    assert environment_from_text("a kid runs on a snowy hill") == "snow"
    from stickgen.synth.text import PLACES

    for name, places in PLACES.items():
        for place in filter(None, places):
            assert environment_from_text(f"someone walks {place}") == name, place
    for name, places in PLACES.items():  # a place phrase comes off at either end; earth names none
        for place in filter(None, places if name != "earth" else ()):
            assert without_place(f"someone walks {place}") == "someone walks", place
            assert without_place(f"{place}, someone walks") == "someone walks", place
    slip = "a man slips on the icy pavement and ends up flat"  # a place word mid-sentence stays
    assert without_place(slip) == slip
    assert without_place("on the moon") == "on the moon"  # nothing else left: as it is
    assert with_environment("a person jumps", "moon") == "a person jumps on the moon"
    assert with_environment("a person jumps on the moon", "moon") == "a person jumps on the moon"
    assert with_environment("a person jumps", "earth") == "a person jumps"
    for asked in ("mars", "earth"):  # another place than the prompt's: the user says which, not us
        with pytest.raises(StickgenError, match=rf"another place \(moon\) than .*\({asked}\)"):
            with_environment("a person jumps on the moon", asked)
    assert default_seconds("a person jumps") == 3.0
    assert default_seconds("a person walks forward") == 5.0
    assert default_seconds("a person walks, then jumps, then sits down") == 10.0
    assert default_seconds("a person jumps on the moon") == 7.4  # flights last 2.46 times as long
    assert default_seconds("a person waves underwater") == 7.5  # low net gravity: stretch capped at 2.5
    # A named action gets its clips' typical length, at least 3 s; a chain adds 3 s per unnamed part.
    assert default_seconds("a soldier does push-ups") == TYPICAL_SECONDS["push_up"] > 5.0
    assert default_seconds("a man falls down") == 3.0  # falls last about 2 s: the shortest default
    typical = TYPICAL_SECONDS
    assert default_seconds("a boxer punches, then kicks") == typical["punch"] + typical["kick"]
    assert default_seconds("a man does push-ups, then does something else") == typical["push_up"] + 3.0
    # The meaning reader's actions, where given: a part read as no action (−1) gets 3 s.
    assert default_seconds("someone bangs out reps", [action_id("push_up")]) == typical["push_up"]
    assert default_seconds("someone bangs out reps, then rests", [action_id("push_up"), -1]) == 9.0
    assert default_seconds("someone plonks down on the grass") == 3.0  # no action named, no long word
    assert set(TYPICAL_SECONDS) == set(ACTIONS)


def test_a_count_is_read_and_gets_the_length_that_holds_it():
    said = ("jumps three times", "hops 5 times", "jumps twice", "jumps once.", "does five jumping jacks")
    assert [count_in_text(t) for t in said] == [3, 5, 2, 1, 5]
    assert count_in_text("a person jumps two feet high") is None  # a number of something else
    # "once" starting a condition is no count, nor is a count said two ways
    assert count_in_text("once she lands, she waves") is None
    assert count_in_text("a person jumps") is None
    assert count_in_text("jumps twice, then three times") is None
    # one action of COUNT_SECONDS, one part: lead + each × count (the model's tempo), stretched by place
    lead, each = COUNT_SECONDS["jump"]
    assert default_seconds("a person jumps three times") == lead + 3 * each
    assert default_seconds("a person jumps once") == lead + each < default_seconds("a person jumps")
    moon = "a person jumps three times on the moon"
    assert default_seconds(moon) > default_seconds("a person jumps three times")
    # other actions, or a chain, keep their lengths
    assert default_seconds("a person waves three times") == default_seconds("a person waves")
    assert default_seconds("jumps three times, then sits down") == default_seconds("jumps, then sits down")
    assert set(COUNT_SECONDS) <= set(ACTIONS)


def test_output_paths(tmp_path):
    assert output_paths("A person jumps!", None, 1) == [type(tmp_path)("a-person-jumps.gif")]
    assert output_paths("x", tmp_path / "out.gif", 3) == [tmp_path / "out.gif"]
    assert output_paths("x", tmp_path / "out.npz", 2) == [tmp_path / "out-1.npz", tmp_path / "out-2.npz"]
    with pytest.raises(StickgenError, match="unknown suffix"):
        output_paths("x", tmp_path / "out.txt", 1)


def test_actions_named_in_a_prompt():
    wave_then_sit = [action_id("wave"), action_id("sit_down")]
    assert actions_in_text("a kid waves at someone, then sits down") == wave_then_sit
    assert actions_in_text("a woman waves her hand") == [action_id("wave")]
    assert actions_in_text("someone waits") == [action_id("idle")]  # "waits" is not "waves"
    assert actions_in_text("the figure does jumping jacks") == [action_id("jumping_jacks")]
    assert actions_in_text("hello there") == []
    timeline = timeline_from_text("someone runs, then jumps", 50)
    assert (timeline[:25] == action_id("run")).all() and (timeline[25:] == action_id("jump")).all()
    assert timeline_from_text("hello there", 50) is None


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("a person goes from sitting to standing", ["stand_up"]),  # was sit_down: "sitting"
        ("a man goes from a sitting position to a standing position", ["stand_up"]),
        ("he goes from lying on the floor to standing, then waves", ["get_up", "wave"]),
        ("she moves from standing to sitting", ["sit_down"]),
        ("a person goes from standing, to kneeling", ["kneel"]),
        ("someone walks from the kitchen to the door", ["walk"]),  # no posture: the words as before
        ("a person goes from crouching to sitting", ["sit_down"]),  # a pair without an action: the words,
        # less the posture it starts in (below)
        # a posture after "from" alone is where the action starts, not an action after it
        ("someone gets back up from lying on their back", ["get_up"]),  # was get_up, lie_down
        ("a kid gets back up from kneeling gloomily", ["get_up"]),  # was get_up, kneel
        ("the figure gets back on its feet from lying face down", ["get_up"]),
        ("he lies down, then gets up from lying down", ["lie_down", "get_up"]),
        ("lying on the floor, he waves", ["lie_down", "wave"]),  # no "from": the words as before
        # words two actions share name the one that starts where the action before ends
        ("a man lies down, then gets up", ["lie_down", "get_up"]),  # was lie_down, stand_up
        ("a kid kneels, then rises to his feet", ["kneel", "get_up"]),
        ("someone trips and falls, then gets to their feet", ["stumble", "fall_down", "get_up"]),
        ("she sits down and then gets up", ["sit_down", "stand_up"]),  # both fit: the first stays
        ("a man gets up", ["stand_up"]),  # standing, neither fits: as before
        ("a man lies down, rests, then gets up", ["lie_down", "idle", "get_up"]),  # resting keeps lying
    ],
)
def test_a_change_of_posture_is_the_action_that_ends_in_the_second(text, names):
    assert actions_in_text(text) == [action_id(name) for name in names]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("the person claps loudly at a fast pace 9 times", ["clap"]),  # was clap, walk
        ("a man waves at a slow pace, then sits down", ["wave", "sit_down"]),  # was wave, walk, sit_down
        ("a girl skips along at her own pace", ["skip"]),
        ("a man paces the room", ["walk"]),  # the verb still walks
        ("someone pacing back and forth", ["walk"]),
        # vocabulary phrases with a hyphen match as the text is read ("perform sit-ups")
        ("a woman performs sit-ups", ["sit_up"]),  # was sit_down: "sit"
        ("he performs push-ups on the floor", ["push_up"]),  # was push: "push"
        # an exercise "do" names is named by its noun alone too
        ("a round of jumping jacks, then some press-ups", ["jumping_jacks", "push_up"]),  # was jump, push_up
        ("first a set of deep knee bends", ["squat"]),
        ("he does nothing", ["idle"]),  # "nothing" alone names no action
        ("a kid is jumping", ["jump"]),
        # moving one's own body is not moving a thing
        ("he throws both arms up, then throws the ball", ["throw"]),  # was throw, throw: one throw
        ("she pushes her hips back and down, then pushes the cart", ["push"]),
        ("lifts one leg and hops, then lifts the box", ["hop", "lift"]),  # was lift, hop, lift
        ("pulls the rope", ["pull"]),
    ],
)
def test_speed_nouns_and_hyphenated_phrases(text, names):
    assert actions_in_text(text) == [action_id(name) for name in names]


def test_smoothing_over_time_removes_token_edges_and_keeps_steady_motion():
    from stickgen.metrics import jerk
    from stickgen.postprocess import smooth_over_time

    t = np.arange(40)[:, None, None]
    steady = np.broadcast_to(np.array([0.3, 1.0]), (40, 16, 2)) + 0.0 * t
    steady = steady + np.concatenate([0.04 * t, 0.0 * t], axis=-1)  # 1 m/s along x
    smoothed = smooth_over_time(steady)
    np.testing.assert_allclose(smoothed[4:-4], steady[4:-4], atol=1e-12)  # a straight path is kept inside
    np.testing.assert_array_equal(smooth_over_time(steady, 0.0), steady)
    tokens = np.random.default_rng(0).normal(0, 0.01, (10, 16, 2))
    steps = steady + np.repeat(tokens, 4, axis=0)  # errors constant over tokens of 4 frames
    assert jerk(smooth_over_time(steps), 25.0) < 0.3 * jerk(steps, 25.0)


@pytest.mark.parametrize(
    ("prompt", "direction"),
    [("a man walks to the right", 1), ("she runs leftward", -1), ("jogging towards the left", -1),
     ("crawls from left to right", 1), ("moves rightwards", 1), ("raises his left arm", 0),
     ("turns right", 0), ("walks to the left, then to the right", 0), ("a person jumps", 0)],
)  # fmt: skip
def test_the_direction_a_prompt_names_is_read_and_a_side_is_not(prompt, direction):
    from stickgen.action_words import direction_in_text

    assert direction_in_text(prompt) == direction


def test_a_clip_travelling_against_the_named_direction_is_mirrored_and_others_are_kept():
    from stickgen.generation import towards_named_direction

    t = np.arange(30, dtype=float)[:, None]
    joints = np.zeros((30, 16, 2))
    joints[..., 0] = -0.04 * t + np.linspace(0.0, 0.3, 16)[None]  # the pelvis from 0 to 1.16 m left
    joints[..., 1] = 1.0
    right = towards_named_direction(joints, "walks to the right")
    assert right[-1, fg.J["pelvis"], 0] == pytest.approx(1.16) and right[0, fg.J["pelvis"], 0] == 0
    np.testing.assert_allclose(right[..., 1], joints[..., 1])
    # mirrored about the start, left and right swapped: a mirror image, not a figure turned around
    np.testing.assert_allclose(right[..., 0], -joints[:, fg.MIRROR_JOINTS, 0])
    np.testing.assert_allclose(right[..., 1], joints[:, fg.MIRROR_JOINTS, 1])
    np.testing.assert_array_equal(fg.MIRROR_JOINTS[[fg.J["l_wrist"], fg.J["r_wrist"]]],
                                  [fg.J["r_wrist"], fg.J["l_wrist"]])  # fmt: skip
    assert towards_named_direction(joints, "walks to the left") is joints
    assert towards_named_direction(joints, "walks over there") is joints
    short = joints * np.array([0.05, 1.0])  # 6 cm of travel: no direction to correct
    assert towards_named_direction(short, "walks to the right") is short


def test_a_planted_foot_that_creeps_stops_the_figure_drifting_and_a_fast_slide_is_kept():
    from stickgen.postprocess import follow_planted_feet

    T = 50
    joints = np.zeros((T, 16, 2))
    joints[..., 1] = 1.0
    joints[:, fg.J["l_ankle"], 1] = joints[:, fg.J["r_ankle"], 1] = 0.0
    down = np.ones((T, 2), bool)
    creep = joints.copy()
    creep[..., 0] += 0.002 * np.arange(T)[:, None]  # the whole figure, feet too: 0.05 m/s
    fixed = follow_planted_feet(creep, down)
    np.testing.assert_allclose(fixed[..., 0], 0.0, atol=1e-9)  # back where it started, every frame
    np.testing.assert_allclose(fixed[..., 1], creep[..., 1])
    fast = joints.copy()
    fast[..., 0] += 0.02 * np.arange(T)[:, None]  # 0.5 m/s: the model's travel, left to pin_feet
    np.testing.assert_allclose(follow_planted_feet(fast, down), fast)
    flying = follow_planted_feet(creep, np.zeros((T, 2), bool))  # no foot down: nothing to follow
    np.testing.assert_allclose(flying, creep)


def test_a_chained_prompts_actions_share_the_clip_by_their_lengths_in_chained_clips():
    from stickgen.generation import CHAINED_SECONDS, UNKNOWN_PART_SECONDS, split_by_length

    walk, jump, sit, unknown = action_id("walk"), action_id("jump"), action_id("sit_down"), -1
    timeline = split_by_length([walk, jump], 90)
    share = CHAINED_SECONDS["walk"] / (CHAINED_SECONDS["walk"] + CHAINED_SECONDS["jump"])
    assert (timeline[: round(90 * share)] == walk).all() and (timeline[round(90 * share) :] == jump).all()
    assert share > 0.6  # a walk takes longer than a jump: more than half the frames
    # a sit lasts as long as a walk in a clip of its own (TYPICAL_SECONDS), much less after a walk
    assert (split_by_length([walk, sit], 100) == walk).sum() > 60
    np.testing.assert_array_equal(split_by_length([jump], 7), [jump] * 7)
    assert set(CHAINED_SECONDS) == set(ACTIONS)
    lengths = [UNKNOWN_PART_SECONDS, CHAINED_SECONDS["jump"]]  # a part read as no action: the usual run
    split = round(10 * lengths[0] / sum(lengths))
    expected = [unknown] * split + [jump] * (10 - split)
    np.testing.assert_array_equal(split_by_length([unknown, jump], 10), expected)
