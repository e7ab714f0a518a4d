"""Words to action ids: the one mapping from descriptions to the 60 actions (DESIGN §3).

`stickgen generate` uses it to condition the model on the actions a prompt names, and the real-data
importers use it to label imported clips. The vocabulary is the synthesizer's (`stickgen.vocabulary`):
every action's naming verb phrases in their base, third-person and -ing forms ("sits down", "sitting
down"), with any pronoun in place of "its", and its descriptive sentences whole, as written ("bends
forward with its arms locked out and drives one leg after the other" is a push, not a bend_over).
Where phrases overlap, the longest wins ("jump forward" over "jump"). A phrase right after "a", "an" or
"the" is a noun ("takes a jump", "opens a box") and names no action, nor does "pace" after "at" ("claps
at a fast pace"); past tenses are not matched, and a verb with a second meaning is taken as the action
("boxes" is `punch`); a text without any known phrase names no action (−1). Phrases are matched on
lowercase letters, every other character read as a space, the vocabulary's as the text's ("performs
sit-ups" is the phrase "perform sit-ups"). A change of posture, "from sitting to standing", names the
action that ends in the second posture (`_CHANGES`); a posture after "from" alone ("gets back up from
lying on its back", "from kneeling") is where the action starts, and names no action of its own
(`_START`). Words that name two actions ("gets up": get_up from the floor, stand_up from a seat) name
the one that starts where the action before ends. An exercise that "do" names is named by its noun alone
too ("a round of jumping jacks"); throwing, pushing, pulling or lifting the figure's own body ("throws
both arms up", "pushes her hips back") names no throw, push, pull or lift; nor do words that say how the
action before them is done ("spins on tiptoe", "swims with crawl strokes": `_MANNERS`) name a second
action.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from stickgen import vocabulary
from stickgen.labels import ACTIONS, UNKNOWN_ACTION

_ARTICLE = re.compile(r" (a|an|the) $")  # the words just before a match: "… a " + "box"
# "at a slow pace", "at his own pace": after "at" and a determiner (or "at walking pace") "pace" is the
# speed of whatever the text names, not a walk. The synthesizer ends many descriptions so (458 of the
# 7,972 captions of data/synth's val split read a walk from it); "paces the room" still walks.
_PACE_NOUN = re.compile(r" at (?:(?:a|an|the|his|her|its|their|my|your|our|one s) )?(?:[a-z]+ ){0,2}$")
_NOUNS_AFTER_AT = frozenset({"pace"})

# "goes from sitting to standing": a change of posture is named by the posture it ends in, not by the
# one it leaves ("sitting" alone reads as sit_down). Pairs that name no one action are left to the words.
_POSTURE = r"(sitting|seated|lying|kneeling|crouching|squatting|standing)(?: down| up)?(?: position)?"
_OWNER = r"(?:a |an |the |his |her |their )?"
_FROM_TO = rf" from {_OWNER}{_POSTURE}(?: (?:on|in) {_OWNER}[a-z]+)? (?:up )?(?:to|into) {_OWNER}{_POSTURE} "
_CHANGE = re.compile(_FROM_TO.replace(" ", " +"))  # a comma between two words leaves two spaces
# "gets back up from lying on its back": the posture an action starts in. Matches that start at its
# posture word are dropped, so the text names the getting up alone, not a lie_down after it (the
# synthesizer describes get_up clips so: 133 of the 7,975 captions of data/synth's test split read
# otherwise before, most of them a get_up followed by the lie_down or kneel it starts from).
_START = re.compile(rf" from +{_OWNER}(?=(?:sitting|seated|lying|kneeling|crouching|squatting)\b)")
_CHANGES = {
    ("sitting", "standing"): "stand_up", ("seated", "standing"): "stand_up",
    ("lying", "standing"): "get_up", ("kneeling", "standing"): "get_up",
    ("standing", "sitting"): "sit_down", ("standing", "seated"): "sit_down",
    ("standing", "lying"): "lie_down", ("sitting", "lying"): "lie_down", ("kneeling", "lying"): "lie_down",
    ("standing", "kneeling"): "kneel", ("standing", "crouching"): "crouch",
    ("standing", "squatting"): "squat",
}  # fmt: skip


# "throws both arms up", "pushes her hips back", "pulls his knees in", "lifts his arms": a verb of moving
# a thing whose object is the figure's own body names no such action (a cheer, a squat, a sit-up, a
# stretch), and is left to the other words or the meaning.
_OBJECT_ACTIONS = frozenset(ACTIONS.index(name) for name in ("throw", "push", "pull", "lift"))
_OWN_BODY = re.compile(
    r" (?:his|her|their|its|my|your|our|one|both|the)(?: own)?(?: two)?"
    r" (?:arms?|hands?|fists?|hips?|legs?|knees?|head|chest|body|torso|shoulders?|feet|foot|elbows?"
    r"|heels?|toes?|upper body|butt|bottom|belly|chin)\b"
)

# The exercises "do" names ("do jumping jacks", "do deep knee bends", "do crunches") are named by their
# noun alone as well ("a round of jumping jacks, then some press-ups"), where "jumping" alone would be
# a jump. Not a determiner's ("do a star jump": "a star jump" is a noun after an article anyway), nor a
# single word that is no plural ("do nothing", "do yoga").
_EXERCISE = re.compile(r"^do (?!(?:a|an|some|the|ten|its|one)\b)(?P<noun>(?:\S+ )+\S+|\S+s)$")

# Ways of doing an action that another action's words name: "spins on tiptoe", "reaches for the sky on
# tiptoe", "lunges, stepping back each time", "swims with crawl strokes", "cheers with little hops",
# "jives with side steps", "celebrates whirling an arm". Right after its action, with no word of order
# between ("then", "before", "after that"), such words name no action of their own. Each pair is one the
# synthesizer's descriptions of one action hold: in data/synth's train split, 1,739 captions read right
# but for one of these after its action (stretch, tiptoe 419; spin, tiptoe 287; lunge,
# walk_backward 276; swim, crawl 236; cheer, hop 229; cheer, jump 95; dodge, walk_backward 82; dance,
# sidestep 62; celebrate, spin 53).
_MANNERS = {
    ACTIONS.index(action): frozenset(ACTIONS.index(m) for m in manners)
    for action, manners in {
        "stretch": ("tiptoe",), "spin": ("tiptoe",), "lunge": ("walk_backward",),
        "dodge": ("walk_backward",), "swim": ("crawl",), "cheer": ("hop", "jump"), "dance": ("sidestep",),
        "celebrate": ("spin",),
    }.items()
}  # fmt: skip
# A phrase that starts with a participle right after another ("lunges stepping back each time", "leaps
# for joy pumping a fist") says how the one before is done: the one before stays, whichever is longer
# (two such phrases share the space between them). 12 more of data/synth's val captions read right.
_PARTICIPLE = re.compile(r" [a-z]{2,}ing ")
# "itself" in a phrase is any reflexive pronoun ("seat itself": "seats herself"), not any word: "seats
# itself" read as any word matched "seat on an ice rink" (a sit_down in a get_up's caption).
_REFLEXIVE = r"(?:itself|himself|herself|themselves|themself|oneself|myself|yourself|yourselves|ourselves)"
_ORDER_WORD = re.compile(r" (?:then|after|afterwards|before|finally|next|later|until) ")


@functools.lru_cache(maxsize=1)
def _phrases() -> dict[str, list[tuple[int, str, int, str]]]:
    """Every (length, phrase, action id, regular expression) by the phrase's first word.

    The expressions are compiled only when a text holds their first word (`_compiled`): compiling all
    5,500 of them (6,900 with the descriptions) took most of a second of every `stickgen generate`.
    """
    by_first: dict[str, list[tuple[int, str, int, str]]] = {}
    for action, name in enumerate(ACTIONS):
        forms = set(vocabulary.descriptions(name))  # a description, whole and as written, names it too
        for words in vocabulary.words(name):
            forms |= {words, vocabulary.third_person(words), vocabulary.gerund(words)}
            exercise = _EXERCISE.match(words)
            if exercise:  # "do jumping jacks": "a round of jumping jacks" names them too
                forms.add(exercise["noun"])
        for form in forms:
            form = _plain(form)  # "do sit-ups" is matched as the text is: "do sit ups"
            pattern = re.sub(r"\bits\b", r"\\w+", re.sub(r"\bitself\b", _REFLEXIVE, re.escape(form)))
            entry = (len(form), form, action, rf" {pattern} ")
            by_first.setdefault(form.split()[0], []).append(entry)
    return by_first


def _plain(text: str) -> str:
    """Lowercase letters and spaces, each other character a space: what the phrases are matched on
    ("sit-ups" → "sit ups"; a comma leaves two spaces, so no phrase matches across it)."""
    return re.sub(r"[^a-z ]+", " ", text.lower())


@functools.cache
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern)


def actions_in_text(prompt: str, after: int | None = None) -> list[int]:
    """The actions a text names, in the order it names them: the longest known verb phrase wins.

    [] when none matches. `after`: the action the figure was doing before the text (a story's line
    before it), whose end posture the text starts in; standing where None (`_in_sequence`).
    """
    text = f" {_plain(prompt)} "
    phrases = _phrases()
    # Only phrases whose first word is in the text can match; longest first over all of them.
    candidates = sorted(
        (entry for word in set(text.split()) for entry in phrases.get(word, ())),
        key=lambda entry: (-entry[0], entry[1], entry[2]),  # longest first, then alphabetical
    )
    found = [  # (start, end, action): changes of posture first, then the longest phrases
        (m.start(), m.end(), ACTIONS.index(_CHANGES[m.group(1, 2)]))
        for m in _CHANGE.finditer(text)
        if m.group(1, 2) in _CHANGES
    ]
    starts = {m.end() - 1 for m in _START.finditer(text)}  # the space before each starting posture
    shared: dict[tuple[int, int], list[int]] = {}  # each phrase's span: the actions it names, by priority
    for _, _, action, pattern in candidates:
        for match in _compiled(pattern).finditer(text):
            a, b = match.start(), match.end()
            if _ARTICLE.search(text, 0, a + 1) is not None:
                continue
            if match.group().strip() in _NOUNS_AFTER_AT and _PACE_NOUN.search(text, 0, a + 1) is not None:
                continue
            if action in _OBJECT_ACTIONS and _OWN_BODY.match(text, b - 1) is not None:
                continue
            clashes = [f for f in found if not (b <= f[0] or a >= f[1])]
            if (a, b) in shared:
                if action not in shared[(a, b)]:
                    shared[(a, b)].append(action)  # the same words in another action's list ("gets up")
            elif all(f[0] == b - 1 and _PARTICIPLE.match(text, f[0]) for f in clashes):
                for f in clashes:  # none, or a participle right after this phrase (`_PARTICIPLE`)
                    found.remove(f)
                    shared.pop(f[:2], None)
                found.append((a, b, action))
                shared[(a, b)] = [action]
    named = [(a, b, action) for a, b, action in sorted(found) if a not in starts]
    return _in_sequence(_without_manners(named, text), shared, after)


def _without_manners(named: list[tuple[int, int, int]], text: str) -> list[tuple[int, int, int]]:
    """`named` (start, end, action) without the words that say how the action before is done
    (`_MANNERS`: "spins on tiptoe" is a spin), where no word of order stands between the two."""
    out: list[tuple[int, int, int]] = []
    for a, b, action in named:
        manner = out and action in _MANNERS.get(out[-1][2], ())
        if not manner or _ORDER_WORD.search(text, out[-1][1] - 1, a + 1):
            out.append((a, b, action))
    return out


@functools.lru_cache(maxsize=1)
def postures() -> dict[int, tuple[tuple[str, ...], str]]:
    """Per action id, the postures its clips may start in and the one they end in ("stand", "sit",
    "lie", ...), from the synthesizer's action table, imported on first need only."""
    from stickgen.synth.actions import ACTION_SPECS

    return {spec.id: (tuple(spec.starts), spec.ends) for spec in ACTION_SPECS}


