"""Training: exact resume, interrupted checkpoint writes, DDP equals one process, bad runs refused."""

import dataclasses
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.multiprocessing as mp

from stickgen import checkpoint as ckpt
from stickgen.batches import TrainingData, in_memory_training_data
from stickgen.checkpoint import load_checkpoint
from stickgen.errors import StickgenError
from stickgen.labels import ACTIONS
from stickgen.model import ModelConfig
from stickgen.trainer import OptimConfig, TrainConfig, lr_factor, train
from tests.clips import walking_clip

TEXT_DIM = 16


def unit_rows(n: int) -> np.ndarray:
    table = np.random.default_rng(0).normal(size=(n, TEXT_DIM)).astype(np.float32)
    return table / np.linalg.norm(table, axis=1, keepdims=True)


ENCODER = {"name": "test-encoder", "id": "sha256:test", "dim": TEXT_DIM}


def tiny_data(n: int = 12) -> TrainingData:
    motions = [walking_clip(frames=12 + 3 * i, seed=i, speed=0.4 + 0.1 * i) for i in range(n)]
    return in_memory_training_data(motions, unit_rows(n), ENCODER, "tiny in-memory clips")


def tiny_config(steps: int, **changes) -> TrainConfig:
    base = TrainConfig(
        model=ModelConfig(d_model=32, n_layers=2, n_heads=4, text_dim=TEXT_DIM, dropout=0.1),
        steps=steps,
        batch_size=4,
        log_every=2,
        checkpoint_every=4,
        keep_last=2,
        val_batches=2,
        sample_prompts=(),
        optim=OptimConfig(warmup_steps=3),
        device="cpu",
    )
    return TrainConfig(**{**vars(base), **changes})


