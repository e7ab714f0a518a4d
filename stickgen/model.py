"""StickFigureTransformer: the text-conditioned motion denoiser (DESIGN §5).

One file, read top to bottom: primitives, attention, block, config, model.

- Pre-norm transformer encoder over frames: RMSNorm, multi-head self-attention through
  `F.scaled_dot_product_attention` with a key-padding mask and optional grouped-query attention
  (`n_kv_heads < n_heads`), rotary position embedding on queries and keys (pure functions
  `rope_frequencies` / `apply_rotary_emb`, frequencies cached once per model), SwiGLU feed-forward
  (`d_ff ≈ 8/3·d_model`). No biases in the transformer body (attention, feed-forward, modulation); the
  small input layers keep theirs (a 3-number camera needs an offset to be embedded well), and so do
  the output heads, whose targets (action classes, contacts, environment) have non-zero means.
- Inputs: noisy normalised per-frame features (pose 48 + position 2 + velocity 2 = 52), the denoising
  time t ∈ [0, 1] (sinusoidal → MLP), a sentence embedding (`text_dim`, projected to `d_model`),
  per-frame action ids (60 + a learned null), per-frame camera `(x, y, zoom)` (small MLP + a learned
  null), and a padding mask. Each condition can be dropped per sample (its null) for classifier-free
  guidance.
- Conditioning: the time and text vectors are summed into one clip vector that drives adaptive
  RMSNorm with zero-initialised gates in every block (adaLN-Zero, as in DiT). We chose adaptive norm
  over a prefix token because the text is a single pooled sentence vector, not a token sequence:
  modulating every layer gives it (and the time) a direct path into each block, the DiT ablations
  found it stronger than in-context tokens, and without a prefix token every attention position is a
  frame, so RoPE positions, the padding mask and the pooling need no special case. Per-frame conditions
  (action, camera) are added to the frame tokens. The text may also be given per frame (B, T, D): each
  token is then modulated by its own sentence, computed once per run of one sentence. Training gives
  one sentence per clip; the sampler gives a prompt's parts their spans of the clip when it draws from
  the text alone (`generation.text_by_parts`).
- Heads, by name: pose 48, position 2, velocity 2, action logits 60 and physics 6 per frame;
  environment 32 per clip (masked mean over real frames). `forward` returns a `ModelOutput`.
- Initialisation: linear and embedding weights N(0, 0.02); the adaLN modulations and the pose,
  position and velocity heads are zero, so an untrained model is the identity through every block and
  predicts the clean sample as the dataset mean (0 in normalised units), the usual start for
  clean-sample prediction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from stickgen.errors import StickgenError
from stickgen.figure import FEATURE_DIM, PHYSICS_DIM, POSE_DIM  # 52 = pose 48 + position 2 + velocity 2
from stickgen.labels import ENVIRONMENT_DIM
from stickgen.labels import NUM_ACTIONS as N_ACTIONS
from stickgen.ranges import check_range

POSITION_DIM = 2
VELOCITY_DIM = 2
CAMERA_DIM = 3

# -----------------------------------------------------------------------------
# primitives


class RMSNorm(nn.Module):
    """y = x / sqrt(mean(x²) + eps) · weight, over the last dimension."""

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


def rope_frequencies(
    positions: torch.Tensor, head_dim: int, base: float = 10000.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotary cos and sin tables for integer (or real) `positions` (T,), each of shape (T, head_dim / 2).

    Pair i of a head rotates by angle position · base^(-2i / head_dim).
    """
    inv_freq = base ** (
        -torch.arange(0, head_dim, 2, dtype=torch.float32, device=positions.device) / head_dim
    )
    angles = positions.float()[:, None] * inv_freq[None, :]  # (T, D/2)
    return angles.cos(), angles.sin()


