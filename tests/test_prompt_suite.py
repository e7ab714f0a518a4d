"""The prompt suite (benchmarks/prompts.yaml) and the detectors that check it (stickgen/detectors.py).

- the suite's structure: size, coverage of the actions and environments, kinds, chained prompts;
- its honesty: no prompt is one of the synthesizer's descriptions;
- its checks mean something: each passes on synthesized ground-truth motion of its action and fails on
  motion of a clearly different one (standing idle, a wave);
- the detectors on hand-built clips, and the runner end to end with the bundled model (slow).
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from benchmarks import prompts as suite
from stickgen import detectors as det
from stickgen.action_words import actions_in_text
from stickgen.figure import J
from stickgen.generation import default_seconds, environment_from_text
from stickgen.labels import ACTIONS, ENVIRONMENT_NAMES
from stickgen.motion import Motion
from stickgen.synth.actions import ACTION_BY_NAME, ACTION_SPECS
from stickgen.synth.sampler import ClipPlan, sample_clip, synthesize
from stickgen.synth.style import STYLES
from stickgen.synth.text import Said, describe
from tests.clips import standing_pose

PROMPTS = suite.load_suite()
ROOT = Path(__file__).resolve().parents[1]


# -----------------------------------------------------------------------------
# structure


def test_the_suite_covers_every_action_twice_and_every_environment():
    assert len(PROMPTS) >= 150
    assert len({p.text for p in PROMPTS}) == len(PROMPTS)
    targets = Counter(a for p in PROMPTS for a in p.actions)
    assert min(targets[a] for a in ACTIONS) >= 2
    assert {p.environment for p in PROMPTS} == set(ENVIRONMENT_NAMES)


def test_half_the_prompts_are_paraphrased_and_some_are_chained():
    kinds = Counter(p.kind for p in PROMPTS)
    assert kinds["paraphrased"] >= len(PROMPTS) / 2
    chained = [p for p in PROMPTS if p.chained]
    assert len(chained) >= 10 and {p.kind for p in chained} == {"plain", "paraphrased"}
    assert all(len(p.actions) == 2 for p in chained)


def test_plain_prompts_use_the_matchers_words_and_places_are_the_ones_generate_reads():
    # Paraphrased prompts had no known verb phrase when written; the vocabulary may grow since, which
    # the runner reports, so only the plain ones are checked here.
    assert all(actions_in_text(p.text) for p in PROMPTS if p.kind == "plain")
    assert all(environment_from_text(p.text) == p.environment for p in PROMPTS)


def test_chained_prompts_check_their_actions_in_order():
    for p in (p for p in PROMPTS if p.chained):
        assert all(item.window is not None for item in p.check), p.text
        assert p.check[0].window[0] == 0.0 and p.check[-1].window[1] == 1.0, p.text


@pytest.mark.parametrize(
    ("item", "says"),
    [
        ({"detector": "flies"}, "unknown detector"),
        ({"detector": "rises", "min_cm": 15}, "no threshold"),
        ({"detector": "rises", "min_m": "high"}, "must be a number"),
        ({"detector": "rises", "window": [0.5, 0.2]}, "window"),
        ({"classifier": "fly"}, "classifier"),
    ],
)
def test_a_suite_with_a_bad_check_is_refused(tmp_path, item, says):
    entry = {"text": "a person jumps", "actions": ["jump"], "kind": "plain", "chained": False,
             "environment": "earth", "check": [item]}  # fmt: skip
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps({"prompts": [entry]}))  # JSON is YAML
    with pytest.raises(ValueError, match=says):
        suite.load_suite(path)


def test_selection_spreads_a_subset_over_the_suite():
    chosen = suite.select(PROMPTS, subset=5)
    assert len(chosen) == 5 and chosen[0] == PROMPTS[0] and chosen[-1] == PROMPTS[-1]
    chosen = suite.select(PROMPTS, grep="sit")
    assert chosen and all("sit" in f"{p.text} {' '.join(p.actions)}".lower() for p in chosen)


# -----------------------------------------------------------------------------
# honesty


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def test_no_prompt_is_one_of_the_synthesizers_descriptions():
    """Against the grammar drawn directly (every action, environment, style, adult and child, single and
    chained) and the descriptions of synthesized clips."""
    rng = np.random.default_rng(0)
    said = [Said(spec.words, {}, 0, spec.descriptions) for spec in ACTION_SPECS]
    texts = set()
    for k in range(20):
        for s in said:
            for env in ENVIRONMENT_NAMES:
                texts.update(describe(rng, [s], env, STYLES[k % len(STYLES)].adverbs, k % 4 == 0, 5))
        pairs = rng.choice(len(said), size=(60, 2))
        for a, b in pairs:
            env = ENVIRONMENT_NAMES[int(rng.integers(len(ENVIRONMENT_NAMES)))]
            texts.update(describe(rng, [said[a], said[b]], env, (), False, 5))
    for index in range(150):
        texts.update(sample_clip(7, index).texts)
    known = {_normal(t) for t in texts}
    assert len(known) > 30_000
    assert [p.text for p in PROMPTS if _normal(p.text) in known] == []


# -----------------------------------------------------------------------------
# the checks on synthesized ground-truth motion


@functools.cache
def ground_truth(actions: tuple[str, ...], environment: str = "earth", seconds: float = 3.0, count: int = 5):
    """`count` synthesized clips of the actions in order, the clip's time shared evenly between them:
    views the actions share, facing right and left, every style in turn."""
    specs = [ACTION_BY_NAME[a] for a in actions]
    views = [v for v in specs[0].views if all(v in s.views for s in specs)] or [specs[0].views[0]]
    shares = (seconds / len(actions),) * len(actions)
    clips = []
    for k in range(count):
        view = views[k % len(views)]
        plan = ClipPlan(
            seed=3, index=k, environment=environment, view=view, facing=1 if view == "front" or k % 2 else -1,
            style=STYLES[k % len(STYLES)].name, actions=actions, seconds=shares,
            start_state=specs[0].starts[k % len(specs[0].starts)], camera="static", texts=3,
        )  # fmt: skip
        clips.append(synthesize(plan))
    return tuple(clips)


@pytest.fixture(scope="module")
def classify():
    return suite.classifier()


def _share(prompt, clips, classify) -> float:
    return float(np.mean([all(suite.check_motion(m, prompt.check, classify)) for m in clips]))


def _reference(action: str):
    """The first single-action prompt of an action on earth."""
    return next(p for p in PROMPTS if p.actions == (action,) and p.environment == "earth")


def _others(action: str) -> tuple[str, ...]:
    """Clearly different motion: standing idle and a wave (a gesture). An idle prompt gets only the wave;
    a wave, and a point, which the classifier confuses with some waves (both raise one arm), a clap."""
    if action == "idle":
        return ("wave",)
    return ("idle", "clap" if action in ("wave", "point") else "wave")


@pytest.mark.parametrize("action", ACTIONS)
def test_an_actions_check_passes_on_its_motion_and_fails_on_different_motion(action, classify):
    prompt = _reference(action)
    seconds = default_seconds(prompt.text)
    assert _share(prompt, ground_truth((action,), seconds=seconds), classify) >= 0.6, prompt.text
    for other in _others(action):
        assert _share(prompt, ground_truth((other,), seconds=seconds, count=4), classify) <= 0.25, other


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(PROMPTS)))
def test_every_prompts_check_holds_on_ground_truth_in_its_environment(index, classify):
    """Clips of the prompt's actions, in its environment and order, at its length; standing idle in the
    same environment (a wave for an idle prompt) must fail, and a chain's first action alone too."""
    prompt = PROMPTS[index]
    seconds = default_seconds(prompt.text)
    own = ground_truth(prompt.actions, prompt.environment, seconds, count=8)
    assert _share(prompt, own, classify) > 0.5, prompt.text
    for other in _others(prompt.actions[0]) if len(prompt.actions) == 1 else ("idle",):
        assert _share(prompt, ground_truth((other,), prompt.environment, seconds, 4), classify) <= 0.25
    if prompt.chained:
        assert (
            _share(prompt, ground_truth(prompt.actions[:1], prompt.environment, seconds, 4), classify) <= 0.25
        )


