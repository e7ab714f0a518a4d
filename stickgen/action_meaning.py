"""Prompts to actions by meaning: the nearest phrases of the vocabulary in sentence-embedding space.

`stickgen.action_words` finds the actions a prompt names with the vocabulary's exact words; most
everyday prompts say the same thing in other words ("plops down on a bench", "launches herself
upward") and name none. This module reads those by meaning: every phrase of `stickgen.vocabulary`
(each action's naming words and its descriptions of the body, put after a subject: "someone takes a
seat") is embedded once with the model's sentence encoder; a prompt's score for an action is the
mean cosine similarity of its `TOP` most similar phrases of that action, and the best action wins.

A chained prompt ("wanders over, then settles on the floor") is cut into its parts at the words that
order them (`split_parts`), and each part is read on its own, twice: as it is written (less a place
phrase: the environment is a condition of its own) and in the phrases' form, its subject replaced by
"someone" (`as_phrase`: "a boxer bangs out a set of reps" → "someone bangs out a set of reps"); the
two readings' scores are averaged (`ActionMeaning.part_scores`). A part whose best score is below
`MIN_SCORE` (`TUNED_MIN_SCORE` with the reader's tuned encoder) reads as no action (−1), so a prompt
about nothing the vocabulary knows gets no plan from here. The other parts' actions are chosen
together, for the best total score, in an order of postures the training data holds: after a part
that ends seated, lying or kneeling comes an action that starts there (`in_posture_order`).

The reader does not embed with MiniLM as it ships but with a copy whose top layers were tuned to place
everyday prompts with the vocabulary's phrases of their action (`stickgen.reader_tuning`, on the
prompts of `assets/action-phrases/everyday.yaml`, `reader_tuning.everyday_prompts`; the change ships as
`assets/action-phrases/minilm-reader.npz`, `reader_encoder`); the model's own text conditioning is
untouched. Any other encoder reads as it is.

The phrase vectors of the reader's encoder ship in `assets/action-phrases/minilm.npz`, so the first
paraphrased prompt on a new machine does not wait for about 3,300 sentences to be embedded; another
encoder, or a vocabulary that changed since the file was written, embeds them once into the
embedding cache instead. Vectors are kept at float16 precision either way, so both give the same
readings. After changing the vocabulary, rewrite the file:
`python -c "from stickgen.action_meaning import write_shipped_vectors; write_shipped_vectors()"`.

The settings (`TOP`, `MIN_SCORE`, the subject, the cut words, the two readings) were chosen on
`benchmarks/plan_dev.yaml`, a development set written apart from the prompt suite, so the suite stays
a test set (docs/prompt-suite.md has the figures); `benchmarks/plan_check.yaml`, written apart from
both, checks that a choice generalises (92.5 % read exactly against the development set's 94.3 %, with
the tuned encoder; 82.1 % and 83.6 % with MiniLM as it ships). How chained prompts are cut (clauses in
time order, conditions left out) was chosen on `benchmarks/plan_chain.yaml`, 200 chained prompts
written apart from all three (73.5 % read exactly, 49.5 % before), and checked on
`benchmarks/plan_chain_check.yaml`, 150 chained prompts written apart from all of them and from the
reader's word lists (54.7 %, 44 % before).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from stickgen import vocabulary
from stickgen.action_words import actions_in_text, postures
from stickgen.errors import StickgenError
from stickgen.files import atomic_path, bundled_asset
from stickgen.labels import ACTIONS, UNKNOWN_ACTION, action_id
from stickgen.place_words import environment_from_text, with_environment, without_place

if TYPE_CHECKING:
    from stickgen.text import TextEncoder

BUNDLED_PHRASES = "action-phrases"  # assets/action-phrases/minilm.npz
SHIPPED_FILE = "minilm.npz"
READER_ADAPTER_FILE = "minilm-reader.npz"  # MiniLM's top layers tuned for reading (`reader_tuning`)
SUBJECT = "someone"
TOP = 3
MIN_SCORE = 0.3
# The reader's tuned encoder draws every text nearer some action's phrases: with the encoder tuned on
# everyday prompts, 0.4 reads the development set as 0.45 does and the check set 2 prompts better, and 5
# of 15 texts about nothing the vocabulary knows as no action (7 at 0.45; docs/prompt-suite.md).
TUNED_MIN_SCORE = 0.4
# A reading by meaning is a close call when other actions score within CLOSE (TUNED_CLOSE with the
# reader's tuned encoder, whose scores lie further apart) of the best; up to MAX_CLOSE of them are named
# beside it, so that a misread prompt shows its user the likely fix.
CLOSE = 0.03
TUNED_CLOSE = 0.1
MAX_CLOSE = 2

# Words that put two parts of a prompt in order ("walks over, then sits"); the text before comes
# first. "before" orders two actions only when no article or possessive follows ("before the queen").
_CUT = re.compile(
    r"\s*[,;]?\s*\b(?:and then|then|after that|afterwards|followed by|and finally|finally|until"
    r"|before(?! (?:the|a|an|his|her|their|its|my|your|our|him|them|me|us|you)\b))\b\s*"
    r"|\s*;\s*",
    re.IGNORECASE,
)
# A comma and the word after it, where a list of actions may go on ("heads in, plops onto the sofa").
_LISTING_COMMA = re.compile(r"\s*,\s+(?=([A-Za-z']+))")
_AND = re.compile(r"\band\b", re.IGNORECASE)
# A piece of only these words ("left then right", "then again") stays with the part before it.
_NOT_A_PART = frozenset({
    "left", "right", "forward", "forwards", "back", "backward", "backwards", "up", "down", "again", "too",
    "also", "more", "once", "twice", "slowly", "quickly",
})  # fmt: skip


@functools.lru_cache(maxsize=1)
def phrases() -> tuple[list[str], np.ndarray]:
    """Every vocabulary phrase as a sentence after `SUBJECT`, and its action id (N,)."""
    texts: list[str] = []
    labels: list[int] = []
    for action, name in enumerate(ACTIONS):
        sentences = [vocabulary.third_person(w) for w in vocabulary.words(name)]
        sentences += list(vocabulary.descriptions(name))
        for sentence in dict.fromkeys(sentences):
            sentence = re.sub(r"\bitself\b", "themselves", sentence)
            sentence = re.sub(r"\bits\b", "their", sentence)
            texts.append(f"{SUBJECT} {sentence}")
            labels.append(action)
    return texts, np.asarray(labels, dtype=np.int64)


# A sentence's leading clause, ended by a comma, that happens before the rest: "once she has sat down,
# ...", "as soon as he lands, ...", "after jogging round the block, ..." (after a gerund only: "after the
# movie, ..." says when, not what); one that happens after it: "before leaving, she waves". A "once" or
# "as soon as" clause whose subject is not a person ("once the whistle goes", "as soon as it opens") is a
# condition, not an action, and is left out (`_in_time_order`).
_FIRST_CLAUSE = re.compile(
    r"^(?:(?:once|as soon as|the moment)\s+(?P<who>\S+)\s+|after\s+(?=[a-z]+ing\b))"
    r"(?P<first>[^,]+?)\s*,\s*(?P<then>.+)$",
    re.IGNORECASE,
)
_LATER_CLAUSE = re.compile(r"^before\s+(?P<then>[a-z]+ing\b[^,]*?)\s*,\s*(?P<first>.+)$", re.IGNORECASE)
# "..., and once she is on the roof she waves": a condition inside a sentence, before what is done then;
# and one that starts a sentence without a comma ("once the music starts she grooves").
_CONDITION = re.compile(r"\s*,?\s*\band\s+(?:once|as soon as|the moment)\s+", re.IGNORECASE)
_LEADING_CONDITION = re.compile(r"^(?:once|as soon as|the moment)\s+", re.IGNORECASE)
_PERSONS = frozenset({
    "he", "she", "they", "i", "we", "you", "he's", "she's", "they're", "i'm", "we're", "you're",
})  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[a-z][.!?])\s+(?=[A-Za-z])")
# Words whose full stop ends no sentence ("Mr. Smith walks"), nor does a single letter's ("j. smith").
_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "mt", "vs", "etc", "approx"})
# "... until the door swings open": how long the part before goes on, not an action; left out up to the
# next comma or ordering word (so is "until her back is on the floor", how far the part's action goes).
# "until lying flat" names the posture it ends in, and stays a part of its own (`_CUT`).
_UNTIL = re.compile(
    r"\s+(?:un)?til\s+(?![a-z]+ing\b).*?"
    r"(?=\s*[,;]|\s+(?:and then|then|before|after that|afterwards|finally)\b|$)",
    re.IGNORECASE,
)
# Plurals that end like a verb of the subject and are none ("arms up", "knees bent").
_BODY_PLURALS = frozenset({
    "arms", "legs", "knees", "hips", "fists", "shoulders", "hands", "heels", "eyes", "toes", "elbows",
    "palms", "fingertips", "fingers", "wrists", "ankles", "thighs", "shins", "lips", "cheeks", "ears",
})  # fmt: skip


def _after_condition(text: str) -> str:
    """What is done once a condition holds: the words after the condition's own subject and verb, from
    the next person and verb ("the flash goes off he tears off" → "he tears off") or else the next verb
    ("she gets there flaps a hand" → "flaps a hand"); the text as it is where neither follows."""
    words = text.split()
    verbs = [k for k, w in enumerate(words) if (k > 0 and _verb_like(w)) or w.lower().endswith(("'s", "'re"))]
    if not verbs:
        return text
    for k in range(verbs[0] + 1, len(words) - 1):
        if words[k].lower() in _PERSONS and _verb_like(words[k + 1]):
            return " ".join(words[k:])
    later = [k for k in verbs if k > verbs[0] + 1 and words[k].lower() not in _BODY_PLURALS]
    return " ".join(words[later[0] :]) if later else text


def _sentences(prompt: str) -> list[str]:
    """A prompt's sentences (`_SENTENCE_END`), not cut after an abbreviation or an initial."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(prompt):
        last = out[-1].split()[-1].rstrip(".").lower() if out and out[-1].split() else ""
        if out and (last in _ABBREVIATIONS or len(last) == 1):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _in_time_order(sentence: str) -> list[str]:
    """A sentence's clauses in the order they happen, conditions left out (`_CONDITION`, `_FIRST_CLAUSE`,
    `_LATER_CLAUSE`, `_LEADING_CONDITION`); the sentence alone when it has none of these."""
    sentence = sentence.strip()
    if _CONDITION.search(sentence):
        before, *conditions = _CONDITION.split(sentence)
        pieces = [before, *map(_after_condition, conditions)]
        return [part for piece in pieces for part in _in_time_order(piece)]
    match = _FIRST_CLAUSE.match(sentence)
    if match:
        who = match["who"]
        first = f"{who} {match['first']}" if who else match["first"]
        if who is None or who.lower() in _PERSONS:
            return [first, match["then"]]
        done = _after_condition(first)  # "once the music starts she grooves, then ..."
        return [done, match["then"]] if done != first else [match["then"]]
    match = _LATER_CLAUSE.match(sentence)
    if match:
        return [match["first"], match["then"]]
    if _LEADING_CONDITION.match(sentence):
        return [_after_condition(_LEADING_CONDITION.sub("", sentence))]
    return [sentence]


