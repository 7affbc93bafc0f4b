"""Correction detection scored on the labelled prompt set (tests/fixtures/correction_corpus.py).

The set is three times the size of the examples in test_capture_detect.py, written from how
people correct coding agents and from prompts that only look like corrections. Nothing in the
detector is fitted to numbers: its rules are hand-written. They were refined on the misses of
one half of the set ("dev"); ``scripts/bench_capture.py`` prints the confusion for both halves.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from correction_corpus import CORRECTIONS, LOOKALIKES, fold  # noqa: E402
from correction_corpus_fresh import FRESH_CORRECTIONS, FRESH_LOOKALIKES  # noqa: E402

from memory_cli.capture.detect import detect  # noqa: E402


def test_the_labelled_set_is_large_and_varied():
    assert len(CORRECTIONS) >= 192 and len(LOOKALIKES) >= 195
    intents = {i for i, _m in CORRECTIONS}
    kinds = {k for k, _m in LOOKALIKES}
    assert {"repeat", "curt", "style", "undo"} <= intents and len(intents) >= 20
    assert {"praise", "question", "quoted", "request", "statement", "chat"} <= kinds
    assert len({m for _i, m in CORRECTIONS} | {m for _k, m in LOOKALIKES}) == len(CORRECTIONS) + len(LOOKALIKES)
    assert 0.35 < sum(fold(m) == "dev" for _i, m in CORRECTIONS) / len(CORRECTIONS) < 0.65


def test_precision_and_recall_on_the_labelled_set():
    missed = [m for _i, m in CORRECTIONS if detect(m) is None]
    alarms = [m for _k, m in LOOKALIKES if detect(m) is not None]
    tp = len(CORRECTIONS) - len(missed)
    precision = tp / (tp + len(alarms))
    recall = tp / len(CORRECTIONS)
    assert precision >= 0.97, alarms
    assert recall >= 0.95, missed


def test_the_second_set_written_later_is_held_to_the_same_targets():
    """Scored before the rules were adjusted to it (precision .980, recall .817 then): the
    targets now guard the classes it added (undo of the agent's last change, "X is Y, not Z",
    "that change broke ...", a style complaint with a clause after it)."""
    assert len(FRESH_CORRECTIONS) >= 60 and len(FRESH_LOOKALIKES) >= 60
    fresh = {m for _i, m in FRESH_CORRECTIONS + FRESH_LOOKALIKES}
    assert not fresh & {m for _i, m in CORRECTIONS + LOOKALIKES}
    missed = [m for _i, m in FRESH_CORRECTIONS if detect(m) is None]
    alarms = [m for _k, m in FRESH_LOOKALIKES if detect(m) is not None]
    tp = len(FRESH_CORRECTIONS) - len(missed)
    assert tp / (tp + len(alarms)) >= 0.97, alarms
    assert tp / len(FRESH_CORRECTIONS) >= 0.95, missed


def test_every_kind_of_correction_is_mostly_caught():
    by_intent: dict[str, list[bool]] = {}
    for intent, m in CORRECTIONS:
        by_intent.setdefault(intent, []).append(detect(m) is not None)
    weak = {i: f"{sum(v)}/{len(v)}" for i, v in by_intent.items() if len(v) >= 5 and sum(v) / len(v) < 0.8}
    assert not weak


def test_detections_say_what_was_wrong_or_what_is_right():
    empty = [
        m
        for _i, m in CORRECTIONS
        if (d := detect(m)) is not None
        and not (d.what_was_wrong or d.what_is_right)
        and d.signal
        not in (
            "thats-wrong",
            "already-told",
            "did-it-again",
            "didnt-ask",
            "again",
            "revert",
            "not-like-that",
            "stop",
            "still-wrong",
        )
    ]
    assert len(empty) <= len(CORRECTIONS) * 0.05, empty
