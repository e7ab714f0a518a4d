"""The StickFigureTransformer, its size presets, the strict config loader and the checkpoint folder."""

import dataclasses
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from stickgen.checkpoint import (
    average_checkpoints,
    describe_model,
    load_checkpoint,
    read_checkpoint_config,
    save_checkpoint,
)
from stickgen.config import apply_overrides, from_dict, load_yaml_config, to_dict
from stickgen.errors import StickgenError
from stickgen.model import (
    ENVIRONMENT_DIM,
    FEATURE_DIM,
    N_ACTIONS,
    ModelConfig,
    RMSNorm,
    StickFigureTransformer,
    SwiGLU,
    apply_rotary_emb,
    block_places,
    deepened_state,
    parameter_counts,
    rope_frequencies,
)

CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "model"
TEXT_DIM = 16
ENCODER = {"name": "test-encoder", "id": "tests/encoder@1", "dim": TEXT_DIM}


def tiny_config(**changes) -> ModelConfig:
    return dataclasses.replace(
        ModelConfig(d_model=64, n_layers=2, n_heads=4, text_dim=TEXT_DIM, name="test"), **changes
    )


def perturbed_model(config: ModelConfig, seed: int = 0) -> StickFigureTransformer:
    """A model whose zero-initialised parts (adaLN gates, feature heads) are non-zero, as after training."""
    g = torch.Generator().manual_seed(seed)
    model = StickFigureTransformer(config, generator=g).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=g))
    return model


def batch(B: int = 3, T: int = 12, seed: int = 1) -> dict:
    g = torch.Generator().manual_seed(seed)
    return {
        "x": torch.randn(B, T, FEATURE_DIM, generator=g),
        "t": torch.rand(B, generator=g),
        "text": torch.randn(B, TEXT_DIM, generator=g),
        "actions": torch.randint(-1, N_ACTIONS, (B, T), generator=g),
        "camera": torch.randn(B, T, 3, generator=g),
    }


def assert_one_sentence(message: str) -> None:
    assert message.endswith("."), message
    assert "\n" not in message, message
    assert not re.search(r"\.\s+[A-Z]", message), message


# --- primitives -------------------------------------------------------------------------------------------


def test_rmsnorm_equals_its_formula():
    norm = RMSNorm(8, eps=1e-6)
    with torch.no_grad():
        norm.weight.copy_(torch.linspace(0.5, 2.0, 8))
    x = torch.randn(4, 5, 8, generator=torch.Generator().manual_seed(0))
    expected = x / torch.sqrt((x**2).mean(dim=-1, keepdim=True) + 1e-6) * norm.weight
    torch.testing.assert_close(norm(x), expected)


def test_swiglu_has_no_biases_and_the_right_shapes():
    mlp = SwiGLU(64, 176)
    assert all(layer.bias is None for layer in (mlp.w_gate, mlp.w_up, mlp.w_out))
    assert mlp.w_gate.weight.shape == (176, 64) and mlp.w_up.weight.shape == (176, 64)
    assert mlp.w_out.weight.shape == (64, 176)
    assert mlp(torch.randn(2, 7, 64)).shape == (2, 7, 64)
    biases = [
        name for name, _ in StickFigureTransformer(tiny_config()).blocks.named_parameters() if "bias" in name
    ]
    assert biases == []


def test_d_ff_defaults_to_eight_thirds_of_d_model():
    for d_model, d_ff in [(128, 384), (256, 704), (384, 1024), (512, 1408)]:
        config = ModelConfig(d_model=d_model, n_layers=1, n_heads=4)
        assert config.ff_dim == d_ff
        assert 8 / 3 <= d_ff / d_model < 8 / 3 + 64 / d_model