def _subject_verb(word: str) -> bool:
    """A third-person verb (`_verb_like`) that is not a body part's plural ("arms swinging")."""
    return _verb_like(word) and word.lower().strip(",.;:!?") not in _BODY_PLURALS


def _listed(pieces: list[str]) -> list[tuple[str, bool]]:
    """The pieces a clause's order words cut it into, each piece before the last cut again where it lists
    actions: at a comma before a verb of the subject, when the words before the comma hold a verb too.
    "heads in, plops onto the sofa, and finally sprawls out" → 3 pieces; "on the moon, shoots up, then
    lands" keeps its place phrase with its verb. One action told in steps is left whole: a list whose
    items hold an "and" of their own (the synthesizer's descriptions: "bends over the ball, takes her
    hands back and around, then whips them through").

    The last piece, after which no order word comes, is cut only where it is a list of three or more
    with "and" before its last item ("gets up from her chair, points at the board, and motions the
    student forward") and no item only moves a part of the body (`_moves_the_body`: "she bends her
    knees, swings her arms, and jumps" is one jump told in steps). Each piece comes with whether it is
    a later item of such a list, which the meaning reader reads as an action only where it is clearly
    one (`ActionMeaning._read_parts`)."""
    pieces = [piece for piece in pieces if piece.strip(" ,.;!?")]
    out: list[tuple[str, bool]] = []
    for piece in pieces[:-1]:
        items, _ = _list_items(piece, _LISTING_COMMA)
        out += [(item, False) for item in ([piece] if any(_AND.search(item) for item in items) else items)]
    if not pieces:
        return out
    items, and_last = _list_items(pieces[-1], _LAST_LISTING_COMMA)
    if len(items) < 3 or not and_last or any(_AND.search(i) or _moves_the_body(i) for i in items):
        return [*out, (pieces[-1], False)]
    return out + [(item, k > 0) for k, item in enumerate(items)]


