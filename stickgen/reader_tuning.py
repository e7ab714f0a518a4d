"""The meaning reader's own encoder: MiniLM with its top layers tuned on the vocabulary's phrases.

`stickgen.action_meaning` reads a prompt whose words name no action by the nearest phrases of the
vocabulary in sentence-embedding space. MiniLM, as it ships, places phrases by their wording as much as
by the action they name. Here its top `LAYERS` transformer layers are tuned so that a prompt lies with
the vocabulary's phrases of its action and apart from the others' (a supervised contrastive loss: each
batch holds a pair for each of `ACTIONS_PER_BATCH` actions, one of the action's vocabulary phrases and
one of its everyday prompts (`everyday_prompts`: written as people type, apart from the
prompt suite and the reading sets); each is pulled to its partner and pushed from the rest, at
temperature `TAU`). Pairing across the two kinds of text read the development set 257 of 280 against
255 with both drawn from the union and 240 with the vocabulary alone, and 262 with the second batch of
everyday prompts (docs/prompt-suite.md). The prompt suite and the reading sets are never used; the
synthesizer's captions, mixed in at one draw in two, read the suite worse.

The change to each weight matrix is kept as a rank-`RANK` product and the rest (biases, layer norms)
whole: `assets/action-phrases/minilm-reader.npz` (`text.write_adapter`), applied to the MiniLM package
when the reader loads it (`TextEncoder(..., adapter=...)`). The model's own text conditioning still uses
MiniLM unchanged; only the reader embeds with the tuned copy. To make the file again, with the phrase
vectors shipped beside it (one thread, 15 to 25 minutes on a laptop CPU):

    python -m stickgen.reader_tuning
"""

from __future__ import annotations

import argparse
import copy
import functools
import random
from pathlib import Path

import numpy as np

from stickgen import action_meaning
from stickgen.files import bundled_asset
from stickgen.labels import ACTIONS, action_id
from stickgen.text import DEFAULT_ENCODER, TextEncoder, write_adapter

STEPS = 1500
LR = 1e-4
LAYERS = 3
ACTIONS_PER_BATCH = 32
TAU = 0.05
RANK = 64
SEED = 0
EVERYDAY_FILE = "everyday.yaml"  # in assets/action-phrases, beside the adapter it tunes


@functools.lru_cache(maxsize=1)
def everyday_prompts() -> tuple[list[str], np.ndarray]:
    """The everyday prompts of `assets/action-phrases/everyday.yaml` (written without the suite or the
    reading sets in sight, none named by the vocabulary's words) and each one's action id (N,)."""
    import yaml

    path = bundled_asset(action_meaning.BUNDLED_PHRASES, EVERYDAY_FILE) / EVERYDAY_FILE
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))["prompts"]
    labels = np.asarray([action_id(e["actions"][0]) for e in entries], dtype=np.int64)
    return [e["text"] for e in entries], labels


def tune(
    encoder: TextEncoder,
    *,
    steps: int = STEPS,
    lr: float = LR,
    layers: int = LAYERS,
    tau: float = TAU,
    seed: int = SEED,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Tune the top `layers` of the encoder's transformer on pairs of a vocabulary phrase and an everyday
    prompt of one action; the change of each tuned parameter by name (float32)."""
    import torch
    from tqdm import tqdm

    torch.manual_seed(seed)
    rng = random.Random(seed)
    model = copy.deepcopy(encoder.model())  # the encoder itself stays as it was
    pool = _by_action(*action_meaning.phrases())
    everyday = _by_action(*everyday_prompts())
    blocks = model[0].auto_model.encoder.layer
    tuned = {id(p) for block in blocks[len(blocks) - layers :] for p in block.parameters()}
    names = {name: p for name, p in model.named_parameters() if id(p) in tuned}
    start = {name: p.detach().clone() for name, p in names.items()}
    for p in model.parameters():
        p.requires_grad = id(p) in tuned
    optimizer = torch.optim.AdamW(list(names.values()), lr=lr, weight_decay=0.01)
    model.train()
    for _ in tqdm(range(steps), desc="tuning the reader's encoder", unit="step", disable=not progress):
        chosen = rng.sample(range(len(ACTIONS)), ACTIONS_PER_BATCH)
        batch = [text for k in chosen for text in (rng.choice(pool[k]), rng.choice(everyday[k] or pool[k]))]
        label = torch.tensor([k for k in chosen for _ in range(2)])
        features = model.preprocess(batch) if hasattr(model, "preprocess") else model.tokenize(batch)
        z = torch.nn.functional.normalize(model(features)["sentence_embedding"], dim=-1)
        same = torch.eye(len(batch), dtype=torch.bool)
        sim = (z @ z.T / tau).masked_fill(same, -1e9)
        positive = (label[:, None] == label[None, :]) & ~same
        log_p = sim - torch.logsumexp(sim, dim=1, keepdim=True)
        loss = -((log_p * positive).sum(1) / positive.sum(1)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    for p in model.parameters():
        p.requires_grad = False
    return {name: (p.detach() - start[name]).numpy().astype(np.float32) for name, p in names.items()}


def _by_action(texts: list[str], labels: np.ndarray) -> list[list[str]]:
    """The texts of each action, in `ACTIONS` order."""
    return [[t for t, label in zip(texts, labels, strict=True) if label == k] for k in range(len(ACTIONS))]


def low_rank(deltas: dict[str, np.ndarray], rank: int = RANK) -> dict[str, tuple[np.ndarray, ...]]:
    """Each matrix change as (u, v) of rank at most `rank` (truncated SVD, u scaled by the singular
    values); vectors whole."""
    out: dict[str, tuple[np.ndarray, ...]] = {}
    for name, delta in deltas.items():
        if delta.ndim == 2 and min(delta.shape) > rank:
            u, s, vt = np.linalg.svd(delta, full_matrices=False)
            out[name] = (u[:, :rank] * s[:rank], vt[:rank])
        else:
            out[name] = (delta,)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    assets = Path(__file__).resolve().parents[1] / "assets" / action_meaning.BUNDLED_PHRASES
    parser.add_argument("--out", default=str(assets / action_meaning.READER_ADAPTER_FILE),
                        help="the adapter file to write (default: the shipped one)")
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--rank", type=int, default=RANK)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (default 1)")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    base = TextEncoder(DEFAULT_ENCODER)
    deltas = low_rank(tune(base, steps=args.steps, seed=args.seed), args.rank)
    write_adapter(args.out, base.identity.id, deltas)
    print(f"wrote {args.out}")
    if Path(args.out).resolve() == (assets / action_meaning.READER_ADAPTER_FILE).resolve():
        action_meaning.write_shipped_vectors(encoder=action_meaning.reader_encoder(TextEncoder(DEFAULT_ENCODER)))
        print(f"wrote {assets / action_meaning.SHIPPED_FILE}")


if __name__ == "__main__":
    main()
