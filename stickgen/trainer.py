"""Training: the loop, exact resume, atomic checkpoints, logging, and DDP under torchrun.

`train(config, data, out)` trains a `StickFigureTransformer` on a dataset folder and writes a run
folder:

    out/config.yaml             the resolved configuration and the dataset it trained on
    out/metrics.csv             one row per logged step (every loss term, lr, throughput, validation)
    out/checkpoints/step-NNNNNN a checkpoint folder (EMA weights, usable by `generate`) with the full
                                training state in `training_state.pt` beside the weights
    out/latest, out/best        symbolic links to checkpoint folders
    out/samples/step-NNNNNN.gif sample GIFs of fixed prompts
    out/loss.png                the loss curves, at the end

Determinism: every random number of step `s` comes from generators seeded by `(seed, s)` and the
data order from `(seed, epoch)`, so a run stopped at any checkpoint and resumed takes the same steps
as one that never stopped. A run folder whose `config.yaml` matches is resumed from `latest`.

Distributed: under `torchrun` (WORLD_SIZE > 1) each rank takes its slice of the same global batch,
gradients are averaged by DDP (gloo on CPU, NCCL on GPU), and rank 0 alone logs and writes.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from stickgen.batches import BucketSampler, TrainingData, clip_weights, collate
from stickgen.checkpoint import load_checkpoint, save_checkpoint
from stickgen.config import to_dict
from stickgen.errors import StickgenError
from stickgen.files import atomic_write_text
from stickgen.labels import ACTIONS
from stickgen.model import ModelConfig, StickFigureTransformer, block_places, deepened_state
from stickgen.objective import Draws, DropRates, LossWeights, flow_matching_losses
from stickgen.ranges import check_range, check_seed

STATE_FILE = "training_state.pt"
RUN_CONFIG = "config.yaml"


@dataclass(frozen=True)
class OptimConfig:
    """AdamW with linear warmup and a cosine decay per step."""

    lr: float = 3e-4
    weight_decay: float = 0.01
    betas: tuple[float, ...] = (0.9, 0.99)
    warmup_steps: int = 200
    min_lr_ratio: float = 0.1
    grad_clip: float = 1.0

    def __post_init__(self) -> None:
        check_range("lr", self.lr, 0.0, open_low=True)
        check_range("weight_decay", self.weight_decay, 0.0)
        if len(self.betas) != 2:
            raise StickgenError(f"betas must be two numbers, not {len(self.betas)}.")
        for beta in self.betas:
            check_range("betas", beta, 0.0, 1.0, open_high=True)
        check_range("warmup_steps", self.warmup_steps, 0)
        check_range("min_lr_ratio", self.min_lr_ratio, 0.0, 1.0)
        check_range("grad_clip", self.grad_clip, 0.0, open_low=True)


@dataclass(frozen=True)
class TrainConfig:
    """One training run; the files in configs/train/ are these, as YAML."""

    model: ModelConfig
    encoder: str = "all-MiniLM-L6-v2"
    """Text encoder name or folder; the model's text_dim is set to its dimension."""
    steps: int = 10000
    batch_size: int = 32
    """Clips per step over all processes (a multiple of the number of processes)."""
    seed: int = 0
    optim: OptimConfig = field(default_factory=OptimConfig)
    ema_decay: float = 0.999
    losses: LossWeights = field(default_factory=LossWeights)
    drop: DropRates = field(default_factory=DropRates)
    log_every: int = 50
    val_every: int = 500
    """Steps between validation losses (also computed at every checkpoint)."""
    val_batches: int = 8
    checkpoint_every: int = 1000
    keep_last: int = 3
    sample_every: int = 0
    """Steps between sample GIFs; 0 = only at the end. No samples when sample_prompts is empty."""
    sample_prompts: tuple[str, ...] = ("a person jumps", "a person walks forward", "a person waves")
    device: str = "auto"
    """auto (CUDA when available), cpu or cuda."""
    checkpoint_dtype: str = "float32"
    """How checkpoints store the (EMA) weights: float32, or bfloat16 for half the size."""
    init: str | None = None
    """A checkpoint folder whose weights start the model instead of random ones (a second stage of
    training, with a fresh optimizer and schedule); its model and text encoder must be this run's, or
    its model this run's with fewer blocks: they are spread among the run's, and the new blocks start
    as identities (`model.deepened_state`)."""
    action_weights: dict[str, float] = field(default_factory=dict)
    """How often clips of an action are drawn relative to the rest ({"get_up": 2.0}; an action not
    named weighs 1): a clip weighs the mean of its frames' weights. Empty: every clip once an epoch."""
    text_parts: float = 0.0
    """The share of training clips whose description, where it has as many parts as the clip has runs
    of one action ("swings a bat, after that crouches"), gives each run its part's sentence
    (`batches.collate`'s parts): how the sampler gives a prompt's parts their spans from the text alone
    (`generation.text_by_parts`). 0 = the whole description for every clip, as before."""

    def __post_init__(self) -> None:
        for key in ("steps", "batch_size", "log_every", "val_every", "val_batches", "checkpoint_every",
                    "keep_last"):  # fmt: skip
            if getattr(self, key) < 1:
                raise StickgenError(f"{key} must be a positive integer, not {getattr(self, key)}.")
        check_seed("seed", self.seed)
        check_range("sample_every", self.sample_every, 0)
        if not 0.0 <= self.ema_decay < 1.0:
            raise StickgenError(f"ema_decay must be in [0, 1), not {self.ema_decay}.")
        if self.checkpoint_dtype not in ("float32", "bfloat16"):
            raise StickgenError(
                f"checkpoint_dtype must be float32 or bfloat16, not {self.checkpoint_dtype!r}."
            )
        for name, weight in self.action_weights.items():
            if name not in ACTIONS:
                raise StickgenError(f"action_weights names {name!r}, which is not one of the 60 actions.")
            check_range(f"action_weights.{name}", weight, 0.0, 100.0)
        check_range("text_parts", self.text_parts, 0.0, 1.0)