# A comma, maybe "and", and the word after them, where the last piece of a clause may list actions.
_LAST_LISTING_COMMA = re.compile(r"\s*,\s+(?:and\s+)?(?=([A-Za-z']+))", re.IGNORECASE)


def _list_items(piece: str, commas: re.Pattern[str]) -> tuple[list[str], bool]:
    """A piece cut at each of its `commas` before a verb of the subject where the words before hold a
    verb too, and whether the last cut had an "and"."""
    items, start, and_last = [], 0, False
    for comma in commas.finditer(piece):
        if _subject_verb(comma[1]) and any(map(_subject_verb, piece[start : comma.start()].split())):
            items.append(piece[start : comma.start()])
            start = comma.end()
            and_last = _AND.search(comma[0]) is not None
    items.append(piece[start:])
    return items, and_last


_POSSESSIVES = frozenset({"his", "her", "their", "its", "my", "your", "our", "both", "one"})
_BODY_PARTS = _BODY_PLURALS | {
    "arm", "leg", "knee", "hip", "fist", "shoulder", "hand", "heel", "eye", "toe", "elbow", "palm", "finger",
    "wrist", "ankle", "thigh", "head", "back", "body", "chest", "foot", "feet", "neck", "torso", "trunk",
    "waist",
}  # fmt: skip


def _moves_the_body(item: str) -> bool:
    """Whether a list item's verb takes a part of the body as its object ("swings her arms", "bends his
    knees"): a step of an action, not an action of its own."""
    words = [w.lower().strip(",.;:!?") for w in item.split()]
    for k, word in enumerate(words[:_SUBJECT_WORDS]):
        if _subject_verb(word):
            after = words[k + 1 : k + 3]
            return len(after) == 2 and after[0] in _POSSESSIVES and after[1] in _BODY_PARTS
    return False


# "claps after doing some squats": a gerund after "after" names what happens first (the synthesizer's
# "B after A-ing"). Cut only where the words of both sides name an action (`actions_in_text`) and read
# the whole piece as those of the two sides, so a reason stays with its part ("after winning the
# lottery", "after stubbing a toe"), so does what is no action of the figure's ("the kid cries after
# falling off his bike" is read whole, by meaning), and so does a phrase of the vocabulary that holds
# "after" ("relaxes into a chair after standing all day" is one sit_down).
_AFTER_GERUND = re.compile(
    r"^(?P<then>.+?)\s*,?\s+(?:right |just |soon |shortly |straight )?after\s+(?P<first>[a-z]+ing\b.*)$",
    re.IGNORECASE,
)


