"""The command line as a user meets it: a real `stickgen` process, its output and exit codes."""

import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from stickgen.motion import save_motion
from tests import mocap
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


def test_average_bad_input_is_one_sentence(tmp_path):
    assert_one_sentence_error(run("average", str(tmp_path / "missing"), "-o", str(tmp_path / "out")))
    assert_one_sentence_error(
        run("average", str(tmp_path / "a"), str(tmp_path / "b"), "-o", str(tmp_path / "out"))
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("args", "says", "help"),
    [
        (["generate"], "Missing argument 'text'", "generate"),
        (["generate", "a person jumps", "--bogus"], "No such option: --bogus", "generate"),
        (["generate", "a person jumps", "--seed", "abc"], "Invalid value for '--seed'", "generate"),
        (["frobnicate"], "No such command 'frobnicate'", ""),
        (["eval", "run", "--max-clips", "1", "--bogus"], "No such option: --bogus", "eval run"),
    ],
)
def test_a_command_line_the_parser_refuses_is_one_sentence(tmp_path, args, says, help):
    """Not typer's box under a usage line: one sentence that names the help, exit status 2 (usage)."""
    result = run(*args, cwd=tmp_path)
    assert_one_sentence_error(result)
    assert result.returncode == 2 and says in result.stderr and result.stdout == ""
    # the help of the command that refused it, as it was called here (`python -m stickgen ...`)
    assert result.stderr.rstrip().endswith(f"stickgen {help} -h).".replace("  ", " "))
    assert list(tmp_path.iterdir()) == []


def test_no_command_shows_the_help():
    result = run()
    assert result.returncode == 2 and "stickgen [OPTIONS] COMMAND" in result.stdout + result.stderr
    assert "generate" in result.stdout + result.stderr and "error" not in result.stderr


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


