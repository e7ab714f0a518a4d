"""Reading the actions a prompt means (stickgen.action_meaning) and the `auto` plan that uses it."""

import numpy as np
import pytest
import torch
import yaml

from stickgen import action_meaning
from stickgen.action_meaning import as_phrase, split_parts
from stickgen.labels import ACTIONS, action_id
from stickgen.text import TextEncoder


@pytest.fixture(scope="module")
def meaning():
    return action_meaning.for_encoder(TextEncoder())


@pytest.mark.parametrize(
    ("prompt", "parts"),
    [
        ("a man strolls over, then plops down", ["a man strolls over", "plops down"]),
        ("walks over and then sits; finally waves", ["walks over", "sits", "waves"]),
        ("she stretches before jogging", ["she stretches", "jogging"]),
        ("a knight kneels before the queen", ["a knight kneels before the queen"]),
        ("a robot punches, left then right", ["a robot punches, left right"]),
        ("a person jumps", ["a person jumps"]),
        # a list of three or more with "and" before the last is a list of actions, even with no order word
        ("grabs a coat, waves to all, and walks out", ["grabs a coat", "waves to all", "walks out"]),
        # ... unless an item only moves a part of the body (one action told in steps), or "and" is missing
        ("he bends his knees, swings his arms, and hops", ["he bends his knees, swings his arms, and hops"]),
        ("reaches up, grabs, steps up, repeat", ["reaches up, grabs, steps up, repeat"]),
        ("he stands up, and waves", ["he stands up, and waves"]),
        ("He runs to the bus. He sits down.", ["He runs to the bus", "He sits down"]),
        ("Mr. Smith walks to the shop", ["Mr. Smith walks to the shop"]),  # no sentence ends there
        ("once she has sat down, she waves", ["she has sat down", "she waves"]),
        ("once the whistle goes, he sprints off", ["he sprints off"]),  # a condition, not an action
        ("once the music starts she dances, then spins", ["she dances", "spins"]),
        ("climbs the ladder, and once she's on the roof she waves", ["climbs the ladder", "she waves"]),
        ("swims to the buoy, and as soon as she gets there waves", ["swims to the buoy", "waves"]),
        ("after jogging round the block, she sits down", ["jogging round the block", "she sits down"]),
        ("after the movie, a man gets up", ["after the movie, a man gets up"]),  # when, not what
        ("before leaving, she waves", ["she waves", "leaving"]),
        ("pushes the door until it opens, then walks in", ["pushes the door", "walks in"]),
        ("lowers himself until lying flat", ["lowers himself", "lying flat"]),
        ("sinks until both knees are bent, twice", ["sinks, twice"]),
        # a list of actions ahead of the order word is cut at its commas before a verb
        ("heads in, plops onto the sofa, and finally naps", ["heads in", "plops onto the sofa", "naps"]),
        ("the kid skips over, hops twice, then falls", ["the kid skips over", "hops twice", "falls"]),
        ("on the moon, shoots up, then lands", ["on the moon, shoots up", "lands"]),  # a place, no verb
        ("walks on, arms swinging, then sits", ["walks on, arms swinging", "sits"]),  # a body part
        ("bends her knees, swings her arms, and jumps", ["bends her knees, swings her arms, and jumps"]),
        # items with an "and" of their own tell one action in steps
        ("bends over, takes her hands back and up, then whips them through",
         ["bends over, takes her hands back and up", "whips them through"]),
        # an action after "after" and a gerund happens first, where the gerund names an action
        ("a stick figure shrugs after marching", ["marching", "a stick figure shrugs"]),
        ("she claps right after doing squats, then waves", ["doing squats", "she claps", "waves"]),
        ("she waves after reading the letter", ["she waves after reading the letter"]),  # names no action
        ("the kid cries after falling over", ["the kid cries after falling over"]),  # crying is no action
        ("relaxes into a chair after standing all day", ["relaxes into a chair after standing all day"]),
        ("the player celebrates after scoring a goal", ["scoring a goal", "the player celebrates"]),
    ],
)
def test_a_prompt_is_cut_into_its_parts_in_order(prompt, parts):
    assert split_parts(prompt) == parts


