"""Training throughput on this machine: frames per second for the tiny and small models, and the share
of each step spent waiting for data (batch assembly).

    python benchmarks/train.py [--steps 30] [--clips 256]

Clips come from the procedural synthesizer (in memory, no dataset on disk); text embeddings are random
unit vectors of the default encoder's size, so no text model is loaded. The first steps are warm-up and
are not timed: the trainer logs one row at the warm-up's end and one at the end.
"""

from __future__ import annotations

import argparse
import tempfile

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


def measure(variant: str, data: TrainingData, steps: int, warmup: int) -> dict:
    model = load_yaml_config(ModelConfig, f"configs/model/{variant}.yaml")
    config = TrainConfig(
        model=model, steps=warmup + steps, batch_size=32, log_every=warmup, checkpoint_every=10**9,
        val_every=10**9, sample_prompts=(), device="cpu",
    )  # fmt: skip
    rows = []
    with tempfile.TemporaryDirectory() as out:
        train(config, data, out, progress=False, on_log=rows.append, stop_after=warmup + steps)
    return rows[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--clips", type=int, default=256)
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; batch 32 clips")
    data = clip_bank(args.clips)
    print(f"{len(data.train)} synthesized clips, mean {data.train.lengths.mean():.0f} frames")
    for variant in ("tiny", "small"):
        row = measure(variant, data, args.steps, args.warmup)
        print(
            f"{variant:6s} {row['frames_per_s']:9.0f} frames/s  "
            f"{row['frames_per_s'] / data.train.lengths.mean() / 32:5.2f} steps/s  "
            f"data wait {100 * row['data_wait_share']:.1f} %"
        )


if __name__ == "__main__":
    main()