def test_rope_scores_depend_only_on_the_relative_offset():
    g = torch.Generator().manual_seed(0)
    B, T, H, D = 2, 10, 3, 16
    q, k = torch.randn(B, T, H, D, generator=g), torch.randn(B, T, H, D, generator=g)

    def scores(start: int) -> torch.Tensor:
        cos, sin = rope_frequencies(torch.arange(start, start + T), D)
        qr, kr = apply_rotary_emb(q, cos, sin), apply_rotary_emb(k, cos, sin)
        return torch.einsum("bqhd,bkhd->bhqk", qr, kr)  # (B, H, T, T)

    torch.testing.assert_close(scores(0), scores(7), atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(scores(0), scores(123), atol=1e-4, rtol=1e-4)
    plain = torch.einsum("bqhd,bkhd->bhqk", q, k)
    assert not torch.allclose(scores(0), plain, atol=1e-3)  # the rotation does change off-diagonal scores
    torch.testing.assert_close(scores(0).diagonal(dim1=-2, dim2=-1), plain.diagonal(dim1=-2, dim2=-1))


# --- the model --------------------------------------------------------------------------------------------


# (patch, conv_kernel): frames per token and the depthwise convolution branch
TOKENS = [(1, 0), (4, 3), (3, 5)]


@pytest.mark.parametrize(("n_kv_heads", "patch", "conv_kernel"), [(0, 1, 0), (2, 1, 0), (1, 1, 0), (0, 4, 3)])
def test_forward_returns_every_head_with_its_shape(n_kv_heads, patch, conv_kernel):
    model = perturbed_model(tiny_config(n_kv_heads=n_kv_heads, patch=patch, conv_kernel=conv_kernel))
    b = batch(B=3, T=12)
    out = model(b["x"], b["t"], text=b["text"], actions=b["actions"], camera=b["camera"])
    shapes = {name: tuple(v.shape) for name, v in out.as_dict().items()}
    assert shapes == {
        "pose": (3, 12, 48),
        "position": (3, 12, 2),
        "velocity": (3, 12, 2),
        "action_logits": (3, 12, N_ACTIONS),
        "physics": (3, 12, 6),
        "environment": (3, ENVIRONMENT_DIM),
    }
    assert out.features().shape == (3, 12, FEATURE_DIM)
    assert all(torch.isfinite(v).all() for v in out)


def test_a_token_of_several_frames_predicts_each_of_them():
    model = perturbed_model(tiny_config(patch=4))
    b = batch(B=1, T=8)
    x = b["x"].clone()
    x[0, 1] += 1.0  # inside the first token only
    with torch.no_grad():
        before = model(b["x"], b["t"], text=b["text"])
        after = model(x, b["t"], text=b["text"])
    assert not torch.allclose(before.pose[0, 0], before.pose[0, 1])  # frames of one token differ
    assert not torch.allclose(before.pose[0, :4], after.pose[0, :4])


@pytest.mark.parametrize("changes", [{"patch": 0}, {"patch": 17}, {"conv_kernel": 2}, {"conv_kernel": -1}])
def test_token_settings_out_of_range_fail_with_one_sentence(changes):
    with pytest.raises(StickgenError, match=r"^[^\n]+\.$"):
        tiny_config(**changes)


def test_grouped_query_attention_has_fewer_key_value_weights():
    full = StickFigureTransformer(tiny_config())
    grouped = StickFigureTransformer(tiny_config(n_kv_heads=1))
    assert grouped.blocks[0].attn.k.weight.shape == (16, 64)  # one head of 16
    assert parameter_counts(grouped)["total"] < parameter_counts(full)["total"]


def test_untrained_model_predicts_the_dataset_mean_and_is_seeded_by_its_generator():
    model = StickFigureTransformer(tiny_config(), generator=torch.Generator().manual_seed(7)).eval()
    b = batch()
    out = model(b["x"], b["t"], text=b["text"])
    assert torch.count_nonzero(out.features()) == 0  # zero-initialised feature heads: the dataset mean
    again = StickFigureTransformer(tiny_config(), generator=torch.Generator().manual_seed(7))
    other = StickFigureTransformer(tiny_config(), generator=torch.Generator().manual_seed(8))
    assert torch.equal(model.input_proj.weight, again.input_proj.weight)
    assert not torch.equal(model.input_proj.weight, other.input_proj.weight)


def test_sequences_longer_than_the_rotary_cache_work():
    model = perturbed_model(tiny_config(max_frames=16))
    longer_cache = StickFigureTransformer(tiny_config(max_frames=64)).eval()
    longer_cache.load_state_dict(model.state_dict())
    b = batch(B=1, T=20)
    with torch.no_grad():
        out = model(b["x"], b["t"], text=b["text"])
        cached = longer_cache(b["x"], b["t"], text=b["text"])
    torch.testing.assert_close(out.pose, cached.pose)


def test_block_places_spread_the_old_blocks_evenly_in_order():
    assert block_places(6, 9) == [0, 1, 3, 4, 6, 7]
    assert block_places(2, 3) == [0, 1] and block_places(4, 4) == [0, 1, 2, 3]
    with pytest.raises(StickgenError, match="cannot place 3 blocks among 2"):
        block_places(3, 2)


@pytest.mark.parametrize("conv_kernel", [0, 3])
def test_a_deepened_model_computes_what_the_shallower_one_did_until_trained(conv_kernel):
    trained = perturbed_model(tiny_config(n_layers=2, conv_kernel=conv_kernel))
    deeper = StickFigureTransformer(tiny_config(n_layers=5, conv_kernel=conv_kernel)).eval()
    deeper.load_state_dict(deepened_state(trained.state_dict(), 2, deeper))
    b = batch()
    with torch.no_grad():
        before, after = trained(**b), deeper(**b)
    for name, value in before.as_dict().items():
        torch.testing.assert_close(after.as_dict()[name], value, rtol=0, atol=1e-6)
    # the new blocks (1, 3, 4) are not copies: opening one's gates changes the output
    assert torch.equal(deeper.blocks[2].attn.q.weight, trained.blocks[1].attn.q.weight)
    with torch.no_grad():
        deeper.blocks[3].modulation.weight.normal_(0.0, 0.05)
        assert not torch.allclose(deeper(**b).pose, before.pose, atol=1e-4)


def test_deepening_refuses_weights_that_do_not_fit():
    trained = perturbed_model(tiny_config(n_layers=2))
    wider = StickFigureTransformer(tiny_config(d_model=128, n_layers=3))
    with pytest.raises(StickgenError, match="does not fit the deeper model") as error:
        deepened_state(trained.state_dict(), 2, wider)
    assert_one_sentence(str(error.value))


@pytest.mark.parametrize(("patch", "conv_kernel"), TOKENS)
def test_padding_changes_nothing_for_real_frames(patch, conv_kernel):
    # 10 and 7 real frames: with tokens of 3 or 4 frames the last token of each clip is part padding
    model = perturbed_model(tiny_config(patch=patch, conv_kernel=conv_kernel))
    b = batch(B=2, T=10)
    mask = torch.ones(2, 10, dtype=torch.bool)
    mask[1, 7:] = False  # the second clip has 7 real frames
    with torch.no_grad():
        short = model(b["x"], b["t"], mask=mask, text=b["text"], actions=b["actions"], camera=b["camera"])
        # 6 more padded frames full of garbage, including NaN and huge values
        g = torch.Generator().manual_seed(5)
        pad_x = torch.randn(2, 6, FEATURE_DIM, generator=g) * 1e3
        pad_x[0, 0, 0] = float("nan")
        x = torch.cat([b["x"], pad_x], dim=1)
        x[1, 7:10] = torch.randn(3, FEATURE_DIM, generator=g)
        actions = torch.cat([b["actions"], torch.randint(0, N_ACTIONS, (2, 6), generator=g)], dim=1)
        camera = torch.cat([b["camera"], torch.randn(2, 6, 3, generator=g) * 50], dim=1)
        long_mask = torch.cat([mask, torch.zeros(2, 6, dtype=torch.bool)], dim=1)
        long = model(x, b["t"], mask=long_mask, text=b["text"], actions=actions, camera=camera)
    for name in ("pose", "position", "velocity", "action_logits", "physics"):
        a, c = getattr(short, name), getattr(long, name)
        torch.testing.assert_close(a[0], c[0, :10], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(a[1, :7], c[1, :7], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(short.environment, long.environment, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(("patch", "conv_kernel"), TOKENS)
def test_unmasked_frames_do_influence_the_others(patch, conv_kernel):
    model = perturbed_model(tiny_config(patch=patch, conv_kernel=conv_kernel))
    b = batch(B=1, T=10)
    x = b["x"].clone()
    x[0, 9] += 1.0
    with torch.no_grad():
        before = model(b["x"], b["t"], text=b["text"])
        after = model(x, b["t"], text=b["text"])
    assert not torch.allclose(before.pose[0, :9], after.pose[0, :9])  # attention reaches every frame
    assert not torch.allclose(before.environment, after.environment)


@pytest.mark.parametrize("condition", ["text", "actions", "camera"])
def test_dropping_a_condition_changes_the_output_and_its_null_needs_no_input(condition):
    model = perturbed_model(tiny_config())
    b = batch(B=2)
    given = {"text": b["text"], "actions": b["actions"], "camera": b["camera"]}
    with torch.no_grad():
        full = model(b["x"], b["t"], **given)
        drop = torch.tensor([True, False])
        dropped = model(b["x"], b["t"], **given, **{f"drop_{condition}": drop})
        without = model(b["x"], b["t"], **{**given, condition: None})
    assert not torch.allclose(full.pose[0], dropped.pose[0], atol=1e-4)
    assert not torch.allclose(full.environment[0], dropped.environment[0], atol=1e-4)
    torch.testing.assert_close(full.pose[1], dropped.pose[1])  # the other sample keeps its condition
    torch.testing.assert_close(dropped.pose[0], without.pose[0])  # dropping is the null path


@pytest.mark.parametrize("patch", [1, 4])
def test_a_sentence_per_frame_conditions_each_token_on_its_own(patch):
    model = perturbed_model(tiny_config(patch=patch))
    b = batch(B=2, T=12)
    other = torch.randn(2, TEXT_DIM, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        whole = model(b["x"], b["t"], text=b["text"])
        same = model(b["x"], b["t"], text=b["text"][:, None, :].expand(2, 12, TEXT_DIM))
        halves = torch.cat(
            [b["text"][:, None, :].expand(2, 8, TEXT_DIM), other[:, None, :].expand(2, 4, TEXT_DIM)], 1
        )
        split = model(b["x"], b["t"], text=halves)
        first = model(b["x"], b["t"], text=b["text"])
        drop = torch.tensor([True, False])
        dropped = model(b["x"], b["t"], text=halves, drop_text=drop)
        null = model(b["x"], b["t"])
    # the same sentence on every frame is the clip's sentence; another one on the last frames changes them
    torch.testing.assert_close(same.pose, whole.pose)
    assert not torch.allclose(split.pose[:, 8:], first.pose[:, 8:], atol=1e-4)
    torch.testing.assert_close(dropped.pose[0], null.pose[0])  # dropping takes every frame's sentence
    torch.testing.assert_close(dropped.pose[1], split.pose[1])


def test_unknown_actions_use_the_null_embedding():
    model = perturbed_model(tiny_config())
    b = batch(B=2)
    with torch.no_grad():
        unknown = model(b["x"], b["t"], actions=torch.full((2, 12), -1))
        absent = model(b["x"], b["t"])
    torch.testing.assert_close(unknown.pose, absent.pose)


@pytest.mark.slow
def test_tiny_model_overfits_a_batch_of_four_clips():
    g = torch.Generator().manual_seed(0)
    B, T = 4, 32
    config = ModelConfig(d_model=128, n_layers=4, n_heads=4, text_dim=TEXT_DIM)
    model = StickFigureTransformer(config, generator=g)
    # smooth clips: a few sinusoids per feature, then normalised as the dataset statistics would
    time = torch.linspace(0.0, 1.0, T)[None, :, None]
    freq = 0.5 + 3 * torch.rand(B, 1, FEATURE_DIM, generator=g)
    phase = 2 * math.pi * torch.rand(B, 1, FEATURE_DIM, generator=g)
    clean = torch.randn(B, 1, FEATURE_DIM, generator=g) * torch.sin(2 * math.pi * freq * time + phase)
    clean = (clean - clean.mean(dim=(0, 1))) / clean.std(dim=(0, 1))
    mask = torch.ones(B, T, dtype=torch.bool)
    mask[1, 28:] = False
    text = torch.randn(B, TEXT_DIM, generator=g)
    # flow matching with clean-sample prediction, on one fixed noisy batch
    noise = torch.randn(B, T, FEATURE_DIM, generator=g)
    t = torch.tensor([0.1, 0.4, 0.6, 0.9])
    noisy = (1 - t[:, None, None]) * noise + t[:, None, None] * clean
    weights = mask[:, :, None].float()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(150):
        pred = model(noisy, t, mask=mask, text=text).features()
        loss = (((pred - clean) ** 2) * weights).sum() / (weights.sum() * FEATURE_DIM)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] / 10, (losses[0], losses[-1])


# --- configs ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "target"), [("small", 7e6), ("medium", 20e6), ("large", 45e6)])
def test_shipped_configs_have_their_design_sizes(variant, target):
    config = load_yaml_config(ModelConfig, CONFIGS / f"{variant}.yaml")
    assert config.name == variant
    with torch.device("meta"):
        total = parameter_counts(StickFigureTransformer(config))["total"]
    assert 0.7 * target <= total <= 1.3 * target, total


def test_shipped_configs_follow_the_design_table():
    rows = {
        "tiny": (range(128, 193), 4, 4),
        "small": ([256], 6, 8),
        "medium": ([384], 8, 12),
        "large": ([512], 10, 16),
    }
    for variant, (widths, layers, heads) in rows.items():
        config = load_yaml_config(ModelConfig, CONFIGS / f"{variant}.yaml")
        assert config.d_model in widths and config.n_layers == layers and config.n_heads == heads


def test_strict_loader_rejects_unknown_keys_and_wrong_types(tmp_path):
    path = tmp_path / "model.yaml"
    path.write_text("d_model: 64\nn_layers: 2\nn_heads: 4\nd_modle: 3\n")
    with pytest.raises(StickgenError, match=r"Unknown key d_modle in .*model\.yaml") as e:
        load_yaml_config(ModelConfig, path)
    assert_one_sentence(str(e.value))
    path.write_text("d_model: '64'\nn_layers: 2\nn_heads: 4\n")
    with pytest.raises(StickgenError, match=r"model\.yaml, d_model must be int") as e:
        load_yaml_config(ModelConfig, path)
    assert_one_sentence(str(e.value))
    path.write_text("d_model: 64\nn_layers: true\nn_heads: 4\n")
    with pytest.raises(StickgenError, match="n_layers must be int"):
        load_yaml_config(ModelConfig, path)
    path.write_text("d_model: 64\nn_heads: 4\n")
    with pytest.raises(StickgenError, match="Missing key n_layers"):
        load_yaml_config(ModelConfig, path)
    path.write_text("d_model: 66\nn_layers: 2\nn_heads: 4\n")
    with pytest.raises(StickgenError, match=r"model\.yaml, d_model 66 must be a multiple of n_heads 4") as e:
        load_yaml_config(ModelConfig, path)
    assert_one_sentence(str(e.value))
    path.write_text("d_model: [64\n")
    with pytest.raises(StickgenError, match="not valid YAML"):
        load_yaml_config(ModelConfig, path)
    with pytest.raises(StickgenError, match="No configuration file"):
        load_yaml_config(ModelConfig, tmp_path / "missing.yaml")


@dataclasses.dataclass(frozen=True)
class _Optimizer:
    lr: float = 1e-3
    betas: tuple[float, float] = (0.9, 0.99)


@dataclasses.dataclass(frozen=True)
class _Run:
    model: ModelConfig
    optimizer: _Optimizer = _Optimizer()
    steps: int = 10
    resume: str | None = None


def test_nested_configs_round_trip_and_take_overrides():
    run = from_dict(_Run, {"model": {"d_model": 64, "n_layers": 2, "n_heads": 4}, "optimizer": {"lr": 1}})
    assert run.optimizer.lr == 1.0 and isinstance(run.optimizer.lr, float)
    assert from_dict(_Run, to_dict(run)) == run
    changed = apply_overrides(run, ["model.d_model=128", "optimizer.betas=[0.8, 0.9]", "resume=runs/a"])
    assert changed.model.d_model == 128 and changed.model.ff_dim == 384  # derived widths follow
    assert changed.optimizer.betas == (0.8, 0.9) and changed.resume == "runs/a"
    assert apply_overrides(changed, ["resume=null"]).resume is None
    with pytest.raises(StickgenError, match="unknown key model.width"):
        apply_overrides(run, ["model.width=3"])
    with pytest.raises(StickgenError, match=r"override 'steps=many', steps must be int"):
        apply_overrides(run, ["steps=many"])
    with pytest.raises(StickgenError, match="must look like key=value"):
        apply_overrides(run, ["steps"])
    with pytest.raises(StickgenError, match=r"Unknown key model\.depth in"):
        from_dict(_Run, {"model": {"d_model": 64, "n_layers": 2, "n_heads": 4, "depth": 1}})


# --- checkpoints ------------------------------------------------------------------------------------------


def save_tiny(folder: Path, model: StickFigureTransformer | None = None, **kwargs) -> StickFigureTransformer:
    """Save a small model with fixed statistics; `kwargs` override save_checkpoint's arguments."""
    model = model if model is not None else perturbed_model(tiny_config())
    arguments = {
        "encoder": ENCODER,
        "norm_mean": torch.linspace(-1, 1, FEATURE_DIM),
        "norm_std": torch.linspace(0.5, 2, FEATURE_DIM),
    }
    save_checkpoint(folder, model, **{**arguments, **kwargs})
    return model


def test_checkpoint_round_trip_gives_identical_outputs(tmp_path):
    folder = tmp_path / "ckpt"
    model = save_tiny(folder, training={"steps": 1200, "dataset": "synth"}, card="Made by a test.")
    assert sorted(p.name for p in folder.iterdir()) == [
        "README.md",
        "config.json",
        "model.safetensors",
        "normalization.safetensors",
    ]
    loaded = load_checkpoint(folder, expected_encoder=ENCODER)
    assert not loaded.model.training and loaded.config == model.config and loaded.encoder == ENCODER
    assert loaded.training == {"steps": 1200, "dataset": "synth"}
    torch.testing.assert_close(loaded.norm_mean, torch.linspace(-1, 1, FEATURE_DIM), rtol=0, atol=0)
    b = batch()
    with torch.no_grad():
        before = model(b["x"], b["t"], text=b["text"], actions=b["actions"], camera=b["camera"])
        after = loaded.model(b["x"], b["t"], text=b["text"], actions=b["actions"], camera=b["camera"])
    for a, c in zip(before, after, strict=True):
        assert torch.equal(a, c)
    card = (folder / "README.md").read_text()
    assert "test-encoder" in card and "| steps | 1200 |" in card and "Made by a test." in card
    assert f"{parameter_counts(model)['total']:,}" in card


def test_a_bfloat16_checkpoint_is_half_the_size_and_loads_as_float32(tmp_path):
    model = perturbed_model(tiny_config(patch=2, conv_kernel=3))
    save_tiny(tmp_path / "f32", model)
    save_tiny(tmp_path / "bf16", model, dtype="bfloat16")
    size = {k: (tmp_path / k / "model.safetensors").stat().st_size for k in ("f32", "bf16")}
    assert size["bf16"] < 0.55 * size["f32"]
    assert "tokens of 2 frames, temporal convolution 3 |" in (tmp_path / "bf16" / "README.md").read_text()
    loaded = load_checkpoint(tmp_path / "bf16", expected_encoder=ENCODER)
    assert all(p.dtype == torch.float32 for p in loaded.model.parameters())
    b = batch()
    with torch.no_grad():
        before = model(b["x"], b["t"], text=b["text"], actions=b["actions"])
        after = loaded.model(b["x"], b["t"], text=b["text"], actions=b["actions"])
    torch.testing.assert_close(after.pose, before.pose, rtol=0.05, atol=0.02)
    with pytest.raises(StickgenError, match="not 'float16'"):
        save_tiny(tmp_path / "f16", model, dtype="float16")


def test_averaged_checkpoints_hold_the_mean_of_their_weights(tmp_path):
    a = save_tiny(tmp_path / "a", training={"steps": 10})
    b = save_tiny(tmp_path / "b", perturbed_model(tiny_config(), seed=1), training={"steps": 20})
    out = average_checkpoints([tmp_path / "a", tmp_path / "b"], tmp_path / "soup", dtype="float32")
    soup = load_checkpoint(out, expected_encoder=ENCODER)
    wa, wb, ws = a.state_dict(), b.state_dict(), soup.model.state_dict()
    assert not torch.equal(wa["input_proj.weight"], wb["input_proj.weight"])
    for name, tensor in ws.items():
        torch.testing.assert_close(tensor, (wa[name] + wb[name]) / 2, rtol=0, atol=1e-6)
    torch.testing.assert_close(soup.norm_mean, torch.linspace(-1, 1, FEATURE_DIM), rtol=0, atol=0)
    assert soup.training["averaged_training"] == [{"steps": 10}, {"steps": 20}]


def test_only_one_models_checkpoints_average(tmp_path):
    save_tiny(tmp_path / "a")
    with pytest.raises(StickgenError, match="at least two"):
        average_checkpoints([tmp_path / "a"], tmp_path / "soup")
    save_tiny(tmp_path / "narrower", perturbed_model(tiny_config(d_model=32)))
    with pytest.raises(StickgenError, match="another model"):
        average_checkpoints([tmp_path / "a", tmp_path / "narrower"], tmp_path / "soup")
    save_tiny(tmp_path / "data", norm_mean=torch.zeros(FEATURE_DIM))
    with pytest.raises(StickgenError, match="other data"):
        average_checkpoints([tmp_path / "a", tmp_path / "data"], tmp_path / "soup")
    assert not (tmp_path / "soup").exists()
    with pytest.raises(StickgenError, match="named twice"):
        average_checkpoints([tmp_path / "a", tmp_path / "a"], tmp_path / "soup")
    before = (tmp_path / "data" / "model.safetensors").read_bytes()
    with pytest.raises(StickgenError, match="is one of the checkpoints being averaged"):
        average_checkpoints([tmp_path / "a", tmp_path / "data"], tmp_path / "data")
    assert (tmp_path / "data" / "model.safetensors").read_bytes() == before


def test_checkpoint_of_another_shape_fails_with_one_sentence(tmp_path):
    folder = tmp_path / "ckpt"
    save_tiny(folder)
    meta = json.loads((folder / "config.json").read_text())
    meta["model"]["d_model"] = 128
    (folder / "config.json").write_text(json.dumps(meta))
    with pytest.raises(StickgenError, match="config.json has d_model 128 but the weights have 64") as e:
        load_checkpoint(folder)
    assert_one_sentence(str(e.value))
    meta["model"].update(d_model=64, n_layers=3)
    (folder / "config.json").write_text(json.dumps(meta))
    with pytest.raises(StickgenError, match=r"lacks blocks\.2\.") as e:
        load_checkpoint(folder)
    assert_one_sentence(str(e.value))
    meta["model"].update(n_layers=2, d_ff=128)
    (folder / "config.json").write_text(json.dumps(meta))
    with pytest.raises(
        StickgenError, match=r"has shape \(\d+, 64\) in model.safetensors but \(128, 64\)"
    ) as e:
        load_checkpoint(folder)
    assert_one_sentence(str(e.value))


def test_checkpoint_of_another_encoder_fails_with_one_sentence(tmp_path):
    folder = tmp_path / "ckpt"
    save_tiny(folder)
    other = {"name": "BAAI/bge-large-en-v1.5", "id": "BAAI/bge-large-en-v1.5", "dim": 1024}
    with pytest.raises(StickgenError) as e:
        load_checkpoint(folder, expected_encoder=other)
    assert str(e.value) == (
        "This checkpoint was trained with text encoder test-encoder (16-dim); "
        "you asked for BAAI/bge-large-en-v1.5 (1024-dim)."
    )
    with pytest.raises(StickgenError, match=r"test-encoder \[tests/encoder@2\]") as e:
        load_checkpoint(folder, expected_encoder={**ENCODER, "id": "tests/encoder@2"})
    assert_one_sentence(str(e.value))


def test_broken_checkpoints_fail_with_one_sentence(tmp_path):
    with pytest.raises(StickgenError, match="No checkpoint folder at") as e:
        load_checkpoint(tmp_path / "nothing")
    assert_one_sentence(str(e.value))
    folder = tmp_path / "ckpt"
    save_tiny(folder)
    (folder / "model.safetensors").write_bytes(b"\x00\x01 not a safetensors file")
    with pytest.raises(StickgenError, match="has a corrupt model.safetensors") as e:
        load_checkpoint(folder)
    assert "\n" not in str(e.value)
    (folder / "model.safetensors").unlink()
    with pytest.raises(StickgenError, match="is missing model.safetensors") as e:
        load_checkpoint(folder)
    assert_one_sentence(str(e.value))
    (folder / "config.json").write_text("{not json")
    with pytest.raises(StickgenError, match="has a corrupt config.json"):
        read_checkpoint_config(folder)


def test_saving_is_atomic_and_keeps_the_old_checkpoint_on_failure(tmp_path, monkeypatch):
    folder = tmp_path / "ckpt"
    model = save_tiny(folder, training={"run": "first"})
    with pytest.raises(StickgenError, match="normalisation statistics"):
        save_tiny(folder, norm_mean=torch.zeros(51))

    def broken_card(*args):
        raise OSError("disk full")

    monkeypatch.setattr("stickgen.checkpoint.model_card", broken_card)
    with pytest.raises(OSError, match="disk full"):
        save_tiny(folder, training={"run": "second"})
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt"]  # no temporary folders left behind
    loaded = load_checkpoint(folder)
    assert loaded.training == {"run": "first"}
    b = batch()
    with torch.no_grad():
        assert torch.equal(model(b["x"], b["t"]).pose, loaded.model(b["x"], b["t"]).pose)
    save_tiny(folder, training={"run": "third"})  # a good save replaces it
    assert load_checkpoint(folder).training == {"run": "third"}
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt"]


def test_saving_refuses_to_replace_a_folder_that_is_not_a_checkpoint(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    with pytest.raises(StickgenError, match="is not a stickgen checkpoint") as e:
        save_tiny(folder)
    assert_one_sentence(str(e.value))
    assert (folder / "notes.txt").read_text() == "keep me"
    with pytest.raises(StickgenError, match="gives 1024-dim embeddings but the model expects text_dim 16"):
        save_tiny(tmp_path / "new", encoder={**ENCODER, "dim": 1024})


# --- command line -----------------------------------------------------------------------------------------


def stickgen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stickgen", *args], capture_output=True, text=True, timeout=120
    )


def test_describe_model_reads_a_yaml_config():
    table = describe_model(CONFIGS / "small.yaml")
    config = load_yaml_config(ModelConfig, CONFIGS / "small.yaml")
    with torch.device("meta"):
        total = parameter_counts(StickFigureTransformer(config))["total"]
    assert "transformer blocks (6 ×" in table and table.splitlines()[-1].split()[-1] == f"{total:,}"
    train = CONFIGS.parent / "train" / "small.yaml"  # a training config: its model section
    assert describe_model(train) == table


@pytest.mark.slow
def test_info_prints_the_parameter_table_of_a_checkpoint(tmp_path):
    model = perturbed_model(tiny_config())
    save_tiny(tmp_path / "ckpt", model)
    result = stickgen("info", "--model", str(tmp_path / "ckpt"))
    assert result.returncode == 0, result.stderr
    assert f"{parameter_counts(model)['total']:,}" in result.stdout and "test-encoder" in result.stdout
    neither = stickgen("info")
    assert neither.returncode == 1 and neither.stderr.startswith("stickgen: error: Give either")
    assert "Traceback" not in neither.stderr and len(neither.stderr.strip().splitlines()) == 1
