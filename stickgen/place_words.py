"""Words in a prompt that name a place: which environment a prompt asks for, and the prompt without them.

`environment_from_text` reads the environment ("on the moon" → moon, "in deep snow" → snow; earth when
no place is named); `with_environment` adds a place phrase to a prompt; `without_place` takes a
leading or trailing place phrase off ("on the moon, a woman settles onto a boulder" → "a woman
settles onto a boulder"), so that reading a prompt's action by meaning (`stickgen.action_meaning`)
is not pulled towards the actions its vocabulary puts in such places (swimming underwater, slipping
on ice). The environment itself is a separate condition of the model.
"""

from __future__ import annotations

import re

from stickgen.errors import StickgenError
from stickgen.labels import environment as lookup

# Words that name a place, in the order they are tested; the first match sets the environment.
_PLACE_WORDS = (
    (
        "zero_g",
        (
            "zero gravity",
            "zero-g",
            "zero g",
            "weightless",
            "in space",
            "outer space",
            "space station",
            "without gravity",
            "no gravity",
        ),  # fmt: skip
    ),
    ("moon", ("moon", "lunar")),
    ("mars", ("mars", "martian", "red planet")),
    (
        "underwater",
        (
            "underwater",
            "under water",
            "in the water",
            "under the sea",
            "in a pool",
            "in the sea",
            "of a pool",
            "of the pool",
        ),
    ),  # fmt: skip
    ("ice", ("ice", "icy", "frozen", "slippery")),
    ("snow", ("snow",)),
    ("wind", ("wind", "gale", "storm")),
)


def environment_from_text(prompt: str) -> str:
    """The environment a prompt names ("on the moon" → moon); earth when it names none.

    A place word counts at the start of a word ("snowy", not "nice" for ice or "honeymoon" for moon).
    """
    text = prompt.lower()
    for name, words in _PLACE_WORDS:
        if any(re.search(r"\b" + re.escape(word), text) for word in words):
            return name
    return "earth"


def with_environment(prompt: str, environment: str) -> str:
    """The prompt set in `environment`: unchanged when it names that place already, else with a place
    phrase added ("on mars"). A prompt that names another place is refused in one sentence: which of
    the two was meant is the user's to say (taking a phrase out of a sentence can take its verb too)."""
    name = lookup(environment).name
    named = environment_from_text(prompt)
    if named == name:
        return prompt
    if named != "earth":
        raise StickgenError(
            f"The prompt names another place ({named}) than the environment asked for ({name}); "
            "leave one of them out."
        )
    return prompt if name == "earth" else f"{prompt.rstrip('. ')} {PLACE_PHRASES[name]}"


PLACE_PHRASES = {
    "moon": "on the moon",
    "mars": "on mars",
    "underwater": "underwater",
    "ice": "on ice",
    "snow": "in the snow",
    "wind": "in strong wind",
    "zero_g": "in zero gravity",
}


_PLACE = "|".join(re.escape(word) for _, words in _PLACE_WORDS for word in words)
_PREPOSITIONS = "on|in|at|under|into|through|across|against|without|of"
_PREPOSITION = r"(?:" + _PREPOSITIONS + r")"
# A preposition and up to four words before the place word ("at the bottom of a pool"), the place word
# with its ending ("icy", "moon's"), and up to two words after it ("low gravity", "day").
_PHRASE = r"(?:" + _PREPOSITION + r"\s+(?:[\w'-]+\s+){0,4}?)?(?:" + _PLACE + r")[\w']*(?:\s+[\w'-]+){0,2}?"
_DANGLING = re.compile(r"(?:^|\s)(?:" + _PREPOSITIONS + r"|the|a|an)$", re.IGNORECASE)
_LEADING = re.compile(r"^\s*" + _PHRASE + r"\s*,\s*", re.IGNORECASE)  # "on the moon, ..."
_TRAILING = re.compile(r"[\s,]+" + _PHRASE + r"\s*[.!]?\s*$", re.IGNORECASE)  # "... in zero gravity"


def without_place(text: str) -> str:
    """`text` without a place phrase at its start (before a comma) or at its end; unchanged when it has
    none, or when nothing else would be left."""
    stripped = _TRAILING.sub("", _LEADING.sub("", text)).strip()
    if _DANGLING.search(stripped):  # "on the moon" → "on the": the place word was all of it
        return text
    return stripped or text