@pytest.mark.parametrize(
    ("part", "phrase"),
    [
        ("a boxer eases himself down onto a stool", "someone eases himself down onto a stool"),
        ("my old grandpa stays put", "someone stays put"),
        ("grandpa stays put", "someone stays put"),
        ("she stretches", "someone stretches"),
        ("lowers herself onto it", "someone lowers herself onto it"),  # the second part of a chain
        ("a sports fan hollers", "someone hollers"),  # "sports" and "his" are no verbs
        ("a man with a cane limps", "someone limps"),
        ("a man on his knees prays", "someone prays"),  # a noun after "his" is no verb
        ("on the moon, a woman settles onto a boulder", "someone settles onto a boulder"),
        ("a kid flops back in the snow", "someone flops back"),
        ("photosynthesis in plants", "photosynthesis in plants"),  # no subject and verb: as it is
        ("the end", "the end"),
        # a part that starts with a gerund, as after "before": its verb in the third person
        ("landing an uppercut", "someone lands an uppercut"),
        ("lunging forward", "someone lunges forward"),  # the vocabulary's verb: lunge, not lung
        ("running to the door", "someone runs to the door"),
        ("dancing in the snow", "someone dances"),  # the place taken off, as from any part
        ("lying on the sofa", "someone lies on the sofa"),
        ("something in the air", "something in the air"),  # no gerund
    ],
)
def test_a_part_is_put_in_the_phrases_form(part, phrase):
    assert as_phrase(part) == phrase


def test_a_gerund_is_read_from_its_verb_and_the_part_after_before_with_it(meaning):
    from stickgen.action_meaning import _gerund_base

    bases = [_gerund_base(w) for w in ("sitting", "waving", "scoring", "kneeling", "entering", "tiptoeing")]
    assert bases == ["sit", "wave", "score", "kneel", "enter", "tiptoe"]
    # "landing an uppercut" as it is reads as a jump; as "someone lands an uppercut", a punch
    text = "a boxer bobs under a hook before landing an uppercut"
    assert meaning.actions(text) == [action_id("dodge"), action_id("punch")]


@pytest.mark.parametrize(
    ("prompt", "action"),
    [
        # as written it reads swim, the subject's trade (earlier readers were misled by "a swimmer
        # settles onto a bench", "a boxer eases himself down onto a stool" and "a golfer takes a knee";
        # the reader tuned on everyday prompts reads them right as written)
        ("a swimmer makes his way to the door", "walk"),
    ],
)
def test_a_part_is_read_with_and_without_its_subject(meaning, prompt, action):
    as_written = meaning.scores([prompt])[0]
    bare = meaning.scores([as_phrase(prompt)])[0]
    assert ACTIONS[int(as_written.argmax())] != action
    np.testing.assert_allclose(meaning.part_scores([prompt])[0], (as_written + bare) / 2, atol=1e-6)
    assert meaning.actions(prompt) == [action_id(action)]


def test_every_vocabulary_phrase_is_read_and_labelled():
    texts, labels = action_meaning.phrases()
    assert len(texts) == len(labels) and set(labels.tolist()) == set(range(len(ACTIONS)))
    assert all(t.startswith(f"{action_meaning.SUBJECT} ") and " its " not in f" {t} " for t in texts)


def test_a_vocabulary_phrase_reads_as_its_own_action(meaning):
    texts, labels = action_meaning.phrases()
    picked = np.arange(0, len(texts), 7)
    scores = meaning.scores([texts[i] for i in picked])
    # its own phrase is among the TOP nearest; other actions share words ("get up"), so most, not all
    assert (scores.argmax(axis=1) == labels[picked]).mean() > 0.9


