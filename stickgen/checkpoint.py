"""Model checkpoints: one folder per trained model.

A checkpoint folder holds

- `config.json`: the format and its version, the model config (`ModelConfig` as a dict), the identity
  of the text encoder the model was trained with (`{"name": str, "id": str, "dim": int}`), and
  free-form `training` metadata;
- `model.safetensors`: the weights;
- `normalization.safetensors`: `mean` and `std` (52,) float32, the dataset statistics that normalise
  the model's input features and denormalise its outputs;
- `README.md`: a model card generated from the above.

Saving is atomic for the folder as a whole: everything is written into a temporary sibling folder,
which then replaces the destination; if anything fails, an existing checkpoint is left as it was.
Loading checks every file and says in one sentence what is missing or does not match.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from stickgen import __version__
from stickgen.config import from_dict, load_yaml_config, to_dict
from stickgen.errors import StickgenError
from stickgen.files import atomic_folder, portable_path
from stickgen.model import FEATURE_DIM, ModelConfig, StickFigureTransformer, parameter_counts, parameter_table

FORMAT = "stickgen-checkpoint"
FORMAT_VERSION = 1
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
NORMALIZATION_FILE = "normalization.safetensors"
CARD_FILE = "README.md"
WEIGHT_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}

CARD_TEMPLATE = """\
# stickgen model: {variant}

A `StickFigureTransformer` that turns a sentence into stick-figure motion: a text-conditioned
denoiser trained with conditional flow matching (clean-sample prediction), made with stickgen
{version}.

| | |
|---|---|
| variant | {variant} |
| parameters | {parameters:,} |
| size | d_model {d_model}, {n_layers} layers, {n_heads} heads ({kv_heads} key/value), d_ff {d_ff}{tokens} |
| text encoder | {encoder_name} (`{encoder_id}`, {encoder_dim}-dim) |
| format | {format} version {format_version} |

## Files

- `config.json`: the model configuration, the text encoder's identity and the training metadata.
- `model.safetensors`: the weights.
- `normalization.safetensors`: per-feature `mean` and `std` (52 values each: pose 48, position 2,
  velocity 2) that normalise the model's inputs and denormalise its outputs.

Prompts must be embedded with the same text encoder; loading checks its identity.

```python
from stickgen.checkpoint import load_checkpoint

checkpoint = load_checkpoint("path/to/this/folder")
```

## Training

{training}
"""


@dataclass
class Checkpoint:
    """A loaded checkpoint: the model in eval mode and everything needed to use it."""

    model: StickFigureTransformer
    config: ModelConfig
    encoder: dict[str, Any]  # {"name": str, "id": str, "dim": int}
    norm_mean: torch.Tensor  # (52,) float32, on the model's device
    norm_std: torch.Tensor  # (52,) float32, on the model's device
    training: dict[str, Any] = field(default_factory=dict)


def _check_encoder(encoder: Any, where: str) -> dict[str, Any]:
    """Return the text-encoder identity `encoder` as a plain dict, or raise if it is malformed."""
    if (
        not isinstance(encoder, dict)
        or set(encoder) != {"name", "id", "dim"}
        or not isinstance(encoder["name"], str)
        or not isinstance(encoder["id"], str)
        or not isinstance(encoder["dim"], int)
        or isinstance(encoder["dim"], bool)
    ):
        raise StickgenError(
            f"The text encoder identity in {where} must be {{'name': str, 'id': str, 'dim': int}}, "
            f"not {encoder!r}."
        )
    return {"name": encoder["name"], "id": encoder["id"], "dim": encoder["dim"]}


def _check_statistics(mean: Any, std: Any, where: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Normalisation statistics as two contiguous float32 (52,) tensors, or raise."""
    mean = torch.as_tensor(mean, dtype=torch.float32).detach().cpu().contiguous()
    std = torch.as_tensor(std, dtype=torch.float32).detach().cpu().contiguous()
    if mean.shape != (FEATURE_DIM,) or std.shape != (FEATURE_DIM,):
        raise StickgenError(
            f"The normalisation statistics in {where} must have shape ({FEATURE_DIM},), "
            f"not mean {tuple(mean.shape)} and std {tuple(std.shape)}."
        )
    if not (torch.isfinite(mean).all() and torch.isfinite(std).all() and (std > 0).all()):
        raise StickgenError(f"The normalisation statistics in {where} must be finite with every std > 0.")
    return mean, std


