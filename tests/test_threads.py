"""Threads for CPU work: the cores other processes keep busy are left to them."""

from __future__ import annotations

import os

import pytest
import torch

from stickgen import threads


@pytest.fixture(autouse=True)
def fresh_count(monkeypatch):
    monkeypatch.setattr(threads, "_last", None)
    monkeypatch.setattr(threads, "ENABLED", True)
    monkeypatch.setattr(threads, "_allowed_cpus", lambda: {0, 1})


def test_busy_cpus_counts_other_processes_not_this_one(monkeypatch):
    ticks = iter([(1000, 500), (1008, 504)])  # 8 ticks on 2 CPUs, 4 of them idle: one CPU's worth busy
    monkeypatch.setattr(threads, "_cpu_ticks", lambda cpus: next(ticks))
    own = iter([10.0, 10.0])
    monkeypatch.setattr(threads, "_own_seconds", lambda: next(own))
    assert threads.busy_cpus(window=0.01) == pytest.approx(1.0)

    # The same busy CPU, but this process used it all along: nobody else is busy.
    ticks = iter([(1000, 500), (1008, 504)])
    monkeypatch.setattr(threads, "_cpu_ticks", lambda cpus: next(ticks))
    clock = iter([0.0, 0.05])
    monkeypatch.setattr(threads.time, "perf_counter", lambda: next(clock))
    own = iter([10.0, 10.05])
    monkeypatch.setattr(threads, "_own_seconds", lambda: next(own))
    assert threads.busy_cpus(window=0.0) == pytest.approx(0.0)


def test_busy_cpus_reads_this_machine():
    if not os.path.exists(threads.STAT):
        pytest.skip("no /proc/stat here")
    busy = threads.busy_cpus(window=0.02)
    assert busy is not None and 0.0 <= busy <= os.cpu_count()


@pytest.mark.parametrize(
    ("busy", "usual", "cpus", "expected"),
    [(1.0, 2, {0, 1}, 1), (0.2, 2, {0, 1}, 2), (0.0, 2, {0, 1}, 2), (2.0, 2, {0, 1}, 1),
     (3.0, 8, {0, 1, 2, 3}, 1), (1.0, 2, {0, 1, 2, 3}, 2), (None, 2, {0, 1}, 2)],
)  # fmt: skip
def test_threads_fit_the_free_cpus(monkeypatch, busy, usual, cpus, expected):
    monkeypatch.setattr(threads, "_allowed_cpus", lambda: cpus)
    monkeypatch.setattr(threads, "busy_cpus", lambda window=threads.WINDOW: busy)
    assert threads.fitting_threads(usual) == expected


def test_a_count_is_reused_for_a_while(monkeypatch):
    calls = []
    monkeypatch.setattr(threads, "busy_cpus", lambda window=threads.WINDOW: calls.append(1) or 1.0)
    assert threads.fitting_threads(2) == 1 and threads.fitting_threads(2) == 1
    assert len(calls) == 1
    monkeypatch.setattr(threads, "REUSE", 0.0)
    threads.fitting_threads(2)
    assert len(calls) == 2


def test_switched_off_keeps_the_usual_number(monkeypatch):
    monkeypatch.setattr(threads, "ENABLED", False)
    monkeypatch.setattr(threads, "busy_cpus", lambda window=threads.WINDOW: 2.0)
    assert threads.fitting_threads(2) == 2


def test_fitted_threads_puts_the_usual_number_back(monkeypatch):
    usual = torch.get_num_threads()
    monkeypatch.setattr(threads, "fitting_threads", lambda n=None: 1)
    try:
        torch.set_num_threads(2)
        with threads.fitted_threads() as used:
            assert used == 1 and torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError), threads.fitted_threads():
            raise RuntimeError("inside")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(usual)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs 2 CPUs")
def test_a_seed_samples_the_same_motion_on_one_and_two_threads(monkeypatch):
    from stickgen.generation import load_generator_checkpoint
    from stickgen.sampling import sample

    monkeypatch.setattr(threads, "ENABLED", False)
    checkpoint = load_generator_checkpoint(None, "cpu")
    text = torch.randn(1, checkpoint.config.text_dim, generator=torch.Generator().manual_seed(1))
    actions = torch.full((1, 60), 3)
    usual = torch.get_num_threads()
    outputs = []
    try:
        for n in (1, 2):
            torch.set_num_threads(n)
            out = sample(checkpoint.model, frames=60, text=text, actions=actions, steps=6,
                         generator=torch.Generator().manual_seed(0))  # fmt: skip
            outputs.append(torch.cat([out.pose, out.position, out.velocity], dim=-1))
    finally:
        torch.set_num_threads(usual)
    assert torch.equal(outputs[0], outputs[1])
