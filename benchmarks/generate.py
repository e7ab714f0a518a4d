"""Generation speed on this machine.

    python benchmarks/generate.py [--checkpoint DIR] [--runs 3]

1. Model time: sampling one 10 s clip (250 frames) with the default sampler (20 Euler steps with
   classifier-free guidance: 41 network evaluations), in this process, after one warm-up.
2. End to end: the wall time of whole `stickgen generate "a person jumps"` processes writing a GIF,
   with a warm embedding cache (the prompt embedded before) and a cold one (an empty cache folder, so
   the text encoder is loaded).
3. A story (issue 16): a 60-second story of 8 segments (`STORY`), made by `editing.tell_story` in
   overlapping windows, in this process after one warm-up, and by a whole `stickgen story` process
   writing a .npz (warm embedding cache).

Targets on 2 CPU cores: ≤ 0.5 s of model time for a 10 s clip; ≤ 3 s for the whole process when the
prompt is cached.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from stickgen.generation import load_generator_checkpoint
from stickgen.sampling import network_evaluations, sample

# 8 segments, 60 s: what `benchmarks/generate.py` times as "a 60-second story".
STORY = [(7.5, "a person walks forward"), (7.5, "a person jumps"), (7.5, "a person waves"),
         (7.5, "a person runs"), (7.5, "a person sits down"), (7.5, "a person stands up"),
         (7.5, "a person dances"), (7.5, "a person bows")]  # fmt: skip


def model_time(checkpoint: str | None, runs: int) -> float:
    ckpt = load_generator_checkpoint(checkpoint, "cpu")
    text = torch.randn(1, ckpt.config.text_dim)
    text = text / text.norm()

    def once() -> float:
        start = time.perf_counter()
        sample(ckpt.model, frames=250, text=text, generator=torch.Generator().manual_seed(0))
        return time.perf_counter() - start

    once()
    return statistics.median(once() for _ in range(runs))


def process_time(checkpoint: str | None, cache_dir: str, out: Path) -> float:
    command = [sys.executable, "-m", "stickgen", "generate", "a person jumps", "-o", str(out)]
    if checkpoint:
        command += ["--checkpoint", checkpoint]
    env = {**os.environ, "STICKGEN_CACHE_DIR": cache_dir, "HF_HUB_OFFLINE": "1"}
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, capture_output=True)
    return time.perf_counter() - start


def story_time(checkpoint: str | None, runs: int) -> float:
    from stickgen.editing import tell_story

    def once() -> float:
        start = time.perf_counter()
        tell_story(STORY, checkpoint=checkpoint, device="cpu")
        return time.perf_counter() - start

    once()
    return statistics.median(once() for _ in range(runs))


def story_process_time(checkpoint: str | None, folder: Path) -> float:
    story = folder / "story.txt"
    story.write_text("".join(f"{seconds} {text}\n" for seconds, text in STORY))
    command = [sys.executable, "-m", "stickgen", "story", str(story), "-o", str(folder / "story.npz")]
    if checkpoint:
        command += ["--checkpoint", checkpoint]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    subprocess.run(command, check=True, env=env, capture_output=True)  # embeds the texts once
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None, help="a checkpoint folder (default: the bundled model)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--story-only", action="store_true", help="time only the 60-second story (3.)")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    if args.story_only:
        story(args)
        return
    seconds = model_time(args.checkpoint, args.runs)
    print(f"model time, 10 s clip ({network_evaluations(20, 2.5, 'euler')} evaluations): {seconds:.3f} s")
    with tempfile.TemporaryDirectory() as tmp:
        cold, warm = [], []
        for k in range(args.runs):
            cache = Path(tmp) / f"cold-{k}"
            cache.mkdir()
            cold.append(process_time(args.checkpoint, str(cache), Path(tmp) / "cold.gif"))
            warm.append(process_time(args.checkpoint, str(cache), Path(tmp) / "warm.gif"))
    print(f"stickgen generate, cold cache: {statistics.median(cold):.2f} s (median of {args.runs})")
    print(f"stickgen generate, warm cache: {statistics.median(warm):.2f} s (median of {args.runs})")
    print(f"ratio: {statistics.median(cold) / statistics.median(warm):.1f}")
    story(args)


def story(args: argparse.Namespace) -> None:
    total = sum(seconds for seconds, _ in STORY)
    seconds = story_time(args.checkpoint, args.runs)
    print(f"story of {len(STORY)} segments, {total:g} s, tell_story: {seconds:.2f} s (median of {args.runs})")
    with tempfile.TemporaryDirectory() as tmp:
        seconds = story_process_time(args.checkpoint, Path(tmp))
    print(f"stickgen story, the same story written to .npz: {seconds:.2f} s")


if __name__ == "__main__":
    main()