def lr_factor(step: int, config: TrainConfig) -> float:
    """Learning-rate multiplier at `step`: linear warmup, then cosine down to `min_lr_ratio`."""
    opt = config.optim
    if step < opt.warmup_steps:
        return (step + 1) / opt.warmup_steps
    progress = min(1.0, (step - opt.warmup_steps) / max(1, config.steps - opt.warmup_steps))
    return opt.min_lr_ratio + (1.0 - opt.min_lr_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))


def step_generator(seed: int, step: int, stream: int = 0) -> torch.Generator:
    """A CPU generator for step `step` of a run seeded `seed` (streams separate independent uses)."""
    state = np.random.SeedSequence([seed, step, stream]).generate_state(2, dtype=np.uint32)
    return torch.Generator().manual_seed(int(state[0]) << 32 | int(state[1]))


@dataclass
class _Dist:
    rank: int = 0
    world: int = 1

    @property
    def main(self) -> bool:
        return self.rank == 0


def _init_distributed(device: torch.device) -> _Dist:
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return _Dist()
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
    return _Dist(rank=dist.get_rank(), world=dist.get_world_size())


def _device(name: str) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise StickgenError("CUDA was requested but no CUDA device is available; use --set device=cpu.")
    if name == "cuda":
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    return torch.device(name)


