"""The studio's speed, and its behaviour under load, on this machine.

    python benchmarks/serve.py                                          # 50 requests, 4 clients
    python benchmarks/serve.py --requests 200 --clients 16 --processes 0    # the load run
    python benchmarks/serve.py --unbatched       # also the same load with --batch 1 (no batching)

1. Starts `stickgen serve` in its own process (a free port, a fresh embedding cache), warms it up with
   3 requests, reads its resident memory, and sends SINGLE requests one at a time (latency alone).
2. Then sends REQUESTS requests from CLIENTS concurrent clients (threads, one HTTP connection each): each
   asks for "a person jumps" as a 3 s GIF with its own seed, and downloads the GIF. Latency is from
   the request to the last byte of the GIF; p50 and p95 are over the successful requests. A 503 (the
   queue is full) is counted, not retried, and its client waits Retry-After seconds before its next
   request; anything else that is not a 200 is an error.
3. The server's memory after the run, against its memory after the warm-up.
4. With --unbatched, first the same concurrent load against a server with `--batch 1` (one request
   per sampler call, as before batching), and the ratio of the two p50s.
5. The same GIF from whole `stickgen generate` processes (PROCESSES of them, the prompt already in
   the cache), and the ratio of their median time to the server's p50, with CLIENTS clients and alone.

Target on 2 CPU cores: p50 ≤ 0.5 s for a 3 s clip as a GIF; under load no 5xx but 503, and memory
after the load within 50 MB of memory after the warm-up.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

PROMPT = "a person jumps"


def resident_mb(pid: int) -> float:
    """The resident memory of a process in MB (Linux: /proc), or NaN where it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def start_server(queue: int, env: dict[str, str], log: Path, batch: int = 8) -> tuple[subprocess.Popen, str]:
    command = [
        sys.executable,
        "-m",
        "stickgen",
        "serve",
        "--port",
        "0",
        "--device",
        "cpu",
        "--queue",
        str(queue),
        "--batch",
        str(batch),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log.open("w"), text=True, env=env)
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        process.kill()
        sys.exit(f"the server did not start; its log: {log}")
    return process, url


def one_request(client: httpx.Client, seed: int, seconds: float) -> tuple[int, float, float]:
    """(status, seconds, Retry-After) of one generation and the download of its GIF."""
    start = time.perf_counter()
    answer = client.post("/api/generate", json={"text": PROMPT, "seconds": seconds, "seed": seed})
    if answer.status_code == 200:
        gif = client.get(answer.json()["files"]["gif"])
        if gif.status_code != 200 or not gif.content.startswith(b"GIF8"):
            return gif.status_code if gif.status_code != 200 else 0, time.perf_counter() - start, 0.0
    retry_after = float(answer.headers.get("retry-after", 0))
    return answer.status_code, time.perf_counter() - start, retry_after


