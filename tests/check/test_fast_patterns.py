"""Patterns rewritten for speed find exactly what their readable forms find."""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from gradguard.check.rules.gg201_eval_with_grad import _SPLIT_NAME_RE, _SPLIT_TRIGGER
from gradguard.check.triggers import TextSearch, occurs

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
        for wrapped in (text, f" {text} ", f"({text}[0])", f"a{text}", f"{text}a", f"_{text}_"):
            assert _found(_SPLIT_NAME_RE, wrapped) == _found(READABLE_SPLIT_NAME, wrapped), wrapped


def test_split_name_finds_and_misses():
    assert _found(_SPLIT_NAME_RE, "for x in test_loader:")
    assert _found(_SPLIT_NAME_RE, "model(X_val)")
    assert not _found(_SPLIT_NAME_RE, "latest = interval + devices")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="vtedVTEDalisnxyoc_ 0A.é(", max_size=14))
def test_split_name_agrees_with_readable_form(text):
    assert _found(_SPLIT_NAME_RE, text) == _found(READABLE_SPLIT_NAME, text)


def anchored_positions(text: str, trigger) -> list:
    """Every occurrence ``TextSearch`` finds, asked for one after the other."""
    search, found = TextSearch(text), []
    at = search.next_at(trigger, 0)
    while at >= 0:
        found.append(at)
        at = search.next_at(trigger, at + 1)
    return found


def _match_starts(pattern: re.Pattern, text: str) -> list:
    """Every position where a match of the pattern starts (what the anchored search must find)."""
    return [at for at in range(len(text) + 1) if pattern.match(text, at) is not None]


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="vtedVTEDalisnxyoc_ 0A.é(", max_size=16))
def test_split_trigger_is_found_where_its_pattern_matches(text):
    # Every match starts with one of the trigger's substrings: trying the pattern only there
    # finds every match, and the file-level answer is the pattern's own.
    assert anchored_positions(text, _SPLIT_TRIGGER) == _match_starts(_SPLIT_TRIGGER.pattern, text)
    assert occurs(text, _SPLIT_TRIGGER) == (_SPLIT_TRIGGER.pattern.search(text) is not None)


def test_split_trigger_samples():
    for text in SAMPLES:
        for wrapped in (text, f" {text} ", f"a{text}", f"_{text}_", f"{text}\n{text}"):
            assert anchored_positions(wrapped, _SPLIT_TRIGGER) == _match_starts(_SPLIT_TRIGGER.pattern, wrapped)
