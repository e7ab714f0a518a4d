"""`stickgen generate` with the bundled model, measured the way the product promises it works."""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import stickgen
from stickgen import figure as fg
from stickgen.generation import default_checkpoint
from stickgen.render import save

SEEDS = range(5)
J = fg.J


@pytest.fixture(scope="module")
def motions():
    """Each prompt of the promises, sampled with five seeds (generated once for the module)."""
    prompts = ["a person jumps", "a person walks forward", "a person sits down", "a person waves",
               "a person jumps on the moon"]  # fmt: skip
    return {p: [stickgen.generate(p, seed=s) for s in SEEDS] for p in prompts}


def most(results: list[bool]) -> bool:
    return sum(results) > len(results) / 2


def pelvis(motion) -> np.ndarray:
    return motion.joints[:, J["pelvis"]]


def airborne_seconds(motion) -> float:
    """Time with both ankles more than 5 cm above the floor."""
    ankles = motion.joints[:, [J["l_ankle"], J["r_ankle"]], 1]
    return float((ankles.min(axis=1) > 0.05).sum()) / motion.fps


def test_a_jump_rises_more_than_15_cm_and_comes_back_down(motions):
    def jumps(m) -> bool:
        y = pelvis(m)[:, 1]
        stand, peak = np.median(y[:5]), int(np.argmax(y))
        return y[peak] - stand > 0.15 and y[peak:].min() < stand + 0.1  # up, then back down

    assert most([jumps(m) for m in motions["a person jumps"]])


def test_a_walk_forward_travels_more_than_a_metre(motions):
    assert most([abs(pelvis(m)[-1, 0] - pelvis(m)[0, 0]) > 1.0 for m in motions["a person walks forward"]])


def test_sitting_down_ends_more_than_25_cm_lower(motions):
    assert most([pelvis(m)[0, 1] - pelvis(m)[-1, 1] > 0.25 for m in motions["a person sits down"]])


def test_a_wave_keeps_a_wrist_above_its_shoulder_moving_back_and_forth(motions):
    def waves(m) -> bool:
        for side in ("l_", "r_"):
            wrist, shoulder = m.joints[:, J[side + "wrist"]], m.joints[:, J[side + "shoulder"]]
            up = wrist[:, 1] > shoulder[:, 1]
            if up.mean() < 0.3:
                continue
            dx = np.diff((wrist - shoulder)[up, 0])
            swings = np.count_nonzero(np.diff(np.sign(dx[np.abs(dx) > 1e-3])))
            stays = np.linalg.norm(pelvis(m) - pelvis(m)[0], axis=1).max() < 0.2
            if swings >= 2 and stays:
                return True
        return False

    assert most([waves(m) for m in motions["a person waves"]])


def test_a_jump_on_the_moon_stays_in_the_air_longer(motions):
    pairs = zip(motions["a person jumps on the moon"], motions["a person jumps"], strict=True)
    assert most([airborne_seconds(moon) > 1.3 * airborne_seconds(earth) for moon, earth in pairs])


def test_same_seed_same_file_different_seeds_different_motions(tmp_path):
    paths = [tmp_path / "a.gif", tmp_path / "b.gif"]
    for path in paths:
        save(stickgen.generate("a person jumps", seed=7), path)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    other = stickgen.generate("a person jumps", seed=8)
    assert not np.allclose(other.joints, stickgen.generate("a person jumps", seed=7).joints)


def run(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stickgen", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_the_cli_writes_a_gif_that_decodes(tmp_path):
    result = run("generate", "a person jumps", "-o", "jump.gif", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "jump.gif"
    with Image.open(tmp_path / "jump.gif") as gif:
        assert gif.n_frames > 10 and gif.info["loop"] == 0


@pytest.mark.parametrize(
    "args",
    [
        ["generate", ""],
        ["generate", "x" * 10_000],
        ["generate", "a person jumps", "--seconds", "0"],
        ["generate", "a person jumps", "--seconds", "-5"],
        ["generate", "a person jumps", "--seconds", "1000"],
        ["generate", "a person jumps", "--actions", "fly:0-2"],
        ["generate", "a person jumps", "--checkpoint", "no-such-folder"],
        ["generate", "a person jumps", "-o", "out.txt"],
    ],
)
def test_bad_input_is_one_sentence_and_leaves_no_file(tmp_path, args):
    result = run(*args, cwd=tmp_path)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("stickgen: error: "), result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_checkpoint_of_another_encoder_is_refused(tmp_path):
    other = tmp_path / "other"
    shutil.copytree(default_checkpoint(), other)
    config = json.loads((other / "config.json").read_text())
    config["text_encoder"]["id"] = "sha256:" + "0" * 64
    (other / "config.json").write_text(json.dumps(config))
    result = run("generate", "a person jumps", "--checkpoint", str(other), "-o", "x.gif", cwd=tmp_path)
    assert result.returncode != 0 and "trained with text encoder" in result.stderr
    assert not (tmp_path / "x.gif").exists()