def load(url: str, requests: int, clients: int, seconds: float) -> tuple[list[tuple[int, float]], float]:
    """Send `requests` from `clients` threads; returns every (status, latency) and the wall time."""
    results: list[tuple[int, float]] = []
    next_seed = iter(range(1000, 1000 + requests))
    lock = threading.Lock()

    def client_loop() -> None:
        with httpx.Client(base_url=url, timeout=300) as client:
            while True:
                with lock:
                    seed = next(next_seed, None)
                if seed is None:
                    return
                try:
                    status, latency, retry_after = one_request(client, seed, seconds)
                except httpx.HTTPError:
                    status, latency, retry_after = -1, float("nan"), 0.0
                with lock:
                    results.append((status, latency))
                time.sleep(retry_after)  # a polite client: after a 503, its next request waits

    threads = [threading.Thread(target=client_loop) for _ in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, time.perf_counter() - start


def process_seconds(env: dict[str, str], out: Path, seconds: float, seed: int) -> float:
    command = [sys.executable, "-m", "stickgen", "generate", PROMPT, "--seconds", str(seconds), "--seed",
               str(seed), "--device", "cpu", "-o", str(out)]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, capture_output=True)
    return time.perf_counter() - start


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="clip duration")
    parser.add_argument("--queue", type=int, default=8, help="the server's --queue")
    parser.add_argument("--single", type=int, default=10, help="requests sent one at a time first")
    parser.add_argument(
        "--processes", type=int, default=3, help="stickgen generate runs to compare (0: none)"
    )
    parser.add_argument("--batch", type=int, default=8, help="the server's --batch")
    parser.add_argument(
        "--unbatched",
        action="store_true",
        help="also run the concurrent load against --batch 1, for the ratio",
    )
    args = parser.parse_args()
    unbatched = None

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "STICKGEN_CACHE_DIR": str(Path(tmp) / "cache"), "HF_HUB_OFFLINE": "1"}
        log = Path(tmp) / "server.log"
        if args.unbatched:
            process, url = start_server(args.queue, env, Path(tmp) / "unbatched.log", batch=1)
            try:
                load(url, 3, 1, args.seconds)
                unbatched, _ = load(url, args.requests, args.clients, args.seconds)
            finally:
                process.terminate()
                process.wait(timeout=60)
        process, url = start_server(args.queue, env, log, batch=args.batch)
        try:
            load(url, 3, 1, args.seconds)  # warm-up: the prompt is embedded, the code paths run once
            warm_mb = resident_mb(process.pid)
            alone, _ = load(url, args.single, 1, args.seconds)
            results, wall = load(url, args.requests, args.clients, args.seconds)
            time.sleep(1.0)  # let the last answers be written out
            after_mb = resident_mb(process.pid)
        finally:
            process.terminate()
            process.wait(timeout=60)
        server_log = log.read_text()
        runs = [process_seconds(env, Path(tmp) / "cli.gif", args.seconds, k) for k in range(args.processes)]

    alone_latencies = [seconds for status, seconds in alone if status == 200]
    alone_p50 = statistics.median(alone_latencies) if alone_latencies else float("nan")
    print(f"one client at a time: p50 {alone_p50:.3f} s ({len(alone_latencies)} of {len(alone)} answered)")
    latencies = [seconds for status, seconds in results if status == 200]
    statuses = [status for status, _ in results]
    errors = [s for s in statuses if s not in (200, 503)]
    print(f"{args.requests} requests from {args.clients} clients, {args.seconds:g} s clip as GIF, "
          f"queue {args.queue}, batch {args.batch}; "
          f"torch threads {os.environ.get('OMP_NUM_THREADS', 'default')}")  # fmt: skip
    if latencies:
        p50 = statistics.median(latencies)
        print(
            f"latency p50 {p50:.3f} s, p95 {percentile(latencies, 0.95):.3f} s (of {len(latencies)} answered)"
        )
    print(f"throughput {len(latencies) / wall:.2f} requests/s answered ({wall:.1f} s in all)")
    if unbatched is not None and latencies:
        one_by_one = [seconds for status, seconds in unbatched if status == 200]
        base = statistics.median(one_by_one)
        print(f"the same load with --batch 1: p50 {base:.3f} s, p95 {percentile(one_by_one, 0.95):.3f} s; "
              f"ratio of p50s (--batch 1 / --batch {args.batch}): {base / p50:.2f}")  # fmt: skip
    server_errors = sum(500 <= s < 600 and s != 503 for s in statuses)
    print(f"503 (queue full): {statuses.count(503)}; other 5xx: {server_errors}; other errors: {len(errors)}")
    print(f"server memory: {warm_mb:.1f} MB after warm-up, {after_mb:.1f} MB after the run "
          f"({after_mb - warm_mb:+.1f} MB)")  # fmt: skip
    print(f"tracebacks in the server log: {server_log.count('Traceback')}")
    if runs and latencies:
        median_run = statistics.median(runs)
        print(f"stickgen generate, one process per prompt: {median_run:.2f} s (median of {len(runs)}); "
              f"ratio to the server's p50: {median_run / p50:.1f} with {args.clients} clients, "
              f"{median_run / alone_p50:.1f} with one")  # fmt: skip


if __name__ == "__main__":
    main()
