"""Generation speed on this machine.

    python benchmarks/generate.py [--checkpoint DIR] [--runs 3] [--story-only | --busy | --parts]

1. Model time: sampling one 10 s clip (250 frames) with the default sampler (`DEFAULT_STEPS` Euler
   steps, with classifier-free guidance, two network evaluations each, while t < `GUIDANCE_UNTIL`, one
   after it, and one more), in this process, after one warm-up; side by side with the samplers before
   it (`BEFORE`: the same steps guided while t < 0.75, guided throughout, and the 20 guided steps
   before those), the runs interleaved, and the ratios.
2. End to end: the wall time of whole `stickgen generate "a person jumps"` processes writing a GIF,
   with a warm embedding cache (the prompt embedded before) and a cold one (an empty cache folder, so
   the text encoder is loaded).
3. A story (issue 16): a 60-second story of 8 segments (`STORY`), made by `editing.tell_story` in
   overlapping windows, in this process after one warm-up, and by a whole `stickgen story` process
   writing a .npz (warm embedding cache).

5. With `--sizes 320x6,384x6`: the model time of 1. and the bfloat16 size of models shaped like the
   checkpoint's but with another width × depth (d_model × n_layers, random weights: the time does not
   depend on them), interleaved with the checkpoint itself, and the ratios: which wider model still
   fits ≤ 0.5 s and the bundled checkpoint's ≤ 30 MB.

4. With `--busy`: the model time of 1. and the warm `stickgen generate` of 2. while another process
   keeps one core busy (a Python loop), with torch's threads fitted to the free cores
   (stickgen/threads.py, the default) and, side by side, with torch's usual number of threads (as
   before, `STICKGEN_FIT_THREADS=0`), interleaved; it prints the ratios.

6. With `--parts`: the model time of 1. from the text alone for a prompt of three parts, each part's
   sentence over a third of the clip (`generation.text_by_parts`, a sentence per frame), side by side
   with one sentence for the whole clip, interleaved, and the ratio.

Targets on 2 CPU cores: ≤ 0.5 s of model time for a 10 s clip; ≤ 3 s for the whole process when the
prompt is cached.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from stickgen import threads
from stickgen.generation import load_generator_checkpoint
from stickgen.model import StickFigureTransformer
from stickgen.ranges import DEFAULT_GUIDANCE, DEFAULT_STEPS, GUIDANCE_UNTIL
from stickgen.sampling import network_evaluations, sample

# (steps, guidance_until) of a sampler: the default, and the defaults before it it is timed against
Sampler = tuple[int, float]
DEFAULT: Sampler = (DEFAULT_STEPS, GUIDANCE_UNTIL)
BEFORE: dict[str, Sampler] = {
    "16 steps guided while t < 0.75, until 2026-11-27": (16, 0.75),
    "16 steps guided throughout, until 2026-11-27": (16, 1.0),
    "20 steps guided throughout, until 2026-11-26": (20, 1.0),
}

# 8 segments, 60 s: what `benchmarks/generate.py` times as "a 60-second story".
STORY = [(7.5, "a person walks forward"), (7.5, "a person jumps"), (7.5, "a person waves"),
         (7.5, "a person runs"), (7.5, "a person sits down"), (7.5, "a person stands up"),
         (7.5, "a person dances"), (7.5, "a person bows")]  # fmt: skip


def model_time(checkpoint: str | None, runs: int, *, fit: bool = True) -> float:
    return model_times(checkpoint, runs, (DEFAULT,), fit=fit)[DEFAULT]


def model_times(
    checkpoint: str | None, runs: int, samplers: tuple[Sampler, ...], *, fit: bool = True
) -> dict[Sampler, float]:
    """The median model time of one 10 s clip for each sampler, the samplers interleaved."""
    threads.ENABLED = fit
    ckpt = load_generator_checkpoint(checkpoint, "cpu")
    # each sampler once, even if named twice
    jobs = {(steps, until): (ckpt.model, steps, until) for steps, until in samplers}
    return clip_times(jobs, ckpt.config.text_dim, runs)


def clip_times(jobs: dict, text_dim: int, runs: int) -> dict:
    """For each key of `jobs`, (model, steps, guidance_until[, text]): the median time of sampling one
    10 s clip, after one warm-up each, the jobs interleaved run by run. text: (1, D) or (1, 250, D);
    by default one random unit sentence vector."""
    sentence = torch.randn(1, text_dim)
    sentence = sentence / sentence.norm()

    def once(model: StickFigureTransformer, steps: int, until: float, text: torch.Tensor = sentence) -> float:
        start = time.perf_counter()
        sample(model, frames=250, text=text, steps=steps, guidance_until=until,
               generator=torch.Generator().manual_seed(0))  # fmt: skip
        return time.perf_counter() - start

    times: dict = {key: [] for key in jobs}
    for job in jobs.values():
        once(*job)
    for _ in range(runs):
        for key, job in jobs.items():
            times[key].append(once(*job))
    return {key: statistics.median(t) for key, t in times.items()}


def process_time(checkpoint: str | None, cache_dir: str, out: Path, *, fit: bool = True) -> float:
    command = [sys.executable, "-m", "stickgen", "generate", "a person jumps", "-o", str(out)]
    if checkpoint:
        command += ["--checkpoint", checkpoint]
    env = {**os.environ, "STICKGEN_CACHE_DIR": cache_dir, "HF_HUB_OFFLINE": "1"}
    env["STICKGEN_FIT_THREADS"] = "1" if fit else "0"
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
    parser.add_argument("--busy", action="store_true", help="time only with one core kept busy (4.)")
    parser.add_argument("--sizes", default=None, help="time only other widths x depths: 320x6,384x6 (5.)")
    parser.add_argument("--parts", action="store_true", help="time only a prompt of three parts (6.)")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    if args.sizes:
        sizes(args)
        return
    if args.story_only:
        story(args)
        return
    if args.busy:
        busy(args)
        return
    if args.parts:
        parts(args)
        return
    runs = max(args.runs, 5)
    times = model_times(args.checkpoint, runs, (DEFAULT, *BEFORE.values()))
    steps, until = DEFAULT
    evaluations = network_evaluations(steps, DEFAULT_GUIDANCE, "euler", until)
    name = f"default: {steps} steps guided while t < {until:g}, {evaluations} evaluations"
    print(f"model time, 10 s clip ({name}): {times[DEFAULT]:.3f} s")
    for name, before in BEFORE.items():
        evaluations = network_evaluations(before[0], DEFAULT_GUIDANCE, "euler", before[1])
        print(f"  before ({name}, {evaluations} evaluations): {times[before]:.3f} s, "
              f"ratio {times[before] / times[DEFAULT]:.2f}x")  # fmt: skip
    print(f"(medians of {runs} runs each, interleaved)")
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


def sizes(args: argparse.Namespace) -> None:
    ckpt = load_generator_checkpoint(args.checkpoint, "cpu")
    models = {f"{ckpt.config.d_model}x{ckpt.config.n_layers} (the checkpoint)": ckpt.model}
    for size in args.sizes.split(","):
        width, depth = (int(n) for n in size.lower().split("x"))
        config = dataclasses.replace(ckpt.config, d_model=width, n_layers=depth)
        models[f"{width}x{depth}"] = StickFigureTransformer(config).eval()
    runs = max(args.runs, 5)
    steps, until = DEFAULT
    times = clip_times({name: (m, steps, until) for name, m in models.items()}, ckpt.config.text_dim, runs)
    base = next(iter(times.values()))
    print(f"model time of a 10 s clip (the default sampler), medians of {runs} interleaved runs")
    print("| d_model x n_layers | parameters | bfloat16 | model time | ratio |")
    print("|---|---|---|---|---|")
    for name, model in models.items():
        count = sum(p.numel() for p in model.parameters())
        median = times[name]
        size = f"{2 * count / 1e6:.1f} MB"
        print(f"| {name} | {count / 1e6:.1f}M | {size} | {median:.3f} s | {median / base:.2f}x |")


def parts(args: argparse.Namespace) -> None:
    ckpt = load_generator_checkpoint(args.checkpoint, "cpu")
    three = torch.randn(3, ckpt.config.text_dim)
    three = three / three.norm(dim=1, keepdim=True)
    by_parts = three[torch.arange(250) * 3 // 250][None]  # (1, 250, D): a third of the clip each
    steps, until = DEFAULT
    runs = max(args.runs, 5)
    jobs = {"one sentence": (ckpt.model, steps, until), "three parts": (ckpt.model, steps, until, by_parts)}
    times = clip_times(jobs, ckpt.config.text_dim, runs)
    one, split = times["one sentence"], times["three parts"]
    print(f"model time of a 10 s clip from the text alone, medians of {runs} interleaved runs")
    print(f"one sentence: {one:.3f} s; three parts, a sentence per frame: {split:.3f} s")
    print(f"ratio {split / one:.2f}x")


def busy(args: argparse.Namespace) -> None:
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1.0)
        model = {True: [], False: []}
        process = {True: [], False: []}
        with tempfile.TemporaryDirectory() as tmp:
            process_time(args.checkpoint, tmp, Path(tmp) / "x.gif")  # embeds the prompt once
            for _ in range(args.runs):
                for fit in (True, False):
                    model[fit].append(model_time(args.checkpoint, 1, fit=fit))
                    process[fit].append(process_time(args.checkpoint, tmp, Path(tmp) / "x.gif", fit=fit))
    finally:
        hog.kill()
        threads.ENABLED = True
    print(f"one core kept busy by another process; medians of {args.runs} interleaved runs")
    print("| | threads fitted to the free cores | torch's usual threads (before) | ratio |")
    print("|---|---|---|---|")
    for name, times in (("model time, 10 s clip", model), ("stickgen generate, warm cache", process)):
        fitted, usual = statistics.median(times[True]), statistics.median(times[False])
        print(f"| {name} | {fitted:.2f} s | {usual:.2f} s | {usual / fitted:.1f}x |")


if __name__ == "__main__":
    main()
