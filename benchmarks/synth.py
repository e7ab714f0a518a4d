"""Synthesizer throughput: clips per second writing a real dataset with the default workers.

    python benchmarks/synth.py [--clips 2000] [--workers N]

Prints clips/s and the estimated time for 20,000 clips (the target: under 5 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from stickgen.synth.build import synthesize_dataset


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clips", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=None, help="default: all CPU cores")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    workers = args.workers or os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        synthesize_dataset(f"{folder}/data", clips=args.clips, seed=args.seed, workers=workers)
        seconds = time.perf_counter() - start
    rate = args.clips / seconds
    print(f"{args.clips} clips in {seconds:.1f} s with {workers} workers: {rate:.0f} clips/s")
    print(f"estimated time for 20,000 clips: {20000 / rate / 60:.1f} min (target < 5 min on 2 cores)")


if __name__ == "__main__":
    main()
