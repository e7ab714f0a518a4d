"""Benchmark: encode one prompt in a fresh process with a cold cache, then with a warm cache.

Run as `python benchmarks/text.py [--encoder NAME] [--prompt TEXT]`. Each measurement is a new Python
process started with `STICKGEN_CACHE_DIR` pointing at a temporary folder, so the user's cache is never
touched. "cold" starts from an empty cache (hash the model folder, import sentence-transformers, load
the model, encode); "warm" repeats it once the first run has filled the cache (the cheap path: no
model, no sentence-transformers). Each time is the whole child process, wall-clock from start to exit,
with the time from its first import to the vector beside it. The last line is `ratio: cold / warm`.
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
vector = encoder.encode([sys.argv[2]])
print(json.dumps({"in_process_s": time.perf_counter() - start, "dim": int(vector.shape[1]),
                  "loads": encoder.load_count, "name": encoder.identity.name,
                  "heavy_imported": "sentence_transformers" in sys.modules}))
"""


def time_encode(encoder: str, prompt: str, cache_dir: str) -> dict:
    """Encode `prompt` in a fresh interpreter; return its report plus the wall time `total_s` (s)."""
    env = {**os.environ, "STICKGEN_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, encoder, prompt], env=env, capture_output=True, text=True, check=True
    )
    total = time.perf_counter() - start
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "total_s": total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", default="all-MiniLM-L6-v2", help="encoder name or folder")
    parser.add_argument("--prompt", default="a person jumps", help="the prompt to encode")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stickgen-bench-") as cache_dir:
        cold = time_encode(args.encoder, args.prompt, cache_dir)
        warm = time_encode(args.encoder, args.prompt, cache_dir)
    print(f"encoder: {cold['name']} ({cold['dim']}-dim), prompt: {args.prompt!r}")
    for label, run in (("cold", cold), ("warm", warm)):
        print(
            f"{label}: {run['total_s']:.3f} s whole process ({run['in_process_s']:.3f} s from first import "
            f"to vector), model loads: {run['loads']}, "
            f"sentence-transformers imported: {run['heavy_imported']}"
        )
    print(f"ratio: {cold['total_s'] / warm['total_s']:.1f}")


if __name__ == "__main__":
    main()