# -----------------------------------------------------------------------------
# detectors on hand-built clips


def _clip(frames: int = 50, dx=0.0, dy=0.0, height: float = 1.75) -> Motion:
    """A standing figure moved by per-frame offsets dx, dy (m)."""
    joints = np.repeat(standing_pose(height)[None], frames, axis=0)
    joints[..., 0] += np.broadcast_to(dx, (frames,))[:, None]
    joints[..., 1] += np.broadcast_to(dy, (frames,))[:, None]
    return Motion(joints)


def _bump(height: float, frames: int = 50) -> np.ndarray:
    return height * np.sin(np.linspace(0, np.pi, frames)) ** 2


def test_rising_and_landing_is_a_jump():
    assert det.rises(_clip(dy=_bump(0.3)))
    assert not det.rises(_clip(dy=_bump(0.1)))
    up_and_away = _clip(dy=np.linspace(0, 0.6, 50))
    assert not det.rises(up_and_away) and det.rises(up_and_away, back_m=None)


def test_travel_distance_speed_and_staying():
    walk = _clip(dx=np.linspace(0, 2.0, 50))  # 2 m in 2 s
    assert det.travels(walk) and det.travels(walk, min_speed=0.9) and not det.travels(walk, min_speed=1.5)
    assert not det.travels(_clip(dx=np.linspace(0, 0.3, 50)))
    assert det.stays(_clip()) and not det.stays(walk)
    assert det.still(_clip()) and not det.still(walk)