def parameters(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def test_learning_rate_warms_up_then_decays():
    config = tiny_config(100, optim=OptimConfig(warmup_steps=10, min_lr_ratio=0.1))
    factors = [lr_factor(s, config) for s in range(100)]
    assert factors[0] == pytest.approx(0.1) and factors[9] == pytest.approx(1.0)
    assert all(a >= b for a, b in zip(factors[9:], factors[10:], strict=False))
    assert factors[-1] == pytest.approx(0.1, abs=1e-3)


def test_resume_equals_an_uninterrupted_run(tmp_path):
    data, config = tiny_data(), tiny_config(12)
    straight = train(config, data, tmp_path / "straight", progress=False)
    first = train(config, data, tmp_path / "resumed", progress=False, stop_after=6)
    assert first.steps == 6
    resumed = train(config, data, tmp_path / "resumed", progress=False)
    assert resumed.steps == 12
    for a, b in zip(parameters(straight.model), parameters(resumed.model), strict=True):
        assert torch.equal(a, b)
    for name in straight.ema:
        assert torch.equal(straight.ema[name], resumed.ema[name])
    rows = (tmp_path / "resumed" / "metrics.csv").read_text().splitlines()
    steps = [int(r.split(",")[0]) for r in rows[1:]]
    assert steps == sorted(set(steps))  # resuming does not duplicate logged rows


def test_a_time_limit_stops_with_a_checkpoint_and_the_run_resumes_exactly(tmp_path, capsys):
    data, config = tiny_data(), tiny_config(8)
    straight = train(config, data, tmp_path / "straight", progress=False)
    first = train(config, data, tmp_path / "limited", progress=False, minutes=0.0)  # stops at once
    assert first.steps == 1
    assert first.checkpoint == (tmp_path / "limited" / "checkpoints" / "step-000001").resolve()
    assert "stopped after 0 minutes at step 1; rerun the same command to resume" in capsys.readouterr().err
    resumed = train(config, data, tmp_path / "limited", progress=False, minutes=60.0)
    assert resumed.steps == 8
    for a, b in zip(parameters(straight.model), parameters(resumed.model), strict=True):
        assert torch.equal(a, b)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_run_on_a_gpu_resumes(tmp_path):
    # The training state is loaded onto the run's device; the CPU generator's state must come back to
    # the CPU (a GPU stage stopped at its time limit could not be resumed before).
    data, config = tiny_data(), tiny_config(6, device="cuda")
    first = train(config, data, tmp_path / "run", progress=False, stop_after=3)
    assert first.steps == 3
    assert train(config, data, tmp_path / "run", progress=False).steps == 6


@pytest.mark.parametrize("minutes", [-1.0, float("nan"), float("inf")])
def test_a_time_limit_must_be_a_number_of_minutes(tmp_path, minutes):
    with pytest.raises(StickgenError, match="--minutes must be"):
        train(tiny_config(4), tiny_data(), tmp_path / "run", progress=False, minutes=minutes)
    assert not (tmp_path / "run").exists()


def test_run_folder_contents(tmp_path):
    out = tmp_path / "run"
    result = train(tiny_config(8), tiny_data(), out, progress=False)
    assert (
        (out / "config.yaml").is_file() and (out / "metrics.csv").is_file() and (out / "loss.png").is_file()
    )
    assert (out / "latest").resolve() == result.checkpoint == (out / "checkpoints" / "step-000008").resolve()
    assert (out / "best").exists()
    assert len(list((out / "checkpoints").glob("step-*"))) <= 3  # keep_last 2, plus best
    loaded = load_checkpoint(out / "latest")
    assert loaded.encoder["id"] == "sha256:test"
    header = (out / "metrics.csv").read_text().splitlines()[0].split(",")
    for term in (
        "flow",
        "action",
        "physics",
        "contact",
        "environment",
        "bones",
        "connect",
        "velocity",
        "foot",
    ):
        assert f"loss_{term}" in header
    assert "val_total" in header and "frames_per_s" in header


def test_interrupted_checkpoint_write_leaves_the_previous_one(tmp_path, monkeypatch):
    data, config = tiny_data(), tiny_config(8)
    out = tmp_path / "run"
    train(config, data, out, progress=False, stop_after=4)

    real_save_file = ckpt.save_file
    calls = {"n": 0}

    def dying_save_file(tensors, path, *args, **kwargs):
        calls["n"] += 1
        real_save_file(tensors, path, *args, **kwargs)
        raise KeyboardInterrupt  # the process dies after writing part of the new checkpoint

    monkeypatch.setattr(ckpt, "save_file", dying_save_file)
    with pytest.raises(KeyboardInterrupt):
        train(config, data, out, progress=False)
    assert calls["n"] >= 1
    assert (out / "latest").resolve().name == "step-000004"
    assert not (out / "checkpoints" / "step-000008").exists()
    load_checkpoint(out / "latest")  # still loadable

    monkeypatch.setattr(ckpt, "save_file", real_save_file)
    finished = train(config, data, out, progress=False)
    straight = train(config, data, tmp_path / "straight", progress=False)
    for a, b in zip(parameters(finished.model), parameters(straight.model), strict=True):
        assert torch.equal(a, b)


def test_init_starts_a_second_stage_from_a_checkpoint(tmp_path):
    data = tiny_data()
    first = train(tiny_config(8), data, tmp_path / "first", progress=False)
    start = parameters(load_checkpoint(tmp_path / "first" / "latest").model)
    tiny_lr = OptimConfig(lr=1e-7, warmup_steps=1)
    second = train(
        tiny_config(2, init=str(tmp_path / "first" / "latest"), optim=tiny_lr), data, tmp_path / "second",
        progress=False,
    )  # fmt: skip
    fresh = train(tiny_config(2, optim=tiny_lr), data, tmp_path / "fresh", progress=False)
    assert first.checkpoint.exists()
    for a, b in zip(parameters(second.model), start, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-5)  # starts where the first stage ended
    pairs = zip(start, parameters(fresh.model), strict=True)
    assert any(not torch.allclose(b, c, atol=1e-3) for b, c in pairs)  # and not where a fresh run starts


def test_init_refuses_a_checkpoint_of_another_model(tmp_path):
    data = tiny_data()
    train(tiny_config(4), data, tmp_path / "first", progress=False)
    wider = ModelConfig(d_model=64, n_layers=2, n_heads=4, text_dim=TEXT_DIM)
    with pytest.raises(StickgenError, match="has model d_model = 32, but this run's is 64"):
        train(tiny_config(2, model=wider, init=str(tmp_path / "first" / "latest")), data, tmp_path / "b",
              progress=False)  # fmt: skip
    with pytest.raises(StickgenError, match="is not a folder"):
        train(tiny_config(2, init=str(tmp_path / "nowhere")), data, tmp_path / "c", progress=False)
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()  # no run folder left


def test_init_grows_a_shallower_checkpoint_into_a_deeper_run(tmp_path, capsys):
    data = tiny_data()
    train(tiny_config(6), data, tmp_path / "first", progress=False)
    shallow = load_checkpoint(tmp_path / "first" / "latest").model.eval()
    deep_model = dataclasses.replace(tiny_config(1).model, n_layers=3)
    frozen = OptimConfig(lr=1e-12, warmup_steps=1)
    grown = train(
        tiny_config(1, model=deep_model, init=str(tmp_path / "first" / "latest"), optim=frozen), data,
        tmp_path / "deep", progress=False,
    )  # fmt: skip
    assert "the checkpoint's 2 blocks go to places [0, 1] of 3" in capsys.readouterr().err
    deep = load_checkpoint(tmp_path / "deep" / "latest").model.eval()
    assert grown.model.config.n_layers == 3 and len(deep.blocks) == 3
    g = torch.Generator().manual_seed(3)
    x, t, text = torch.randn(2, 12, 52, generator=g), torch.rand(2, generator=g), torch.randn(2, TEXT_DIM)
    with torch.no_grad():  # the grown run starts where the shallow one ended
        before, after = shallow(x, t, text=text).pose, deep(x, t, text=text).pose
    torch.testing.assert_close(after, before, atol=1e-4, rtol=0)
    # and a deeper checkpoint is not cut down to a shallower run
    with pytest.raises(StickgenError, match="has model n_layers = 3, but this run's is 2"):
        train(tiny_config(1, init=str(tmp_path / "deep" / "latest")), data, tmp_path / "cut", progress=False)
    assert not (tmp_path / "cut").exists()


def test_refuses_a_folder_holding_another_run(tmp_path):
    data = tiny_data()
    train(tiny_config(4), data, tmp_path / "run", progress=False)
    with pytest.raises(StickgenError, match="holds another run"):
        train(tiny_config(4, seed=1), data, tmp_path / "run", progress=False)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(StickgenError, match="not a stickgen run folder"):
        train(tiny_config(4), data, other, progress=False)


def test_a_batch_larger_than_the_data_is_refused_before_the_run_folder_is_made(tmp_path):
    """A refused start must not leave a config.yaml that blocks the corrected command."""
    data = tiny_data()
    with pytest.raises(StickgenError, match="batch size must be between 1 and the number of clips"):
        train(tiny_config(4, batch_size=64), data, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()
    train(tiny_config(2), data, tmp_path / "run", progress=False)


def test_config_validation():
    with pytest.raises(StickgenError, match="steps must be a positive integer"):
        tiny_config(0)
    with pytest.raises(StickgenError, match="multiple of the"):
        os.environ["WORLD_SIZE"] = "3"
        try:
            train(
                tiny_config(4, batch_size=4), tiny_data(), Path("/nonexistent/never-created"), progress=False
            )
        finally:
            del os.environ["WORLD_SIZE"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ddp_config() -> TrainConfig:
    # Dropout masks depend on each process's tensor shapes, so DDP matches one process only without it.
    return tiny_config(
        6, model=ModelConfig(d_model=32, n_layers=2, n_heads=4, text_dim=TEXT_DIM, dropout=0.0)
    )


def _ddp_worker(rank: int, world: int, port: int, out: str, result_dir: str) -> None:
    os.environ.update(
        MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK="0"
    )
    torch.set_num_threads(1)
    result = train(ddp_config(), tiny_data(), out, progress=False)
    torch.save(parameters(result.model), Path(result_dir) / f"rank{rank}.pt")
    torch.distributed.destroy_process_group()


@pytest.mark.slow
def test_ddp_two_gloo_processes_match_one_process(tmp_path):
    port = _free_port()
    mp.spawn(_ddp_worker, args=(2, port, str(tmp_path / "ddp"), str(tmp_path)), nprocs=2, join=True)
    rank0 = torch.load(tmp_path / "rank0.pt")
    rank1 = torch.load(tmp_path / "rank1.pt")
    for a, b in zip(rank0, rank1, strict=True):
        assert torch.equal(a, b)
    single = train(ddp_config(), tiny_data(), tmp_path / "single", progress=False)
    for a, b in zip(rank0, parameters(single.model), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)
    assert (tmp_path / "ddp" / "latest").exists()  # rank 0 wrote the checkpoints


def synth_data(clips: int = 48) -> TrainingData:
    """A small dataset from the synthesizer, with random unit text embeddings."""
    from stickgen.synth.sampler import sample_clip

    motions = [sample_clip(0, i) for i in range(clips)]
    return in_memory_training_data(motions, unit_rows(clips), ENCODER, "synth clips")


@pytest.mark.slow
def test_a_tiny_model_lowers_validation_loss_threefold(tmp_path):
    from stickgen.model import StickFigureTransformer
    from stickgen.trainer import validation_loss

    data = synth_data()
    config = tiny_config(
        300, model=ModelConfig(d_model=64, n_layers=2, n_heads=4, text_dim=TEXT_DIM), batch_size=8,
        checkpoint_every=300, optim=OptimConfig(lr=2e-3, warmup_steps=20), ema_decay=0.99,
    )  # fmt: skip
    torch.manual_seed(config.seed)
    before = validation_loss(StickFigureTransformer(config.model), data, config, torch.device("cpu"))
    result = train(config, data, tmp_path / "run", progress=False)
    after = validation_loss(load_checkpoint(result.checkpoint).model, data, config, torch.device("cpu"))
    assert after * 3 <= before, (before, after)


def test_validation_noise_is_the_same_whatever_the_run_seed():
    # Two stages trained with different seeds are compared on one dataset by their validation loss:
    # the noise must not follow the run's seed (it did until the nineteenth session).
    from stickgen.model import StickFigureTransformer
    from stickgen.trainer import validation_loss

    data = synth_data(12)
    config = tiny_config(10, model=ModelConfig(d_model=32, n_layers=1, n_heads=2, text_dim=TEXT_DIM))
    torch.manual_seed(0)
    model = StickFigureTransformer(config.model)
    cpu = torch.device("cpu")
    losses = [validation_loss(model, data, dataclasses.replace(config, seed=s), cpu) for s in (0, 7, 13)]
    assert losses[0] == losses[1] == losses[2], losses


def run_cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stickgen", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def assert_one_sentence(result: subprocess.CompletedProcess) -> None:
    """Exit ≠ 0, no traceback, and the error is one sentence (after any progress lines)."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert lines[-1].startswith("stickgen: error: ") and lines[-1].endswith("."), result.stderr
    assert sum(line.startswith("stickgen: error: ") for line in lines) == 1


def test_train_cli_bad_input_is_one_sentence(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("model: {d_model: 32, n_layers: 2, n_heads: 4}\nsteps: 2\nbatch_size: 2\n")
    missing = run_cli(
        "train", "--config", str(config), "--data", "no-such-dataset", "--out", "run", cwd=tmp_path
    )
    assert_one_sentence(missing)
    assert "No dataset folder" in missing.stderr
    bad_key = tmp_path / "bad.yaml"
    bad_key.write_text("model: {d_model: 32, n_layers: 2, n_heads: 4}\nstepz: 2\n")
    unknown = run_cli(
        "train", "--config", str(bad_key), "--data", "no-such-dataset", "--out", "run", cwd=tmp_path
    )
    assert_one_sentence(unknown)
    assert "Unknown key stepz" in unknown.stderr
    other = tmp_path / "other-run"
    other.mkdir()
    (other / "config.yaml").write_text("train: {steps: 1}\ndata: somewhere\n")
    (other / "notes.txt").write_text("x")
    from stickgen.synth.build import synthesize_dataset

    synthesize_dataset(tmp_path / "ds", clips=24, seed=0, workers=1)
    holds = run_cli(
        "train", "--config", str(config), "--data", str(tmp_path / "ds"), "--out", str(other), cwd=tmp_path
    )
    assert_one_sentence(holds)
    assert "holds another run" in holds.stderr


@pytest.mark.parametrize("override", ["optim.lr=-1", "optim.lr=.nan"])
def test_train_cli_refuses_a_bad_learning_rate_before_making_the_run_folder(tmp_path, override):
    config = tmp_path / "config.yaml"
    config.write_text("model: {d_model: 32, n_layers: 2, n_heads: 4}\nsteps: 2\nbatch_size: 2\n")
    result = run_cli(
        "train", "--config", str(config), "--data", "no-such-dataset", "--out", "run", "--set", override,
        cwd=tmp_path,
    )  # fmt: skip
    assert_one_sentence(result)
    assert "lr must be" in result.stderr and not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("override", "says"),
    [
        ("optim.lr=0", "lr must be greater than 0"),
        ("optim.lr=.inf", "must be a finite number"),
        ("optim.weight_decay=-1", "weight_decay must be at least 0"),
        ("optim.betas=[2, 3]", "betas must be in [0, 1)"),
        ("optim.betas=[0.9]", "betas must be two numbers"),
        ("optim.warmup_steps=-5", "warmup_steps must be at least 0"),
        ("optim.min_lr_ratio=.nan", "must be a finite number"),
        ("optim.grad_clip=0", "grad_clip must be greater than 0"),
        ("losses.flow=-1", "flow must be at least 0"),
        ("drop.text=2", "text must be between 0 and 1"),
        ("seed=-1", "seed must be a whole number from 0"),
        (f"seed={2**64}", "seed must fit in 64 bits"),
        ("val_batches=0", "val_batches must be a positive integer"),
        ("sample_every=-1", "sample_every must be at least 0"),
        ("text_parts=1.5", "text_parts must be between 0 and 1"),
        ("model.d_model=1048576", "d_model must be at most"),
        ("model.max_frames=1000000000", "max_frames must be at most 100000"),
        ("model.rope_base=-1", "rope_base must be greater than 1"),
    ],
)
def test_every_number_of_the_training_config_is_checked(override, says):
    from stickgen.config import apply_overrides

    with pytest.raises(StickgenError, match=re.escape(says)):
        apply_overrides(tiny_config(4), [override])


def test_train_cli_refuses_a_folder_that_is_not_a_run_before_reading_the_data(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import stickgen.batches
    from stickgen.cli import app

    def never(*args, **kwargs):
        raise AssertionError("the data was read (and its texts embedded) before --out was checked")

    monkeypatch.setattr(stickgen.batches, "load_training_data", never)
    config = tmp_path / "config.yaml"
    config.write_text("model: {d_model: 32, n_layers: 2, n_heads: 4}\nsteps: 2\nbatch_size: 2\n")
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    result = CliRunner().invoke(
        app, ["train", "--config", str(config), "--data", str(tmp_path), "--out", str(other)]
    )
    assert isinstance(result.exception, StickgenError), result.exception
    assert "is not a stickgen run folder" in str(result.exception)


def test_the_training_data_description_holds_no_machine_path(tmp_path, monkeypatch):
    from stickgen.batches import load_training_data
    from stickgen.synth.build import synthesize_dataset

    synthesize_dataset(tmp_path / "data" / "synth", clips=12, seed=0, workers=1)
    elsewhere = load_training_data(tmp_path / "data" / "synth", "all-MiniLM-L6-v2", progress=False)
    monkeypatch.chdir(tmp_path)
    inside = load_training_data(tmp_path / "data" / "synth", "all-MiniLM-L6-v2", progress=False)
    assert elsewhere.description.startswith("synth (12 clips, ")  # outside the working folder: its name
    assert inside.description.startswith("data/synth (12 clips, ")  # inside: relative to it


def test_text_parts_embed_each_part_and_a_run_with_them_trains_and_resumes_exactly(tmp_path):
    from stickgen.action_meaning import part_sentences
    from stickgen.batches import load_training_data
    from stickgen.dataset import Dataset
    from stickgen.synth.build import synthesize_dataset
    from stickgen.text import TextEncoder

    synthesize_dataset(tmp_path / "data", clips=16, seed=1, workers=1)
    data = load_training_data(tmp_path / "data", "all-MiniLM-L6-v2", progress=False, parts=True)
    plain = load_training_data(tmp_path / "data", "all-MiniLM-L6-v2", progress=False)
    bank = data.train
    assert len(plain.train.part_rows) == 0 and len(bank.part_rows) > 0
    np.testing.assert_array_equal(bank.text_table[: len(plain.train.text_table)], plain.train.text_table)
    # a description of several parts: its parts' rows hold their sentences' embeddings, in order
    encoder = TextEncoder("all-MiniLM-L6-v2")
    dataset = Dataset(tmp_path / "data")
    described = [(t, int(r)) for k, i in enumerate(dataset.split("train"))
                 for t, r in zip(dataset.texts(int(i)), bank.clips[k].text_rows, strict=True)]  # fmt: skip
    sentence, row = next((t, r) for t, r in described if bank.part_counts[r] > 1)
    rows = bank.part_rows[bank.part_starts[row] : bank.part_starts[row] + bank.part_counts[row]]
    np.testing.assert_allclose(bank.text_table[rows], encoder.encode(part_sentences(sentence)), atol=1e-6)
    assert len(part_sentences(sentence)) == bank.part_counts[row] > 1
    model = ModelConfig(d_model=32, n_layers=2, n_heads=4, text_dim=encoder.dim, dropout=0.1)
    config = tiny_config(6, model=model, encoder="all-MiniLM-L6-v2", text_parts=0.5)
    straight = train(config, data, tmp_path / "straight", progress=False)
    train(config, data, tmp_path / "resumed", progress=False, stop_after=3)
    resumed = train(config, data, tmp_path / "resumed", progress=False)
    for a, b in zip(parameters(straight.model), parameters(resumed.model), strict=True):
        assert torch.equal(a, b)
    # the parts change what the model sees: the same run with whole descriptions learns other weights
    plain_config = tiny_config(6, model=model, encoder="all-MiniLM-L6-v2")
    whole = train(plain_config, data, tmp_path / "whole", progress=False)
    pairs = zip(parameters(straight.model), parameters(whole.model), strict=True)
    assert any(not torch.equal(a, b) for a, b in pairs)


def test_action_weights_draw_an_actions_clips_more_often():
    from types import SimpleNamespace

    from stickgen.batches import BucketSampler, clip_weights

    walk, jump = ACTIONS.index("walk"), ACTIONS.index("jump")
    clips = [
        SimpleNamespace(actions=np.asarray(actions, np.int64))  # clip_weights reads only the actions
        for actions in ([walk] * 4, [jump] * 4, [jump, jump, -1, -1], [-1] * 4)
    ]
    assert clip_weights(clips, {}) is None
    assert clip_weights(clips, {"jump": 3.0}).tolist() == [1.0, 3.0, 2.0, 1.0]
    with pytest.raises(StickgenError, match="Unknown action"):
        clip_weights(clips, {"levitate": 2.0})

    lengths = np.full(400, 20)
    weights = np.where(np.arange(400) < 100, 3.0, 1.0)  # a quarter of the clips weighs 3
    sampler = BucketSampler(lengths, 8, seed=0, weights=weights)
    drawn = np.concatenate(sampler.epoch(0) + sampler.epoch(1))
    heavy = np.mean(drawn < 100)
    assert 0.45 < heavy < 0.55  # 3 × 100 / (3 × 100 + 300) = one half, against one quarter unweighted
    assert [b.tolist() for b in sampler.epoch(3)] == [b.tolist() for b in sampler.epoch(3)]
    plain = np.concatenate(BucketSampler(lengths, 8, seed=0).epoch(0))
    assert sorted(plain.tolist()) == list(range(400))  # without weights an epoch is a permutation
    with pytest.raises(StickgenError, match="one finite, non-negative number per clip"):
        BucketSampler(lengths, 8, seed=0, weights=-weights)


def test_action_weights_are_checked_and_resume_exactly(tmp_path):
    with pytest.raises(StickgenError, match="not one of the 60 actions"):
        tiny_config(4, action_weights={"levitate": 2.0})
    with pytest.raises(StickgenError, match="action_weights.walk"):
        tiny_config(4, action_weights={"walk": -1.0})
    data, config = tiny_data(), tiny_config(8, action_weights={"walk": 2.0})
    straight = train(config, data, tmp_path / "straight", progress=False)
    train(config, data, tmp_path / "resumed", progress=False, stop_after=4)
    resumed = train(config, data, tmp_path / "resumed", progress=False)
    for a, b in zip(parameters(straight.model), parameters(resumed.model), strict=True):
        assert torch.equal(a, b)
    assert "action_weights" in (tmp_path / "straight" / "config.yaml").read_text()
    # without weights the run's config.yaml is what it was before the option, so older runs resume
    train(tiny_config(2), data, tmp_path / "plain", progress=False)
    assert "action_weights" not in (tmp_path / "plain" / "config.yaml").read_text()