def check_run_folder(out: str | os.PathLike) -> Path:
    """`out` as a Path if it can hold the run (new, empty, or a run folder); checked before any work."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise StickgenError(f"The output path {out} is a file; give a folder for the run.")
    if out.is_dir() and not (out / RUN_CONFIG).is_file() and any(out.iterdir()):
        raise StickgenError(f"{out} exists and is not a stickgen run folder; choose another --out folder.")
    return out


def _prepare_run_folder(out: Path, run_config: dict[str, Any]) -> Path | None:
    """Create or check the run folder; return the checkpoint to resume from, if any."""
    config_path = check_run_folder(out) / RUN_CONFIG
    if config_path.is_file():
        existing = yaml.safe_load(config_path.read_text(encoding="utf-8"))
        if existing != run_config:
            raise StickgenError(
                f"{out} holds another run (its config.yaml differs); choose another --out folder."
            )
        # A checkpoint write that was killed leaves a hidden temporary folder: remove it.
        for stale in (out / "checkpoints").glob(".step-*"):
            shutil.rmtree(stale, ignore_errors=True)
        latest = out / "latest"
        return latest.resolve() if (latest / STATE_FILE).is_file() else None
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(config_path, yaml.safe_dump(run_config, sort_keys=False))
    return None


def _point(link: Path, target: Path) -> None:
    """Atomically make the symbolic link `link` point at `target` (a sibling path, stored relative)."""
    tmp = link.with_name(f".{link.name}.tmp")
    tmp.unlink(missing_ok=True)
    os.symlink(os.path.relpath(target, link.parent), tmp)
    os.replace(tmp, link)


class _Ema:
    """Exponential moving average of the model's parameters, with the usual warmup of its decay."""

    def __init__(self, model: torch.nn.Module, decay: float):
        self.decay = decay
        self.shadow = {k: v.detach().clone() for k, v in model.state_dict().items()}

    @torch.no_grad()
    def update(self, model: torch.nn.Module, step: int) -> None:
        d = min(self.decay, (1 + step) / (10 + step))
        floats, shadows = [], []
        for k, v in model.state_dict().items():
            if v.dtype.is_floating_point:
                floats.append(v.detach())
                shadows.append(self.shadow[k])
            else:
                self.shadow[k].copy_(v)
        # One fused update for all tensors: on a GPU, two kernels per tensor cost more than the step.
        torch._foreach_mul_(shadows, d)
        torch._foreach_add_(shadows, floats, alpha=1.0 - d)


VALIDATION_SEED = 0
"""Seeds the validation noise of every run (not the run's own seed: see `validation_loss`)."""


def validation_loss(
    model: torch.nn.Module, data: TrainingData, config: TrainConfig, device: torch.device
) -> float:
    """Mean total loss over fixed validation batches, with fixed noise and no condition dropout.

    The noise is the same for every run, whatever its seed (`VALIDATION_SEED`), so the validation
    losses of two runs on one dataset (two stages, two seeds) compare weights, not noise draws."""
    order = np.argsort(data.val.lengths, kind="stable")
    size = min(config.batch_size, len(order))
    batches = [order[i : i + size] for i in range(0, len(order), size)][: config.val_batches]
    mean = torch.from_numpy(data.mean).to(device)
    std = torch.from_numpy(data.std).to(device)
    total = 0.0
    model.eval()
    with torch.no_grad():
        for i, idx in enumerate(batches):
            generator = step_generator(VALIDATION_SEED, i, stream=1_000_000)
            frames = int(data.val.lengths[idx].max())
            draws = Draws.draw(len(idx), frames, generator, device)
            batch = collate(data.val, idx, mean, std, draws.uniforms[:, 3], device=device)
            terms = flow_matching_losses(
                model, batch, mean=mean, std=std, weights=config.losses, drop=config.drop, draws=draws,
                train=False,
            )  # fmt: skip
            total += float(terms["total"])
    return total / max(1, len(batches))


@dataclass
class TrainResult:
    """What `train` leaves: the last checkpoint folder written (rank 0) and the trained weights."""

    checkpoint: Path | None
    model: StickFigureTransformer
    ema: dict[str, torch.Tensor]
    steps: int


