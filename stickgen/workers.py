"""Worker processes for the dataset writers (`data synth`, `data import`).

`worker_pool(n)` is a pool of `n` spawned processes that ignore Ctrl-C: an interrupt reaches the
parent alone, which stops the pool (its shards and parts written so far stay, so rerunning the same
command resumes), instead of every worker printing its own traceback.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import signal
import threading


def worker_pool(processes: int) -> multiprocessing.pool.Pool:
    """A pool of `processes` spawned workers that ignore SIGINT from their first instruction on.

    The parent ignores SIGINT while it starts them (a process started with a signal ignored keeps it
    ignored, so even a worker still importing cannot be interrupted), then restores its own handler.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        return multiprocessing.get_context("spawn").Pool(processes, initializer=_ignore_interrupts)
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def _ignore_interrupts() -> None:
    """In a worker: leave Ctrl-C to the parent (also for workers the pool starts later)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
