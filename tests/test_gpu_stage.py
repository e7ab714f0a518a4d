"""tools/gpu_stage: the text encoder packed to travel rebuilds to the package's identity and embeddings;
measure.sh runs what is left to measure."""

import importlib.util
import os
import subprocess
import sys
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


def test_a_checkpoint_packed_in_8_bits_rebuilds_to_within_its_rounding_and_loads(tmp_path):
    import torch
    from safetensors.torch import load_file

    from stickgen.checkpoint import load_checkpoint
    from stickgen.generation import default_checkpoint

    tool = _tool("pack_init")
    bundled = default_checkpoint()
    packed = tool.pack(bundled, tmp_path / "packed")
    small = load_file(str(packed / tool.WEIGHTS))
    matrices = [k for k in small if k + tool.SCALE in small]
    assert matrices and all(small[k].dtype == torch.int8 for k in matrices)
    size = sum(p.stat().st_size for p in packed.iterdir())
    assert size < 0.6 * sum(p.stat().st_size for p in bundled.iterdir())  # 8 bits against 16

    rebuilt = tool.unpack(packed, tmp_path / "rebuilt")
    before, after = load_file(str(bundled / tool.WEIGHTS)), load_file(str(rebuilt / tool.WEIGHTS))
    assert before.keys() == after.keys()
    for name, weight in before.items():
        weight = weight.float()
        rows = weight.reshape(weight.shape[0], -1) if weight.ndim >= 2 else weight[None]
        bound = rows.abs().amax(dim=1, keepdim=True) / 254 + 1e-8  # half a step of 1/127 of a row's largest
        error = (after[name].reshape(rows.shape) - rows).abs()
        assert (error <= bound * 1.001).all(), name
        if name not in matrices:
            assert torch.equal(after[name], weight), name  # the rest travels as it is
    model = load_checkpoint(rebuilt)  # a checkpoint `init` can take
    assert torch.equal(model.norm_mean, load_checkpoint(bundled).norm_mean)


def test_measure_runs_the_steps_not_done_yet_and_refuses_a_folder_that_is_no_checkpoint(tmp_path):
    root = TOOLS.parents[1]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    out = tmp_path / "measure"
    out.mkdir()
    for done in ("data", "speed", "promises", "actions", "suite", "eval"):  # as if measured before
        (out / f"{done}.txt").write_text("measured before\n")
    command = ["bash", str(TOOLS / "measure.sh"), "assets/stickgen-default", str(out)]
    run = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "[data] done before" in run.stdout and "all measured" in run.stdout
    size = (out / "size.txt").read_text()
    assert "model.safetensors" in size and "total" in size and "6 layers" in size
    assert (out / "speed.txt").read_text() == "measured before\n"  # a step done before is not run again
    refused = subprocess.run(["bash", str(TOOLS / "measure.sh"), str(tmp_path)], cwd=root, env=env,
                             capture_output=True, text=True)  # fmt: skip
    assert refused.returncode == 2 and "is not a checkpoint folder" in refused.stderr