def _initial_weights(
    folder: str, model_config: ModelConfig, data: TrainingData
) -> tuple[dict[str, torch.Tensor], int]:
    """The weights of checkpoint `folder` (config `init`) in float32 and its number of blocks, after
    checking they fit this run: the same model, or the same with fewer blocks (grown by `train`)."""
    if not Path(folder).is_dir():
        raise StickgenError(f"init checkpoint {folder} is not a folder.")
    start = load_checkpoint(folder, expected_encoder=data.encoder)
    ours, theirs = to_dict(model_config), to_dict(start.model.config)
    deeper = {**theirs, "n_layers": ours["n_layers"]} == ours and ours["n_layers"] > theirs["n_layers"]
    if ours != theirs and not deeper:
        key = next(k for k in ours if ours[k] != theirs.get(k))
        raise StickgenError(
            f"init checkpoint {folder} has model {key} = {theirs.get(key)!r}, "
            f"but this run's is {ours[key]!r}."
        )
    state = {name: value.to(torch.float32) for name, value in start.model.state_dict().items()}
    return state, int(theirs["n_layers"])


def train(
    config: TrainConfig,
    data: TrainingData,
    out: str | os.PathLike,
    *,
    progress: bool = True,
    stop_after: int | None = None,
    minutes: float | None = None,
    on_log: Callable[[dict[str, float]], None] | None = None,
) -> TrainResult:
    """Train (or resume) the run in `out`.

    stop_after: stop once this step is reached (a checkpoint is written there), as an interruption
    would; the run can be resumed later with the same call without `stop_after`.
    minutes: stop the same way at the first step that ends this many minutes after the loop started
    (one process only). The learning-rate schedule still spans `config.steps`, so a resumed run
    takes exactly the steps an uninterrupted one would.
    """
    out = Path(out)
    device = _device(config.device)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if config.batch_size % world:
        raise StickgenError(f"batch_size {config.batch_size} must be a multiple of the {world} processes.")
    if minutes is not None:
        check_range("--minutes", minutes, 0.0)
        if world > 1:
            raise StickgenError("--minutes works in one process only, not under torchrun.")
    dist = _init_distributed(device)
    model_config = dataclasses.replace(config.model, text_dim=int(data.encoder["dim"]))
    config = dataclasses.replace(config, model=model_config)
    initial = None if config.init is None else _initial_weights(config.init, model_config, data)
    train_config = to_dict(config)
    if not config.action_weights:  # run folders made before the option existed still resume
        del train_config["action_weights"]
    run_config = {"train": train_config, "data": data.description}
    # Checked before the run folder is made: a refused start leaves nothing that blocks the next one.
    weights = clip_weights(data.train.clips, config.action_weights)
    sampler = BucketSampler(data.train.lengths, config.batch_size, config.seed, weights=weights)
    resume_from = _prepare_run_folder(out, run_config) if dist.main else None
    if dist.world > 1:
        import torch.distributed as tdist

        shared = [str(resume_from) if resume_from else None]
        tdist.broadcast_object_list(shared, src=0)
        resume_from = Path(shared[0]) if shared[0] else None

    torch.manual_seed(config.seed)
    model = StickFigureTransformer(model_config).to(device)
    if initial is not None and resume_from is None:
        state, init_layers = initial
        if init_layers < model_config.n_layers:
            state = deepened_state(state, init_layers, model)
            if dist.main:
                print(
                    f"init: the checkpoint's {init_layers} blocks go to places "
                    f"{block_places(init_layers, model_config.n_layers)} of {model_config.n_layers}; "
                    "the new blocks start as identities.", file=sys.stderr,
                )  # fmt: skip
        model.load_state_dict(state)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=config.optim.lr, betas=tuple(config.optim.betas),
        weight_decay=config.optim.weight_decay, fused=device.type == "cuda" or None,
    )  # fmt: skip
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_factor(s, config))
    state = _State(model, _Ema(model, config.ema_decay), optimizer, scheduler)
    if resume_from is not None:
        state.load(resume_from, device)
    train_model: torch.nn.Module = model
    if dist.world > 1:
        from torch.nn.parallel import DistributedDataParallel

        ids = [device.index] if device.type == "cuda" else None
        train_model = DistributedDataParallel(model, device_ids=ids)

    batches = sampler.iterate(state.epoch, state.position)
    mean = torch.from_numpy(data.mean).to(device)
    std = torch.from_numpy(data.std).to(device)
    log = _Log(out, resume_step=state.step) if dist.main else None
    end = config.steps if stop_after is None else min(config.steps, stop_after)
    bar = _progress(state.step, config.steps, enabled=progress and dist.main)
    window = _Window()

    def checkpoint() -> Path:
        val = validation_loss(_ema_model(model_config, state.ema, device), data, config, device)
        improved = val < state.best
        folder = _save(out, state, data, config, val)
        if improved:
            _point(out / "best", folder)
        _point(out / "latest", folder)
        _prune(out, config.keep_last)
        log.validation(state.step, val)
        return folder

    last_folder = None
    deadline = None if minutes is None else time.monotonic() + 60.0 * minutes
    try:
        while state.step < end:
            t_data = time.perf_counter()
            state.epoch, b, global_idx = next(batches)
            step = state.step
            torch.manual_seed(int(step_generator(config.seed, step, stream=2).initial_seed() % 2**63))
            frames = int(data.train.lengths[global_idx].max())
            draws = Draws.draw(len(global_idx), frames, step_generator(config.seed, step), device)
            rows = slice(dist.rank, None, dist.world)
            local_draws = draws.select(rows)
            choice = local_draws.uniforms[:, 3]
            parts = None
            if config.text_parts > 0:  # a stream of its own, so the other draws stay as they were
                parts = torch.rand(len(global_idx), generator=step_generator(config.seed, step, stream=3))
                parts = parts[rows] < config.text_parts
            batch = collate(data.train, global_idx[rows], mean, std, choice, device=device, parts=parts)
            window.data_seconds += time.perf_counter() - t_data

            train_model.train()
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda"):
                terms = flow_matching_losses(
                    train_model, batch, mean=mean, std=std, weights=config.losses, drop=config.drop,
                    draws=local_draws,
                )  # fmt: skip
            optimizer.zero_grad(set_to_none=True)
            terms["total"].backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), config.optim.grad_clip)
            optimizer.step()
            scheduler.step()
            state.ema.update(model, step)
            state.step, state.position = step + 1, b + 1
            if deadline is not None and state.step < end and time.monotonic() >= deadline:
                end = state.step  # logged and checkpointed below, as the last step
                if dist.main:
                    print(
                        f"stickgen: stopped after {minutes:g} minutes at step {state.step}; rerun the same "
                        "command to resume.",
                        file=sys.stderr,
                    )  # fmt: skip
            window.add(int(data.train.lengths[global_idx].sum()), terms)
            if bar is not None:
                bar.update(1)
            if not dist.main:
                continue
            if state.step % config.log_every == 0 or state.step == end:
                row = log.train_row(
                    state.step, state.epoch, scheduler.get_last_lr()[0], float(grad_norm), window
                )
                if bar is not None:  # the mean since the last row: reading each step's would wait for a GPU
                    bar.set_postfix(loss=f"{row['loss_total']:.3f}", refresh=False)
                if on_log is not None:
                    on_log(row)
                window = _Window()
            if state.step % config.checkpoint_every == 0 or state.step == end:
                last_folder = checkpoint()
            elif state.step % config.val_every == 0:
                ema_model = _ema_model(model_config, state.ema, device)
                log.validation(state.step, validation_loss(ema_model, data, config, device))
            if config.sample_prompts and config.sample_every and state.step % config.sample_every == 0:
                _write_samples(out, model_config, state.ema, data, config, state.step, device)
    except KeyboardInterrupt:
        if dist.main and state.step > 0:
            last_folder = checkpoint()
            print(
                f"stickgen: interrupted at step {state.step}; rerun the same command to resume.",
                file=sys.stderr,
            )
        raise
    finally:
        if bar is not None:
            bar.close()
    if dist.main and state.step >= config.steps:
        if config.sample_prompts:
            _write_samples(out, model_config, state.ema, data, config, state.step, device)
        log.plot()
    if last_folder is None and dist.main and (out / "latest").exists():
        last_folder = (out / "latest").resolve()
    return TrainResult(checkpoint=last_folder, model=model, ema=state.ema.shadow, steps=state.step)


