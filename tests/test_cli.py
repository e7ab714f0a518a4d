"""The command line as a user meets it: a real `stickgen` process, its output and exit codes."""

import subprocess
import sys

import numpy as np
import pytest

from stickgen.motion import save_motion
from tests.clips import walking_clip


def run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stickgen", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def assert_one_sentence_error(result: subprocess.CompletedProcess) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("stickgen: error: ") and lines[0].endswith(".")


def test_help_lists_the_commands():
    result = run("--help")
    assert result.returncode == 0
    assert "info" in result.stdout


def test_version():
    result = run("--version")
    assert result.returncode == 0 and result.stdout.startswith("stickgen ")


def test_importing_stickgen_and_its_cli_loads_neither_torch_nor_sentence_transformers():
    code = (
        "import sys, stickgen, stickgen.cli, stickgen.figure, stickgen.motion, stickgen.clip_ops;"
        "names = ('torch', 'sentence_transformers', 'transformers', 'matplotlib');"
        "heavy = [m for m in names if m in sys.modules];"
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_info_describes_a_clip(tmp_path):
    path = save_motion(walking_clip(), tmp_path / "clip.json")
    result = run("info", str(path))
    assert result.returncode == 0, result.stderr
    assert "frames:      50" in result.stdout and "moon" in result.stdout


@pytest.mark.parametrize("case", ["missing", "truncated", "wrong_schema", "directory"])
def test_info_bad_input_is_one_sentence(tmp_path, case):
    good = save_motion(walking_clip(), tmp_path / "good.npz")
    paths = {
        "missing": tmp_path / "missing.npz",
        "truncated": tmp_path / "truncated.npz",
        "wrong_schema": tmp_path / "wrong.json",
        "directory": tmp_path,
    }
    paths["truncated"].write_bytes(good.read_bytes()[:100])
    paths["wrong_schema"].write_text('{"format": "something.else", "joints": []}')
    assert_one_sentence_error(run("info", str(paths[case])))


def test_info_of_an_invalid_clip_is_one_sentence(tmp_path):
    path = tmp_path / "nan.npz"
    joints = np.zeros((4, 16, 2))
    joints[2, 3, 1] = np.nan
    np.savez(path, joints=joints, fps=25.0)
    result = run("info", str(path))
    assert_one_sentence_error(result)
    assert "NaN" in result.stderr
