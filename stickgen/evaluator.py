"""The evaluator: a contrastive text–motion embedding and an action classifier, trained on real data.

The field measures generated motion in the embedding space of a separately trained text–motion model
(Guo et al. 2022; Petrovich et al., "TMR: Text-to-Motion Retrieval Using Contrastive 3D Human Motion
Synthesis", ICCV 2023). Ours, sized to train in minutes on two CPU cores:

- Motion encoder: the 52 per-frame features (`figure.motion_features`, normalised with the train split's
  statistics) → two strided 1-D convolutions (4× fewer tokens: a 10 s clip is 63 tokens) → a small
  pre-norm transformer with sinusoidal positions and a padding mask → mean over the real tokens.
- A linear projection of that vector onto the unit sphere of the shared space (`embed_dim`).
- Text projection: a two-layer MLP from the sentence embedding (any encoder of `stickgen.text`) onto
  the same unit sphere.
- Action head: a linear classifier of the pooled motion vector that predicts the clip's majority
  action (the most frequent known per-frame action id).

Loss: symmetric InfoNCE over the batch with a temperature, as in TMR, where a pair whose two captions are
near duplicates (cosine above `negative_threshold`) is not used as a negative, plus the action
cross-entropy. Trained on the train split, stopped early on the validation loss, the best weights kept.

An evaluator is a folder: `config.json` (the configuration, the text encoder's identity, the feature
statistics, the training summary), `evaluator.safetensors` and a `README.md`.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from stickgen import __version__
from stickgen import figure as fg
from stickgen.batches import BucketSampler, ClipBank, collate
from stickgen.clip_ops import CANONICAL_FPS, resample
from stickgen.config import from_dict, to_dict
from stickgen.errors import StickgenError
from stickgen.files import atomic_folder, check_folder_for, portable_path
from stickgen.labels import NUM_ACTIONS
from stickgen.metrics import r_precision
from stickgen.motion import Motion
from stickgen.ranges import check_seed

FORMAT = "stickgen-evaluator"
FORMAT_VERSION = 1
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "evaluator.safetensors"
CARD_FILE = "README.md"
# A feature whose train-split spread is below this (m or m/s) is not divided by it: the pelvis-relative
# pelvis is always 0, and a tiny std would turn a generated clip's small error into a huge input.
MIN_STD = 1e-2


@dataclass(frozen=True)
class EvaluatorConfig:
    """Size and training of the evaluator."""

    d_model: int = 128
    """Width of the motion tokens and of the text MLP."""
    n_layers: int = 2
    n_heads: int = 4
    embed_dim: int = 256
    """Dimension of the shared text–motion space."""
    temperature: float = 0.1
    """InfoNCE temperature (TMR: 0.1)."""
    negative_threshold: float = 0.95
    """Two captions with sentence-embedding cosine above this are not negatives of each other."""
    dropout: float = 0.1
    action_weight: float = 1.0
    """Weight of the action cross-entropy next to the contrastive loss."""
    lr: float = 1e-3
    weight_decay: float = 0.01
    batch_size: int = 64
    max_steps: int = 1200
    """Training steps at most (about 5 minutes on 2 CPU cores with clips of 5 s on average)."""
    val_every: int = 200
    """Steps between measurements of the validation loss."""
    patience: int = 2
    """Stop after this many measurements without a lower validation loss."""
    seed: int = 0

    def __post_init__(self) -> None:
        keys = (
            "d_model",
            "n_layers",
            "n_heads",
            "embed_dim",
            "batch_size",
            "max_steps",
            "val_every",
            "patience",
        )
        for key in keys:
            if getattr(self, key) < 1:
                raise StickgenError(f"{key} must be a positive integer, not {getattr(self, key)}.")
        if self.d_model % self.n_heads:
            raise StickgenError(f"d_model {self.d_model} must be a multiple of n_heads {self.n_heads}.")
        if self.temperature <= 0:
            raise StickgenError(f"temperature must be positive, not {self.temperature}.")
        check_seed("--seed", self.seed)


# -----------------------------------------------------------------------------
# the network


def sinusoidal_positions(length: int, dim: int) -> torch.Tensor:
    """(length, dim) fixed sinusoidal position codes (Vaswani et al. 2017)."""
    position = torch.arange(length, dtype=torch.float32)[:, None]
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    out = torch.zeros(length, dim)
    out[:, 0::2] = torch.sin(position * freq)
    out[:, 1::2] = torch.cos(position * freq)
    return out


def downsampled_mask(mask: torch.Tensor) -> torch.Tensor:
    """(B, T) frame mask → (B, ceil(T / 2)) mask after one stride-2 convolution (kernel 3, padding 1)."""
    lengths = (mask.sum(dim=1) + 1) // 2  # ceil(len / 2)
    return torch.arange((mask.shape[1] + 1) // 2, device=mask.device)[None, :] < lengths[:, None]


class EvaluatorNet(nn.Module):
    """Motion encoder, text projection and action head (see the module docstring)."""

    def __init__(self, config: EvaluatorConfig, text_dim: int):
        super().__init__()
        d = config.d_model
        self.config = config
        self.text_dim = text_dim
        self.down1 = nn.Conv1d(fg.FEATURE_DIM, d, kernel_size=3, stride=2, padding=1)
        self.down2 = nn.Conv1d(d, d, kernel_size=3, stride=2, padding=1)
        layer = nn.TransformerEncoderLayer(
            d, config.n_heads, 2 * d, dropout=config.dropout, activation="gelu", batch_first=True,
            norm_first=True,
        )  # fmt: skip
        self.transformer = nn.TransformerEncoder(layer, config.n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.motion_proj = nn.Linear(d, config.embed_dim)
        self.text_proj = nn.Sequential(nn.Linear(text_dim, d), nn.GELU(), nn.Linear(d, config.embed_dim))
        self.action_head = nn.Linear(d, NUM_ACTIONS)

    def pooled(self, features: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Normalised features (B, T, 52) and frame mask (B, T) → pooled motion vector (B, d_model).

        Padded frames must hold zeros; the conv outputs at padded positions are zeroed too, so a clip
        gives the same vector alone or padded in a batch.
        """
        x = features.transpose(1, 2)  # (B, 52, T)
        mask1 = downsampled_mask(mask)
        x = F.gelu(self.down1(x)) * mask1[:, None, :]  # (B, d, T/2)
        mask2 = downsampled_mask(mask1)
        x = F.gelu(self.down2(x)) * mask2[:, None, :]  # (B, d, T/4)
        x = x.transpose(1, 2)  # (B, T/4, d)
        x = x + sinusoidal_positions(x.shape[1], x.shape[2]).to(x.device)
        x = self.norm(self.transformer(x, src_key_padding_mask=~mask2))
        weights = mask2[..., None].float()
        return (x * weights).sum(dim=1) / weights.sum(dim=1)  # (B, d)

    def embed_motion(self, pooled: torch.Tensor) -> torch.Tensor:
        """Pooled motion (B, d_model) → unit vectors (B, embed_dim)."""
        return F.normalize(self.motion_proj(pooled), dim=-1)

    def embed_text(self, text: torch.Tensor) -> torch.Tensor:
        """Sentence embeddings (B, text_dim) → unit vectors (B, embed_dim)."""
        return F.normalize(self.text_proj(text), dim=-1)