@dataclass
class _Window:
    """Running sums between two log rows."""

    start: float = field(default_factory=time.perf_counter)
    steps: int = 0
    frames: int = 0
    data_seconds: float = 0.0
    terms: dict[str, torch.Tensor] = field(default_factory=dict)  # float64 sums, on the loss's device

    def add(self, frames: int, terms: dict[str, torch.Tensor]) -> None:
        # Summed where the losses are: reading each one back every step would make the host wait
        # for the GPU.
        self.steps += 1
        self.frames += frames
        for k, v in terms.items():
            value = v.detach().double()
            self.terms[k] = self.terms[k] + value if k in self.terms else value


@dataclass
class _State:
    """Everything a checkpoint saves and a resume restores."""

    model: StickFigureTransformer
    ema: _Ema
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    step: int = 0
    epoch: int = 0
    position: int = 0  # batches of `epoch` already taken
    best: float = math.inf  # best validation loss so far

    def state_dict(self) -> dict[str, Any]:
        return {
            "model": self.model.state_dict(),
            "ema": self.ema.shadow,
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "step": self.step,
            "epoch": self.epoch,
            "position": self.position,
            "best": self.best,
            "torch_rng": torch.get_rng_state(),
        }

    def load(self, folder: Path, device: torch.device) -> None:
        state = torch.load(folder / STATE_FILE, map_location=device, weights_only=False)
        self.model.load_state_dict(state["model"])
        self.ema.shadow = state["ema"]
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.step, self.epoch, self.position, self.best = (
            state["step"], state["epoch"], state["position"], state["best"]
        )  # fmt: skip
        torch.set_rng_state(state["torch_rng"].cpu())  # map_location moved it to the device

    def save(self, folder: Path) -> None:
        tmp = folder / f".{STATE_FILE}.tmp"
        torch.save(self.state_dict(), tmp)
        os.replace(tmp, folder / STATE_FILE)


