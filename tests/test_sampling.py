"""The sampler's guidance interval, its action planner (the action head read at pure noise, and the
timeline it gives) and its judge (the action head read on finished clips, choosing among candidates)."""

import dataclasses

import numpy as np
import pytest
import torch

from stickgen.model import FEATURE_DIM, N_ACTIONS, ModelConfig, ModelOutput, StickFigureTransformer
from stickgen.ranges import GUIDANCE_UNTIL
from stickgen.sampling import (
    keep_best,
    network_evaluations,
    plan_actions,
    plan_agreement,
    sample,
    smooth_timeline,
)

TEXT_DIM = 16


def model_preferring(action: int) -> StickFigureTransformer:
    config = ModelConfig(d_model=32, n_layers=1, n_heads=2, text_dim=TEXT_DIM, patch=2, name="test")
    model = StickFigureTransformer(dataclasses.replace(config), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        model.heads["action_logits"].bias.view(2, N_ACTIONS)[:, action] = 50.0  # both frames of a token
    return model.eval()


def random_model() -> StickFigureTransformer:
    config = ModelConfig(d_model=32, n_layers=1, n_heads=2, text_dim=TEXT_DIM, name="test")
    model = StickFigureTransformer(config, generator=torch.Generator().manual_seed(3)).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.5 * torch.randn(p.shape, generator=torch.Generator().manual_seed(4)))
    return model


def test_guidance_acts_only_before_guidance_until():
    model = random_model()
    text = torch.randn(2, TEXT_DIM, generator=torch.Generator().manual_seed(5))

    def draw(**options) -> torch.Tensor:
        seed = torch.Generator().manual_seed(6)
        out = sample(model, frames=10, batch=2, text=text, steps=8, generator=seed, **options)
        return torch.cat([out.pose, out.position, out.velocity], dim=-1)

    never = draw(guidance=2.5, guidance_until=0.0)
    assert torch.allclose(never, draw(guidance=1.0), atol=1e-6)  # no guided step: as without guidance
    default = draw(guidance=2.5)
    assert torch.equal(default, draw(guidance=2.5, guidance_until=GUIDANCE_UNTIL))
    throughout = draw(guidance=2.5, guidance_until=1.0)
    assert not torch.allclose(default, throughout, atol=1e-4)
    assert not torch.allclose(default, never, atol=1e-4)


@pytest.mark.parametrize("solver", ["euler", "heun"])
@pytest.mark.parametrize(("steps", "guidance", "until"), [(16, 2.5, 0.625), (16, 2.5, 1.0), (5, 2.5, 0.5),
                                                          (4, 1.0, 0.75), (3, 3.0, 0.0)])  # fmt: skip
def test_network_evaluations_counts_the_forward_passes_of_a_sample(solver, steps, guidance, until):
    model = random_model()
    text = torch.randn(1, TEXT_DIM, generator=torch.Generator().manual_seed(5))
    passes = []
    handle = model.register_forward_hook(lambda module, args, out: passes.append(args[0].shape[0]))
    try:
        sample(model, frames=6, text=text, steps=steps, guidance=guidance, guidance_until=until,
               solver=solver, generator=torch.Generator().manual_seed(0))  # fmt: skip
    finally:
        handle.remove()
    # a guided evaluation is one forward pass over two copies of the batch: two network evaluations
    assert sum(passes) == network_evaluations(steps, guidance, solver, until)


def test_the_default_sampler_costs_27_evaluations():
    # 16 steps at t = 0, 1/16, ..., 15/16: the 10 before t = 0.625 guided, the last 6 not, one more
    assert network_evaluations(16, 2.5, "euler") == 10 * 2 + 6 + 1
    assert network_evaluations(16, 2.5, "euler", 0.75) == 12 * 2 + 4 + 1


def test_smoothing_removes_flicker_and_keeps_the_order_of_long_runs():
    ids = np.array([1] * 20 + [7, 7] + [1] * 10 + [3] * 25 + [9] + [3] * 5)
    out = smooth_timeline(ids, min_frames=5)
    assert out.shape == ids.shape
    assert out.tolist() == [1] * 32 + [3] * 31


def test_smoothing_keeps_a_single_short_run_and_merges_into_the_longer_neighbour():
    assert smooth_timeline(np.array([4, 4]), min_frames=10).tolist() == [4, 4]
    ids = np.array([1] * 6 + [2] * 2 + [5] * 12)
    assert smooth_timeline(ids, min_frames=4).tolist() == [1] * 6 + [5] * 14


def test_the_planner_follows_the_action_head_and_is_seeded():
    model = model_preferring(14)
    text = torch.randn(3, TEXT_DIM, generator=torch.Generator().manual_seed(1))
    plan = plan_actions(model, frames=11, text=text, generator=torch.Generator().manual_seed(0))
    assert plan.shape == (3, 11) and plan.dtype == np.int64
    assert (plan == 14).all()


@pytest.mark.parametrize("seed", [0, 1])
def test_the_same_seed_gives_the_same_plan(seed):
    model = random_model()
    text = torch.randn(2, TEXT_DIM, generator=torch.Generator().manual_seed(5))
    a = plan_actions(model, frames=30, text=text, generator=torch.Generator().manual_seed(seed))
    b = plan_actions(model, frames=30, text=text, generator=torch.Generator().manual_seed(seed))
    assert np.array_equal(a, b)
    assert ((a >= 0) & (a < N_ACTIONS)).all()


def test_the_judge_scores_the_planned_frames_by_the_action_heads_log_probability():
    model = model_preferring(14)  # its action head names 14 with near certainty, whatever the clip
    features = torch.randn(4, 10, FEATURE_DIM, generator=torch.Generator().manual_seed(0))
    actions = torch.full((4, 10), -1)
    actions[0] = 14  # all planned, right
    actions[1] = 3  # all planned, wrong
    actions[2, :5] = 14  # half planned, right; the unplanned half does not count
    score = plan_agreement(model, features, actions)  # row 3: nothing planned
    assert score.shape == (4,)
    assert score[0] > -1e-3 and score[2] > -1e-3 and score[3] == 0
    assert score[1] < -40


def test_keep_best_takes_each_samples_best_candidate_and_the_first_of_a_tie():
    batch, count = 2, 3
    heads = {name: torch.arange(batch * count, dtype=torch.float32).view(-1, 1, 1).expand(-1, 4, width)
             for name, width in (("pose", 48), ("position", 2), ("velocity", 2), ("action_logits", 60),
                                 ("physics", 6))}  # fmt: skip
    out = ModelOutput(**heads, environment=torch.arange(batch * count, dtype=torch.float32)[:, None])
    # rows: candidate k of sample b is row k * batch + b
    score = torch.tensor([0.0, 1.0, -2.0, 1.0, 5.0, 1.0])
    best = keep_best(out, score, count)
    assert best.pose[:, 0, 0].tolist() == [4.0, 1.0]  # sample 0: candidate 2 (5.0); sample 1: tie, the first
    assert best.environment[:, 0].tolist() == [4.0, 1.0] and best.physics.shape == (2, 4, 6)