def test_ending_lower_or_higher_and_staying_upright():
    down = _clip(dy=np.linspace(0, -0.4, 50))
    assert det.ends_lower(down) and not det.ends_higher(down) and not det.upright(down)
    up = _clip(dy=np.linspace(-0.4, 0, 50))
    assert det.ends_higher(up) and not det.ends_lower(up)
    assert det.upright(_clip())


def test_airborne_time_counts_frames_with_both_feet_up():
    dy = np.zeros(50)
    dy[20:30] = 0.2
    clip = _clip(dy=dy)
    assert det.airborne_seconds(clip) == pytest.approx(0.4)
    assert det.airborne(clip, min_s=0.3) and not det.airborne(clip, min_s=0.5)


def test_a_figure_on_its_side_lies_and_a_standing_one_does_not():
    pose = standing_pose()
    lying = np.stack([pose[:, 1], 0.1 + 0.05 * pose[:, 0]], axis=1)  # head along +x, 10 cm up
    clip = Motion(np.repeat(lying[None], 30, axis=0))
    assert det.lies(clip) and det.horizontal(clip)
    assert not det.lies(_clip()) and not det.horizontal(_clip())


def test_raised_arms_count_their_share_and_their_times():
    joints = np.repeat(standing_pose()[None], 50, axis=0)
    head = joints[0, J["head"], 1]
    for a, b in ((10, 20), (30, 40)):
        joints[a:b, [J["l_wrist"], J["r_wrist"]], 1] = head + 0.2
    clip = Motion(joints)
    assert det.arms_up(clip, min_share=0.4) and not det.arms_up(clip, min_share=0.5)
    assert det.arms_up_times(clip, times=2) and not det.arms_up_times(clip, times=3)
    assert det.count_arm_raises(clip) == 2


def test_jumps_are_counted_up_and_down_and_small_wobbles_are_not():
    three = _clip(dy=np.concatenate([_bump(0.3, 16), _bump(0.3, 16), _bump(0.3, 18)]))
    assert det.count_jumps(three) == 3
    assert det.count_jumps(_clip(dy=_bump(0.05))) == 0  # 5 cm: no jump
    assert det.count_jumps(_clip(dy=np.linspace(0, 0.6, 50))) == 0  # up and not down again


def test_a_window_cuts_the_clip_so_order_can_be_checked():
    walk_then_stand = _clip(dx=np.minimum(np.linspace(0, 4.0, 50), 2.0))
    assert det.travels(det.window(walk_then_stand, 0.0, 0.5))
    assert not det.travels(det.window(walk_then_stand, 0.5, 1.0))
    assert det.window(walk_then_stand, 0.0, 0.5).num_frames == 25
    for bad in ((0.5, 0.5), (-0.1, 1.0), (0.0, 1.5)):
        with pytest.raises(ValueError):
            det.window(walk_then_stand, *bad)


def test_a_childs_thresholds_scale_with_its_legs():
    child, adult = _clip(dy=_bump(0.12), height=0.9), _clip(dy=_bump(0.12))
    assert det.size(adult) == 1.0 and 0.6 < det.size(child) < 0.75
    assert det.rises(child) and not det.rises(adult)


# -----------------------------------------------------------------------------
# detectors on synthesized clips: what one action shows and another does not


@pytest.mark.parametrize(
    ("name", "params", "shows", "lacks"),
    [
        ("waves", {}, "wave", "salute"),
        ("kicks", {}, "kick", "walk"),
        ("on_all_fours", {}, "crawl", "lie_down"),
        ("push_ups", {}, "push_up", "crawl"),
        ("sit_ups", {}, "sit_up", "lie_down"),
        ("one_foot_up", {}, "balance", "idle"),
        ("bends", {"min_lean": 80}, "bend_over", "squat"),
        ("feet_apart", {}, "lunge", "crouch"),
        ("ends_seated", {}, "sit_down", "kneel"),
        ("ends_kneeling", {}, "kneel", "sit_down"),
        ("lies", {}, "lie_down", "sit_down"),
        ("horizontal", {}, "swim", "walk"),
        ("dips", {"min_m": 0.2}, "squat", "walk"),
        ("travels_backward", {}, "walk_backward", "walk"),
        ("arms_up", {}, "cheer", "wave"),
        ("arms_up_times", {}, "jumping_jacks", "wave"),
        ("airborne", {}, "run", "walk"),
        ("upright", {}, "walk", "sit_down"),
        ("turns_head", {}, "look_around", "idle"),
    ],
)
def test_a_detector_tells_one_action_from_another(name, params, shows, lacks):
    detector = det.DETECTORS[name]
    assert sum(detector(m, **params) for m in ground_truth((shows,), seconds=4.0, count=4)) >= 3
    assert sum(detector(m, **params) for m in ground_truth((lacks,), seconds=4.0, count=4)) <= 1