def test_info_reads_a_bvh_that_stickgen_wrote(tmp_path):
    from stickgen.bvh import write_bvh

    path = write_bvh(walking_clip(), tmp_path / "walk.bvh")
    result = run("info", str(path))
    assert result.returncode == 0, result.stderr
    assert "frames:      50" in result.stdout


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Good inputs for every command: two small datasets, a BVH file and a training config."""
    from stickgen.synth.build import synthesize_dataset

    root = tmp_path_factory.mktemp("inputs")
    synthesize_dataset(root / "ds", clips=24, seed=0, workers=1)
    shutil.copytree(root / "ds", root / "ds2")
    (root / "a.bvh").write_text(mocap.bvh_text())
    (root / "train.yaml").write_text("model: {d_model: 32, n_layers: 2, n_heads: 4}\nsteps: 2\n")
    return root


HUGE = str(2**64)
TRAIN = ["train", "--config", "{in}/train.yaml", "--data", "{in}/ds", "--out", "run", "--set"]
IMPORT = ["data", "import", "bvh", "{in}/a.bvh", "--out", "d", "--text", "a person walks"]
BAD_NUMBERS = [
    (["eval", "run", "--data", "{in}/ds", "--out", "report", "--guidance", "nan"], "--guidance"),
    (["eval", "run", "--data", "{in}/ds", "--out", "report", "--steps", "1000"], "--steps"),
    (["eval", "train-evaluator", "--data", "{in}/ds", "--out", "ev", "--seed", "-1"], "--seed"),
    (["data", "synth", "--out", "s", "--clips", HUGE], "--clips"),
    (["data", "synth", "--out", "s", "--clips", "2", "--seed", "-1"], "--seed"),
    ([*IMPORT, "--seed", HUGE], "--seed"),
    ([*IMPORT, "--min-seconds", "inf"], "--min-seconds"),
    ([*IMPORT, "--scale", "nan"], "scale"),
    (["data", "merge", "{in}/ds", "{in}/ds2", "--out", "m", "--seed", "-1"], "--seed"),
    (["data", "preview", "{in}/ds", "-o", "p.gif", "--seed", "-1"], "--seed"),
    ([*TRAIN, "seed=-1"], "seed"),
    ([*TRAIN, f"seed={HUGE}"], "seed"),
    ([*TRAIN, "optim.grad_clip=.nan"], "grad_clip"),
    ([*TRAIN, "drop.text=2"], "text"),
    ([*TRAIN, "model.d_model=1048576"], "d_model"),
]


@pytest.mark.parametrize(("args", "option"), BAD_NUMBERS, ids=[" ".join(a[-2:]) for a, _ in BAD_NUMBERS])
def test_a_number_out_of_range_is_one_sentence_before_any_work(inputs, tmp_path, args, option):
    """Every numeric option (and config field) is checked for range and finiteness first: one sentence
    naming the option, and nothing written."""
    result = run(*(a.replace("{in}", str(inputs)) for a in args), cwd=tmp_path)
    assert_one_sentence_error(result)
    assert option in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


LONG = "a" * 300  # longer than a file name may be
REFUSED = [
    ["generate", "a person jumps", "--seconds", "-1", "-o", "new/x.gif"],
    ["generate", "a person jumps", "--checkpoint", "missing", "-o", "a/b/c/x.gif"],
    ["generate", "a person jumps", "-o", f"new/{LONG}.gif"],
    ["generate", "a person jumps on the moon", "--environment", "mars", "-o", "new/x.gif"],
    ["info", f"{LONG}.npz"],
    ["eval", "run", "--data", "{in}/ds", "--out", "report", "--device", "tpu"],
]


@pytest.mark.parametrize("args", REFUSED, ids=[" ".join(a[:4])[:60] for a in REFUSED])
def test_a_refused_command_is_one_sentence_and_leaves_no_folder(inputs, tmp_path, args):
    """Refused after the output's folder was made (or with a name too long to look up): the folders
    made for it go again, and no traceback reaches the user."""
    result = run(*(a.replace("{in}", str(inputs)) for a in args), cwd=tmp_path)
    assert_one_sentence_error(result)
    assert list(tmp_path.iterdir()) == []


def test_a_name_just_under_the_limit_is_written(tmp_path):
    name = "b" * 250 + ".npz"  # 254 bytes: the file system takes it, so the temporary name must fit too
    path = save_motion(walking_clip(), tmp_path / name)
    assert path.name == name and [p.name for p in tmp_path.iterdir()] == [name]


def test_sigterm_cleans_up_like_ctrl_c_and_ends_by_the_signal(tmp_path):
    """`kill`, `timeout` or a stopping container: no temporary file or new folder stays, no traceback,
    and the process ends by SIGTERM, as one that ignored it would."""
    process = subprocess.Popen(
        [sys.executable, "-m", "stickgen", "generate", "a person walks", "-n", "16", "--seconds", "20",
         "-o", "sub/x.gif"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        for _ in range(600):  # the folder is made before the model loads
            if (tmp_path / "sub").exists() or process.poll() is not None:
                break
            time.sleep(0.05)
        assert (tmp_path / "sub").exists() and process.poll() is None
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill() if process.poll() is None else None
    assert process.returncode == -signal.SIGTERM, stderr  # stderr says why, should it ever fail
    assert "Traceback" not in stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("error", ["StickgenError('the cache was interrupted')", "OSError(4, 'Interrupted')"])
def test_a_sigterm_that_became_an_error_on_its_way_out_still_ends_by_the_signal(error):
    """Code stopped half-way by the interrupt a SIGTERM raises may fail with an error of its own: the
    process still says it was interrupted and ends by the signal, not with the error's exit status."""
    program = (
        "import os, signal\n"
        "import stickgen.cli as cli\n"
        "from stickgen.errors import StickgenError\n"
        "def app(**options):\n"
        "    try:\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        signal.pause()\n"
        "    except KeyboardInterrupt:\n"
        f"        raise {error}\n"
        "cli.app = app\n"
        "cli.main()\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert done.stderr == "stickgen: interrupted.\n"


def test_a_progress_bar_is_redrawn_at_its_own_pace_not_at_every_call(capsys):
    """Written to a file (stderr not a terminal), 5,000 quick calls must not give 5,000 redraws."""
    from stickgen.cli import _done_of_total_bar

    with _done_of_total_bar("render", "frame") as progress:
        for done in range(1, 5001):
            progress(done, 5000)
    err = capsys.readouterr().err
    assert "5000/5000" in err
    assert err.count("\r") < 100
