"""How many of a dataset's descriptions use a word row the packed encoder left out (their embeddings
would differ from the package's). Run there after the synthesis: python3 tools/gpu_stage/coverage.py DATA"""

from __future__ import annotations

import sys
from pathlib import Path

from safetensors.torch import load_file
from transformers import AutoTokenizer

from stickgen.dataset import Dataset

PACKED = Path(__file__).parent / "minilm"


def main() -> None:
    kept = set(load_file(str(PACKED / "small.safetensors"))["__kept"].tolist())
    tokenizer = AutoTokenizer.from_pretrained(str(PACKED))
    texts = sorted({t for clip in Dataset(Path(sys.argv[1])).all_texts() for t in clip})
    missing = [t for t, ids in zip(texts, tokenizer(texts)["input_ids"], strict=True) if not set(ids) <= kept]
    print(f"coverage: {len(texts)} descriptions, {len(missing)} use a word row left out", missing[:5])


if __name__ == "__main__":
    main()
