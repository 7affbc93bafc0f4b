"""Same correction, same observation, or a contradiction: the lexical judgement."""

from __future__ import annotations

import pytest

from memory_cli.capture.detect import detect
from memory_cli.capture.similar import (
    SAME_THRESHOLD,
    contradicts,
    correction_key,
    same_correction,
    same_observation,
    similarity,
    tokens,
)


def test_tokens_fold_durations_stems_and_keep_names():
    assert tokens("Takes about 60 seconds to start after a restart") == tokens("Takes 60s to start after restart")
    assert "60s" in tokens("startup takes about a minute")
    assert "pythonw.exe" in tokens("Never use PYTHONW.EXE")
    assert "--no-verify" in tokens("don't pass --no-verify")
    assert tokens("started") == tokens("starting") == tokens("starts")


@pytest.mark.parametrize(
    "a,b",
    [
        ("never use pythonw.exe", "No! Don't use pythonw.exe again"),
        ("never use pythonw.exe", "stop using pythonw.exe"),
        ("Don't use pythonw.exe", "Please never use `pythonw.exe`."),
        ("never use pythonw.exe", "No, use python.exe not pythonw.exe"),
        ("don't use pythonw", "never use pythonw.exe"),
        ("use pnpm, not npm", "It's pnpm, not npm"),
        ("use pnpm, not npm", "Don't use npm, use pnpm instead"),
        ("don't push to main", "never push directly to the main branch"),
        ("Always run the tests before committing", "always run tests before you commit"),
    ],
)
def test_same_correction_phrased_differently(a, b):
    da, db = detect(a), detect(b)
    assert same_correction(da.what_was_wrong, da.what_is_right, db.what_was_wrong, db.what_is_right)


@pytest.mark.parametrize(
    "a,b",
    [
        ("use pnpm, not npm", "use npm, not pnpm"),  # opposite
        ("use pnpm, not npm", "use yarn, not npm"),  # different fix for the same mistake
        ("never use npm", "always use npm"),
        ("never use npm", "don't run npm install with --force"),
        ("never use pythonw.exe", "never use python.exe"),
        ("Always run the tests before committing", "always run the linter before pushing"),
        ("never use npm", "always use pnpm"),
    ],
)
def test_different_corrections_are_not_merged(a, b):
    da, db = detect(a), detect(b)
    assert not same_correction(da.what_was_wrong, da.what_is_right, db.what_was_wrong, db.what_is_right)


def test_correction_key_ignores_polarity_words_and_order():
    assert correction_key("using pythonw.exe", "") == correction_key("pythonw.exe", "")
    assert correction_key("npm", "pnpm") != correction_key("pnpm", "npm")


# Seed 000 reinforcement and contradiction texts.
def test_seed_reinforcement_texts_match():
    a, b = "Takes 60s to start after restart", "Takes about 60 seconds to start after a restart"
    assert similarity(a, b) >= SAME_THRESHOLD
    assert same_observation(a, b)
    assert not contradicts(a, b)


@pytest.mark.parametrize(
    "a,b",
    [
        ("Must be started after WireGuard", "Can be started independently of WireGuard"),
        (
            "Must be started after WireGuard -- fails with no route to host otherwise",
            "Can be started independently of WireGuard",
        ),
        ("Must be started after WireGuard", "Must be started before WireGuard"),
        ("DNS checks sometimes fail transiently", "DNS checks never fail"),
        ("Takes 60s to start after restart", "Takes 10s to start after restart"),
        ("First restart attempt always fails", "First restart attempt always succeeds"),
    ],
)
def test_contradictions(a, b):
    assert contradicts(a, b)
    assert contradicts(b, a)
    assert not same_observation(a, b)


@pytest.mark.parametrize(
    "a,b",
    [
        ("Takes 60s to start after restart", "Sometimes crashes on first start"),
        ("Must be started after WireGuard", "Needs manual VACUUM FULL weekly"),
        ("Returns HTTP 302 redirect when healthy, not 200", "Returns HTTP 302 when healthy instead of 200"),
        ("Takes 60s to start", "Startup takes about a minute"),
    ],
)
def test_not_contradictions(a, b):
    assert not contradicts(a, b)


def test_unrelated_observations_are_neither_same_nor_contradicting():
    a, b = "Takes 60s to start after restart", "Sometimes crashes on first start"
    assert not same_observation(a, b)
    assert not contradicts(a, b)
