"""A BERT sentence encoder in plain PyTorch, so that a new prompt is embedded without importing
sentence-transformers.

Importing sentence-transformers (and the transformers library under it) takes 3 to 4.5 s on a 2-core
machine, more than loading and running the 22M-parameter MiniLM itself; every `stickgen generate` of a
prompt not yet in the embedding cache paid it. This module runs the same computation from the same
folder: the `tokenizers` library reads the folder's `tokenizer.json` (the fast tokenizer transformers
itself uses), and a BERT encoder written out here (post-norm blocks, exact GELU, absolute positions)
takes the weights of `model.safetensors`, then mean pooling and unit length, as the folder's
`modules.json` says. `TextEncoder` uses it for a folder that has exactly that shape (`supports`) and
sentence-transformers for anything else; tests/test_text.py holds the two to 1e-5 on the packaged
MiniLM, with and without the reader's adapter.

The parameters are named as in the sentence-transformers model (`0.model.encoder.layer.3...`), so an
`Adapter` applies to either.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from stickgen.errors import StickgenError


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _mean_pooling(config: dict[str, Any]) -> bool:
    """Whether a Pooling module's config asks for the mean of the tokens and nothing else, in the format
    of sentence-transformers 6 ("pooling_mode": "mean") or before (one `pooling_mode_*_tokens` true)."""
    if "pooling_mode" in config:
        return config["pooling_mode"] == "mean"
    modes = [key for key, on in config.items() if key.startswith("pooling_mode") and on]
    return modes == ["pooling_mode_mean_tokens"]


def supports(folder: Path) -> bool:
    """Whether `folder` is a sentence-transformers BERT encoder this module runs: modules Transformer
    (in the folder itself), mean Pooling and Normalize; a BertModel with absolute positions and GELU;
    its weights in `model.safetensors` and its tokenizer in `tokenizer.json`."""
    try:
        modules = _read(folder / "modules.json")
        kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
        if kinds != ["Transformer", "Pooling", "Normalize"]:
            return False
        if str(modules[0].get("path", "")) not in ("", "."):  # the BERT in the folder itself
            return False
        pooling = _read(folder / str(modules[1]["path"]) / "config.json")
        config = _read(folder / "config.json")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return (
        _mean_pooling(pooling)
        and config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and (folder / "model.safetensors").is_file()
        and (folder / "tokenizer.json").is_file()
    )


class _SelfAttention(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.value = nn.Linear(width, width)


class _Output(nn.Module):
    def __init__(self, width_in: int, width: int, eps: float):
        super().__init__()
        self.dense = nn.Linear(width_in, width)
        self.LayerNorm = nn.LayerNorm(width, eps=eps)

    def forward(self, h: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dense(h) + residual)


class _Attention(nn.Module):
    def __init__(self, width: int, eps: float):
        super().__init__()
        self.self = _SelfAttention(width)
        self.output = _Output(width, width, eps)


class _Intermediate(nn.Module):
    def __init__(self, width: int, inner: int):
        super().__init__()
        self.dense = nn.Linear(width, inner)


class _Layer(nn.Module):
    def __init__(self, width: int, inner: int, heads: int, eps: float):
        super().__init__()
        self.heads = heads
        self.attention = _Attention(width, eps)
        self.intermediate = _Intermediate(width, inner)
        self.output = _Output(inner, width, eps)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """x (B, T, C); bias (B, 1, 1, T): 0 for tokens, the dtype's lowest for padding."""
        b, t, c = x.shape
        attn = self.attention.self

        def heads(linear: nn.Linear) -> torch.Tensor:
            return linear(x).view(b, t, self.heads, c // self.heads).transpose(1, 2)

        q, k, v = heads(attn.query), heads(attn.key), heads(attn.value)
        scores = q @ k.transpose(-1, -2) / math.sqrt(c // self.heads) + bias
        h = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, t, c)
        x = self.attention.output(h, x)
        return self.output(F.gelu(self.intermediate.dense(x)), x)


class _Embeddings(nn.Module):
    def __init__(self, config: dict[str, Any]):
        super().__init__()
        width = int(config["hidden_size"])
        self.word_embeddings = nn.Embedding(int(config["vocab_size"]), width)
        self.position_embeddings = nn.Embedding(int(config["max_position_embeddings"]), width)
        self.token_type_embeddings = nn.Embedding(int(config.get("type_vocab_size", 2)), width)
        self.LayerNorm = nn.LayerNorm(width, eps=float(config.get("layer_norm_eps", 1e-12)))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.word_embeddings(ids) + self.position_embeddings(positions)
        return self.LayerNorm(x + self.token_type_embeddings.weight[0])  # one segment: type 0


class _Encoder(nn.Module):
    def __init__(self, config: dict[str, Any]):
        super().__init__()
        width, eps = int(config["hidden_size"]), float(config.get("layer_norm_eps", 1e-12))
        self.layer = nn.ModuleList(
            _Layer(width, int(config["intermediate_size"]), int(config["num_attention_heads"]), eps)
            for _ in range(int(config["num_hidden_layers"]))
        )


class _Bert(nn.Module):
    def __init__(self, config: dict[str, Any]):
        super().__init__()
        self.embeddings = _Embeddings(config)
        self.encoder = _Encoder(config)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        bias = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        x = self.embeddings(ids)
        for layer in self.encoder.layer:
            x = layer(x, bias)
        return x


class _Module0(nn.Module):
    """Named as sentence-transformers' first module, so the parameters are `0.model.…`."""

    def __init__(self, config: dict[str, Any]):
        super().__init__()
        self.model = _Bert(config)


class BertSentenceEncoder(nn.Module):
    """The folder's tokenizer and BERT, mean-pooled to unit vectors; `encode` as sentence-transformers'."""

    def __init__(self, folder: str | Path, device: str = "cpu"):
        super().__init__()
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        folder = Path(folder)
        if not supports(folder):
            raise StickgenError(f"The text encoder in {folder} is not a BERT sentence encoder run here.")
        config = _read(folder / "config.json")
        self.max_tokens = int(config["max_position_embeddings"])  # longer texts are cut, as there
        if (folder / "sentence_bert_config.json").is_file():
            wanted = _read(folder / "sentence_bert_config.json").get("max_seq_length")
            self.max_tokens = min(self.max_tokens, int(wanted or self.max_tokens))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self.tokenizer.no_padding()
        self.add_module("0", _Module0(config))
        state = load_file(str(folder / "model.safetensors"))
        state = {name.removeprefix("bert."): value for name, value in state.items()}
        ours = getattr(self, "0").model
        wanted = set(ours.state_dict())
        missing = wanted - set(state)
        if missing:
            raise StickgenError(f"The text encoder in {folder} lacks the weight {sorted(missing)[0]}.")
        ours.load_state_dict({name: state[name].float() for name in wanted})
        self.eval().to(device)
        self.device = torch.device(device)

    @torch.inference_mode()
    def encode(self, texts: list[str], **_: Any) -> np.ndarray:
        """(N, D) float32 unit vectors of `texts`, as one batch padded to its longest text."""
        width = getattr(self, "0").model.embeddings.word_embeddings.embedding_dim
        if not texts:
            return np.zeros((0, width), dtype=np.float32)
        encodings = self.tokenizer.encode_batch([str(t).strip() for t in texts])
        longest = max(len(e.ids) for e in encodings)
        ids = torch.zeros(len(texts), longest, dtype=torch.long)
        mask = torch.zeros(len(texts), longest, dtype=torch.long)
        for row, e in enumerate(encodings):
            ids[row, : len(e.ids)] = torch.tensor(e.ids)
            mask[row, : len(e.ids)] = 1
        ids, mask = ids.to(self.device), mask.to(self.device)
        tokens = getattr(self, "0").model(ids, mask)
        weights = mask[:, :, None].to(tokens.dtype)
        pooled = (tokens * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return F.normalize(pooled, p=2, dim=1).float().cpu().numpy()
