"""Training throughput on this machine: steps, clips and frames per second by model and batch size.

Frames per second count the clips' mean length; "batch assembly" is the share of each step the host
spends assembling the batch (`data_wait_share` in a run's metrics.csv).

    python benchmarks/train.py [--models tiny,small] [--batch 32] [--device cpu] [--steps 30] [--clips 256]
    python benchmarks/train.py --models default --device cuda --batch 256,1024,2048 --clips 8000

A model is a file of configs/model/ or a training config of configs/train/ (its model is used; "default"
is the bundled model's). Clips come from the procedural synthesizer (in memory, no dataset on disk; the
largest batch must not exceed `--clips`); text embeddings are random unit vectors of the default
encoder's size, so no text model is loaded. The first steps are warm-up and are not timed: the trainer
logs one row at the warm-up's end and one at the end. On a GPU the host queues work ahead of the GPU;
the rates are timed between the two log rows all the same, since a row waits for its step's numbers.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from stickgen.batches import TrainingData, in_memory_training_data
from stickgen.config import load_yaml_config
from stickgen.model import ModelConfig
from stickgen.synth.sampler import sample_clip
from stickgen.trainer import TrainConfig, train


def clip_bank(clips: int, text_dim: int = 384) -> TrainingData:
    motions = [sample_clip(0, i) for i in range(clips)]
    rng = np.random.default_rng(0)
    table = rng.normal(size=(clips, text_dim)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    encoder = {"name": "benchmark", "id": "random", "dim": text_dim}
    return in_memory_training_data(motions, table, encoder, "benchmark clips")


def model_config(name: str) -> ModelConfig:
    """configs/model/NAME.yaml, or the model of configs/train/NAME.yaml."""
    if Path(f"configs/model/{name}.yaml").exists():
        return load_yaml_config(ModelConfig, f"configs/model/{name}.yaml")
    if Path(f"configs/train/{name}.yaml").exists():
        return load_yaml_config(TrainConfig, f"configs/train/{name}.yaml").model
    sys.exit(f"benchmarks/train.py: no configs/model/{name}.yaml or configs/train/{name}.yaml.")


def measure(model: ModelConfig, data: TrainingData, batch: int, device: str, steps: int, warmup: int) -> dict:
    config = TrainConfig(
        model=model, steps=warmup + steps, batch_size=batch, log_every=warmup, checkpoint_every=10**9,
        val_every=10**9, sample_prompts=(), device=device,
    )  # fmt: skip
    rows, times = [], []

    def log(row: dict) -> None:  # a log row reads the step's numbers back, so the GPU has caught up
        rows.append(row)
        times.append(time.perf_counter())

    with tempfile.TemporaryDirectory() as out:
        train(config, data, out, progress=False, on_log=log, stop_after=warmup + steps)
    timed = [i for i, row in enumerate(rows) if row["step"] > warmup]
    start = timed[0] - 1  # the row at the warm-up's end
    return {
        "steps_per_s": steps / (times[-1] - times[start]),
        "data_wait_share": float(np.mean([rows[i]["data_wait_share"] for i in timed])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="tiny,small", help="comma-separated model names")
    parser.add_argument("--batch", default="32", help="comma-separated batch sizes (clips per step)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N, mps")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--clips", type=int, default=256)
    args = parser.parse_args()
    try:
        batches = [int(b) for b in args.batch.split(",")]
    except ValueError:
        sys.exit(f"benchmarks/train.py: --batch takes whole numbers separated by commas, not {args.batch!r}.")
    if min(batches) < 1 or max(batches) > args.clips:
        sys.exit(f"benchmarks/train.py: batch sizes must be between 1 and --clips ({args.clips}).")
    if args.steps < 1 or args.warmup < 1:
        sys.exit("benchmarks/train.py: --steps and --warmup must be at least 1.")
    models = {name: model_config(name) for name in args.models.split(",")}
    name = (
        torch.cuda.get_device_name()
        if args.device.startswith("cuda")
        else f"{torch.get_num_threads()} threads"
    )
    print(f"torch {torch.__version__}, {args.device} ({name})")
    data = clip_bank(args.clips)
    mean_frames = data.train.lengths.mean()
    print(f"{len(data.train)} synthesized clips, mean {mean_frames:.0f} frames")
    print("| model | batch | steps/s | clips/s | frames/s | batch assembly |")
    print("|---|---|---|---|---|---|")
    for label, model in models.items():
        for batch in batches:
            row = measure(model, data, batch, args.device, args.steps, args.warmup)
            steps_per_s = row["steps_per_s"]
            print(
                f"| {label} | {batch} | {steps_per_s:.2f} | {steps_per_s * batch:.0f} | "
                f"{steps_per_s * batch * mean_frames:.0f} | {100 * row['data_wait_share']:.1f} % |",
                flush=True,
            )


if __name__ == "__main__":
    main()
