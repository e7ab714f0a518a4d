"""The sampler's action planner: the action head read at pure noise, and the timeline it gives."""

import dataclasses

import numpy as np
import pytest
import torch

from stickgen.model import N_ACTIONS, ModelConfig, StickFigureTransformer
from stickgen.sampling import plan_actions, smooth_timeline

TEXT_DIM = 16


def model_preferring(action: int) -> StickFigureTransformer:
    config = ModelConfig(d_model=32, n_layers=1, n_heads=2, text_dim=TEXT_DIM, patch=2, name="test")
    model = StickFigureTransformer(dataclasses.replace(config), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        model.heads["action_logits"].bias.view(2, N_ACTIONS)[:, action] = 50.0  # both frames of a token
    return model.eval()


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
    config = ModelConfig(d_model=32, n_layers=1, n_heads=2, text_dim=TEXT_DIM, name="test")
    model = StickFigureTransformer(config, generator=torch.Generator().manual_seed(3)).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.5 * torch.randn(p.shape, generator=torch.Generator().manual_seed(4)))
    text = torch.randn(2, TEXT_DIM, generator=torch.Generator().manual_seed(5))
    a = plan_actions(model, frames=30, text=text, generator=torch.Generator().manual_seed(seed))
    b = plan_actions(model, frames=30, text=text, generator=torch.Generator().manual_seed(seed))
    assert np.array_equal(a, b)
    assert ((a >= 0) & (a < N_ACTIONS)).all()