def _gerund_first(piece: str) -> list[str]:
    """A piece as the parts it holds in the order they happen: "shrugs after marching" → "marching",
    "shrugs" (`_AFTER_GERUND`); the piece alone otherwise."""
    match = _AFTER_GERUND.match(piece)
    if not match:
        return [piece]
    first, then = actions_in_text(match["first"]), actions_in_text(match["then"])
    apart = first and then and actions_in_text(piece) == then + first
    return [match["first"], match["then"]] if apart else [piece]


def split_parts(prompt: str) -> list[str]:
    """The parts of a prompt in the order they happen: "walks over, then sits down" → 2 parts.

    Sentences are parts of their own, a leading clause that happens first ("once she is over there,
    ...") or second ("before leaving, ...") is one in its place in time, a condition ("once the whistle
    goes", "until it opens") is left out, and the words that order actions (`_CUT`) cut the rest, a list
    of actions before them at its commas as well (`_listed`: "heads in, plops down, then naps"), and an
    action after "after" and a gerund put first (`_gerund_first`: "shrugs after marching"). A
    prompt without any of these is one part; a piece that only says a side, a direction or a repetition
    ("left then right") is joined to the part before it.
    """
    return [part for part, _ in _parts(prompt)]


# A part's trailing joining word, left by the cut after it ("jogs in place and, after that, ...").
_TRAILING_JOIN = re.compile(r"[\s,;:]+(?:and|or|but|while|as|so)?[\s,;:]*$", re.IGNORECASE)
# A part with nothing but joining words and punctuation says nothing of its own.
_ONLY_JOINS = re.compile(r"^[\s,;:.!?]*(?:(?:and|or|but|then|so)\b[\s,;:.!?]*)*$", re.IGNORECASE)


def part_sentences(prompt: str) -> list[str]:
    """The prompt's parts in time order (`split_parts`), each a sentence the model can
    read alone: without a trailing joining word, and in the place the prompt names ("on the moon, a
    man walks, then jumps" → "on the moon, a man walks", "jumps on the moon") unless the part names a
    place of its own (earth included). A part of joining words alone is left out."""
    place = environment_from_text(prompt)
    sentences = []
    for part in split_parts(prompt):
        part = _TRAILING_JOIN.sub("", part) or part
        if _ONLY_JOINS.match(part):
            continue
        own_place = environment_from_text(part) != "earth" or re.search(r"\bearth\b", part, re.IGNORECASE)
        sentences.append(part if own_place else with_environment(part, place))
    return sentences or [prompt]


def count_parts(prompt: str) -> int:
    """How many parts a prompt has (`split_parts`), a list with no order word counted as one: its later
    items may be read as the part before going on (`ActionMeaning._read_parts`), so only the actions
    read from them count towards a clip's length (`generation.default_seconds`)."""
    return sum(not in_list for _, in_list in _parts(prompt))


def _parts(prompt: str) -> list[tuple[str, bool]]:
    """`split_parts`, each part with whether it is a later item of a list with no order word (`_listed`)."""
    parts: list[tuple[str, bool]] = []
    for sentence in _sentences(prompt):
        for clause in _in_time_order(sentence):
            listed = _listed(_CUT.split(_UNTIL.sub("", clause)))
            pieces = [(part, in_list) for item, in_list in listed for part in _gerund_first(item)]
            for piece, in_list in pieces:
                piece = piece.strip(" ,.;!?")
                if not piece:
                    continue
                if parts and set(piece.lower().split()) <= _NOT_A_PART:
                    parts[-1] = (f"{parts[-1][0]} {piece}", parts[-1][1])
                else:
                    parts.append((piece, in_list))
    return parts or [(prompt, False)]


def named_in_every_part(prompt: str, after: int | None = None) -> list[int] | None:
    """The actions a prompt's words name (`actions_in_text`, after `after`) when they name at least one
    per part of it, the reading `ActionMeaning.actions` then takes as it is; None when some part must be
    read by meaning."""
    parts = split_parts(prompt)
    # the parts' words in the order they happen ("before leaving, she waves"), without what no part
    # keeps ("until her head points at the ground", "once the whistle goes")
    named = actions_in_text(", then ".join(parts), after)
    return named if len(named) >= len(parts) else None


# The words that may start a prompt's subject ("a tired man", "my grandma"), pronouns that are one, and
# words ending in "s" that are not a verb of the subject ("his", "a sports fan", "a circus clown").
_DETERMINERS = frozenset({
    "a", "an", "the", "my", "his", "her", "their", "our", "your", "this", "that", "some", "one",
})  # fmt: skip
_PRONOUNS = frozenset({"he", "she", "they", "someone", "somebody", "i", "we", "you"})
_NOT_VERBS = frozenset({"his", "its", "this", "us", "was", "sports", "arts"})
_SUBJECT_WORDS = 6  # how far into a part its verb is looked for


def _verb_like(word: str) -> bool:
    """Whether `word` may be a verb after a subject: a third-person "-s" form ("lowers", "goes")."""
    word = word.lower().strip(",.;:!?")
    if len(word) <= 2 or not word.endswith("s") or word in _NOT_VERBS:
        return False
    return not word.endswith(("ss", "us", "is", "ics", "'s"))


