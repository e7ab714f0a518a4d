"""A checkpoint packed to travel as a stage's `init`, and rebuilt there: its matrices in 8 bits.

The tree that travels to a lent GPU is limited to 64 MiB; the repository's files and the packed
encoder take 63 MB of it, so a 28 MB checkpoint of the 320-wide model cannot go as it is. Here, every
weight matrix is stored as int8 with one float32 scale per row (its largest magnitude / 127), the rest
(norms, biases, the normalisation) as they are: 14 MB for the 320-wide model. There the folder is
rebuilt as a checkpoint in float32 that `init` loads; training from it recovers the rounding (at most
half a step of 1/127 of a row's largest weight). Pack here, rebuild there:

    python tools/gpu_stage/pack_init.py runs/wide-stage1/latest            # writes tools/gpu_stage/init/
    python3 tools/gpu_stage/pack_init.py --unpack runs/init                 # there (stage.sh: INIT=1)
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

PACKED = Path(__file__).parent / "init"
WEIGHTS = "model.safetensors"
SCALE = ".__scale"  # the suffix of a matrix's row scales
MIN_SIZE = 4096  # smaller tensors travel as they are


def pack(checkpoint: Path, out: Path) -> Path:
    """Write `checkpoint` packed into `out` (replaced); returns `out`."""
    weights = load_file(str(checkpoint / WEIGHTS))
    small: dict[str, torch.Tensor] = {}
    for name, tensor in weights.items():
        if tensor.is_floating_point() and tensor.ndim >= 2 and tensor.numel() >= MIN_SIZE:
            rows = tensor.float().reshape(tensor.shape[0], -1)
            scale = rows.abs().amax(dim=1).clamp_min(1e-12) / 127.0
            small[name] = torch.round(rows / scale[:, None]).to(torch.int8).reshape(tensor.shape)
            small[name + SCALE] = scale
        else:
            small[name] = tensor
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(checkpoint, out, ignore=shutil.ignore_patterns(WEIGHTS))
    save_file(small, str(out / WEIGHTS))
    return out


def unpack(packed: Path, out: Path) -> Path:
    """Rebuild the checkpoint packed in `packed` as a folder `out` (replaced) with float32 weights."""
    small = load_file(str(packed / WEIGHTS))
    weights = {}
    for name, tensor in small.items():
        if name.endswith(SCALE):
            continue
        if name + SCALE in small:
            scale = small[name + SCALE]
            tensor = (tensor.float().reshape(tensor.shape[0], -1) * scale[:, None]).reshape(tensor.shape)
        weights[name] = tensor.float()
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(packed, out, ignore=shutil.ignore_patterns(WEIGHTS))
    save_file(weights, str(out / WEIGHTS))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="the checkpoint to pack, or with --unpack the folder to rebuild it in")
    parser.add_argument("--unpack", action="store_true", help=f"rebuild {PACKED} into FOLDER")
    args = parser.parse_args()
    if args.unpack:
        print(f"rebuilt {unpack(PACKED, Path(args.folder))}")
    else:
        out = pack(Path(args.folder), PACKED)
        size = sum(p.stat().st_size for p in out.iterdir())
        print(f"packed {args.folder} into {out} ({size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
