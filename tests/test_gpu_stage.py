"""tools/gpu_stage: the text encoder packed to travel rebuilds to the package's identity and embeddings."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

TOOLS = Path(__file__).resolve().parents[1] / "tools" / "gpu_stage"


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(f"gpu_stage_{name}", TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_packed_encoder_rebuilds_to_the_package_for_our_descriptions(tmp_path):
    from sentence_transformers import SentenceTransformer

    from stickgen.synth.sampler import sample_clip
    from stickgen.text import TextEncoder, folder_content_id, packaged_minilm_folder

    # The test's own, empty embedding cache: only the package's sources name the words kept.
    _, rows, size = _tool("pack_encoder").pack(tmp_path / "packed")
    assert size < 30 and rows < 30522 // 3
    folder = _tool("unpack_encoder").unpack(tmp_path / "packed", tmp_path / "models")
    package = packaged_minilm_folder()
    assert folder_content_id(folder) != folder_content_id(package)  # other bytes...
    assert TextEncoder(str(folder)).identity.id == folder_content_id(package)  # ...filed as the package

    texts = sorted({t for i in range(40) for t in sample_clip(seed=7, index=i).texts})
    assert len(texts) >= 40
    exact = SentenceTransformer(str(package), device="cpu").encode(texts)
    packed = SentenceTransformer(str(folder), device="cpu").encode(texts)
    cosine = (exact * packed).sum(1) / np.linalg.norm(exact, axis=1) / np.linalg.norm(packed, axis=1)
    assert cosine.min() > 0.99999 and np.abs(exact - packed).max() < 2e-3