def _in_sequence(
    named: list[tuple[int, int, int]], shared: dict[tuple[int, int], list[int]], after: int | None = None
) -> list[int]:
    """The actions of `named` (start, end, action) in order, where words that several actions share
    ("gets up", "rises to its feet": get_up from the floor, stand_up from a seat) are taken as the one
    that starts in the posture the action before ends in: "lies down, then gets up" is get_up, "sits
    down, then gets up" stand_up. The text starts standing, or where `after` ends ("she gets up" after
    a story's lie_down is get_up); where no action or several fit, the first in priority stays
    (stand_up before get_up). The synthesizer's table is read only for such words."""
    if all(len(shared.get((a, b), ())) <= 1 for a, b, _ in named):
        return [action for _, _, action in named]
    table = postures()
    out: list[int] = []
    posture = "stand" if after is None or after < 0 else table[after][1]
    idle = ACTIONS.index("idle")
    for a, b, action in named:
        options = shared.get((a, b), [action])
        fitting = [x for x in options if posture in table[x][0]]
        action = fitting[0] if fitting else options[0]
        out.append(action)
        if action != idle:  # resting after lying down is lying there: "lies down, rests, then gets up"
            posture = table[action][1]
    return out


@functools.lru_cache(maxsize=1)
def _direction_patterns() -> list[tuple[re.Pattern, int]]:
    """(pattern, sign) for every way to say a direction, on lowercase text of single-spaced words."""
    out = [
        (re.compile(r"\bfrom (the )?left to (the )?right\b"), 1),
        (re.compile(r"\bfrom (the )?right to (the )?left\b"), -1),
    ]
    for sign, phrases in vocabulary.DIRECTION.items():
        for phrase in phrases:
            pattern = re.sub(r"ward$", "wards?", re.escape(phrase).replace("toward", "towards?"))
            out.append((re.compile(rf"\b{pattern}\b"), sign))
    return out


