"""Benchmark: encode one prompt in a fresh process with a cold cache, then with a warm cache.

Run as `python benchmarks/text.py [--encoder NAME] [--prompt TEXT] [--runs N] [--reader]`. Each
measurement is a new Python process started with `STICKGEN_CACHE_DIR` pointing at a temporary
folder, so the user's cache is never touched. "cold" starts from an empty cache (hash the model
folder, load the model, encode): as `TextEncoder` does it (for the packaged MiniLM,
`stickgen.bert_encoder` in plain PyTorch) and, side by side, through sentence-transformers as before
(the baseline: its import, its model, its encode). "warm" repeats it once a first run has filled the
cache (the cheap path: no model). Each time is the whole child process, wall-clock from start to
exit, the median of `--runs` interleaved runs, with the time from its first import to the vector
beside it. The last lines are the ratios. `--reader` times the meaning reader's encoder (MiniLM with
its adapter, `action_meaning.reader_encoder`) the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

_CHILD = """
import json, sys, time
start = time.perf_counter()
from stickgen.text import TextEncoder
encoder = TextEncoder(sys.argv[1])
if sys.argv[4] == "reader":
    from stickgen.action_meaning import reader_encoder
    encoder = reader_encoder(encoder)
if sys.argv[3] == "sentence-transformers":
    encoder._runner = encoder.model()  # the baseline: encode through sentence-transformers
vector = encoder.encode([sys.argv[2]])
print(json.dumps({"in_process_s": time.perf_counter() - start, "dim": int(vector.shape[1]),
                  "loads": encoder.load_count, "name": encoder.identity.name,
                  "heavy_imported": "sentence_transformers" in sys.modules}))
"""


def time_encode(
    encoder: str, prompt: str, cache_dir: str, path: str = "default", reader: bool = False
) -> dict:
    """Encode `prompt` in a fresh interpreter (`path` "sentence-transformers" forces the baseline;
    `reader` takes the meaning reader's encoder, with its adapter); return its report plus the wall time
    `total_s` (s)."""
    env = {**os.environ, "STICKGEN_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, encoder, prompt, path, "reader" if reader else "plain"], env=env,
        capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    total = time.perf_counter() - start
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "total_s": total}


def median_run(runs: list[dict]) -> dict:
    """The run of median whole-process time."""
    return sorted(runs, key=lambda run: run["total_s"])[len(runs) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", default="all-MiniLM-L6-v2", help="encoder name or folder")
    parser.add_argument("--prompt", default="a person jumps", help="the prompt to encode")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs of each (median)")
    parser.add_argument("--reader", action="store_true",
                        help="time the meaning reader's encoder (MiniLM with its adapter) instead")
    args = parser.parse_args()
    found: dict[str, list[dict]] = {"cold": [], "cold, sentence-transformers": [], "warm": []}
    for _ in range(args.runs):
        for label, path in (("cold", "default"), ("cold, sentence-transformers", "sentence-transformers")):
            with tempfile.TemporaryDirectory(prefix="stickgen-bench-") as cache_dir:
                found[label].append(time_encode(args.encoder, args.prompt, cache_dir, path, args.reader))
                if label == "cold":
                    warm = time_encode(args.encoder, args.prompt, cache_dir, reader=args.reader)
                    found["warm"].append(warm)
    runs = {label: median_run(each) for label, each in found.items()}
    first = runs["cold"]
    print(f"encoder: {first['name']} ({first['dim']}-dim), prompt: {args.prompt!r}, medians of {args.runs}")
    for label, run in runs.items():
        print(
            f"{label}: {run['total_s']:.3f} s whole process ({run['in_process_s']:.3f} s from first import "
            f"to vector), model loads: {run['loads']}, "
            f"sentence-transformers imported: {run['heavy_imported']}"
        )
    baseline = runs["cold, sentence-transformers"]["total_s"]
    print(f"ratio cold through sentence-transformers / cold: {baseline / first['total_s']:.2f}")
    print(f"ratio cold / warm: {first['total_s'] / runs['warm']['total_s']:.1f}")


if __name__ == "__main__":
    main()