def _progress(start: int, total: int, *, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    # A log file (not a terminal) gets a line every 30 s instead of a redraw per step.
    interval = 0.5 if sys.stderr.isatty() else 30.0
    return tqdm(
        total=total, initial=start, desc="training", unit="step", file=sys.stderr, dynamic_ncols=True,
        mininterval=interval,
    )  # fmt: skip


def _ema_model(config: ModelConfig, ema: _Ema, device: torch.device) -> StickFigureTransformer:
    model = StickFigureTransformer(config).to(device)
    model.load_state_dict(ema.shadow)
    return model.eval()


def _save(out: Path, state: _State, data: TrainingData, config: TrainConfig, val: float) -> Path:
    """Write checkpoint `step-NNNNNN`: the EMA model as a usable checkpoint, then the training state.

    The `latest` link moves only after both are complete, so an interrupted write leaves the previous
    checkpoint in charge.
    """
    folder = out / "checkpoints" / f"step-{state.step:06d}"
    training = {
        "data": data.description,
        "steps": state.step,
        "batch_size": config.batch_size,
        "seed": config.seed,
        "validation_loss": val,
    }
    save_checkpoint(
        folder, _ema_model(config.model, state.ema, torch.device("cpu")), encoder=data.encoder,
        norm_mean=data.mean, norm_std=data.std, training=training, dtype=config.checkpoint_dtype,
    )  # fmt: skip
    state.best = min(state.best, val)
    state.save(folder)
    return folder


def _prune(out: Path, keep: int) -> None:
    """Delete all but the newest `keep` checkpoints, never the one `best` points to."""
    folders = sorted((out / "checkpoints").glob("step-*"))
    best = (out / "best").resolve() if (out / "best").exists() else None
    for folder in folders[:-keep]:
        if folder.resolve() != best:
            shutil.rmtree(folder, ignore_errors=True)


def _write_samples(out, model_config, ema, data, config, step, device) -> None:
    """Render the fixed prompts with the EMA model into samples/step-NNNNNN.gif."""
    from stickgen.generation import generate_motions
    from stickgen.render import save_grid

    model = _ema_model(model_config, ema, device)
    prompts = list(config.sample_prompts)
    motions = generate_motions(
        model, prompts, encoder=data.encoder["name"], mean=data.mean, std=data.std, seed=0
    )
    save_grid(motions, out / "samples" / f"step-{step:06d}.gif", captions=prompts)


class _Log:
    """metrics.csv (always), TensorBoard (when installed), and the loss plot."""

    def __init__(self, out: Path, resume_step: int):
        self.path = out / "metrics.csv"
        self.rows: list[dict[str, Any]] = []
        if self.path.is_file():
            with open(self.path, newline="") as f:
                self.rows = [r for r in csv.DictReader(f) if int(r["step"]) <= resume_step]
        self.tensorboard = None
        try:
            from torch.utils.tensorboard import SummaryWriter

            self.tensorboard = SummaryWriter(str(out / "tensorboard"))
        except ImportError:
            pass

    def train_row(
        self, step: int, epoch: int, lr: float, grad_norm: float, window: _Window
    ) -> dict[str, Any]:
        seconds = max(time.perf_counter() - window.start, 1e-9)
        row: dict[str, Any] = {"step": step, "epoch": epoch, "lr": lr, "grad_norm": grad_norm}
        row.update({f"loss_{k}": float(v) / max(1, window.steps) for k, v in window.terms.items()})
        row["frames_per_s"] = window.frames / seconds
        row["data_wait_share"] = window.data_seconds / seconds
        row["val_total"] = ""
        self._append(row)
        return row

    def validation(self, step: int, val: float) -> None:
        for row in reversed(self.rows):
            if int(row["step"]) == step:
                row["val_total"] = val
                break
        else:
            self.rows.append({"step": step, "val_total": val})
        self._write()
        if self.tensorboard is not None:
            self.tensorboard.add_scalar("val/total", val, step)

    def _append(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        self._write()
        if self.tensorboard is not None:
            for k, v in row.items():
                if k.startswith("loss_") or k in ("lr", "frames_per_s"):
                    self.tensorboard.add_scalar(k, v, row["step"])

    def _write(self) -> None:
        fields: list[str] = []
        for row in self.rows:
            fields.extend(k for k in row if k not in fields)
        lines = [",".join(fields)]
        for row in self.rows:
            lines.append(",".join(str(row.get(k, "")) for k in fields))
        atomic_write_text(self.path, "\n".join(lines) + "\n")

    def plot(self) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        steps = [int(r["step"]) for r in self.rows if r.get("loss_total") not in (None, "")]
        fig, ax = plt.subplots(figsize=(7, 4))
        for key in ("loss_total", "loss_flow"):
            values = [float(r[key]) for r in self.rows if r.get(key) not in (None, "")]
            if values:
                ax.plot(steps[: len(values)], values, label=key.removeprefix("loss_"))
        val = [
            (int(r["step"]), float(r["val_total"])) for r in self.rows if r.get("val_total") not in (None, "")
        ]
        if val:
            ax.plot(*zip(*val, strict=True), "o-", label="validation total")
        ax.set_xlabel("step")
        ax.set_ylabel("loss")
        ax.set_yscale("log")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(self.path.with_name("loss.png"), dpi=120)
        plt.close(fig)
