"""The description grammar: several different sentences per clip from its actions and parameters.

A description is  subject + verb phrase (+ adverbs) (+ place), chained for several actions with
"then", "after that", "and then", "before …ing" or "after …ing" (which names them in reverse order).
Verb phrases come from each action's `words` (base forms, conjugated here) or, for about a third of
the clauses outside the plain prompt, from its `descriptions` (third-person sentences that say what the
body does without naming the action; never in an -ing form), both in `stickgen.vocabulary`; adverbs
from the sampled parameters (`ActionOutput.params`: speed, repetitions, side, direction, height,
seat, manner) and the style, places from the environment. One of the descriptions is always a short
plain prompt such as "a person jumps", the way people type them. Every description of a clip away
from earth names its place; only earth, the default, may go unnamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from stickgen.vocabulary import DIRECTION, DOUBLED, NUMBERS, REPS, gerund, third_person

__all__ = ["DOUBLED", "Said", "describe", "gerund", "third_person"]

# (subject, possessive, reflexive)
ADULT_SUBJECTS = (
    ("a person", "their", "themselves"), ("someone", "their", "themselves"), ("a man", "his", "himself"),
    ("a woman", "her", "herself"), ("the stick figure", "its", "itself"), ("a stick figure", "its", "itself"),
    ("the figure", "its", "itself"), ("somebody", "their", "themselves"), ("a guy", "his", "himself"),
    ("the person", "their", "themselves"), ("a lady", "her", "herself"), ("the man", "his", "himself"),
    ("the woman", "her", "herself"), ("an adult", "their", "themselves"), ("a stickman", "his", "himself"),
)  # fmt: skip
CHILD_SUBJECTS = (
    ("a child", "their", "themselves"), ("a kid", "their", "themselves"), ("a boy", "his", "himself"),
    ("a girl", "her", "herself"), ("the child", "their", "themselves"),
    ("a small child", "their", "themselves"),
    ("a little stick figure", "its", "itself"), ("a young person", "their", "themselves"),
)  # fmt: skip
PLACES = {
    "earth": ("", "", "", "", "on earth", "outside", "in a park", "on a normal day"),
    "moon": ("on the moon", "on the lunar surface", "in the moon's low gravity", "on the Moon"),
    "mars": ("on mars", "on Mars", "on the red planet", "in martian gravity"),
    "underwater": ("underwater", "under water", "in the water", "under the sea", "at the bottom of a pool"),
    "ice": ("on ice", "on slippery ice", "on an icy surface", "on a frozen lake", "on an ice rink"),
    "snow": ("in the snow", "in deep snow", "on a snowy field", "through the snow"),
    "wind": ("in strong wind", "against the wind", "in a storm", "on a very windy day", "in a gale"),
    "zero_g": ("in zero gravity", "in space", "without gravity", "in weightlessness", "in zero g"),
}
SPEED = {"slow": ("slowly", "at a slow pace", "leisurely", "unhurriedly"),
         "fast": ("quickly", "fast", "rapidly", "at a fast pace", "speedily")}  # fmt: skip
HEIGHT = {"high": ("high", "very high", "up high"), "low": ("a little", "low", "just a bit")}
SEAT = {"chair": ("on a chair", "in a chair", "on a seat"), "floor": ("on the floor", "on the ground")}


@dataclass(frozen=True)
class Said:
    """One action as the grammar sees it: its verb phrases and its sampled parameters."""

    words: tuple[str, ...]
    params: dict[str, Any]
    direction: int  # world direction of travel: +1 right, −1 left, 0 none
    descriptions: tuple[str, ...] = ()  # third-person phrases that describe without naming


# How often a clause (other than in the short plain prompt) describes its action instead of naming it.
DESCRIBE_P = 0.3


def _pick(rng: np.random.Generator, options) -> str:
    return options[int(rng.integers(len(options)))]


def _adverbs(
    rng: np.random.Generator, said: Said, phrase: str, possessive: str, style: tuple[str, ...]
) -> list[str]:
    """Adverbial phrases for one action, each included with some probability."""
    p = said.params
    out = []
    if p.get("speed") in SPEED and not any(w in phrase for w in ("fast", "speed", "pace", "slow")):
        if rng.random() < 0.75:
            out.append(_pick(rng, SPEED[p["speed"]]))
    if p.get("height") in HEIGHT and rng.random() < 0.7:
        out.append(_pick(rng, HEIGHT[p["height"]]))
    reps = p.get("reps")
    if isinstance(reps, int) and reps > 1 and rng.random() < 0.7:
        out.append(_pick(rng, REPS.get(reps, (f"{NUMBERS[min(reps, 10)]} times", f"{reps} times"))))
    if p.get("side") in ("left", "right") and p.get("limb") and rng.random() < 0.7:
        side, limb = p["side"], p["limb"]
        if limb == "arm":
            options = (f"with the {side} hand", f"with the {side} arm", f"with {possessive} {side} hand")
        elif limb == "foot":  # the limb that acts (a kick), not the one stood on
            options = (f"with the {side} foot", f"with the {side} leg", f"with {possessive} {side} foot")
        else:
            options = (f"on the {side} leg", f"on the {side} foot", f"on {possessive} {side} leg")
        out.append(_pick(rng, options))
    if said.direction and rng.random() < 0.5:
        out.append(_pick(rng, DIRECTION[said.direction]))
    if p.get("seat") in SEAT and "floor" not in phrase and rng.random() < 0.7:
        out.append(_pick(rng, SEAT[p["seat"]]))
    manner = [m for m in p.get("manner", ()) if m not in phrase]  # not "moves to the beat to the beat"
    if manner and rng.random() < 0.7:
        # "on its back" → "on her back": the subject's own pronoun, as in the verb phrases.
        out.append(" ".join(possessive if w == "its" else w for w in _pick(rng, manner).split()))
    if style and rng.random() < 0.6:
        out.append(_pick(rng, style))
    rng.shuffle(out)
    return out


def _personal(phrase: str, possessive: str, reflexive: str) -> str:
    """ "pick itself up" → "pick herself up": the words "its" and "itself" only (not "splits")."""
    return re.sub(r"\bits\b", possessive, re.sub(r"\bitself\b", reflexive, phrase))


def describe(
    rng: np.random.Generator,
    said: list[Said],
    environment: str,
    style: tuple[str, ...],
    child: bool,
    count: int,
) -> list[str]:
    """`count` distinct descriptions of a clip (fewer only if the grammar cannot make that many)."""
    subjects = CHILD_SUBJECTS if child and rng.random() < 0.7 else ADULT_SUBJECTS
    texts: list[str] = []
    for attempt in range(count * 6):
        if len(texts) == count:
            break
        subject, possessive, reflexive = _pick(rng, subjects)
        plain = attempt == 0
        clauses = []  # (verb phrase, adverbs, already in the third person)
        for s in said:
            described = not plain and bool(s.descriptions) and rng.random() < DESCRIBE_P
            if described:
                phrase = _pick(rng, s.descriptions)
            else:
                phrase = s.words[0] if plain and rng.random() < 0.7 else _pick(rng, s.words)
            phrase = _personal(phrase, possessive, reflexive)
            adverbs = [] if plain else _adverbs(rng, s, phrase, possessive, style if s is said[0] else ())
            clauses.append((phrase, " ".join(adverbs), described))
        # Earth is the default when a text names no place (DESIGN), so only an earth clip may leave it
        # out: "a stickman runs" under a description of a zero-g clip taught running in place.
        unnamed = plain and environment == "earth" and rng.random() < 0.6
        place = "" if unnamed else _pick(rng, PLACES[environment])
        text = _sentence(rng, subject, clauses, place)
        if rng.random() < 0.3:
            text = text[0].upper() + text[1:] + "."
        if text not in texts:
            texts.append(text)
    return texts


def _sentence(
    rng: np.random.Generator, subject: str, clauses: list[tuple[str, str, bool]], place: str
) -> str:
    def verb(clause, form=third_person):
        phrase, adverbs, described = clause
        return " ".join(x for x in (phrase if described else form(phrase), adverbs) if x)

    # A description is already in the third person ("bends its knees and …"): no -ing forms for it.
    gerunds = not any(described for _, _, described in clauses)
    place_part = f" {place}" if place else ""
    if len(clauses) == 1:
        if gerunds and rng.random() < 0.15:
            return f"{subject} is {verb(clauses[0], gerund)}{place_part}"
        return f"{subject} {verb(clauses[0])}{place_part}"
    form = int(rng.integers(5)) if len(clauses) == 2 and gerunds else int(rng.integers(3))
    if form == 3:  # "A before B-ing": in order
        return f"{subject} {verb(clauses[0])} before {verb(clauses[1], gerund)}{place_part}"
    if form == 4:  # "B after A-ing": named in reverse order
        return f"{subject} {verb(clauses[1])} after {verb(clauses[0], gerund)}{place_part}"
    joiner = (", then ", " and then ", ", after that ")[form]
    body = verb(clauses[0])
    for clause in clauses[1:]:
        body += joiner + verb(clause)
    return (
        f"{subject} {body}{place_part}"
        if rng.random() < 0.5
        else f"{place.capitalize() + ', ' if place else ''}{subject} {body}"
    )