def direction_in_text(prompt: str) -> int:
    """The direction of travel a prompt names on the screen: +1 right, −1 left, 0 none (or both).

    Read from the grammar's phrases (`vocabulary.DIRECTION`: "to the right", "leftward", "toward the
    left", with "towards" and "-wards" too) and "from left to right"; a bare "left" or "right" is a
    side ("raises his left arm"), not a direction.
    """
    text = " ".join(re.sub(r"[^a-z ]+", " ", prompt.lower()).split())
    signs = {sign for pattern, sign in _direction_patterns() if pattern.search(text)}
    return signs.pop() if len(signs) == 1 else 0


# The grammar's count words (`vocabulary.REPS`: "twice", "thrice", "once" where it ends a clause, as in
# "jumps once"; "once she lands, ..." is a condition, not a count), and a number (digits or
# `vocabulary.NUMBERS`) before "times" or one of the repetitions `generation.COUNT_SECONDS` has a length
# for ("five jumping jacks"; "two feet high" is no count).
_COUNT_WORDS = {word: n for n, words in vocabulary.REPS.items() for word in words if " " not in word}
_COUNT = re.compile(
    r"\b(?:(?P<n>\d+|" + "|".join(vocabulary.NUMBERS) + r")\s+"
    r"(?:times|(?:star\s+)?jumps?|hops?|jumping\s+jacks?)\b"
    r"|(?P<word>" + "|".join(w for w in _COUNT_WORDS if w != "once") + r")\b"
    r"|(?P<once>once)\s*(?:[,.;!?]|$))",
    re.IGNORECASE,
)