@pytest.mark.parametrize(
    ("prompt", "actions"),
    [
        ("a person jumps", ["jump"]),  # the words name it: the exact matcher's reading
        ("someone runs, then jumps", ["run", "jump"]),
        ("an old man lowers himself onto a bench", ["sit_down"]),
        ("a woman sprints off, then takes a seat", ["sprint", "sit_down"]),  # meaning, then words
        ("before sitting down, she waves", ["wave", "sit_down"]),  # the words in the order they happen
        ("she leans over the sink until her head points at the floor", ["bend_over"]),  # not point
        ("as soon as the bell rings, the boxer throws a hook", ["punch"]),  # the bell is no action
        ("a stick figure shrugs after marching", ["march", "shrug"]),  # "after A-ing": A first
        ("a fan claps after hearing the final score", ["clap"]),  # a reason, no action
    ],
)
def test_actions_are_read_from_words_and_else_from_meaning(meaning, prompt, actions):
    assert meaning.actions(prompt) == [action_id(a) for a in actions]


def test_a_rest_after_a_posture_is_staying_there_and_repeats_are_one_action(meaning):
    ids = lambda *names: [action_id(n) for n in names]  # noqa: E731
    # idle follows only a standing figure in the data: after lying or sitting it would mean standing up
    assert meaning.actions("a kid lies down in the snow to rest") == ids("lie_down")
    assert meaning.actions("a man sits down and rests") == ids("sit_down")
    assert meaning.actions("someone kneels, then waits") == ids("kneel")
    # standing still before or after a standing action is an action of its own
    assert meaning.actions("a man rests, then sits down") == ids("idle", "sit_down")
    assert meaning.actions("someone waves, then stands still") == ids("wave", "idle")
    assert meaning.actions("a woman bends over, touching her toes") == ids("bend_over")
    assert action_meaning.settled(ids("jump", "jump", "walk", "jump")) == ids("jump", "walk", "jump")
    fallen = ids("fall_down", "idle", "get_up", "idle")
    assert action_meaning.settled(fallen) == ids("fall_down", "get_up", "idle")


def test_parts_read_by_meaning_follow_one_another_as_the_training_data_do():
    def order(*parts):  # each part: (action name, score) options; −1 for no action
        options = [[((n if n == -1 else action_id(n),), s) for n, s in part] for part in parts]
        chosen = action_meaning.in_posture_order(options)
        return [n if n == -1 else ACTIONS[n] for part in chosen for n in part]

    # after sitting, only what starts seated follows (stand_up, get_up), or idle, or the same again
    assert order([("sit_down", 0.6)], [("shrug", 0.7), ("stand_up", 0.5)]) == ["sit_down", "stand_up"]
    assert order([("sit_down", 0.6)], [("idle", 0.7), ("stand_up", 0.5)]) == ["sit_down", "idle"]
    assert order([("sit_down", 0.6)], [("sit_down", 0.7), ("stand_up", 0.5)]) == ["sit_down", "sit_down"]
    # the best total: the first part's second choice, where the second part's best fits only after it
    lying = order([("sit_down", 0.6), ("lie_down", 0.55)], [("sit_up", 0.7), ("stand_up", 0.3)])
    assert lying == ["lie_down", "sit_up"]
    # lying down may follow sitting as well (the model lies back from the seat)
    assert order([("sit_down", 0.6)], [("lie_down", 0.7), ("stand_up", 0.5)]) == ["sit_down", "lie_down"]
    assert order([("kneel", 0.6)], [("lie_down", 0.7), ("get_up", 0.5)]) == ["kneel", "get_up"]
    # standing lets any action follow
    assert order([("walk", 0.6)], [("sit_up", 0.7), ("sit_down", 0.6)]) == ["walk", "sit_up"]

    # a part with one option keeps it: the words' reading, or no action, which lets anything follow
    assert order([("sit_down", 0.0)], [("walk", 0.0)]) == ["sit_down", "walk"]
    nothing = order([("sit_down", 0.6)], [(-1, 0.0)], [("walk", 0.5), ("get_up", 0.4)])
    assert nothing == ["sit_down", -1, "walk"]
    # where nothing fits, each part as it reads alone
    assert order([("kneel", 0.0)], [("clap", 0.6), ("wave", 0.5)]) == ["kneel", "clap"]