def model_card(
    config: ModelConfig, encoder: dict[str, Any], training: dict[str, Any], parameters: int, notes: str | None
) -> str:
    """The Markdown model card of a checkpoint; `notes` (Markdown) is appended under its own heading."""
    if training:
        rows = [
            f"| {key} | {json.dumps(value) if not isinstance(value, str) else value} |"
            for key, value in training.items()
        ]
        training_text = "\n".join(["| key | value |", "|---|---|", *rows])
    else:
        training_text = "No training metadata was recorded."
    card = CARD_TEMPLATE.format(
        variant=config.name,
        version=__version__,
        parameters=parameters,
        d_model=config.d_model,
        n_layers=config.n_layers,
        n_heads=config.n_heads,
        kv_heads=config.kv_heads,
        d_ff=config.ff_dim,
        tokens=(f", tokens of {config.patch} frames" if config.patch > 1 else "")
        + (f", temporal convolution {config.conv_kernel}" if config.conv_kernel else ""),
        encoder_name=encoder["name"],
        encoder_id=encoder["id"],
        encoder_dim=encoder["dim"],
        format=FORMAT,
        format_version=FORMAT_VERSION,
        training=training_text,
    )
    if notes:
        card += f"\n## Notes\n\n{notes.strip()}\n"
    return card


