"""Helpers shared by the synthesizer's test modules."""

import re

from stickgen.synth.checks import BONE_CV_MAX, FLOOR_MIN, SLIDE_SHARE_MAX, check_clip, summarize
from stickgen.synth.text import gerund, third_person


def word_pattern(words: tuple[str, ...], descriptions: tuple[str, ...] = ()) -> str:
    """A regex for any of the verb phrases, conjugated or not, or any of the (third-person)
    descriptions, with any pronoun for "its"/"itself"."""
    forms = {f for w in words for f in (w, third_person(w), gerund(w))} | set(descriptions)
    escaped = (re.sub(r"\bits(elf)?\b", r"\\w+", re.escape(f)) for f in forms)
    return "|".join(rf"\b{f}\b" for f in escaped)


def assert_physical(motions) -> None:
    """Every physical check of the issue holds over `motions`, and some feet were on the floor."""
    report = summarize([check_clip(m) for m in motions])
    assert report.bone_cv < BONE_CV_MAX
    assert report.min_y >= FLOOR_MIN
    assert report.contact_frames > 0 and report.slide_share < SLIDE_SHARE_MAX
    assert report.passed, report.failures


def assert_described_and_labelled(action: str, motions) -> None:
    """Clips of one `action`: every frame labelled with it, and every description uses its words."""
    from stickgen.synth.actions import ACTION_BY_NAME

    spec = ACTION_BY_NAME[action]
    pattern = word_pattern(spec.words, spec.descriptions)
    for m in motions:
        assert (m.actions == spec.id).all()
        assert m.source["actions"][0]["name"] == action
        for text in m.texts:
            assert re.search(pattern, text.lower()), text