def test_a_rise_to_the_feet_is_put_in_where_a_standing_action_follows_a_posture_off_the_feet(meaning):
    from stickgen.generation import read_actions

    ids = lambda *names: [action_id(n) for n in names]  # noqa: E731
    risen = action_meaning.risen
    assert risen(ids("kneel", "point")) == ids("kneel", "get_up", "point")
    assert risen(ids("sit_down", "wave", "walk")) == ids("sit_down", "stand_up", "wave", "walk")
    assert risen(ids("lie_down", "sit_up", "stretch")) == ids("lie_down", "sit_up", "get_up", "stretch")
    # what starts there, lying down after sitting, the same again, and idle need no rise
    assert risen(ids("sit_down", "stand_up", "wave")) == ids("sit_down", "stand_up", "wave")
    assert risen(ids("sit_down", "lie_down")) == ids("sit_down", "lie_down")
    assert risen(ids("fall_down", "crawl")) == ids("fall_down", "crawl")  # onto all fours from the floor
    assert risen(ids("kneel", "crawl")) == ids("kneel", "crawl")
    assert risen(ids("sit_down"), after=action_id("sit_down")) == ids("sit_down")
    assert risen(ids("kneel", "idle", "clap")) == ids("kneel", "idle", "get_up", "clap")
    assert risen([action_id("kneel"), -1, action_id("clap")]) == [action_id("kneel"), -1, action_id("clap")]
    # from the action before: a story's line after sitting down
    assert risen(ids("wave"), after=action_id("sit_down")) == ids("stand_up", "wave")
    assert risen(ids("wave"), after=action_id("walk")) == ids("wave")
    # generate's reading puts it in, by words and by meaning alike; a part's action far below its best
    # (`REACH`) is no option for the order of postures: "down on one knee" is read kneel, not crawl
    assert read_actions("sits down, then waves", "words") == ids("sit_down", "stand_up", "wave")
    text = "once he's down on one knee beside the trail, the scout points out the tracks"
    [row, _] = meaning.part_scores(split_parts(text))
    assert row.max() - row[action_id("crawl")] > action_meaning.REACH
    assert read_actions(text, "auto", TextEncoder()) == ids("kneel", "get_up", "point")


def test_a_prompt_after_another_action_starts_in_the_posture_that_action_ends_in(meaning):
    # a story's line, or a continuation, is read from where the figure is
    def order(after, *choices):
        options = [[((action_id(n),), s) for n, s in choices]]
        chosen = action_meaning.in_posture_order(options, after=None if after is None else action_id(after))
        return [ACTIONS[n] for part in chosen for n in part]

    assert order(None, ("shrug", 0.7), ("stand_up", 0.5)) == ["shrug"]
    assert order("sit_down", ("shrug", 0.7), ("stand_up", 0.5)) == ["stand_up"]
    assert order("sit_down", ("sit_down", 0.7), ("stand_up", 0.5)) == ["sit_down"]  # the same again
    assert order("walk", ("shrug", 0.7), ("stand_up", 0.5)) == ["shrug"]  # standing: anything
    assert order("kneel", ("clap", 0.6), ("wave", 0.5)) == ["clap"]  # nothing fits: as alone

    def read(text, after=None):
        return [ACTIONS[a] for a in meaning.actions(text, None if after is None else action_id(after))]

    assert read("she pops up") == ["jump"]
    assert read("she pops up", after="kneel") == ["get_up"]
    assert read("then straightens up", after="sit_down") == ["stand_up"]
    assert read("she gets up") == ["stand_up"] and read("she gets up", after="lie_down") == ["get_up"]
    assert read("she waves", after="lie_down") == ["wave"]  # words keep their reading
    # resting after a posture off the feet is staying there: the action before goes on
    assert read("he waits") == ["idle"] and read("he waits", after="walk") == ["idle"]
    assert read("he waits", after="sit_down") == ["sit_down"]
    assert read("he waits, then gets up", after="lie_down") == ["lie_down", "get_up"]
    [(close, _)] = meaning.close_calls("she pops up", after=action_id("kneel"))
    assert ACTIONS[close] == "get_up"


def test_a_prompt_reads_in_posture_order(meaning):
    text = "a man drops into an armchair, then straightens up out of it"
    parts = split_parts(text)
    alone = [ACTIONS[int(row.argmax())] for row in meaning.part_scores(parts)]
    assert alone == ["sit_down", "stretch"]  # "straightens up" alone reads as a stretch
    assert meaning.actions(text) == [action_id("sit_down"), action_id("stand_up")]
    # the close call is about the action read; the part's best alone is named first beside it
    [(read, others)] = meaning.close_calls(text)
    assert read == action_id("stand_up") and others[0] == action_id("stretch")


