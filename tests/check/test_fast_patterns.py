"""Patterns rewritten for speed find exactly what their readable forms find."""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from gradguard.check.rules.gg201_eval_with_grad import _SPLIT_TRIGGERS, _names_split
from gradguard.check.triggers import TextSearch

# The readable form of GG201's split-name search.
READABLE_SPLIT_NAME = re.compile(
    r"(?<![A-Za-z0-9])(?:\w*_)?(?:val|valid|validation|test|testing|eval|dev)(?:set|data|x|y|s)?(?![a-z])"
    r"|(?<=[a-z0-9_])(?:Val|Valid|Validation|Test|Testing|Eval|Dev)(?![a-z])|(?<![A-Za-z0-9])(?:Val|Test)(?![a-z])"
)

SAMPLES = [
    "test_x",
    "X_val",
    "valid_imgs",
    "testImages",
    "valset",
    "x_test",
    "dev",
    "devices",
    "latest",
    "interval",
    "evaluate",
    "testing_loader",
    "xVal",
    "XVal",
    "Val",
    "Validation",
    "myValidation",
    "2Test",
    "é_val",
    "attest",
    "retest_s",
    "vals",
    "valx",
    "valz",
    "",
]


def _found(pattern: re.Pattern, text: str) -> bool:
    return pattern.search(text) is not None


def test_split_name_samples_agree():
    for text in SAMPLES:
        for wrapped in (text, f" {text} ", f"({text}[0])", f"a{text}", f"{text}a", f"_{text}_", f"x{text}_"):
            assert _names_split(wrapped) == _found(READABLE_SPLIT_NAME, wrapped), wrapped


def test_split_name_finds_and_misses():
    assert _names_split("for x in test_loader:")
    assert _names_split("model(X_val)")
    assert not _names_split("latest = interval + devices")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="vtedVTEDalisngxyoc_ 0A.é(", max_size=14))
def test_split_name_agrees_with_readable_form(text):
    assert _names_split(text) == _found(READABLE_SPLIT_NAME, text)


# The split-name trigger as one readable pattern: the triggers GG201 lists in its place (one
# pattern per word, and two substrings) must match where it does.
READABLE_SPLIT_TRIGGER = re.compile(
    r"(?<![A-Za-z0-9])(?:val|valid|validation|test|testing|eval|dev)(?:set|data|x|y|s)?(?![a-z])"
    r"|Val(?:id|idation)?(?![a-z])|Test(?:ing)?(?![a-z])"
)


def _split_trigger_starts(text: str) -> list:
    """Where one of the split triggers occurs, as ``TextSearch`` finds them one after the other."""
    search, found = TextSearch(text), set()
    for trigger in _SPLIT_TRIGGERS:
        at = search.next_at(trigger, 0)
        while at >= 0:
            found.add(at)
            at = search.next_at(trigger, at + 1)
    return sorted(found)


def _match_starts(pattern: re.Pattern, text: str) -> list:
    """Every position where a match of the pattern starts."""
    return [at for at in range(len(text) + 1) if pattern.match(text, at) is not None]


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="vtedVTEDalisnxyoc_ 0A.é(", max_size=16))
def test_split_triggers_are_found_where_the_readable_pattern_matches(text):
    assert _split_trigger_starts(text) == _match_starts(READABLE_SPLIT_TRIGGER, text)
    assert any(TextSearch(text).occurs(t) for t in _SPLIT_TRIGGERS) == (READABLE_SPLIT_TRIGGER.search(text) is not None)


def test_split_trigger_samples():
    for text in SAMPLES:
        for wrapped in (text, f" {text} ", f"a{text}", f"_{text}_", f"{text}\n{text}"):
            assert _split_trigger_starts(wrapped) == _match_starts(READABLE_SPLIT_TRIGGER, wrapped), wrapped


@settings(max_examples=1500, deadline=None)
@given(
    st.text(alphabet="ab.(", max_size=24),
    st.lists(st.text(alphabet="ab.(", min_size=1, max_size=4), min_size=1, max_size=6),
    st.lists(st.integers(min_value=0, max_value=26), max_size=6),
)
def test_text_search_agrees_with_str_find(text, vocabulary, starts):
    # Substrings sharing a first character are found together in one pass: every occurrence,
    # overlapping ones and those of a substring that begins another (`ab`, `aba`) included.
    search = TextSearch(text, frozenset(vocabulary))
    for substring in vocabulary:
        for start in [0, *starts, 0]:
            assert search.next_at(substring, start) == text.find(substring, start)