# Words ending in "-ing" that are not a verb's gerund ("every morning", "a ring").
_NOT_GERUNDS = frozenset({
    "something", "nothing", "anything", "everything", "morning", "evening", "building", "ceiling", "ring",
    "king", "thing", "spring", "wing", "string", "sing", "bring", "sting", "during",
})  # fmt: skip


@functools.lru_cache(maxsize=1)
def _known_verbs() -> frozenset[str]:
    """The first words of the vocabulary's verb phrases: the verbs a gerund is looked up among."""
    return frozenset(w.split()[0] for name in ACTIONS for w in vocabulary.words(name))


def _gerund_base(word: str) -> str:
    """The verb of a gerund: "landing" → "land", "running" → "run", "lunging" → "lunge", "waving" → "wave".

    Among the stems it may come from (the doubled consonant undone, an "e" put back, as it is), the one
    the vocabulary has as a verb; else the spelling rules alone."""
    stem = word[:-3]
    doubled = stem[:-1] if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls" else None
    if word == "lying":
        return "lie"
    for candidate in (doubled, stem + "e", stem):
        if candidate and candidate in _known_verbs():
            return candidate
    if doubled:
        return doubled
    # "danc(e)", "scor(e)": a stem in "c", or consonant, vowel, consonant (not "enter", "open", "visit")
    short = re.search(r"[^aeiou][aeiou][^aeiouwxy]$", stem) is not None
    short = short and not stem.endswith(("er", "en", "on", "et", "it"))
    return stem + "e" if stem.endswith("c") or short else stem


def as_phrase(part: str) -> str:
    """One part of a prompt in the form of the vocabulary's phrases: `SUBJECT` and a verb phrase.

    A place phrase is taken off (`without_place`: the environment is a condition of its own), and the
    subject is replaced by `SUBJECT`: "a boxer bangs out a set of reps" → "someone bangs out a set of
    reps". The subject is what comes before the first third-person verb ("-s", and not right after a
    determiner: "a man on his knees prays") after a determiner ("a", "my"), a pronoun, or a bare first
    word ("grandpa stays still"); a part that starts with its verb ("lowers herself onto it") gets
    `SUBJECT` put before it; a part that starts with a gerund ("landing an uppercut", after "before")
    gets its verb in the third person ("someone lands an uppercut", `_gerund_base`). Anything else is
    read as it is.
    """
    words = without_place(part).split()
    if not words:
        return part
    first = words[0].lower()
    if first.endswith("ing") and len(first) > 4 and first.isalpha() and first not in _NOT_GERUNDS:
        # a part that starts with its verb's gerund ("... before landing an uppercut"), in the
        # vocabulary's form: "someone lands an uppercut"
        return " ".join([SUBJECT, vocabulary.third_person(_gerund_base(first)), *words[1:]])
    if first in _PRONOUNS:
        return " ".join([SUBJECT, *words[1:]])
    if first in _DETERMINERS:
        for k in range(1, min(len(words), _SUBJECT_WORDS + 1)):
            # A word right after a determiner is a noun ("on his knees", "the skis"), not the verb.
            if _verb_like(words[k]) and words[k - 1].lower() not in _DETERMINERS:
                return " ".join([SUBJECT, *words[k:]])
        return " ".join(words)
    if _verb_like(first):
        return " ".join([SUBJECT, *words])
    if len(words) > 1 and _verb_like(words[1]):
        return " ".join([SUBJECT, *words[1:]])
    return " ".join(words)


def phrases_digest(texts: Sequence[str]) -> str:
    """The SHA-256 of the phrase list, which a shipped vector file must match."""
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()


def shipped_vectors(encoder_id: str) -> np.ndarray | None:
    """The shipped phrase vectors (N, D) float32 when they were made by this encoder from these phrases."""
    try:
        folder = bundled_asset(BUNDLED_PHRASES, SHIPPED_FILE)
    except StickgenError:
        return None
    with np.load(folder / SHIPPED_FILE) as stored:
        if str(stored["encoder_id"]) != encoder_id or str(stored["phrases"]) != phrases_digest(phrases()[0]):
            return None
        return stored["vectors"].astype(np.float32)


def write_shipped_vectors(path: str | None = None, encoder: TextEncoder | None = None) -> None:
    """Write the phrase vectors of `encoder` (default: the reader's encoder of the default encoder,
    `reader_encoder`) for shipping (float16)."""
    from stickgen.text import TextEncoder

    encoder = encoder or reader_encoder(TextEncoder())
    texts, _ = phrases()
    assets = Path(__file__).resolve().parents[1] / "assets"
    target = Path(path) if path else assets / BUNDLED_PHRASES / SHIPPED_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(target) as tmp, open(tmp, "wb") as out:
        np.savez_compressed(
            out, encoder_id=np.array(encoder.identity.id), phrases=np.array(phrases_digest(texts)),
            vectors=encoder.encode(texts).astype(np.float16),
        )  # fmt: skip


def _ends_off_the_feet() -> frozenset[int]:
    """The actions whose clips end away from standing (seated, lying, kneeling, on a ladder), from the
    synthesizer's table; `settled` asks only when a prompt names `idle` after another action."""
    return frozenset(action for action, (_, end) in postures().items() if end != "stand")