def contrastive_loss(
    motion: torch.Tensor, text: torch.Tensor, sentence: torch.Tensor, temperature: float, threshold: float
) -> torch.Tensor:
    """Symmetric InfoNCE over a batch: motion (B, E) and text (B, E) unit vectors, pair i matched.

    sentence: (B, D) the raw sentence embeddings; pairs whose captions have cosine above `threshold`
    are removed from each other's negatives (TMR's filtering of near-duplicate captions).
    """
    logits = motion @ text.T / temperature  # (B, B)
    unit = F.normalize(sentence, dim=-1)
    same = (unit @ unit.T > threshold) & ~torch.eye(len(unit), dtype=torch.bool, device=unit.device)
    logits = logits.masked_fill(same, float("-inf"))
    target = torch.arange(len(logits), device=logits.device)
    return 0.5 * (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target))


def majority_action(actions: np.ndarray) -> int:
    """The most frequent known action id of a clip's (T,) per-frame ids; −1 when none is known."""
    known = actions[actions >= 0]
    return int(np.bincount(known, minlength=NUM_ACTIONS).argmax()) if known.size else -1


# -----------------------------------------------------------------------------
# a trained evaluator


@dataclass
class Evaluator:
    """A trained evaluator in eval mode on the CPU, with everything needed to use it."""

    net: EvaluatorNet
    config: EvaluatorConfig
    encoder: dict[str, Any]  # the text encoder's identity {"name", "id", "dim"}
    mean: np.ndarray  # (52,) feature mean of the train split
    std: np.ndarray  # (52,) feature std of the train split, at least MIN_STD
    training: dict[str, Any] = field(default_factory=dict)

    @torch.no_grad()
    def encode_motions(
        self, motions: Sequence[Motion], *, batch_size: int = 64
    ) -> tuple[np.ndarray, np.ndarray]:
        """(embeddings (N, embed_dim) unit rows, predicted majority action ids (N,)) of the clips.

        Clips at another frame rate are resampled to 25 fps first. Batches group clips of similar
        length; the result is in the order given.
        """
        features = [self._features(m) for m in motions]
        order = np.argsort([len(f) for f in features], kind="stable")
        embeddings = np.zeros((len(motions), self.config.embed_dim), np.float32)
        actions = np.zeros(len(motions), np.int64)
        self.net.eval()
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            x, mask = _pad([features[i] for i in idx])
            pooled = self.net.pooled(x, mask)
            embeddings[idx] = self.net.embed_motion(pooled).numpy()
            actions[idx] = self.net.action_head(pooled).argmax(dim=-1).numpy()
        return embeddings, actions

    @torch.no_grad()
    def encode_texts(self, sentence_embeddings: np.ndarray) -> np.ndarray:
        """Sentence embeddings (N, text_dim) from the evaluator's text encoder → (N, embed_dim) unit rows."""
        sentence = torch.as_tensor(np.asarray(sentence_embeddings, np.float32))
        if sentence.ndim != 2 or sentence.shape[1] != self.net.text_dim:
            raise StickgenError(
                f"The evaluator expects {self.net.text_dim}-dim sentence embeddings, "
                f"not an array of shape {tuple(sentence.shape)}."
            )
        self.net.eval()
        return self.net.embed_text(sentence).numpy()

    def _features(self, motion: Motion) -> np.ndarray:
        if motion.fps != CANONICAL_FPS:
            motion = resample(motion, CANONICAL_FPS)
        return ((fg.motion_features(motion.joints, motion.fps) - self.mean) / self.std).astype(np.float32)


