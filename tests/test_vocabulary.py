"""The action vocabulary: words and descriptions for each action, their conjugation, the matcher."""

import subprocess
import sys

import numpy as np
import pytest

from stickgen import vocabulary
from stickgen.action_words import actions_in_text
from stickgen.labels import ACTIONS, action_id
from stickgen.synth.actions import ACTION_BY_NAME
from stickgen.synth.text import Said, describe
from stickgen.vocabulary import VOCABULARY, gerund, third_person


def test_every_action_has_words_and_descriptions_in_action_order():
    assert list(VOCABULARY) == list(ACTIONS)
    for name, (words, descriptions) in VOCABULARY.items():
        assert len(words) >= 8 and len(set(words)) == len(words), name
        assert len(descriptions) >= 3 and len(set(descriptions)) == len(descriptions), name
        for phrase in words + descriptions:
            assert phrase == phrase.strip().lower() and "  " not in phrase, phrase
        assert ACTION_BY_NAME[name].words == words and ACTION_BY_NAME[name].descriptions == descriptions


def test_no_phrase_names_two_actions_but_the_shared_ones():
    owner: dict[str, str] = {}
    for name, (words, _) in VOCABULARY.items():
        for phrase in words:
            assert owner.setdefault(phrase, name) == name or phrase in vocabulary.SHARED, (phrase, name)
    assert actions_in_text("a person gets up") == [action_id("stand_up")]  # the first that lists it
    # after an action that ends on the floor (a story's line before), the one that starts there
    assert actions_in_text("a person gets up", after=action_id("lie_down")) == [action_id("get_up")]
    assert actions_in_text("a person gets up", after=action_id("sit_down")) == [action_id("stand_up")]


def test_every_phrase_conjugates():
    vowels = "aeiou"
    for words, _ in VOCABULARY.values():
        for phrase in words:
            verb = phrase.split()[0]
            if verb == "be":
                continue
            third, ing = third_person(phrase).split()[0], gerund(phrase).split()[0]
            assert third.endswith("s") and third[0] == verb[0], phrase
            assert ing.endswith("ing") and ing[0] == verb[0], phrase
            # No "-eing" except after "ee"/"oe"/"ye" (seeing, tiptoeing) and "boogieing"; no "yy".
            assert not ing.endswith("eing") or ing[-5:-3] in ("ee", "oe", "ye", "ie"), phrase
            # A short verb ending consonant-vowel-consonant doubles (hop → hopping) unless listed otherwise.
            short = len(verb) == 3 and verb[0] not in vowels and verb[1] in vowels
            if short and verb[2] not in vowels + "wxy":
                assert ing == verb + verb[-1] + "ing", phrase
    assert gerund("boogie") == "boogieing" and gerund("lie down") == "lying down"
    assert gerund("frolic") == "frolicking" and third_person("tiptoe") == "tiptoes"


def test_descriptions_reach_the_grammar_in_the_third_person():
    rng = np.random.default_rng(0)
    spec = ACTION_BY_NAME["sit_down"]
    said = [Said(spec.words, {}, 0, spec.descriptions)]
    texts = [t.lower() for _ in range(40) for t in describe(rng, said, "earth", (), False, 5)]
    described = [t for t in texts if any(d.split()[0] in t.split() for d in spec.descriptions)]
    assert len(described) > len(texts) // 10
    assert not any(" is " + d.split()[0] in t for t in texts for d in spec.descriptions)  # never "is bends"


def test_matcher_reads_many_phrasings():
    assert actions_in_text("a man strolls along") == [action_id("walk")]
    dance_then_sit = [action_id("dance"), action_id("sit_down")]
    assert actions_in_text("somebody boogies, then takes a seat") == dance_then_sit
    assert actions_in_text("a child is tiptoeing") == [action_id("tiptoe")]


@pytest.mark.parametrize(
    ("prompt", "actions"),
    [
        # words that say how the action before is done name no action of their own
        ("a girl spins on tiptoe", ["spin"]),
        ("a man swims with crawl strokes", ["swim"]),
        ("someone cheers, hopping up and down", ["cheer"]),
        # a participle right after a phrase says how it is done, though it is the longer phrase
        ("a guy lunges stepping back each time", ["lunge"]),
        ("she leaps for joy pumping a fist", ["celebrate"]),
        # with a word of order between, they are a second action
        ("she spins, then tiptoes away", ["spin", "tiptoe"]),
        ("swims to shore and then crawls up the beach", ["swim", "crawl"]),
        ("he spins before tiptoeing off", ["spin", "tiptoe"]),
        # and only after the action they are a way of doing
        ("he waves and tiptoes off", ["wave", "tiptoe"]),
    ],
)
def test_a_way_of_doing_an_action_is_not_another(prompt, actions):
    assert actions_in_text(prompt) == [action_id(name) for name in actions]


def test_itself_in_a_phrase_is_a_reflexive_pronoun_not_any_word():
    assert actions_in_text("she seats herself on the bench") == [action_id("sit_down")]
    # "seat itself" and "guard itself" once matched "seat on" and "guard scans"
    assert actions_in_text("she rises from the floor from her seat on the ice") == [action_id("get_up")]
    assert actions_in_text("a guard scans left and right") == []  # no block: left to the meaning


def test_a_description_whole_names_its_action():
    # the words inside it name bend_over; the description, whole, is push's (with "her" for "its")
    text = "a lady bends forward with her arms locked out and drives one leg after the other"
    assert actions_in_text(text) == [action_id("push")]
    assert actions_in_text("a lady bends forward") == [action_id("bend_over")]
    for name, (_, descriptions) in VOCABULARY.items():
        for description in descriptions:
            if " from standing to lying " in f" {description} ":
                continue  # a change of posture, read as the posture it ends in: lie_down
            assert actions_in_text(f"someone {description}") == [action_id(name)], description


def test_matcher_does_not_load_the_synthesizer():
    code = "import sys, stickgen.action_words as a; a.actions_in_text('a person jumps'); " + (
        "print(any(m.startswith('stickgen.synth') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_lookup_functions():
    assert vocabulary.words("walk")[0] == "walk"
    assert vocabulary.descriptions("walk") == VOCABULARY["walk"][1]