def count_in_text(prompt: str) -> int | None:
    """How many times a prompt says its action happens ("jumps three times": 3, "twice": 2, "jumps
    once": 1), or None when it says no count or more than one."""
    counts = set()
    for match in _COUNT.finditer(prompt):
        if match["n"]:
            n = match["n"].lower()
            counts.add(int(n) if n.isdigit() else vocabulary.NUMBERS.index(n))
        else:
            counts.add(_COUNT_WORDS[(match["word"] or match["once"]).lower()])
    return counts.pop() if len(counts) == 1 else None


def timeline_from_text(prompt: str, frames: int) -> np.ndarray | None:
    """A per-frame action timeline (frames,) splitting the clip evenly between the named actions.

    None when the text names no action.
    """
    actions = actions_in_text(prompt)
    return split_evenly(actions, frames) if actions else None


def split_evenly(actions: list[int], frames: int) -> np.ndarray:
    """A per-frame timeline (frames,) giving each action, in order, an equal share of the frames."""
    return split_in_proportion(actions, frames, [1.0] * len(actions))


def split_in_proportion(actions: Sequence[int], frames: int, lengths: Sequence[float]) -> np.ndarray:
    """A per-frame timeline (frames,) giving each action, in order, a share of the frames in proportion
    to its length in `lengths` (any unit; one per action)."""
    ends = np.cumsum(np.asarray(lengths, dtype=np.float64))
    bounds = np.round(np.concatenate([[0.0], ends]) / ends[-1] * frames).astype(int)
    timeline = np.empty(frames, dtype=np.int64)
    for action, a, b in zip(actions, bounds[:-1], bounds[1:], strict=True):
        timeline[a:b] = action
    return timeline


def actions_from_texts(texts: list[str], frames: int) -> np.ndarray:
    """Per-frame action ids (frames,) for a clip with several descriptions of all its frames.

    Each text gives its `timeline_from_text`; each frame takes the action that most texts give it,
    and −1 where no text names an action or two actions tie.
    """
    timelines = [t for t in (timeline_from_text(text, frames) for text in texts) if t is not None]
    out = np.full(frames, UNKNOWN_ACTION, dtype=np.int64)
    if not timelines:
        return out
    stack = np.stack(timelines)  # (K, frames)
    for f in range(frames):
        values, counts = np.unique(stack[:, f], return_counts=True)
        best = np.flatnonzero(counts == counts.max())
        if len(best) == 1:
            out[f] = values[best[0]]
    return out