def _pad(features: Sequence[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """Normalised clips (T_i, 52) → zero-padded (B, T, 52) and mask (B, T)."""
    length = max(len(f) for f in features)
    x = np.zeros((len(features), length, fg.FEATURE_DIM), np.float32)
    mask = np.zeros((len(features), length), bool)
    for b, f in enumerate(features):
        x[b, : len(f)] = f
        mask[b, : len(f)] = True
    return torch.from_numpy(x), torch.from_numpy(mask)


# -----------------------------------------------------------------------------
# training


@dataclass
class TextTable:
    """The captions of a set of clips as rows of one embedding table."""

    rows: list[list[int]]  # per clip, its rows in `vectors`
    vectors: np.ndarray  # (N_texts, D) sentence embeddings


def text_table(motions: Sequence[Motion], embed: Callable[[list[str]], np.ndarray]) -> TextTable:
    """Embed every distinct caption of `motions` once with `embed` (list of str → (N, D))."""
    unique = list(dict.fromkeys(t for m in motions for t in m.texts))
    index = {t: i for i, t in enumerate(unique)}
    vectors = np.asarray(embed(unique), np.float32) if unique else np.zeros((0, 1), np.float32)
    return TextTable(rows=[[index[t] for t in m.texts] for m in motions], vectors=vectors)


def feature_statistics(motions: Sequence[Motion]) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature mean and std (52,) over every frame of the clips; std at least `MIN_STD`."""
    frames = np.concatenate([fg.motion_features(m.joints, m.fps) for m in motions])
    return frames.mean(axis=0), np.maximum(frames.std(axis=0), MIN_STD)


def _batch_loss(
    net: EvaluatorNet,
    bank: ClipBank,
    labels: np.ndarray,
    idx: np.ndarray,
    mean: np.ndarray,
    std: np.ndarray,
    choice: np.ndarray,
    config: EvaluatorConfig,
) -> torch.Tensor:
    """Contrastive plus action loss of the clips `idx`; `choice` (B,) in [0, 1) picks each one's caption."""
    batch = collate(bank, idx, mean, std, choice)
    pooled = net.pooled(batch.features, batch.mask)
    has = batch.has_text
    loss = torch.zeros(())
    if has.sum() >= 2:
        loss = loss + contrastive_loss(
            net.embed_motion(pooled[has]), net.embed_text(batch.text[has]), batch.text[has],
            config.temperature, config.negative_threshold,
        )  # fmt: skip
    target = torch.from_numpy(labels[idx])
    if (target >= 0).any():
        loss = loss + config.action_weight * F.cross_entropy(net.action_head(pooled), target, ignore_index=-1)
    return loss


def _fixed_batches(bank: ClipBank, size: int) -> list[np.ndarray]:
    """Validation batches: clips with a caption in length order, cut into batches of `size` (≥ 2 each)."""
    with_text = np.array([i for i, c in enumerate(bank.clips) if len(c.text_rows)])
    order = with_text[np.argsort(bank.lengths[with_text], kind="stable")]
    batches = [order[i : i + size] for i in range(0, len(order), size)]
    return [b for b in batches if len(b) >= 2]


def train_evaluator(
    train: Sequence[Motion],
    val: Sequence[Motion],
    embed: Callable[[list[str]], np.ndarray],
    encoder: dict[str, Any],
    config: EvaluatorConfig = EvaluatorConfig(),
    *,
    progress: bool = False,
) -> Evaluator:
    """Train an evaluator on the `train` clips, stopping early on the `val` clips; return the best one.

    embed: the sentence encoder (list of str → (N, D)) whose identity is `encoder` {"name", "id", "dim"}.
    Every `val_every` steps the loss on the val clips (their first captions, fixed batches) is measured;
    training stops at `max_steps` or after `patience` measurements without a new best, and the weights
    of the best measurement are kept. Deterministic for a given config seed; the global torch random
    state is left as it was.
    """
    for name, clips in (("train", train), ("validation", val)):
        if sum(1 for m in clips if m.texts) < 2:
            raise StickgenError(f"The {name} split needs at least two clips with a description.")
    train_text, val_text = text_table(train, embed), text_table(val, embed)
    mean, std = feature_statistics(train)
    train_bank = ClipBank.from_motions(train, train_text.rows, train_text.vectors)
    val_bank = ClipBank.from_motions(val, val_text.rows, val_text.vectors)
    train_labels = np.array([majority_action(c.actions) for c in train_bank.clips])
    val_labels = np.array([majority_action(c.actions) for c in val_bank.clips])
    val_batches = _fixed_batches(val_bank, config.batch_size)
    sampler = BucketSampler(train_bank.lengths, min(config.batch_size, len(train_bank)), config.seed)
    rng = np.random.default_rng([config.seed, 1])
    history: list[dict[str, float]] = []
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        net = EvaluatorNet(config, int(encoder["dim"]))
        optimizer = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        best, best_state, since_best, window = math.inf, None, 0, []
        bar = _progress(config.max_steps, enabled=progress)
        for step, (_, _, idx) in enumerate(sampler.iterate(0, 0), start=1):
            net.train()
            loss = _batch_loss(net, train_bank, train_labels, idx, mean, std, rng.random(len(idx)), config)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            window.append(float(loss.detach()))
            bar.update()
            if step % config.val_every and step < config.max_steps:
                continue
            net.eval()
            with torch.no_grad():
                val_loss = float(
                    np.mean([
                        float(_batch_loss(net, val_bank, val_labels, b, mean, std, np.zeros(len(b)), config))
                        for b in val_batches
                    ])
                )  # fmt: skip
            history.append({"step": step, "train_loss": float(np.mean(window)), "val_loss": val_loss})
            window = []
            bar.set_postfix(train=f"{history[-1]['train_loss']:.3f}", val=f"{val_loss:.3f}")
            if val_loss < best:
                best, since_best = val_loss, 0
                best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
            else:
                since_best += 1
            if since_best >= config.patience or step >= config.max_steps:
                break
        bar.close()
    net.load_state_dict(best_state)
    net.eval()
    evaluator = Evaluator(net=net, config=config, encoder=dict(encoder), mean=mean, std=std)
    evaluator.training = _training_summary(evaluator, train, val, val_text, history)
    return evaluator


def _progress(steps: int, *, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=steps, desc="training the evaluator", unit="step", file=sys.stderr, disable=not enabled)


def _training_summary(
    evaluator: Evaluator, train: Sequence[Motion], val: Sequence[Motion], val_text: TextTable, history: list
) -> dict[str, Any]:
    """What the README and config.json record: data sizes, steps, and validation retrieval scores."""
    best = min(history, key=lambda h: h["val_loss"])
    described = [i for i, m in enumerate(val) if m.texts]
    summary: dict[str, Any] = {
        "train_clips": len(train),
        "val_clips": len(val),
        "steps": history[-1]["step"],
        "best_step": best["step"],
        "best_val_loss": round(best["val_loss"], 5),
        "history": [{k: round(v, 5) if isinstance(v, float) else v for k, v in h.items()} for h in history],
    }
    motion_emb, predicted = evaluator.encode_motions([val[i] for i in described])
    text_emb = evaluator.encode_texts(val_text.vectors[[val_text.rows[i][0] for i in described]])
    if len(described) >= 32:
        scores = r_precision(text_emb, motion_emb, top_k=3, rng=np.random.default_rng(0))
        summary["val_r_precision_32"] = [round(float(s), 4) for s in scores]
    summary["val_r_precision_all"] = [
        round(float(s), 4) for s in r_precision(text_emb, motion_emb, batch_size=None)
    ]
    labels = np.array([majority_action(val[i].actions) for i in described])
    if (labels >= 0).any():
        summary["val_action_accuracy"] = round(float((predicted == labels)[labels >= 0].mean()), 4)
    return summary


# -----------------------------------------------------------------------------
# files


CARD_TEMPLATE = """\
# stickgen evaluator

A text–motion embedding and action classifier for measuring generated stick-figure motion, made with
stickgen {version}. See docs/evaluation.md.

| | |
|---|---|
| motion encoder | 2 strided convolutions (4× fewer frames), {n_layers}-layer transformer ({d_model} wide, \
{n_heads} heads), mean pooling |
| shared space | {embed_dim}-dim unit vectors, InfoNCE temperature {temperature} |
| text encoder | {encoder_name} (`{encoder_id}`, {encoder_dim}-dim), projected by a 2-layer MLP |
| action head | the clip's majority action among {num_actions} |
| parameters | {parameters:,} |

## Training

{training}

## Files

- `config.json`: the configuration, the text encoder's identity, the feature statistics (`mean`,
  `std`, 52 values each) and this training summary.
- `evaluator.safetensors`: the weights.
"""


def evaluator_card(evaluator: Evaluator) -> str:
    """The Markdown README of an evaluator folder."""
    t = evaluator.training
    lines = [f"Dataset: `{t['dataset']}`."] if "dataset" in t else []
    lines += [
        f"Train split: {t.get('train_clips')} clips; validation split: {t.get('val_clips')} clips.",
        f"Stopped after {t.get('steps')} steps of {evaluator.config.batch_size} clips; best validation "
        f"loss {t.get('best_val_loss')} at step {t.get('best_step')}.",
    ]
    if "val_r_precision_32" in t:
        lines.append(f"Validation R-precision top-1/2/3 in batches of 32: {t['val_r_precision_32']}.")
    lines.append(
        f"Validation R-precision top-1/2/3 among all validation clips: {t.get('val_r_precision_all')}."
    )
    if "val_action_accuracy" in t:
        lines.append(f"Validation action accuracy: {t['val_action_accuracy']}.")
    c = evaluator.config
    return CARD_TEMPLATE.format(
        version=__version__, n_layers=c.n_layers, d_model=c.d_model, n_heads=c.n_heads, embed_dim=c.embed_dim,
        temperature=c.temperature, encoder_name=evaluator.encoder["name"], encoder_id=evaluator.encoder["id"],
        encoder_dim=evaluator.encoder["dim"], num_actions=NUM_ACTIONS,
        parameters=sum(p.numel() for p in evaluator.net.parameters()),
        training="\n".join(f"- {x}" for x in lines),
    )  # fmt: skip


def save_evaluator(evaluator: Evaluator, folder: str | os.PathLike) -> Path:
    """Write the evaluator folder atomically: a finished folder replaces an earlier evaluator, or nothing.

    Any other existing, non-empty folder is refused.
    """
    from safetensors.torch import save_file

    folder = Path(folder)
    with atomic_folder(folder, marker=WEIGHTS_FILE, kind="evaluator") as tmp:
        meta = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "stickgen_version": __version__,
            "config": to_dict(evaluator.config),
            "text_encoder": evaluator.encoder,
            "features": {"mean": evaluator.mean.tolist(), "std": evaluator.std.tolist()},
            "training": evaluator.training,
        }
        (tmp / CONFIG_FILE).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        weights = {k: v.detach().cpu().contiguous() for k, v in evaluator.net.state_dict().items()}
        save_file(weights, tmp / WEIGHTS_FILE)
        (tmp / CARD_FILE).write_text(evaluator_card(evaluator), encoding="utf-8")
    return folder


def load_evaluator(folder: str | os.PathLike) -> Evaluator:
    """Load an evaluator folder written by `save_evaluator`; every problem is one `StickgenError` sentence."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    folder = Path(folder)
    if not (folder / CONFIG_FILE).is_file() or not (folder / WEIGHTS_FILE).is_file():
        raise StickgenError(
            f"{folder} is not an evaluator folder (it needs {CONFIG_FILE} and {WEIGHTS_FILE}); "
            "make one with `stickgen eval train-evaluator`."
        )
    try:
        meta = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
        weights = load_file(folder / WEIGHTS_FILE)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, SafetensorError) as e:
        raise StickgenError(f"The evaluator in {folder} cannot be read ({e}).") from None
    if (
        not isinstance(meta, dict)
        or meta.get("format") != FORMAT
        or meta.get("format_version") != FORMAT_VERSION
    ):
        raise StickgenError(f"{folder / CONFIG_FILE} is not a version {FORMAT_VERSION} stickgen evaluator.")
    config = from_dict(EvaluatorConfig, meta.get("config"), source=str(folder / CONFIG_FILE))
    try:
        encoder = {k: meta["text_encoder"][k] for k in ("name", "id", "dim")}
        mean = np.asarray(meta["features"]["mean"], np.float64)
        std = np.asarray(meta["features"]["std"], np.float64)
    except (KeyError, TypeError, ValueError):
        raise StickgenError(
            f"{folder / CONFIG_FILE} lacks the text encoder or the feature statistics."
        ) from None
    if mean.shape != (fg.FEATURE_DIM,) or std.shape != (fg.FEATURE_DIM,) or not (std > 0).all():
        raise StickgenError(
            f"{folder / CONFIG_FILE} has feature statistics that are not 52 values with std > 0."
        )
    net = EvaluatorNet(config, int(encoder["dim"]))
    try:
        net.load_state_dict(weights)
    except RuntimeError:
        raise StickgenError(f"The weights in {folder} do not match its {CONFIG_FILE}.") from None
    net.eval()
    return Evaluator(
        net=net, config=config, encoder=encoder, mean=mean, std=std, training=meta.get("training", {})
    )


# -----------------------------------------------------------------------------
# datasets


def load_split(data: str | os.PathLike, split: str) -> list[Motion]:
    """The clips of one split ("train", "val", "test") of a dataset folder."""
    from stickgen.dataset import Dataset

    dataset = Dataset(data)
    return [dataset.motion(int(i)) for i in dataset.split(split)]


def train_evaluator_on_dataset(
    data: str | os.PathLike,
    out: str | os.PathLike,
    *,
    encoder: str | None = None,
    config: EvaluatorConfig = EvaluatorConfig(),
    progress: bool = True,
) -> Path:
    """`stickgen eval train-evaluator`: train on the dataset's train split, stop on val, save to `out`.

    encoder: the sentence encoder's name or folder (default: stickgen's offline default).
    """
    from stickgen.text import DEFAULT_ENCODER, TextEncoder

    check_folder_for(out, marker=WEIGHTS_FILE, kind="evaluator")  # before the training, not after
    train, val = load_split(data, "train"), load_split(data, "val")
    text_encoder = TextEncoder(encoder or DEFAULT_ENCODER)

    def embed(texts: list[str]) -> np.ndarray:
        return text_encoder.encode(texts, progress=progress)

    evaluator = train_evaluator(train, val, embed, text_encoder.identity.to_dict(), config, progress=progress)
    evaluator.training["dataset"] = portable_path(data)
    return save_evaluator(evaluator, out)