def apply_rotary_emb(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate the two halves of each head of `x` (B, T, H, D) by the angles in `cos`, `sin` (T, D/2).

    After rotation, q·k depends on the positions only through their difference.
    """
    d = x.shape[-1] // 2
    x1, x2 = x[..., :d], x[..., d:]  # (B, T, H, D/2) each
    cos = cos[:, None, :].to(x.dtype)  # (T, 1, D/2), broadcast over batch and heads
    sin = sin[:, None, :].to(x.dtype)
    return torch.cat([x1 * cos + x2 * sin, x2 * cos - x1 * sin], dim=-1)  # (B, T, H, D)


class SwiGLU(nn.Module):
    """Gated feed-forward: w_out(silu(w_gate x) · w_up x), no biases."""

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.w_gate = nn.Linear(d_model, d_ff, bias=False)
        self.w_up = nn.Linear(d_model, d_ff, bias=False)
        self.w_out = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_out(F.silu(self.w_gate(x)) * self.w_up(x))


def timestep_embedding(t: torch.Tensor, dim: int, max_period: float = 10000.0) -> torch.Tensor:
    """Sinusoidal embedding (B, dim) of denoising times `t` (B,) in [0, 1].

    Times are scaled by 1000 first so that [0, 1] spans the same angles as the integer steps of a
    1000-step diffusion schedule; otherwise the low frequencies would barely move.
    """
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
    args = 1000.0 * t.float()[:, None] * freqs[None, :]  # (B, dim/2)
    return torch.cat([args.cos(), args.sin()], dim=-1)  # (B, dim)


def modulate(x: torch.Tensor, shift: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """Adaptive norm: x (B, T, C) scaled by (1 + scale) and shifted by shift, both (B, 1, C) (one
    condition for the clip) or (B, T, C) (one per token)."""
    return x * (1 + scale) + shift


# -----------------------------------------------------------------------------
# attention and block


class Attention(nn.Module):
    """Multi-head self-attention with RoPE, a key-padding mask and optional grouped-query heads."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.n_heads = config.n_heads
        self.n_kv_heads = config.kv_heads
        self.head_dim = config.head_dim
        self.dropout = config.dropout
        self.q = nn.Linear(config.d_model, self.n_heads * self.head_dim, bias=False)
        self.k = nn.Linear(config.d_model, self.n_kv_heads * self.head_dim, bias=False)
        self.v = nn.Linear(config.d_model, self.n_kv_heads * self.head_dim, bias=False)
        self.out = nn.Linear(self.n_heads * self.head_dim, config.d_model, bias=False)

    def forward(
        self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, attn_mask: torch.Tensor | None
    ) -> torch.Tensor:
        """x (B, T, C); cos, sin (T, D/2); attn_mask (B, 1, 1, T) bool, True = a key that may be attended."""
        B, T, C = x.shape
        q = self.q(x).view(B, T, self.n_heads, self.head_dim)  # (B, T, H, D)
        k = self.k(x).view(B, T, self.n_kv_heads, self.head_dim)  # (B, T, Hkv, D)
        v = self.v(x).view(B, T, self.n_kv_heads, self.head_dim)  # (B, T, Hkv, D)
        q, k = apply_rotary_emb(q, cos, sin), apply_rotary_emb(k, cos, sin)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # (B, H or Hkv, T, D)
        if self.n_kv_heads != self.n_heads:
            # Explicit repeat rather than SDPA's enable_gqa, which needs torch >= 2.5.
            k = k.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)  # (B, H, T, D)
            v = v.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1)  # (B, H, T, D)
        y = F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, dropout_p=self.dropout if self.training else 0.0
        )  # (B, H, T, D)
        y = y.transpose(1, 2).reshape(B, T, self.n_heads * self.head_dim)  # (B, T, H·D)
        return self.out(y)  # (B, T, C)


