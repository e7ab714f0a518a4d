"""Forward-pass speed of the model presets on this machine, and SDPA against naive attention.

Run: `python benchmarks/model.py [--variants tiny small] [--lengths 64 128] [--batch-sizes 1 8]`.
Prints milliseconds per forward (eval mode, no grad, median of several runs after warm-up) for each
preset in configs/model/ at each sequence length and batch size; then, in the same run, the time of
`F.scaled_dot_product_attention` against a naive softmax(QKᵀ/√d)·V of the same shapes (the small
preset's heads at the longest length), ending with the line `ratio: N` = naive time / SDPA time.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

from stickgen.config import load_yaml_config
from stickgen.model import CAMERA_DIM, FEATURE_DIM, N_ACTIONS, ModelConfig, StickFigureTransformer

CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "model"


def median_ms(fn: Callable[[], object], warmup: int, repeats: int) -> float:
    """Median wall time of `fn()` in milliseconds over `repeats` runs, after `warmup` untimed runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def forward_ms(config: ModelConfig, batch_size: int, length: int, warmup: int, repeats: int) -> float:
    """Milliseconds per forward of a freshly initialised model on random inputs with every condition."""
    g = torch.Generator().manual_seed(0)
    model = StickFigureTransformer(config).eval()
    x = torch.randn(batch_size, length, FEATURE_DIM, generator=g)
    t = torch.rand(batch_size, generator=g)
    text = torch.randn(batch_size, config.text_dim, generator=g)
    actions = torch.randint(0, N_ACTIONS, (batch_size, length), generator=g)
    camera = torch.randn(batch_size, length, CAMERA_DIM, generator=g)
    mask = torch.ones(batch_size, length, dtype=torch.bool)
    with torch.no_grad():
        return median_ms(
            lambda: model(x, t, mask=mask, text=text, actions=actions, camera=camera), warmup, repeats
        )


def naive_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """softmax(q kᵀ / √d) v for q, k, v (B, H, T, D), written out."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, T, T)
    return scores.softmax(dim=-1) @ v  # (B, H, T, D)


def attention_ratio(
    config: ModelConfig, batch_size: int, length: int, warmup: int, repeats: int
) -> tuple[float, float]:
    """(naive ms, SDPA ms) for one attention call with `config`'s heads at `length` frames."""
    g = torch.Generator().manual_seed(0)
    shape = (batch_size, config.n_heads, length, config.head_dim)
    q, k, v = (torch.randn(shape, generator=g) for _ in range(3))
    torch.testing.assert_close(naive_attention(q, k, v), F.scaled_dot_product_attention(q, k, v))
    with torch.no_grad():
        naive = median_ms(lambda: naive_attention(q, k, v), warmup, repeats)
        sdpa = median_ms(lambda: F.scaled_dot_product_attention(q, k, v), warmup, repeats)
    return naive, sdpa


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=["tiny", "small", "medium", "large"])
    parser.add_argument("--lengths", nargs="+", type=int, default=[64, 128, 250])
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[1, 8])
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, float32, eval, no grad")
    print(
        f"{'variant':<8} {'params':>11} {'batch':>5} " + " ".join(f"{f'T={n} ms':>10}" for n in args.lengths)
    )
    for variant in args.variants:
        config = load_yaml_config(ModelConfig, CONFIGS / f"{variant}.yaml")
        params = sum(p.numel() for p in StickFigureTransformer(config).parameters())
        for batch_size in args.batch_sizes:
            cells = [forward_ms(config, batch_size, n, args.warmup, args.repeats) for n in args.lengths]
            print(f"{variant:<8} {params:>11,} {batch_size:>5} " + " ".join(f"{ms:>10.1f}" for ms in cells))

    config = load_yaml_config(ModelConfig, CONFIGS / "small.yaml")
    length, batch_size = max(args.lengths), max(args.batch_sizes)
    naive, sdpa = attention_ratio(config, batch_size, length, 5 * args.warmup, 10 * args.repeats)
    print(
        f"attention, B={batch_size} H={config.n_heads} T={length} D={config.head_dim}: "
        f"naive {naive:.3f} ms, SDPA {sdpa:.3f} ms"
    )
    print(f"ratio: {naive / sdpa:.2f}")


if __name__ == "__main__":
    main()
