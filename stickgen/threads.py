"""How many threads torch should use for a CPU computation now: no more than the cores other work
leaves free.

A parallel region of torch ends when every one of its threads has done its share. When another
process keeps a core busy, the thread the scheduler puts on that core runs only in its time slices,
and every region waits for it: on a 2-core machine with a training run holding one core, sampling a
10 s clip took 17.6 s of model time on torch's 2 threads against 0.47 s on 1 (`python
benchmarks/generate.py --busy` measures it). `fitted_threads()` counts the cores that other processes
keep busy, from the kernel's per-CPU counters over `WINDOW` seconds less this process's own CPU time,
and runs its block on torch's usual number of threads capped by the cores left (at least 1). A count
is reused for `REUSE` seconds, so calls in quick succession do not each pay for one. This needs
Linux's /proc/stat; elsewhere, or with `STICKGEN_FIT_THREADS=0` in the environment, the usual number
of threads is kept.

A seed gives the same motion either way as long as torch's kernels round alike on any number of
threads; tests/test_threads.py checks that they do for the bundled model's sampler on the machine it
runs on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

import torch

ENABLED = os.environ.get("STICKGEN_FIT_THREADS", "1") != "0"
WINDOW = 0.04  # seconds the counters are read over: four ticks of the usual 100 Hz clock
REUSE = 1.0  # seconds a count stays good
STAT = "/proc/stat"

_last: tuple[float, int] | None = None  # (when, CPUs left free) of the last count


def _allowed_cpus() -> set[int] | None:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def _cpu_ticks(cpus: set[int]) -> tuple[int, int]:
    """Clock ticks (all, idle) summed over `cpus` since boot, from /proc/stat."""
    total = idle = 0
    with open(STAT) as f:
        for line in f:
            name, *fields = line.split()
            if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in cpus:
                continue
            values = [int(v) for v in fields[:8]]  # user nice system idle iowait irq softirq steal
            total += sum(values)
            idle += values[3] + values[4]
    return total, idle


def _own_seconds() -> float:
    """CPU seconds this process has used, all its threads together."""
    times = os.times()
    return times.user + times.system


def busy_cpus(window: float = WINDOW) -> float | None:
    """How many of the CPUs this process may use other processes kept busy over the next `window`
    seconds (e.g. 1.0: one core's worth), or None where that cannot be read."""
    cpus = _allowed_cpus()
    if not cpus:
        return None
    try:
        total0, idle0 = _cpu_ticks(cpus)
        own0, wall0 = _own_seconds(), time.perf_counter()
        time.sleep(window)
        total1, idle1 = _cpu_ticks(cpus)
        own1, wall1 = _own_seconds(), time.perf_counter()
    except (OSError, ValueError):
        return None
    ticks = total1 - total0
    if ticks <= 0:
        return None
    busy = (ticks - (idle1 - idle0)) / ticks * len(cpus)
    own = (own1 - own0) / max(wall1 - wall0, 1e-9)
    return max(0.0, busy - own)


def fitting_threads(usual: int | None = None) -> int:
    """Torch's usual number of threads (or `usual`), capped by the CPUs other processes leave free."""
    global _last
    usual = torch.get_num_threads() if usual is None else usual
    if not ENABLED or usual <= 1:
        return usual
    now = time.monotonic()
    if _last is None or now - _last[0] > REUSE:
        busy = busy_cpus()
        if busy is None:
            return usual
        _last = (now, len(_allowed_cpus() or ()) - round(busy))
    return max(1, min(usual, _last[1]))


@contextmanager
def fitted_threads() -> Iterator[int]:
    """Run the block on `fitting_threads()` threads (torch's setting for the calling thread), then
    put the usual number back; yields the number used."""
    usual = torch.get_num_threads()
    threads = fitting_threads(usual)
    if threads == usual:
        yield usual
        return
    torch.set_num_threads(threads)
    try:
        yield threads
    finally:
        torch.set_num_threads(usual)