def settled(actions: Sequence[int], after: int | None = None) -> list[int]:
    """A reading's actions with repeats in a row merged ("bends over, touching her toes" is one bend)
    and without an `idle` right after an action that ends off the feet.

    In the training data idle only ever follows a standing figure (an action starts in the posture the
    one before ends in), so the model draws "lies down … to rest" read as lie_down, idle by standing up
    again to stand still. Resting after sitting, lying or kneeling is staying there: that action alone.
    A reading that starts with idle after `after` (the action before it: a story's segment before) that
    ends off the feet takes `after` again, its posture held ("he waits" after sitting down on a bench:
    the seated figure stays seated, where idle drew it standing up).
    """
    idle = action_id("idle")
    out: list[int] = []
    for action in actions:
        if action == idle and not out and after is not None and after in _ends_off_the_feet():
            action = after
        if out and out[-1] == action:
            continue
        if action == idle and out and out[-1] in _ends_off_the_feet():
            continue
        out.append(action)
    return out


# Postures an action may follow in a reading though no training clip starts it there: given sit_down,
# lie_down the model lies back from the seat ("plops onto the sofa, and finally sprawls out flat"); given
# kneel or lie_down, crawl it goes onto all fours from there, where a rise between would stand it up first.
_ALSO_STARTS = {"lie_down": ("sit",), "crawl": ("kneel", "lie")}
# How far below a part's best score the order of postures may take another of its actions ("once he's
# down on one knee, the scout indicates the tracks" read crawl, point rather than kneel, point); an
# action further below is no option, and the rise to the feet is put in instead (`risen`).
REACH = 0.3
# The rise from each posture off the feet to standing, put in where a reading goes on standing (`risen`).
_RISES = {"sit": "stand_up", "lie": "get_up", "kneel": "get_up"}


@functools.lru_cache(maxsize=1)
def _postures() -> dict[int, tuple[tuple[str, ...], str]]:
    """Per action id, the postures it may start in within a reading (the synthesizer's table and
    `_ALSO_STARTS`) and the one it ends in."""
    return {action: (starts + _ALSO_STARTS.get(ACTIONS[action], ()), end)
            for action, (starts, end) in postures().items()}  # fmt: skip


def risen(actions: Sequence[int], after: int | None = None) -> list[int]:
    """A reading's actions with the rise to the feet (`_RISES`) put in wherever an action that starts
    standing follows one that ends seated, lying or kneeling: "kneels by the trail, then points" is
    kneel, get_up, point. No training clip goes from a posture off the feet straight into a standing
    action, and given one the model snaps upright in a few frames; given the rise between, it gets up.
    `after` as for `settled`: the action before the first. The same action again goes on where it is
    ("he waits" after sitting down reads sit_down: he stays seated); an idle keeps the posture before it;
    after a part read as no action (−1) the posture is unknown and nothing is put in."""
    table = _postures()
    idle = action_id("idle")
    posture = None if after is None or after < 0 else table[after][1]
    previous = after
    out: list[int] = []
    for action in actions:
        if action >= 0 and action != idle:
            starts, end = table[action]
            if posture in _RISES and posture not in starts and action != previous:
                out.append(action_id(_RISES[posture]))
            posture = end
        elif action < 0:
            posture = None
        previous = action
        out.append(action)
    return out


# A part that goes to a place ("makes her way to a chair") reads, by meaning, as what is done there (a
# chair: sit_down). Where the next part does just that ("then lowers herself onto it"), the repeat would
# merge into one action; the first part is the way there: a walk, or another of `_WAYS_THERE` where it
# scores at least a close call's margin above walking ("hobbles to the bench" limps). A side, the floor
# or a part of the body is no place to go to (`_NO_PLACE`: "edges to his left", "drops to the floor",
# "gets to her feet", "sweeps a hand toward his body").
_NO_PLACE = _BODY_PARTS | {
    "left", "right", "side", "ground", "floor", "deck", "face", "belly", "sky", "ceiling", "air",
}  # fmt: skip
_DESTINATION = re.compile(
    r"\b(?:to|toward|towards)\s+(?:the|a|an|his|her|their|its|my|your|our|some)\s+"
    r"(?!(?:" + "|".join(sorted(_NO_PLACE)) + r")\b)",
    re.IGNORECASE,
)
_WAYS_THERE = tuple(action_id(name) for name in (
    "walk", "jog", "run", "sprint", "tiptoe", "march", "limp", "skip", "crawl",
))  # fmt: skip

Option = tuple[tuple[int, ...], float]  # a part's actions and their score
Reading = tuple[float, list[tuple[int, ...]]]  # a reading's total score and each part's actions