def test_a_part_that_goes_to_where_the_next_part_happens_is_the_way_there(meaning):
    ids = lambda *names: [action_id(n) for n in names]  # noqa: E731
    text = "grandpa plods over to his armchair before lowering himself into it with a sigh"
    first, _ = split_parts(text)
    assert ACTIONS[int(meaning.part_scores([first])[0].argmax())] == "sit_down"  # the armchair, alone
    assert meaning.actions(text) == ids("walk", "sit_down")  # not one sit_down, merged
    # a way of going that scores clearly above walking is kept
    limps = "the old man hobbles to the bench, then lowers himself onto it"
    assert meaning.actions(limps) == ids("limp", "sit_down")
    # a part of its own, or one without a place to go to, reads as before
    assert meaning.actions("grandpa plods over to his armchair") == ids("sit_down")
    assert meaning.actions("a woman bends over, touching her toes") == ids("bend_over")


def test_a_list_item_that_is_no_clear_action_goes_on_with_the_part_before(meaning):
    ids = lambda *names: [action_id(n) for n in names]  # noqa: E731
    text = "a person jumps up, spins around, and lands"
    assert split_parts(text) == ["a person jumps up", "spins around", "lands"]
    # "lands" alone is as near fall_down as jump: the spin goes on, no fall is put in
    assert meaning.close_calls("lands") != []
    assert meaning.actions(text) == ids("jump", "spin")
    # so a list counts as one part towards the clip's length: only the actions read from it add time
    assert action_meaning.count_parts(text) == 1
    assert action_meaning.count_parts("walks over, then sits down") == 2
    # an item that clearly is an action of its own is read as one
    frisbee = "she grabs the frisbee, whirls around, and flings it back"
    assert meaning.actions(frisbee) == ids("catch", "spin", "throw")


def test_a_close_call_names_the_actions_that_scored_near_the_one_read(meaning):
    text = "a woman flops onto the bed"  # read as sit_down, a close call with lie_down
    [(read, others)] = meaning.close_calls(text)
    [scores] = meaning.part_scores([text])
    assert [read] == meaning.actions(text) and read == int(scores.argmax())
    assert 1 <= len(others) <= action_meaning.MAX_CLOSE and read not in others
    assert meaning.close == action_meaning.TUNED_CLOSE  # the reader's tuned encoder
    assert all(scores[read] - scores[o] < meaning.close for o in others)
    assert others == sorted(others, key=lambda o: -scores[o])  # the likeliest fix first
    assert meaning.close_calls("a person jumps") == []  # its words name the action: no guess
    assert meaning.close_calls("she lowers herself onto a bench") == []  # read clearly
    [(_, others)] = meaning.close_calls("she lowers herself onto a bench", margin=1.0)
    assert len(others) == action_meaning.MAX_CLOSE
    # a part whose words name its action is no guess: only the part read by meaning has a close call
    [(later, _)] = meaning.close_calls("a girl walks over, then flops onto the bed")
    assert later == read


def test_a_prompt_about_nothing_the_vocabulary_knows_reads_as_no_action(meaning):
    # 5 of the 15 such texts in docs/prompt-suite.md read as nothing with the reader tuned on everyday
    # prompts ("photosynthesis in plants" scores 0.434), 6 of them with the reader before it
    for text in ("the history of rome", "quantum physics lecture notes", "tax forms"):
        assert meaning.part_scores([text]).max() < meaning.min_score == action_meaning.TUNED_MIN_SCORE
        assert meaning.actions(text) == [-1]
    chained = meaning.actions("a woman sprints off, then takes a seat")
    assert chained == [action_id("sprint"), action_id("sit_down")]


