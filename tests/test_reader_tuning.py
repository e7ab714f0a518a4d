"""The meaning reader's tuned encoder (stickgen.reader_tuning) and encoder adapters (stickgen.text)."""

import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from stickgen import action_meaning, reader_tuning
from stickgen.action_words import actions_in_text
from stickgen.embed_cache import EmbeddingCache
from stickgen.errors import StickgenError
from stickgen.labels import ACTIONS
from stickgen.text import TextEncoder, read_adapter, write_adapter


def test_a_change_is_kept_at_low_rank_and_small_parts_whole():
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(40, 3)) @ rng.normal(size=(3, 50))  # rank 3
    vector = rng.normal(size=40)
    out = reader_tuning.low_rank({"w": matrix, "b": vector}, rank=4)
    u, v = out["w"]
    assert u.shape == (40, 4) and v.shape == (4, 50)
    np.testing.assert_allclose(u @ v, matrix, atol=1e-9)
    assert len(out["b"]) == 1 and np.array_equal(out["b"][0], vector)


def test_an_adapter_file_is_read_back_and_refused_for_another_encoder(tmp_path):
    path = tmp_path / "adapter.npz"
    u, v, whole = np.ones((3, 2)), np.full((2, 4), 0.5), np.arange(3.0)
    write_adapter(path, "sha256:abc", {"a.weight": (u, v), "a.bias": (whole,)})
    adapter = read_adapter(path, "sha256:abc")
    assert set(adapter.deltas) == {"a.weight", "a.bias"} and len(adapter.digest) == 16
    np.testing.assert_allclose(adapter.deltas["a.weight"][0] @ adapter.deltas["a.weight"][1], u @ v)
    with pytest.raises(StickgenError, match=r"^The encoder adapter .* was made for another text encoder"):
        read_adapter(path, "sha256:other")
    (tmp_path / "broken.npz").write_bytes(b"not a zip")
    with pytest.raises(StickgenError, match=r"could not be read"):
        read_adapter(tmp_path / "broken.npz", "sha256:abc")


def test_tuning_changes_only_the_top_layers_and_the_adapter_changes_the_embeddings(tmp_path):
    base = TextEncoder(cache=EmbeddingCache(tmp_path / "cache"))
    before = base.encode(["someone takes a seat"])
    deltas = reader_tuning.tune(base, steps=2, layers=1, progress=False)
    assert deltas and all(".layer.5." in name for name in deltas)  # MiniLM-L6: its last layer only
    assert any(np.abs(d).max() > 0 for d in deltas.values())
    np.testing.assert_array_equal(base.encode(["someone takes a seat"]), before)  # base untouched
    path = tmp_path / "reader.npz"
    write_adapter(path, base.identity.id, reader_tuning.low_rank(deltas, rank=8))
    tuned = base.with_adapter(path)
    assert tuned.identity.id.startswith(base.identity.id + "+") and tuned.identity.dim == base.dim
    after = tuned.encode(["someone sits down on a chair"])
    assert not np.allclose(after, base.encode(["someone sits down on a chair"]), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(after, axis=1), 1.0, atol=1e-5)


def test_the_reader_reads_with_the_shipped_adapter_and_other_encoders_as_they_are(tmp_path):
    base = TextEncoder(cache=EmbeddingCache(tmp_path))
    reader = action_meaning.reader_encoder(base)
    assert reader.adapter is not None and reader.adapter.name == action_meaning.READER_ADAPTER_FILE
    assert action_meaning.reader_encoder(reader) is reader  # already tuned: as it is
    assert action_meaning.for_encoder(base).encoder.identity.id == reader.identity.id


def test_the_reader_embeds_through_the_callers_cache(tmp_path):
    # an SQLite cache works in the thread that opened it: the studio's generation thread brings its own
    first = TextEncoder(cache=EmbeddingCache(tmp_path / "a"))
    second = TextEncoder(cache=EmbeddingCache(tmp_path / "b"))
    assert action_meaning.for_encoder(first).encoder.cache is first.cache
    meaning = action_meaning.for_encoder(second)
    assert meaning.encoder.cache is second.cache and meaning.encoder.adapter is not None
    assert meaning.actions("she lowers herself onto a bench") == [action_meaning.action_id("sit_down")]


def _words(text):
    return set(re.findall(r"[a-z']+", text.lower()))


def test_the_everyday_prompts_cover_every_action_and_are_read_by_hardly_any_word():
    texts, labels = reader_tuning.everyday_prompts()
    assert len(texts) == len(labels) == len(set(texts)) > 1000
    assert np.bincount(labels, minlength=len(ACTIONS)).min() >= 10
    # written so that the exact words read none (the vocabulary's phrases cover those already); since
    # an exercise's noun names it ("fifty jacks"), the words read 7, each as its own action; and 2 more
    # since a description names its action whole (two prompts hold one: "hurdles a low fence in full
    # stride", "does uttanasana, head hanging toward the shins")
    read = [(actions_in_text(t), label) for t, label in zip(texts, labels, strict=True) if actions_in_text(t)]
    assert len(read) <= 9 and all(actions == [label] for actions, label in read)


def test_no_everyday_prompt_is_near_a_prompt_of_the_suite_or_the_reading_sets(tmp_path):
    """The suite and the reading sets stay held out: nothing the reader is tuned on repeats them, in words
    (Jaccard of the word sets < 0.45) or in meaning (MiniLM cosine < 0.75)."""
    texts, _ = reader_tuning.everyday_prompts()
    root = Path(__file__).resolve().parents[1] / "benchmarks"
    sets = ("prompts.yaml", "plan_dev.yaml", "plan_check.yaml", "plan_chain.yaml", "plan_chain_check.yaml")
    held = [e["text"] for name in sets for e in yaml.safe_load((root / name).read_text())["prompts"]]
    assert len(held) > 1100
    held_words = [_words(h) for h in held]
    near = [(t, h) for t in texts for h, w in zip(held, held_words, strict=True)
            if len(_words(t) & w) / len(_words(t) | w) >= 0.45]  # fmt: skip
    assert near == []
    encoder = TextEncoder(cache=EmbeddingCache(tmp_path / "cache"))
    cosine = encoder.encode(texts) @ encoder.encode(held).T
    assert cosine.max() < 0.75, (texts[cosine.max(1).argmax()], held[cosine.max(0).argmax()])