def in_posture_order(options: Sequence[Sequence[Option]], after: int | None = None) -> list[tuple[int, ...]]:
    """The actions read for each of a prompt's parts, given each part's options: one for a part its
    words read (score 0), every action scoring at least the reader's minimum for a part read by meaning;
    chosen for the highest total score among readings that the training data could hold.

    In the synthesizer's clips an action starts in the posture the one before ends in, so after a part
    that ends seated, lying or kneeling the next action is one that starts there (stand_up, get_up,
    sit_up), the same action again, idle (staying there), or no action (−1): "plops into a lobby chair,
    then straightens up out of it" reads sit_down, stand_up where the second part alone reads shrug.
    Lying down may follow sitting too (`_ALSO_STARTS`): the model draws it, lying back from the seat.
    Parts with one option (read by their words, or read as nothing) keep it. Where no reading fits,
    each part's best is taken, as it reads alone. `after`: the action before the prompt (a story's line
    before it), whose end posture the first part starts in, as a part before would be; none where None.
    """
    table = _postures()
    # The postures off the feet that some action starts in ("sit", "lie", "kneel"); after any other
    # ("stand", or "ladder", where no clip goes on) every action may follow.
    held_there = {posture for starts, _ in table.values() for posture in starts} - {"stand"}
    idle = action_id("idle")
    # Per (last action, posture held after it): the best (total score, actions) so far.
    start = (None, None) if after is None or after < 0 else (after, table[after][1])
    paths: dict[tuple[int | None, str | None], Reading] = {start: (0.0, [])}
    for choices in options:
        grown: dict[tuple[int | None, str | None], Reading] = {}
        for (last, posture), (total, chosen) in paths.items():
            for sequence, score in choices:
                held, previous, fits = posture, last, True
                for action in sequence:
                    if action == UNKNOWN_ACTION:
                        held = None
                    elif len(choices) > 1 and action not in (previous, idle) and held in held_there \
                            and held not in table[action][0]:  # fmt: skip
                        fits = False
                        break
                    elif action != idle:
                        held = table[action][1]
                    previous = action
                key = (previous, held)
                if fits and (key not in grown or grown[key][0] < total + score):
                    grown[key] = (total + score, [*chosen, sequence])
        if not grown:
            return [max(choices, key=lambda c: c[1])[0] for choices in options]
        paths = grown
    return max(paths.values(), key=lambda path: path[0])[1]


_MEMO: dict[str, ActionMeaning] = {}


def for_encoder(encoder: TextEncoder) -> ActionMeaning:
    """The `ActionMeaning` of a sentence encoder, made once per process and encoder; it reads with
    `reader_encoder(encoder)`."""
    key = encoder.identity.id
    if key not in _MEMO:
        _MEMO[key] = ActionMeaning(reader_encoder(encoder))
    meaning = _MEMO[key]
    if meaning.encoder.adapter is None:
        meaning.encoder = encoder  # the caller's, with its cache and device
    elif meaning.encoder.cache is not encoder.cache or meaning.encoder.device != encoder.device:
        meaning.encoder = meaning.encoder.with_cache(encoder.cache, encoder.device)  # the tuned copy, with
        # the caller's cache (an SQLite cache works in the thread that opened it) and device
    return meaning


def reader_encoder(encoder: TextEncoder) -> TextEncoder:
    """The encoder the reader embeds prompts and phrases with: for the MiniLM the shipped adapter was
    made for, that MiniLM with the adapter (`stickgen.reader_tuning`); any other encoder as it is."""
    if encoder.adapter is not None:
        return encoder
    try:
        path = bundled_asset(BUNDLED_PHRASES, READER_ADAPTER_FILE) / READER_ADAPTER_FILE
        tuned = encoder.with_adapter(path)
        _ = tuned.identity  # reads the adapter and checks that it was made for this encoder
    except StickgenError:  # missing, unreadable, or made for another encoder: read as it is
        return encoder
    return tuned