def test_the_auto_plan_reads_meaning_and_falls_back_on_the_models_plan():
    from stickgen.generation import load_generator_checkpoint, plan_timelines

    ckpt = load_generator_checkpoint()
    encoder = TextEncoder(ckpt.encoder["name"])
    prompts = ["an old man lowers himself onto a bench", "tax forms"]
    text = torch.from_numpy(encoder.encode(prompts))
    auto = plan_timelines(ckpt.model, prompts, text, 30, "auto", generator=torch.Generator().manual_seed(0),
                          encoder=encoder)  # fmt: skip
    model = plan_timelines(ckpt.model, prompts[1:], text[1:], 30, "model",
                           generator=torch.Generator().manual_seed(0))  # fmt: skip
    assert (auto[0] == action_id("sit_down")).all()
    np.testing.assert_array_equal(auto[1], model[0])  # nothing meant: the model's own plan
    with pytest.raises(ValueError, match="sentence encoder"):
        plan_timelines(ckpt.model, prompts, text, 30, "auto")


def test_the_reading_sets_are_apart_from_the_suite_and_not_read_by_the_words():
    from itertools import combinations
    from pathlib import Path

    from stickgen.action_words import actions_in_text

    root = Path(__file__).resolve().parents[1] / "benchmarks"
    load = lambda name: yaml.safe_load((root / name).read_text(encoding="utf-8"))["prompts"]  # noqa: E731
    names = ("plan_dev.yaml", "plan_check.yaml", "plan_chain.yaml", "plan_chain_check.yaml", "prompts.yaml")
    dev, check, chain, chain_check, suite = map(load, names)
    norm = lambda t: " ".join(t.lower().replace(",", " ").split())  # noqa: E731
    texts = [{norm(e["text"]) for e in entries} for entries in (dev, check, chain, chain_check, suite)]
    assert all(not a & b for a, b in combinations(texts, 2))
    # the chained sets: 200 and 150 prompts of 2 or 3 different actions in a row, each action in at
    # least 5, written so that the exact words read none right as a whole (exercise nouns read 7 now)
    assert len(chain) == len(texts[2]) == 200 and len(chain_check) == len(texts[3]) == 150
    for entries in (chain, chain_check):
        assert all(len(e["actions"]) in (2, 3) and all(a in ACTIONS for a in e["actions"]) for e in entries)
        assert all(a != b for e in entries for a, b in zip(e["actions"], e["actions"][1:], strict=False))
        assert all(sum(a in e["actions"] for e in entries) >= 5 for a in ACTIONS)
        assert sum(actions_in_text(e["text"]) == [action_id(a) for a in e["actions"]] for e in entries) < 10
    for entries in (dev, check):
        assert len(entries) >= 280 and all(a in ACTIONS for e in entries for a in e["actions"])
        assert all(sum(e["actions"] == [a] for e in entries) >= 4 for a in ACTIONS)
        # written so that the exact matcher reads none of them; a grown vocabulary may read a few now
        assert sum(bool(actions_in_text(e["text"])) for e in entries) < len(entries) // 4


def test_the_shipped_phrase_vectors_are_current_and_used_without_loading_the_encoder(tmp_path):
    from stickgen.embed_cache import EmbeddingCache

    base = TextEncoder(cache=EmbeddingCache(tmp_path))  # an empty cache: nothing embedded yet
    encoder = action_meaning.reader_encoder(base)  # MiniLM with the reader's tuned layers
    assert encoder.adapter is not None and encoder.identity.id.startswith(base.identity.id + "+")
    vectors = action_meaning.shipped_vectors(encoder.identity.id)
    texts, _ = action_meaning.phrases()
    assert vectors is not None, "assets/action-phrases/minilm.npz is out of date: see its README"
    assert vectors.shape == (len(texts), encoder.dim)
    built = action_meaning.ActionMeaning(encoder)
    assert built.actions("a person jumps, then waves") == [action_id("jump"), action_id("wave")]
    assert "vectors" not in vars(built)  # words named every part: the phrases were not needed
    assert built.vectors.shape == vectors.shape
    assert encoder.load_count == 0  # read from the shipped file
    fresh = encoder.encode(texts[::97])
    np.testing.assert_allclose(built.vectors[::97], fresh, atol=2e-3)
    assert action_meaning.shipped_vectors("another encoder") is None
