"""The evaluator and the evaluation on tiny synthetic data where text and motion go together.

Six kinds of motion (standing, walking right or left, jumping, waving, squatting), each with its own
random sentence embedding and three caption variants near it. A tiny evaluator trained on them for a
second or two must retrieve captions well above chance, and the sanity checks must hold with it.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from PIL import Image

from stickgen import figure as fg
from stickgen.errors import StickgenError
from stickgen.evaluate import (
    HALVES_RATIO,
    EvalOptions,
    _action_accuracy,
    check_report_folder,
    evaluate,
    one_action,
    report_markdown,
    sanity_checks,
    split_halves,
    write_report,
)
from stickgen.evaluator import (
    EvaluatorConfig,
    contrastive_loss,
    load_evaluator,
    majority_action,
    save_evaluator,
    train_evaluator,
    train_evaluator_on_dataset,
)
from stickgen.labels import action_id
from stickgen.metrics import r_precision
from stickgen.motion import Motion
from stickgen.ranges import GUIDANCE_UNTIL
from tests.clips import standing_pose

FPS = 25.0
KINDS = ("stand", "walk_right", "walk_left", "jump", "wave", "squat")
ACTIONS = {"stand": "idle", "walk_right": "walk", "walk_left": "walk", "jump": "jump", "wave": "wave"}
TEXT_DIM = 16
TINY = EvaluatorConfig(
    d_model=32, n_layers=1, n_heads=2, embed_dim=32, batch_size=32, max_steps=120, val_every=8, patience=4
)
ENCODER = {"name": "test-embedding", "id": "test:0", "dim": TEXT_DIM}


def make_clip(kind: str, rng: np.random.Generator, frames: int | None = None, variant: int | None = None):
    """One clip of `kind` with a random body, speed and rhythm; captioned "<kind> <variant>"."""
    frames = frames or int(rng.integers(30, 80))
    variant = int(rng.integers(3)) if variant is None else variant
    t = np.arange(frames) / FPS
    rhythm = rng.uniform(0.8, 1.4)  # Hz
    joints = np.repeat(standing_pose(rng.uniform(1.6, 1.9))[None], frames, axis=0)
    J = fg.J
    if kind.startswith("walk"):
        direction = 1.0 if kind == "walk_right" else -1.0
        joints[..., 0] += direction * rng.uniform(0.8, 1.5) * t[:, None]
        swing = 0.15 * np.sin(2 * np.pi * rhythm * t)
        for side, sign in (("l", 1.0), ("r", -1.0)):
            joints[:, J[f"{side}_ankle"], 0] += sign * swing
            joints[:, J[f"{side}_knee"], 0] += sign * swing / 2
    elif kind == "jump":
        joints[..., 1] += 0.3 * np.abs(np.sin(np.pi * rhythm * t))[:, None]
    elif kind == "wave":
        wave = np.sin(4 * np.pi * rhythm * t)
        shoulder = joints[:, J["r_shoulder"]]
        joints[:, J["r_elbow"], 1] = shoulder[:, 1] + 0.15
        joints[:, J["r_wrist"], 0] = shoulder[:, 0] + 0.1 + 0.15 * wave
        joints[:, J["r_wrist"], 1] = shoulder[:, 1] + 0.35 + 0.05 * wave
    elif kind == "squat":
        depth = 0.15 * (1 - np.cos(np.pi * rhythm * t))
        upper = [J[n] for n in fg.JOINTS if not n.endswith(("ankle", "knee"))]
        joints[:, upper, 1] -= depth[:, None]
        joints[:, [J["l_knee"], J["r_knee"]], 1] -= depth[:, None] / 2
    joints += rng.normal(scale=0.005, size=joints.shape)
    action = action_id(ACTIONS.get(kind, "squat"))
    return Motion(joints, fps=FPS, texts=[f"{kind} {variant}"], actions=np.full(frames, action))


def make_clips(n: int, seed: int) -> list[Motion]:
    rng = np.random.default_rng(seed)
    return [make_clip(KINDS[i % len(KINDS)], rng) for i in range(n)]


def embed(texts: list[str]) -> np.ndarray:
    """A stand-in sentence encoder: each kind has a random direction, each variant a nudge from it."""
    base = np.random.default_rng(0).normal(size=(len(KINDS), TEXT_DIM))
    out = []
    for text in texts:
        kind, variant = text.rsplit(" ", 1)
        k = KINDS.index(kind)
        x = base[k] + 0.2 * np.random.default_rng(100 * k + int(variant)).normal(size=TEXT_DIM)
        out.append(x / np.linalg.norm(x))
    return np.array(out, np.float32)


def faithful(prompts: list[str], frames: int, seed: int) -> list[Motion]:
    """A generator that does what the caption says."""
    rng = np.random.default_rng(seed)
    return [make_clip(p.rsplit(" ", 1)[0], rng, frames, int(p.rsplit(" ", 1)[1])) for p in prompts]


def ignores_text(prompts: list[str], frames: int, seed: int) -> list[Motion]:
    """A generator that always stands, whatever the caption."""
    rng = np.random.default_rng(seed)
    return [make_clip("stand", rng, frames) for _ in prompts]


@pytest.fixture(scope="module")
def evaluator():
    return train_evaluator(make_clips(240, 0), make_clips(60, 1), embed, ENCODER, TINY)


@pytest.fixture(scope="module")
def test_clips():
    return make_clips(96, 2)


def test_the_tiny_evaluator_retrieves_captions_and_actions_well_above_chance(evaluator, test_clips):
    motion_emb, predicted = evaluator.encode_motions(test_clips)
    text_emb = evaluator.encode_texts(embed([m.texts[0] for m in test_clips]))
    scores = r_precision(text_emb, motion_emb, rng=np.random.default_rng(0))
    # Chance is 1/32, 2/32, 3/32; each caption is shared by about a sixth of a batch, which caps top-1.
    assert scores[0] > 4 / 32 and scores[2] > 10 / 32
    labels = np.array([majority_action(m.actions) for m in test_clips])
    assert (predicted == labels).mean() > 0.8
    np.testing.assert_allclose(np.linalg.norm(motion_emb, axis=1), 1.0, atol=1e-5)
    assert evaluator.training["steps"] >= evaluator.training["best_step"] >= 8


def test_the_sanity_checks_hold_with_a_tiny_trained_evaluator(evaluator, test_clips):
    motion_emb, _ = evaluator.encode_motions(test_clips)
    text_emb = evaluator.encode_texts(embed([m.texts[0] for m in test_clips]))
    rng = np.random.default_rng(1)
    jitter = (0.01, 0.02, 0.05, 0.1)
    values, passed = sanity_checks(
        evaluator, test_clips, motion_emb, text_emb, split_halves(96, rng), jitter, rng
    )
    assert passed == {"shuffled_captions": True, "jitter_monotonic": True, "halves": True}
    for k in (1, 2, 3):  # within 3 standard errors of chance over 96 motions
        assert abs(values[f"shuffled_r_precision_top{k}"] - k / 32) < 3 * np.sqrt(k / 32 / 96)
    curve = [values[f"jitter_fid_{s:g}"] for s in jitter]
    assert np.all(np.diff(curve) > 0)
    assert values["halves_fid"] < HALVES_RATIO * values["jitter_fid_0.05"]


def test_a_clip_embeds_the_same_alone_and_padded_in_a_batch(evaluator, test_clips):
    clips = test_clips[:5]
    together, _ = evaluator.encode_motions(clips)
    alone = np.concatenate([evaluator.encode_motions([c])[0] for c in clips])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_an_evaluator_folder_round_trips_and_rejects_what_it_is_not(evaluator, test_clips, tmp_path):
    folder = save_evaluator(evaluator, tmp_path / "ev")
    assert {p.name for p in folder.iterdir()} == {"config.json", "evaluator.safetensors", "README.md"}
    config = json.loads((folder / "config.json").read_text())
    assert config["text_encoder"] == ENCODER and len(config["features"]["std"]) == 52
    loaded = load_evaluator(folder)
    np.testing.assert_array_equal(
        loaded.encode_motions(test_clips[:4])[0], evaluator.encode_motions(test_clips[:4])[0]
    )
    save_evaluator(evaluator, folder)  # an evaluator folder may be replaced...
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(StickgenError, match="not a stickgen evaluator"):  # ...any other folder may not
        save_evaluator(evaluator, tmp_path / "other")
    with pytest.raises(StickgenError, match="not an evaluator folder"):
        load_evaluator(tmp_path / "other")


def test_training_is_deterministic_and_leaves_the_global_torch_rng_alone():
    train, val = make_clips(36, 3), make_clips(12, 4)
    config = EvaluatorConfig(
        d_model=16, n_layers=1, n_heads=2, embed_dim=8, batch_size=12, max_steps=6, val_every=3
    )
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    first = train_evaluator(train, val, embed, ENCODER, config)
    assert torch.rand(1) == before
    second = train_evaluator(train, val, embed, ENCODER, config)
    for (name, a), b in zip(first.net.state_dict().items(), second.net.state_dict().values(), strict=True):
        assert torch.equal(a, b), name


def test_the_contrastive_loss_never_pushes_apart_identical_captions():
    rng = torch.Generator().manual_seed(0)
    motion = torch.nn.functional.normalize(torch.randn(6, 8, generator=rng), dim=-1)
    text = torch.nn.functional.normalize(torch.randn(6, 8, generator=rng), dim=-1)
    same_caption = torch.ones(6, 4)  # every pair has the same caption: no negatives are left
    assert float(contrastive_loss(motion, text, same_caption, 0.1, 0.95)) == pytest.approx(0.0, abs=1e-6)
    distinct = torch.eye(6)
    assert float(contrastive_loss(motion, text, distinct, 0.1, 0.95)) > 0.1


def test_majority_action_ignores_unknown_frames():
    assert majority_action(np.array([-1, 3, 3, 5, -1, -1])) == 3
    assert majority_action(np.array([-1, -1])) == -1


def test_action_accuracy_is_also_told_apart_for_clips_of_one_action_and_chained_ones():
    joints = np.zeros((6, 16, 2))
    single = Motion(joints, fps=25.0, texts=["x"], actions=np.array([-1, 4, 4, 4, 4, 4]))
    chained = Motion(joints, fps=25.0, texts=["x"], actions=np.array([4, 4, 4, 9, 9, 4]))
    assert one_action(single) and not one_action(chained)
    assert not one_action(Motion(joints, fps=25.0, texts=["x"], actions=np.full(6, -1)))
    labels = np.array([4, 4, 9, 9, -1])
    predicted = np.array([4, 7, 9, 1, 3])
    is_single = np.array([True, True, False, False, False])
    values = _action_accuracy(predicted, labels, is_single)
    assert values == {"action_accuracy": 0.5, "action_accuracy_one": 0.5, "action_accuracy_several": 0.5}
    values = _action_accuracy(np.array([4, 4, 1, 1, 3]), labels, is_single)
    assert values["action_accuracy_one"] == 1.0 and values["action_accuracy_several"] == 0.0
    assert "action_accuracy_several" not in _action_accuracy(predicted[:2], labels[:2], is_single[:2])


def test_a_generator_that_ignores_the_text_scores_worse_than_a_faithful_one(evaluator, test_clips):
    options = EvalOptions(seeds=2, mm_texts=12, mm_repeats=3)
    good = evaluate(test_clips, faithful, evaluator, embed, options).summary()
    bad = evaluate(test_clips, ignores_text, evaluator, embed, options).summary()
    g, b = good["generated"], bad["generated"]
    assert g["fid"]["mean"] < b["fid"]["mean"]
    assert g["r_precision_top3"]["mean"] > b["r_precision_top3"]["mean"] + 0.1
    assert g["action_accuracy"]["mean"] > b["action_accuracy"]["mean"]
    assert len(g["fid"]["per_seed"]) == 2
    assert all(good["passed"].values())


@pytest.mark.slow
def test_the_report_folder_holds_the_report_metrics_plots_and_a_grid(evaluator, test_clips, tmp_path):
    options = EvalOptions(seeds=2, mm_texts=8, mm_repeats=2, grid_clips=2)
    def chained(m: Motion) -> Motion:  # another action in the clip's first third
        actions = np.where(np.arange(m.num_frames) < m.num_frames // 3, (m.actions + 1) % 60, m.actions)
        return Motion(m.joints, fps=m.fps, texts=m.texts, actions=actions)

    clips = [chained(m) if i % 4 == 0 else m for i, m in enumerate(test_clips)]
    result = evaluate(clips, faithful, evaluator, embed, options, setup={"checkpoint": "faithful"})
    written = write_report(result, tmp_path / "report")
    names = {p.name for p in written}
    assert names == {"report.md", "metrics.json", "retrieval.png", "physics.png", "sanity.png", "grid.gif"}
    metrics = json.loads((tmp_path / "report" / "metrics.json").read_text())
    assert metrics["setup"]["test_clips"] == 96 and metrics["passed"]["jitter_monotonic"]
    report = (tmp_path / "report" / "report.md").read_text()
    assert "| generated |" in report and "Sanity checks" in report and "faithful" in report
    one = metrics["setup"]["one_action_clips"]
    assert one == 72 and "(72 of the 96 test clips)" in report
    assert "action_accuracy_one" in metrics["generated"] and "action_accuracy_several" in metrics["real"]
    for name in ("retrieval.png", "physics.png", "sanity.png"):
        Image.open(tmp_path / "report" / name).verify()
    with Image.open(tmp_path / "report" / "grid.gif") as grid:
        assert grid.n_frames == max(m.num_frames for _, m, _ in result.grid)
        assert grid.size == (2 * 256, 2 * 256)
    assert not [p for p in (tmp_path / "report").iterdir() if p.name.startswith(".")]


def test_a_second_generator_gets_its_own_row_on_the_same_captions(evaluator, test_clips):
    options = EvalOptions(seeds=1, mm_texts=4, mm_repeats=2)
    setup = {"as_generate_plan": "words"}
    summary = evaluate(
        test_clips, ignores_text, evaluator, embed, options, setup=setup, generate_as=faithful
    ).summary()
    main, second = summary["generated"], summary["as_generate"]
    assert "multimodality" in main and "multimodality" not in second
    assert second["r_precision_top3"]["mean"] > main["r_precision_top3"]["mean"] + 0.1  # the faithful one
    report = report_markdown(summary)
    assert "| generated |" in report and "| as `stickgen generate` (plan words) |" in report
    assert report.count("| as `stickgen generate` (plan words) |") == 2  # text-and-motion and physics
    alone = evaluate(test_clips, faithful, evaluator, embed, options).summary()
    assert alone["as_generate"] == {} and "stickgen generate` (plan" not in report_markdown(alone)
    with pytest.raises(StickgenError, match="Unknown plan"):
        EvalOptions(plan="guess")


def test_the_report_says_what_a_failed_sanity_check_means(evaluator, test_clips):
    summary = evaluate(
        test_clips, faithful, evaluator, embed, EvalOptions(seeds=1, mm_texts=4, mm_repeats=2)
    ).summary()
    assert "sampling floor" not in report_markdown(summary)
    summary["passed"]["halves"] = False
    report = report_markdown(summary)
    assert "| **no** |" in report and "With 96 test clips the sampling floor of FID is too high" in report


def test_the_report_says_how_long_the_sampler_guided(evaluator, test_clips):
    options = EvalOptions(seeds=1, steps=16, guidance=2.5, mm_texts=4, mm_repeats=2)
    summary = evaluate(test_clips, faithful, evaluator, embed, options).summary()
    assert "guidance 2.5. Every" in report_markdown(summary)  # a report that does not say: guided throughout
    summary["setup"]["guidance_until"] = 0.75  # what run_evaluation records: the sampler's interval
    assert "16 sampling steps, guidance 2.5 while t < 0.75. Every" in report_markdown(summary)


def test_too_few_test_clips_and_bad_options_are_one_sentence_errors(evaluator, test_clips):
    with pytest.raises(StickgenError, match="at least 32 test clips"):
        evaluate(test_clips[:20], faithful, evaluator, embed)
    with pytest.raises(StickgenError, match="include 0.05"):
        EvalOptions(jitter=(0.01, 0.02))


@pytest.mark.slow
def test_a_report_goes_only_into_a_new_or_empty_folder_or_over_an_earlier_report(tmp_path):
    notes = tmp_path / "mywork"
    notes.mkdir()
    (notes / "report.md").write_text("MY OWN NOTES\n")  # a user's file of the same name
    with pytest.raises(StickgenError, match="is not a stickgen report"):
        check_report_folder(notes)
    assert (notes / "report.md").read_text() == "MY OWN NOTES\n"
    (tmp_path / "empty").mkdir()
    assert check_report_folder(tmp_path / "empty") == tmp_path / "empty"
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "report.md").write_text("# stickgen evaluation\n\nold figures\n")
    assert check_report_folder(earlier) == earlier
    with pytest.raises(StickgenError, match="is a file"):
        check_report_folder(notes / "report.md")


def test_train_evaluator_refuses_a_foreign_out_folder_before_training(tmp_path, monkeypatch):
    import stickgen.evaluator

    monkeypatch.setattr(stickgen.evaluator, "train_evaluator", lambda *a, **k: pytest.fail("trained"))
    other = tmp_path / "notds"
    other.mkdir()
    (other / "file.txt").write_text("mine")
    with pytest.raises(StickgenError, match="is not a stickgen evaluator"):
        train_evaluator_on_dataset(tmp_path / "no-data", other)


def test_evaluation_options_name_a_device_this_knows():
    with pytest.raises(StickgenError, match="Unknown device 'tpu'"):
        EvalOptions(device="tpu")


def test_the_cli_says_in_one_sentence_that_an_evaluator_folder_is_missing(tmp_path):
    args = ["--data", tmp_path, "--checkpoint", tmp_path, "--evaluator", tmp_path / "missing"]
    args += ["--out", tmp_path / "report"]
    result = subprocess.run(
        [sys.executable, "-m", "stickgen", "eval", "run", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert (
        result.stderr.strip().startswith("stickgen: error: ") and "not an evaluator folder" in result.stderr
    )
    assert "Traceback" not in result.stderr


def fake_encoder_folder(folder):
    """A sentence-transformers folder layout with random weights: it has an identity and a dimension,
    and is never loaded when every text it is asked for is already in the embedding cache."""
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": TEXT_DIM}))
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({"embedding_dimension": TEXT_DIM}))
    (folder / "model.safetensors").write_bytes(np.random.default_rng(0).bytes(1024))
    return folder


@pytest.mark.slow
def test_the_two_commands_train_an_evaluator_and_report_on_a_checkpoint(tmp_path, monkeypatch):
    from stickgen.checkpoint import save_checkpoint
    from stickgen.dataset import Dataset, DatasetWriter
    from stickgen.embed_cache import EmbeddingCache
    from stickgen.model import ModelConfig, StickFigureTransformer
    from stickgen.text import TextEncoder

    monkeypatch.setenv("STICKGEN_CACHE_DIR", str(tmp_path / "cache"))
    encoder = TextEncoder(str(fake_encoder_folder(tmp_path / "encoder")))
    captions = [f"{kind} {variant}" for kind in KINDS for variant in range(3)]
    EmbeddingCache().put_many(encoder.identity.id, captions, embed(captions))

    writer = DatasetWriter(tmp_path / "data", source={"generator": "test"}, seed=0)
    writer.add_all(make_clips(660, 5))  # 5 % test split: 33 clips, one batch of 32
    stats = Dataset(writer.finalize()).stats
    model = StickFigureTransformer(ModelConfig(d_model=32, n_layers=1, n_heads=2, text_dim=TEXT_DIM))
    save_checkpoint(
        tmp_path / "model", model, encoder=encoder.identity.to_dict(), norm_mean=stats["feature_mean"],
        norm_std=stats["feature_std"],
    )  # fmt: skip

    def stickgen(*args):
        command = [sys.executable, "-m", "stickgen", "eval", *map(str, args)]
        return subprocess.run(command, capture_output=True, text=True, timeout=300)

    data, ev, report = tmp_path / "data", tmp_path / "ev", tmp_path / "report"
    trained = stickgen(
        "train-evaluator", "--data", data, "--out", ev, "--encoder", tmp_path / "encoder", "--max-steps", 20
    )
    assert trained.returncode == 0, trained.stderr
    assert trained.stdout.strip() == str(ev)
    assert load_evaluator(ev).training["train_clips"] == len(Dataset(data).split("train"))

    ran = stickgen(
        "run", "--checkpoint", tmp_path / "model", "--data", data, "--evaluator", ev, "--out", report,
        "--seeds", 2, "--steps", 2, "--mm-texts", 4, "--mm-repeats", 2,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    written = ran.stdout.split()
    assert {p.rsplit("/", 1)[1] for p in written} == {
        "report.md", "metrics.json", "retrieval.png", "physics.png", "sanity.png", "grid.gif",
    }  # fmt: skip
    metrics = json.loads((report / "metrics.json").read_text())
    assert metrics["setup"]["test_clips"] == 33
    # the files name the folders without this machine's paths (outside the working folder: by name)
    setup = metrics["setup"]
    assert (setup["checkpoint"], setup["dataset"], setup["evaluator"]) == ("model", "data", "ev")
    assert "Model `model`, dataset `data`, evaluator `ev`." in (report / "report.md").read_text()
    assert setup["guidance_until"] == GUIDANCE_UNTIL  # the sampler's guidance interval, recorded
    assert load_evaluator(ev).training["dataset"] == "data"
    assert len(metrics["generated"]["fid"]["per_seed"]) == 2
    assert set(metrics["passed"]) == {"shuffled_captions", "jitter_monotonic", "halves"}