def test_facing_reads_the_knees():
    for m in ground_truth(("walk",), seconds=3.0, count=4):
        assert det.facing(m) == (1 if m.source["facing"] == "right" else -1)
    assert det.facing(_clip()) == 0


# -----------------------------------------------------------------------------
# the runner


def _record(text, passed, kind="plain", environment="earth", chained=False, families=("jumps",)):
    return {"text": text, "actions": ["jump"], "kind": kind, "chained": chained, "environment": environment,
            "families": list(families), "seed": 0, "items": [passed], "passed": passed}  # fmt: skip


def test_the_report_counts_groups_and_names_the_worst_prompts():
    records = [_record("a", True), _record("a", False), _record("b", False, kind="paraphrased", chained=True,
               environment="moon", families=("jumps", "gestures"))]  # fmt: skip
    rates = suite.rates(records)
    assert rates["overall"] == (1, 3) and rates["plain"] == (1, 2) and rates["paraphrased"] == (0, 1)
    assert rates["chained"] == (0, 1) and rates["env moon"] == (0, 1) and rates["family gestures"] == (0, 1)
    assert suite.worst(records, 2) == [("b", 0, 1), ("a", 1, 2)]
    text = suite.report(records, old=records[:2])
    assert "| overall |" in text and "earlier run" in text and "50.0% (1/2)" in text


def test_a_check_looks_at_its_window_only():
    walk_then_stand = _clip(dx=np.minimum(np.linspace(0, 4.0, 50), 2.0))
    first = suite.CheckItem(detector="travels", window=(0.0, 0.5))
    second = suite.CheckItem(detector="travels", window=(0.5, 1.0))
    assert suite.check_motion(walk_then_stand, [first, second]) == [True, False]


@pytest.mark.slow
def test_the_runner_generates_checks_and_reports_a_few_prompts(tmp_path):
    chosen = [PROMPTS[0], next(p for p in PROMPTS if p.chained), _reference("salute")]
    records = suite.run_suite(chosen, seeds=1)
    assert [r["text"] for r in records] == [p.text for p in chosen]
    for r, p in zip(records, chosen, strict=True):
        assert len(r["items"]) == len(p.check) and r["passed"] == all(r["items"])
        assert set(r) >= {"kind", "chained", "environment", "families", "seed"}
    out = tmp_path / "run.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "prompts.py"), "--subset", "2", "--seeds", "1"]
    result = subprocess.run(
        [*command, "--json", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert "| overall |" in result.stdout and "10 worst prompts" in result.stdout
    assert len(json.loads(out.read_text())["samples"]) == 2
    again = subprocess.run(
        [*command, "--compare", str(out), "--first-seed", "3"], capture_output=True, text=True, cwd=ROOT,
        timeout=600,
    )
    assert again.returncode == 0 and "earlier run" in again.stdout, again.stderr
    assert "(seeds 3-3)" in again.stdout  # --first-seed moves the seeds, for adding samples to a run


@pytest.mark.parametrize(
    "args, says",
    [
        (["--compare", "missing.json"], "--compare missing.json is not a file written by --json"),
        (["--seeds", "0"], "--seeds must be at least 1"),
        (["--first-seed", "-1"], "--first-seed at least 0"),
    ],
)
def test_the_runner_refuses_bad_arguments_in_one_sentence_before_it_runs(tmp_path, args, says):
    args = [str(tmp_path / a) if a.endswith(".json") else a for a in args]
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "prompts.py"), *args], capture_output=True, text=True,
        cwd=ROOT, timeout=120,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert says.replace("missing.json", str(tmp_path / "missing.json")) in result.stderr


def test_action_weights_take_the_lower_of_the_classifiers_share_and_the_physical_checks(monkeypatch):
    """`benchmarks/actions.py --checks`: an action the classifier recognises but whose check fails (a
    look-around without a head turn) is weighted by the check; an action without a physical check
    (dance: the classifier checks it) by the classifier alone."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import actions

    checks = actions.physical_checks()
    look, dance = ACTIONS.index("look_around"), ACTIONS.index("dance")
    assert [item.detector for item in checks[look]] == ["turns_head", "stays"]
    assert dance not in checks and len(checks) == 33
    shares = {
        "real": {look: 0.55, dance: 0.64}, "none": {look: 0.82, dance: 0.18},
        "real check": {look: 0.95}, "none check": {look: 0.05},
    }  # fmt: skip
    relative = actions.relative_shares(shares, "none")
    assert relative[look] == pytest.approx(0.05 / 0.95)
    assert relative[dance] == pytest.approx(0.18 / 0.64)