class ActionMeaning:
    """The vocabulary's phrases embedded with one sentence encoder; scores prompts against them."""

    def __init__(self, encoder: TextEncoder) -> None:
        self.encoder = encoder
        self.labels = phrases()[1]

    @property
    def tuned(self) -> bool:
        """Whether the reader embeds with a tuned encoder (`reader_encoder`), whose scores run higher and
        lie further apart than an encoder's as it ships."""
        return getattr(self.encoder, "adapter", None) is not None

    @property
    def min_score(self) -> float:
        """The best score below which a part reads as no action: `TUNED_MIN_SCORE` with the reader's
        tuned encoder, `MIN_SCORE` with an encoder as it ships."""
        return TUNED_MIN_SCORE if self.tuned else MIN_SCORE

    @property
    def close(self) -> float:
        """The margin of a close call: `TUNED_CLOSE` with the reader's tuned encoder, `CLOSE` with an
        encoder as it ships."""
        return TUNED_CLOSE if self.tuned else CLOSE

    @functools.cached_property
    def vectors(self) -> np.ndarray:
        """(N, D) the phrases' unit vectors at float16 precision, made on first need: a prompt whose
        words name its actions reads without them."""
        vectors = shipped_vectors(self.encoder.identity.id)
        if vectors is None:
            vectors = self.encoder.encode(phrases()[0])  # the embedding cache keeps them for the next time
        return vectors.astype(np.float16).astype(np.float32)

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """(B, 60) per action: the mean cosine similarity of its `TOP` phrases most similar to each text."""
        sims = self.encoder.encode(list(texts)) @ self.vectors.T  # (B, N)
        out = np.empty((len(texts), len(ACTIONS)), dtype=np.float32)
        for action in range(len(ACTIONS)):
            own = sims[:, self.labels == action]
            k = min(TOP, own.shape[1])
            out[:, action] = np.sort(own, axis=1)[:, -k:].mean(axis=1)
        return out

    def part_scores(self, parts: Sequence[str]) -> np.ndarray:
        """(B, 60) per part of a prompt: the mean of its `scores` read with its subject (but without a
        place phrase) and read as a bare phrase (`as_phrase`). The subject can mislead ("a boxer bangs
        out chest-to-floor reps" is no punch) or help ("a drum major struts along" marches), so both
        readings count."""
        both = self.scores([without_place(p) for p in parts] + [as_phrase(p) for p in parts])
        return 0.5 * (both[: len(parts)] + both[len(parts) :])

    def close_calls(
        self, prompt: str, margin: float | None = None, after: int | None = None
    ) -> list[tuple[int, list[int]]]:
        """For each part of a prompt read by meaning whose reading is a close call: (the action read,
        the up to `MAX_CLOSE` others whose score is within `margin` (default `close`) of it or above it,
        best first). The action read is the one `actions` reads; where the order of postures took
        another than the part's best alone, that best is among the others. Empty when the words name an
        action for every part, or no part is close.

        With the tuned encoder, on the development set's 220 one-part prompts read by meaning, TUNED_CLOSE
        = 0.1 marks 6 of its 10 misreadings (23 of the 210 right ones) and names the right action beside
        5 of them; on `benchmarks/plan_check.yaml` 10 of 14 (21 of 222) and 8. At 0.03, chosen for MiniLM
        as it ships, it marked 3 of 14 with the first everyday-tuned reader (docs/prompt-suite.md).
        `after` as for `actions`."""
        if named_in_every_part(prompt, after) is not None:
            return []
        margin = self.close if margin is None else margin
        out = []
        for by_meaning, row, (read, *_) in zip(*self._read_parts(prompt, after), strict=True):
            if not by_meaning:
                continue
            others = [int(a) for a in np.argsort(-row) if a != read and row[read] - row[a] < margin]
            if others:
                out.append((read, others[:MAX_CLOSE]))
        return out

    def actions(self, prompt: str, after: int | None = None) -> list[int]:
        """The actions of a prompt in order: the words' (`actions_in_text`) when they name at least one
        per part, else each part's own words, or its meaning when it names none; −1 for a part that
        reads as no action. The parts read by meaning take, together, the best-scoring actions that
        follow one another as the training data's do (`in_posture_order`: "plops into a chair, then
        straightens up" is stand_up after sit_down, not a shrug). Repeats in a row are merged, and an
        idle after a posture is dropped (`settled`). `after`: the action the figure was doing before
        the prompt (a story's line before it, the clip a continuation follows), whose end posture the
        prompt starts in: "she gets up" after lie_down is get_up, "pops up" after kneel a rise, not a
        jump (`in_posture_order`); None: standing, as a prompt of its own starts."""
        named = named_in_every_part(prompt, after)
        if named is not None:
            return settled(named, after)
        return settled([action for chosen in self._read_parts(prompt, after)[2] for action in chosen], after)

    def _read_parts(
        self, prompt: str, after: int | None = None
    ) -> tuple[list[bool], np.ndarray, list[tuple[int, ...]]]:
        """Per part of a prompt: whether it is read by meaning (its words name no action and its best
        score reaches `min_score`), its `part_scores` row, and the actions read for it
        (`in_posture_order`, after `after`, among the actions within `REACH` of each part's best; a part
        read by meaning that goes to a place where the next part's action happens is the way there,
        `_DESTINATION`). A later item of a list with no order word (`_listed`) whose words name no
        action and whose meaning is no clear one (below `min_score`, or a close call) reads as the part
        before it going on: "jumps up, spins around, and lands" is jump, spin; "lands" alone is as
        near fall_down as jump."""
        parts, in_list = zip(*_parts(prompt), strict=True)
        scores = self.part_scores(parts)
        by_meaning: list[bool] = []
        options: list[list[Option]] = []
        unclear: list[bool] = []  # a later list item that is no clear action: the part before goes on
        for k, (part, row) in enumerate(zip(parts, scores, strict=True)):
            words = actions_in_text(part, after if k == 0 else None)
            first, second = np.sort(row)[::-1][:2]
            clear = first >= self.min_score and first - second >= self.close
            unclear.append(in_list[k] and not words and not clear)
            by_meaning.append(not words and not unclear[-1] and first >= self.min_score)
            if words:
                options.append([(tuple(words), 0.0)])
            elif not by_meaning[-1]:
                options.append([((UNKNOWN_ACTION,), 0.0)])
            else:
                reached = (row >= self.min_score) & (row >= row.max() - REACH)
                options.append([((int(a),), float(row[a])) for a in np.flatnonzero(reached)])
        kept = [k for k in range(len(parts)) if not unclear[k]]
        read = in_posture_order([options[k] for k in kept], after)
        for i, k in enumerate(kept[:-1]):  # "heads over to the couch, then plops onto it": walk, sit_down
            if by_meaning[k] and read[i] == read[i + 1][:1] and _DESTINATION.search(parts[k]):
                best = max(_WAYS_THERE, key=lambda a: scores[k][a])
                plain = _WAYS_THERE[0]  # walk, unless the words tell another way clearly
                read[i] = (best if scores[k][best] - scores[k][plain] >= self.close else plain,)
        chosen: list[tuple[int, ...]] = []
        kept_read = iter(read)
        for is_unclear in unclear:
            chosen.append(chosen[-1][-1:] if is_unclear else next(kept_read))
        return by_meaning, scores, chosen