class Block(nn.Module):
    """Pre-norm block with adaLN-Zero: x + gate · attn(mod(norm(x))), then the same with SwiGLU.

    With `conv_kernel`, a third branch between the two: a depthwise temporal convolution over the
    tokens (Light-T2M's local modelling), which attention alone learns slowly on few steps.
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.norm_attn = RMSNorm(config.d_model)
        self.attn = Attention(config)
        self.conv = None
        branches = 2
        if config.conv_kernel:
            self.norm_conv = RMSNorm(config.d_model)
            self.conv = nn.Conv1d(
                config.d_model, config.d_model, config.conv_kernel, padding=config.conv_kernel // 2,
                groups=config.d_model, bias=False,
            )  # fmt: skip
            branches = 3
        self.norm_mlp = RMSNorm(config.d_model)
        self.mlp = SwiGLU(config.d_model, config.ff_dim)
        # shift, scale and gate for each branch, from the clip's condition vector
        self.modulation = nn.Linear(config.d_model, 3 * branches * config.d_model, bias=False)
        self.dropout = nn.Dropout(config.dropout)

    def forward(
        self,
        x: torch.Tensor,
        cond: torch.Tensor,
        where: torch.Tensor,
        cos: torch.Tensor,
        sin: torch.Tensor,
        attn_mask: torch.Tensor | None,
        token_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """x (B, N, C); cond (R, C) rows of silu(time + text), where (B, 1 or N) the row of each sample or
        token (`StickFigureTransformer._condition`); token_mask (B, N) bool; returns (B, N, C)."""
        mods = self.modulation(cond)[where].chunk(9 if self.conv is not None else 6, dim=-1)  # (B, 1 or N, C)
        shift_a, scale_a, gate_a, shift_m, scale_m, gate_m = mods[:6]
        h = self.attn(modulate(self.norm_attn(x), shift_a, scale_a), cos, sin, attn_mask)
        x = x + gate_a * self.dropout(h)
        if self.conv is not None:
            shift_c, scale_c, gate_c = mods[6:]
            h = modulate(self.norm_conv(x), shift_c, scale_c)
            if token_mask is not None:  # padding must not leak into the last real tokens
                h = torch.where(token_mask[:, :, None], h, 0.0)
            h = self.conv(h.transpose(1, 2)).transpose(1, 2)  # (B, N, C)
            x = x + gate_c * self.dropout(h)
        h = self.mlp(modulate(self.norm_mlp(x), shift_m, scale_m))
        return x + gate_m * self.dropout(h)


# -----------------------------------------------------------------------------
# config


_LARGEST = {"d_model": 16384, "n_layers": 512, "d_ff": 65536, "text_dim": 16384, "max_frames": 100_000,
            "conv_kernel": 255}  # fmt: skip


@dataclass(frozen=True)
class ModelConfig:
    """The size and inputs of a StickFigureTransformer; the presets live in configs/model/*.yaml."""

    d_model: int
    """Width of every frame token and of the condition vector."""
    n_layers: int
    """Number of transformer blocks."""
    n_heads: int
    """Query heads per attention layer; d_model must be a multiple of it."""
    n_kv_heads: int = 0
    """Key/value heads (grouped-query attention); 0 means n_heads, i.e. ordinary multi-head attention."""
    d_ff: int = 0
    """SwiGLU hidden width; 0 means 8/3·d_model rounded up to a multiple of 64."""
    text_dim: int = 384
    """Dimension of the sentence embedding (384 for the offline MiniLM default, 1024 for BGE-large)."""
    dropout: float = 0.0
    """Dropout on attention weights and on each residual branch, during training only."""
    max_frames: int = 1024
    """Frames whose rotary tables are cached; longer sequences still work, their tables are computed."""
    rope_base: float = 10000.0
    """Rotary base: the longest wavelength is about 2π·rope_base frames."""
    name: str = "custom"
    """The preset's name (tiny, small, medium, large), shown in parameter tables and model cards."""
    patch: int = 1
    """Frames per token: the model sees a clip as tokens of `patch` consecutive frames (2–4 cut the cost
    of every layer by as much); the heads still predict every frame."""
    conv_kernel: int = 0
    """Width (in tokens, odd) of a depthwise temporal convolution branch in every block; 0 = none."""

    def __post_init__(self) -> None:
        for key in ("d_model", "n_layers", "n_heads", "text_dim", "max_frames"):
            if getattr(self, key) < 1:
                raise StickgenError(f"{key} must be a positive integer, not {getattr(self, key)}.")
        if self.n_kv_heads < 0 or self.d_ff < 0:
            raise StickgenError("n_kv_heads and d_ff must be 0 (automatic) or positive.")
        if self.d_model % self.n_heads:
            raise StickgenError(f"d_model {self.d_model} must be a multiple of n_heads {self.n_heads}.")
        if self.head_dim % 2:
            raise StickgenError(f"d_model / n_heads = {self.head_dim} must be even for rotary embeddings.")
        if self.n_heads % self.kv_heads:
            raise StickgenError(f"n_heads {self.n_heads} must be a multiple of n_kv_heads {self.kv_heads}.")
        if not 0.0 <= self.dropout < 1.0:
            raise StickgenError(f"dropout must be in [0, 1), not {self.dropout}.")
        if not 1 <= self.patch <= 16:
            raise StickgenError(f"patch must be between 1 and 16 frames, not {self.patch}.")
        if self.conv_kernel < 0 or (self.conv_kernel and self.conv_kernel % 2 == 0):
            raise StickgenError(f"conv_kernel must be 0 or an odd positive width, not {self.conv_kernel}.")
        for key, most in _LARGEST.items():  # far beyond any variant: a typo, not a model
            check_range(key, getattr(self, key), high=most)
        check_range("rope_base", self.rope_base, 1.0, open_low=True)

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    @property
    def kv_heads(self) -> int:
        return self.n_kv_heads or self.n_heads

    @property
    def ff_dim(self) -> int:
        return self.d_ff or 64 * math.ceil(8 * self.d_model / 3 / 64)


class ModelOutput(NamedTuple):
    """The model's predictions, one field per head; padded frames hold meaningless values."""

    pose: torch.Tensor  # (B, T, 48) clean pose, normalised
    position: torch.Tensor  # (B, T, 2) clean pelvis position, normalised
    velocity: torch.Tensor  # (B, T, 2) clean pelvis velocity, normalised
    action_logits: torch.Tensor  # (B, T, 60)
    physics: torch.Tensor  # (B, T, 6) centre-of-mass vx, vy, ax, ay; left, right foot contact
    environment: torch.Tensor  # (B, 32) per clip

    def as_dict(self) -> dict[str, torch.Tensor]:
        """The heads keyed by name."""
        return self._asdict()

    def features(self) -> torch.Tensor:
        """Pose, position and velocity concatenated in input order: (B, T, 52)."""
        return torch.cat([self.pose, self.position, self.velocity], dim=-1)


# -----------------------------------------------------------------------------
# model


class StickFigureTransformer(nn.Module):
    """Predicts the clean motion (and its labels) from noisy motion, time, text, actions and camera."""

    def __init__(self, config: ModelConfig, generator: torch.Generator | None = None):
        """Build the model from `config`; `generator` draws the initial weights (None: torch's global one)."""
        super().__init__()
        self.config = config
        d, p = config.d_model, config.patch
        # tokens of `patch` frames: their noisy features + the mean of their action and camera embeddings
        self.input_proj = nn.Linear(p * FEATURE_DIM, d)
        self.action_emb = nn.Embedding(N_ACTIONS + 1, d)  # id N_ACTIONS is the null (unknown or dropped)
        self.camera_mlp = nn.Sequential(nn.Linear(CAMERA_DIM, d), nn.SiLU(), nn.Linear(d, d))
        self.camera_null = nn.Parameter(torch.zeros(d))
        # clip condition: time + text
        self.time_mlp = nn.Sequential(nn.Linear(d, d), nn.SiLU(), nn.Linear(d, d))
        self.text_proj = nn.Linear(config.text_dim, d, bias=False)
        self.text_null = nn.Parameter(torch.zeros(d))
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.n_layers)])
        self.final_norm = RMSNorm(d)
        self.final_modulation = nn.Linear(d, 2 * d, bias=False)
        # per-frame heads predict the `patch` frames of their token at once
        self.heads = nn.ModuleDict(
            {
                "pose": nn.Linear(d, p * POSE_DIM),
                "position": nn.Linear(d, p * POSITION_DIM),
                "velocity": nn.Linear(d, p * VELOCITY_DIM),
                "action_logits": nn.Linear(d, p * N_ACTIONS),
                "physics": nn.Linear(d, p * PHYSICS_DIM),
                "environment": nn.Linear(d, ENVIRONMENT_DIM),
            }
        )
        cos, sin = rope_frequencies(torch.arange(config.max_frames), config.head_dim, config.rope_base)
        # not persistent: recomputed from the config, so checkpoints hold only learned weights
        self.register_buffer("rope_cos", cos, persistent=False)  # (max_frames, D/2)
        self.register_buffer("rope_sin", sin, persistent=False)  # (max_frames, D/2)
        self.reset_parameters(generator)

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Initialise every weight as described in the module docstring, drawing from `generator`."""
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=0.02, generator=generator)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
            if isinstance(module, RMSNorm):
                nn.init.ones_(module.weight)
        nn.init.normal_(self.camera_null, std=0.02, generator=generator)
        nn.init.normal_(self.text_null, std=0.02, generator=generator)
        for block in self.blocks:
            nn.init.zeros_(block.modulation.weight)
        nn.init.zeros_(self.final_modulation.weight)
        for name in ("pose", "position", "velocity"):
            nn.init.zeros_(self.heads[name].weight)

    def forward(
        self,
        x: torch.Tensor,
        t: torch.Tensor,
        *,
        mask: torch.Tensor | None = None,
        text: torch.Tensor | None = None,
        actions: torch.Tensor | None = None,
        camera: torch.Tensor | None = None,
        drop_text: torch.Tensor | None = None,
        drop_actions: torch.Tensor | None = None,
        drop_camera: torch.Tensor | None = None,
    ) -> ModelOutput:
        """Predict the clean clip from the noisy one.

        x: (B, T, 52) float, noisy normalised features (pose 48, position 2, velocity 2).
        t: (B,) float, denoising time in [0, 1] (1 = clean).
        mask: (B, T) bool, True for real frames; None = every frame is real. Each clip needs at least
            one real frame. Padded frames influence nothing; their outputs are meaningless.
        text: (B, text_dim) float sentence embeddings, or (B, T, text_dim) one per frame (a token takes
            the sentence of its first frame); None = every sample uses the text null.
        actions: (B, T) long in -1..59, -1 = unknown (the action null); None = all null.
        camera: (B, T, 3) float camera x, y (m) and zoom; None = every sample uses the camera null.
        drop_text, drop_actions, drop_camera: (B,) bool, True = replace that sample's condition by its
            null (classifier-free guidance dropout); None = drop nothing.
        """
        B, T, _ = x.shape
        d, p = self.config.d_model, self.config.patch
        null_action = torch.full((B, T), N_ACTIONS, dtype=torch.long, device=x.device)
        if actions is None:
            action_ids = null_action
        else:
            action_ids = torch.where(actions < 0, null_action, actions)
            if drop_actions is not None:
                action_ids = torch.where(drop_actions[:, None], null_action, action_ids)
        if camera is None:
            camera_tokens = self.camera_null.expand(B, T, d)
        else:
            camera_tokens = self.camera_mlp(camera)  # (B, T, C)
            if drop_camera is not None:
                camera_tokens = torch.where(drop_camera[:, None, None], self.camera_null, camera_tokens)
        frame_cond = self.action_emb(action_ids) + camera_tokens  # (B, T, C)
        if mask is not None:
            # Padded frames count as zero features with null conditions, wherever they are (inside a
            # batch or at the end of the last token), and hide any NaN: 0 · NaN is NaN.
            x = torch.where(mask[:, :, None], x, 0.0)
            frame_cond = torch.where(mask[:, :, None], frame_cond, self._null_frame_cond(B, T))
        # Tokens of p frames; the clip is padded to a whole number of tokens with zero features and
        # null conditions, exactly as padding inside a training batch looks.
        N = -(-T // p)
        pad = N * p - T
        if pad:
            x = F.pad(x, (0, 0, 0, pad))
            frame_cond = torch.cat([frame_cond, self._null_frame_cond(B, pad)], dim=1)
        h = self.input_proj(x.reshape(B, N, p * FEATURE_DIM)) + frame_cond.view(B, N, p, d).mean(dim=2)
        cond, where = self._condition(t, text, drop_text, T, h.dtype)

        if N <= self.config.max_frames:
            cos, sin = self.rope_cos[:N], self.rope_sin[:N]  # (N, D/2)
        else:
            positions = torch.arange(N, device=x.device)
            cos, sin = rope_frequencies(positions, self.config.head_dim, self.config.rope_base)
        attn_mask = token_mask = None
        if mask is not None:
            token_mask = mask[:, ::p]  # (B, N): a token is real when its first frame is
            h = torch.where(token_mask[:, :, None], h, 0.0)
            attn_mask = token_mask[:, None, None, :]  # (B, 1, 1, N), broadcast over heads and queries
        for block in self.blocks:
            h = block(h, cond, where, cos, sin, attn_mask, token_mask)
        shift, scale = self.final_modulation(cond)[where].chunk(2, dim=-1)  # (B, 1 or N, C)
        h = modulate(self.final_norm(h), shift, scale)  # (B, N, C)

        if token_mask is None:
            pooled = h.mean(dim=1)  # (B, C)
        else:
            weights = token_mask.to(h.dtype)[:, :, None]  # (B, N, 1)
            pooled = (h * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)  # (B, C)

        def per_frame(name: str) -> torch.Tensor:
            out = self.heads[name](h)  # (B, N, p·K)
            return out.view(B, N * p, -1)[:, :T]  # (B, T, K)

        return ModelOutput(
            pose=per_frame("pose"),
            position=per_frame("position"),
            velocity=per_frame("velocity"),
            action_logits=per_frame("action_logits"),
            physics=per_frame("physics"),
            environment=self.heads["environment"](pooled),
        )

    def _condition(
        self,
        t: torch.Tensor,
        text: torch.Tensor | None,
        drop_text: torch.Tensor | None,
        T: int,
        dtype: torch.dtype,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The clip condition silu(time + text) as rows (R, C), and `where` (B, 1 or N), each token's row.

        With one sentence per sample the rows are the samples' (R = B, `where` (B, 1)). With a sentence
        per frame each token takes its first frame's, and the rows are each sample's runs of one
        sentence: a prompt's parts are few and the adaLN modulations are computed once per row, not
        once per token.
        """
        B = t.shape[0]
        time_vec = self.time_mlp(timestep_embedding(t, self.config.d_model).to(dtype))  # (B, C)
        if text is None or text.dim() == 2:
            if text is None:
                text_vec = self.text_null.expand(B, -1)
            else:
                text_vec = self.text_proj(text)  # (B, C)
                if drop_text is not None:
                    text_vec = torch.where(drop_text[:, None], self.text_null, text_vec)
            return F.silu(time_vec + text_vec), torch.arange(B, device=t.device)[:, None]
        p = self.config.patch
        N = -(-T // p)  # tokens, the last padded to p frames
        text = text[:, torch.arange(N, device=text.device).mul(p).clamp(max=T - 1)]  # (B, N, D)
        starts = torch.ones(B, N, dtype=torch.bool, device=text.device)  # a token whose sentence is new
        starts[:, 1:] = (text[:, 1:] != text[:, :-1]).any(dim=-1)
        where = starts.view(-1).cumsum(0).sub(1).view(B, N)  # (B, N) row of each token
        sample = torch.arange(B, device=text.device).repeat_interleave(starts.sum(dim=1))  # (R,)
        text_vec = self.text_proj(text.reshape(B * N, -1)[starts.view(-1)])  # (R, C)
        if drop_text is not None:
            text_vec = torch.where(drop_text[sample][:, None], self.text_null, text_vec)
        return F.silu(time_vec[sample] + text_vec), where

    def _null_frame_cond(self, batch: int, frames: int) -> torch.Tensor:
        """The per-frame condition of padding frames: null action + null camera, (B, frames, C)."""
        null = self.action_emb.weight[N_ACTIONS] + self.camera_null  # (C,)
        return null.expand(batch, frames, null.shape[0])


# -----------------------------------------------------------------------------
# growing a trained model deeper


def block_places(old_layers: int, new_layers: int) -> list[int]:
    """Where the blocks of a model of `old_layers` go among `new_layers`: spread evenly, in order.

    Block i goes to i·new // old, so 6 blocks in 9 sit at 0, 1, 3, 4, 6, 7 and a new block follows
    every second one (2, 5, 8).
    """
    if not 1 <= old_layers <= new_layers:
        raise StickgenError(f"cannot place {old_layers} blocks among {new_layers}.")
    return [i * new_layers // old_layers for i in range(old_layers)]


def deepened_state(
    state: dict[str, torch.Tensor], old_layers: int, model: StickFigureTransformer
) -> dict[str, torch.Tensor]:
    """`model`'s full state with the weights of `state`, a trained model of `old_layers` blocks.

    Every weight outside the blocks, and each old block (renumbered by `block_places`), comes from
    `state`; the blocks between keep `model`'s own initial weights, whose modulation is zero (adaLN-Zero),
    so each adds nothing to its input and the deeper model computes exactly what `state`'s did. Training
    then opens their gates.
    """
    places = block_places(old_layers, model.config.n_layers)
    out = dict(model.state_dict())
    for name, value in state.items():
        if name.startswith("blocks."):
            _, index, rest = name.split(".", 2)
            name = f"blocks.{places[int(index)]}.{rest}"
        if name not in out or out[name].shape != value.shape:
            raise StickgenError(f"the checkpoint's weight {name} does not fit the deeper model.")
        out[name] = value
    new = set(range(model.config.n_layers)) - set(places)
    if any(out[f"blocks.{i}.modulation.weight"].abs().max() > 0 for i in new):
        raise StickgenError("a new block's modulation must start at zero to leave the model as it was.")
    return out


# -----------------------------------------------------------------------------
# size report


def parameter_counts(model: StickFigureTransformer) -> dict[str, int]:
    """Parameters per part of `model`, in forward order, plus their total under "total"."""
    parts = {
        "frame input (features, actions, camera)": [model.input_proj, model.action_emb, model.camera_mlp],
        "condition (time, text)": [model.time_mlp, model.text_proj],
        "transformer blocks": [model.blocks],
        "final adaptive norm": [model.final_norm, model.final_modulation],
        "heads": [model.heads],
    }
    counts = {
        name: sum(p.numel() for m in modules for p in m.parameters()) for name, modules in parts.items()
    }
    counts["frame input (features, actions, camera)"] += model.camera_null.numel()
    counts["condition (time, text)"] += model.text_null.numel()
    counts["total"] = sum(p.numel() for p in model.parameters())
    return counts


def parameter_table(config: ModelConfig) -> str:
    """A plain-text table of the parameters per part and in total of a model built from `config`.

    The model is built on the meta device, so no memory is allocated even for the large preset.
    """
    with torch.device("meta"):
        model = StickFigureTransformer(config)
    counts = parameter_counts(model)
    per_block = counts["transformer blocks"] // config.n_layers
    header = (
        f"model {config.name}: d_model {config.d_model}, {config.n_layers} layers, {config.n_heads} heads "
        f"({config.kv_heads} key/value), d_ff {config.ff_dim}, text_dim {config.text_dim}"
    )
    labels = {name: name for name in counts}
    labels["transformer blocks"] = f"transformer blocks ({config.n_layers} × {per_block:,})"
    width = max(len(label) for label in labels.values())
    lines = [header] + [f"  {labels[name]:<{width}}  {n:>12,}" for name, n in counts.items()]
    return "\n".join(lines)