def save_checkpoint(
    folder: str | os.PathLike,
    model: StickFigureTransformer,
    *,
    encoder: dict[str, Any],
    norm_mean: Any,
    norm_std: Any,
    training: dict[str, Any] | None = None,
    card: str | None = None,
    dtype: str = "float32",
) -> Path:
    """Write `model` and its metadata as the checkpoint folder `folder`, atomically; return the folder.

    encoder: the text encoder's identity `{"name", "id", "dim"}`; dim must equal the model's text_dim.
    norm_mean, norm_std: (52,) feature statistics (tensor or array), stored as float32.
    training: JSON-serialisable metadata (dataset, steps, losses...), kept in config.json and the card.
    card: extra Markdown for the model card, appended under "Notes" to the generated text.
    dtype: how the weights are stored, "float32" or "bfloat16" (half the size; loading turns them back
    into float32, and sampling differs by about bf16's precision, 3 significant digits).
    An existing checkpoint at `folder` is replaced; any other existing, non-empty folder is refused.
    """
    folder = Path(folder)
    config = model.config
    encoder = _check_encoder(encoder, "save_checkpoint")
    if encoder["dim"] != config.text_dim:
        raise StickgenError(
            f"Text encoder {encoder['name']} gives {encoder['dim']}-dim embeddings but the model "
            f"expects text_dim {config.text_dim}."
        )
    mean, std = _check_statistics(norm_mean, norm_std, "save_checkpoint")
    if dtype not in WEIGHT_DTYPES:
        raise StickgenError(f"Weights are stored as {' or '.join(WEIGHT_DTYPES)}, not {dtype!r}.")
    training = dict(training or {})
    with atomic_folder(folder, marker=CONFIG_FILE, kind="checkpoint") as tmp:
        meta = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "stickgen_version": __version__,
            "model": to_dict(config),
            "text_encoder": encoder,
            "training": training,
        }
        (tmp / CONFIG_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        weights = {
            name: t.detach().cpu().to(WEIGHT_DTYPES[dtype] if t.is_floating_point() else t.dtype).contiguous()
            for name, t in model.state_dict().items()
        }
        save_file(weights, tmp / WEIGHTS_FILE, metadata={"format": "pt"})
        save_file({"mean": mean, "std": std}, tmp / NORMALIZATION_FILE)
        parameters = parameter_counts(model)["total"]
        (tmp / CARD_FILE).write_text(
            model_card(config, encoder, training, parameters, card), encoding="utf-8"
        )
    return folder


def _checkpoint_file(folder: Path, name: str) -> Path:
    """The path of `name` inside the checkpoint `folder`, which must exist, or raise."""
    if not folder.exists():
        raise StickgenError(f"No checkpoint folder at {folder}.")
    if not folder.is_dir():
        raise StickgenError(f"{folder} is a file, but a checkpoint is a folder holding {CONFIG_FILE}.")
    path = folder / name
    if not path.is_file():
        raise StickgenError(f"Checkpoint {folder} is missing {name}.")
    return path


def _read_tensors(folder: Path, name: str) -> dict[str, torch.Tensor]:
    path = _checkpoint_file(folder, name)
    try:
        return load_file(path)
    except (SafetensorError, OSError, ValueError) as e:
        raise StickgenError(f"Checkpoint {folder} has a corrupt {name} ({e}).") from None


def read_checkpoint_config(folder: str | os.PathLike) -> tuple[ModelConfig, dict[str, Any], dict[str, Any]]:
    """Read only config.json of a checkpoint: (model config, text encoder identity, training metadata)."""
    folder = Path(folder)
    path = _checkpoint_file(folder, CONFIG_FILE)
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise StickgenError(f"Checkpoint {folder} has a corrupt {CONFIG_FILE} ({e}).") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise StickgenError(
            f"{path} is not a stickgen checkpoint configuration (its format is not {FORMAT})."
        )
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        raise StickgenError(
            f"Checkpoint {folder} has format version {version!r}; "
            f"this stickgen reads version {FORMAT_VERSION}."
        )
    config = from_dict(ModelConfig, meta.get("model"), source=str(path))
    encoder = _check_encoder(meta.get("text_encoder"), str(path))
    if encoder["dim"] != config.text_dim:
        raise StickgenError(
            f"In {path}, the text encoder is {encoder['dim']}-dim "
            f"but the model has text_dim {config.text_dim}."
        )
    training = meta.get("training", {})
    if not isinstance(training, dict):
        raise StickgenError(f"In {path}, training must be a mapping, not {type(training).__name__}.")
    return config, encoder, training


def _encoder_label(encoder: dict[str, Any], other: dict[str, Any]) -> str:
    """How to name `encoder` next to `other`: its name, or name and id when the names agree."""
    if encoder["name"] == other["name"]:
        return f"{encoder['name']} [{encoder['id']}] ({encoder['dim']}-dim)"
    return f"{encoder['name']} ({encoder['dim']}-dim)"


def load_checkpoint(
    folder: str | os.PathLike, *, expected_encoder: dict[str, Any] | None = None, device: str = "cpu"
) -> Checkpoint:
    """Load the checkpoint folder `folder` with its model in eval mode on `device`.

    expected_encoder: the identity of the text encoder the caller will embed prompts with; loading
    fails if the checkpoint was trained with another one.
    """
    folder = Path(folder)
    config, encoder, training = read_checkpoint_config(folder)
    if expected_encoder is not None:
        expected = _check_encoder(expected_encoder, "expected_encoder")
        if expected != encoder:
            raise StickgenError(
                f"This checkpoint was trained with text encoder {_encoder_label(encoder, expected)}; "
                f"you asked for {_encoder_label(expected, encoder)}."
            )
    weights = _read_tensors(folder, WEIGHTS_FILE)
    model = StickFigureTransformer(config)
    wanted = model.state_dict()
    input_proj = weights.get("input_proj.weight")  # (d_model, 52): names the commonest mismatch plainly
    if input_proj is not None and input_proj.shape[0] != config.d_model:
        raise StickgenError(
            f"Checkpoint {folder} does not match: {CONFIG_FILE} has d_model {config.d_model} "
            f"but the weights have {input_proj.shape[0]}."
        )
    missing = [name for name in wanted if name not in weights]
    if missing:
        raise StickgenError(
            f"Checkpoint {folder} does not match: {WEIGHTS_FILE} lacks {missing[0]}, "
            f"which the model described in {CONFIG_FILE} ({config.n_layers} layers) needs "
            f"({len(missing)} tensors missing in all)."
        )
    unexpected = [name for name in weights if name not in wanted]
    if unexpected:
        raise StickgenError(
            f"Checkpoint {folder} does not match: {WEIGHTS_FILE} holds {unexpected[0]}, which the model "
            f"described in {CONFIG_FILE} ({config.n_layers} layers) does not have."
        )
    for name, tensor in wanted.items():
        if weights[name].shape != tensor.shape:
            raise StickgenError(
                f"Checkpoint {folder} does not match: {name} has shape {tuple(weights[name].shape)} in "
                f"{WEIGHTS_FILE} but {tuple(tensor.shape)} in the model described by {CONFIG_FILE}."
            )
    broken = [name for name, t in weights.items() if t.is_floating_point() and not torch.isfinite(t).all()]
    if broken:
        more = f" and {len(broken) - 1} more" if len(broken) > 1 else ""
        raise StickgenError(
            f"Checkpoint {folder} is broken: its weights hold NaN or infinite values (in {broken[0]}{more}); "
            "train again or use another checkpoint."
        )
    model.load_state_dict(weights)  # bfloat16 weights become the model's float32
    statistics = _read_tensors(folder, NORMALIZATION_FILE)
    if set(statistics) != {"mean", "std"}:
        raise StickgenError(f"Checkpoint {folder} has a {NORMALIZATION_FILE} without exactly mean and std.")
    mean, std = _check_statistics(statistics["mean"], statistics["std"], f"{folder}/{NORMALIZATION_FILE}")
    try:
        target = torch.device(device)
        model.to(target).eval()
    except (RuntimeError, AssertionError) as e:
        raise StickgenError(f"Cannot put the model on device {device!r} ({e}).") from None
    return Checkpoint(
        model=model,
        config=config,
        encoder=encoder,
        norm_mean=mean.to(target),
        norm_std=std.to(target),
        training=training,
    )


def describe_model(path: str | os.PathLike) -> str:
    """The parameter table of a model YAML config (or a training config's `model:` section), or of a
    checkpoint folder with its text encoder."""
    path = Path(path)
    if path.is_dir():
        config, encoder, _ = read_checkpoint_config(path)
        encoder_line = f"text encoder: {encoder['name']} ({encoder['id']}, {encoder['dim']}-dim)"
        return f"{parameter_table(config)}\n{encoder_line}"
    try:
        return parameter_table(load_yaml_config(ModelConfig, path))
    except StickgenError:
        # A training config (configs/train/*.yaml) holds the model under `model:`.
        import yaml

        try:
            mapping = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            mapping = None
        if not (isinstance(mapping, dict) and isinstance(mapping.get("model"), dict)):
            raise
        return parameter_table(from_dict(ModelConfig, mapping["model"], source=f"{path} (its model section)"))


def average_checkpoints(
    folders: list[str | os.PathLike], out: str | os.PathLike, *, dtype: str = "bfloat16"
) -> Path:
    """Write the checkpoint whose weights are the mean of the weights of `folders` (a checkpoint soup).

    The checkpoints must be of one model: the same model config, text encoder and normalisation
    statistics (so the same data), as the last checkpoints of two training stages that continue one
    another are. The mean is taken in float32 and stored as `dtype`; the new checkpoint's training
    metadata lists the folders (`files.portable_path`) and their own metadata. Returns `out`.
    """
    if len(folders) < 2:
        raise StickgenError("Averaging needs at least two checkpoint folders.")
    resolved = [Path(folder).resolve() for folder in folders]
    if len(set(resolved)) < len(resolved):
        raise StickgenError("A checkpoint folder is named twice; average different checkpoints.")
    if Path(out).resolve() in resolved:
        raise StickgenError(f"The output folder {out} is one of the checkpoints being averaged.")
    loaded = [load_checkpoint(folder) for folder in folders]
    first = loaded[0]
    for folder, other in zip(folders[1:], loaded[1:], strict=True):
        if other.config != first.config:
            raise StickgenError(
                f"{folder} is another model than {folders[0]}; only one model's weights average."
            )
        if other.encoder != first.encoder:
            raise StickgenError(f"{folder} was trained with another text encoder than {folders[0]}.")
        if not (
            torch.equal(other.norm_mean, first.norm_mean) and torch.equal(other.norm_std, first.norm_std)
        ):
            raise StickgenError(
                f"{folder} normalises its features with other statistics than {folders[0]}: they were "
                "trained on other data, and their weights do not average."
            )
    states = [c.model.state_dict() for c in loaded]
    mean = {
        name: torch.stack([s[name].float() for s in states]).mean(dim=0) if t.is_floating_point() else t
        for name, t in states[0].items()
    }
    first.model.load_state_dict(mean)
    training = {
        "averaged": [portable_path(folder) for folder in folders],
        "averaged_training": [c.training for c in loaded],
    }
    return save_checkpoint(
        out, first.model, encoder=first.encoder, norm_mean=first.norm_mean, norm_std=first.norm_std,
        training=training, dtype=dtype,
    )  # fmt: skip
