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

    The parent blocks SIGINT while it starts them (a process starts with its parent's signal mask, so
    even a worker still importing cannot be interrupted; each unblocks it once it ignores it), then
    unblocks it: a Ctrl-C that came meanwhile is delivered to the parent then, not lost.
    """
    main = threading.current_thread() is threading.main_thread()
    if not main:
        return multiprocessing.get_context("spawn").Pool(processes, initializer=_ignore_interrupts)
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool = multiprocessing.get_context("spawn").Pool(processes, initializer=_ignore_interrupts)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        raise
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a pending Ctrl-C arrives here
    except KeyboardInterrupt:
        pool.terminate()
        raise
    return pool


def _ignore_interrupts() -> None:
    """In a worker: leave Ctrl-C to the parent (also for workers the pool starts later)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
