"""There: rebuild the packed encoder as a float32 folder under $STICKGEN_MODELS_DIR.

Word rows left out are zero. The rebuilt folder's files differ from the package's, so its content id
would too; the embeddings it gives stickgen's texts are the package's to within float16 rounding
(measured: cosine >= 0.999999 on 3,000 cached descriptions), so this files them under the package's id
by writing the folder's hash memo in the cache. Run in the repository root, with STICKGEN_MODELS_DIR and
STICKGEN_CACHE_DIR set:

    python3 tools/gpu_stage/unpack_encoder.py
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from stickgen.embed_cache import default_cache_dir
from stickgen.files import atomic_write_text
from stickgen.text import _hashed_files

PACKED = Path(__file__).parent / "minilm"


def main() -> None:
    folder = unpack(PACKED, Path(os.environ["STICKGEN_MODELS_DIR"]))
    print(f"rebuilt {folder}")


def unpack(packed: Path, models_dir: Path) -> Path:
    """Rebuild the encoder packed in `packed` under `models_dir`, filed under the package's id; its folder."""
    folder = models_dir / "sentence-transformers__all-MiniLM-L6-v2"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(packed, folder, ignore=shutil.ignore_patterns("small.safetensors", "meta.json"))
    meta = json.loads((packed / "meta.json").read_text())
    small = load_file(str(packed / "small.safetensors"))
    rows, kept = small.pop("__rows"), small.pop("__kept")
    table = torch.zeros(meta["shape"], dtype=torch.float32)
    table[kept] = rows.float()
    weights = {**{k: v.float() for k, v in small.items()}, meta["key"]: table}
    save_file(weights, str(folder / "model.safetensors"))
    # The memo key as stickgen.text.folder_content_id computes it: the folder and its files' sizes and times.
    stats = [(rel, os.stat(p).st_size, os.stat(p).st_mtime_ns) for rel, p in _hashed_files(folder)]
    key = hashlib.sha256(json.dumps([str(folder.resolve()), stats]).encode()).hexdigest()
    memo = default_cache_dir() / "folder-hashes" / f"{key}.json"
    memo.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(memo, json.dumps({"id": meta["package_id"], "folder": str(folder)}))
    return folder


if __name__ == "__main__":
    main()
