"""Correction detection scored on the labelled prompt sets (tests/fixtures/correction_corpus*.py).

The sets are written from how people correct coding agents and from prompts that only look like
corrections. The detector's rules are hand-written and were refined on the misses of the first
seven sets, so those hold the rules alone (``detect_by_rules``) to what they reached; the
learned model beside the rules is trained on them too, and is scored by cross-validation
(``scripts/train_capture_model.py``). The eighth set was never used for either: it is the
held-out estimate. ``scripts/bench_capture.py`` prints every figure.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from correction_corpus import CORRECTIONS, LOOKALIKES, fold  # noqa: E402
from correction_corpus_eighth import EIGHTH_CORRECTIONS, EIGHTH_LOOKALIKES  # noqa: E402
from correction_corpus_fifth import FIFTH_CORRECTIONS, FIFTH_LOOKALIKES  # noqa: E402
from correction_corpus_fourth import FOURTH_CORRECTIONS, FOURTH_LOOKALIKES  # noqa: E402
from correction_corpus_fresh import FRESH_CORRECTIONS, FRESH_LOOKALIKES  # noqa: E402
from correction_corpus_seventh import SEVENTH_CORRECTIONS, SEVENTH_LOOKALIKES  # noqa: E402
from correction_corpus_sixth import SIXTH_CORRECTIONS, SIXTH_LOOKALIKES  # noqa: E402
from correction_corpus_third import THIRD_CORRECTIONS, THIRD_CUE_LOOKALIKES, THIRD_LOOKALIKES  # noqa: E402
from correction_sets import TUNING_CORRECTIONS, TUNING_LOOKALIKES  # noqa: E402

from memory_cli.capture.detect import detect, detect_by_rules  # noqa: E402
from memory_cli.capture.wording import is_confident  # noqa: E402


def _told(message):
    """The detection Claude is told of in the session, or None."""
    d = detect(message)
    return d if is_confident(d, message) else None


def _scores(corrections, lookalikes, judge=detect):
    missed = [m for _i, m in corrections if judge(m) is None]
    alarms = [m for _k, m in lookalikes if judge(m) is not None]
    tp = len(corrections) - len(missed)
    return tp / max(1, tp + len(alarms)), tp / len(corrections), missed, alarms


def test_the_labelled_set_is_large_and_varied():
    assert len(CORRECTIONS) >= 192 and len(LOOKALIKES) >= 195
    intents = {i for i, _m in CORRECTIONS}
    kinds = {k for k, _m in LOOKALIKES}
    assert {"repeat", "curt", "style", "undo"} <= intents and len(intents) >= 20
    assert {"praise", "question", "quoted", "request", "statement", "chat"} <= kinds
    assert len({m for _i, m in CORRECTIONS} | {m for _k, m in LOOKALIKES}) == len(CORRECTIONS) + len(LOOKALIKES)
    assert 0.35 < sum(fold(m) == "dev" for _i, m in CORRECTIONS) / len(CORRECTIONS) < 0.65


def test_precision_and_recall_on_the_labelled_set():
    precision, recall, missed, alarms = _scores(CORRECTIONS, LOOKALIKES, detect_by_rules)
    assert precision >= 0.97, alarms
    assert recall >= 0.95, missed
    # The learned model is also trained on prompts people really typed and fires more readily
    # (its threshold is chosen on them, held out by person); its hits wait quietly in review,
    # and what Claude is told (``is_confident``) keeps the rules' precision.
    precision, recall, _missed, _alarms = _scores(CORRECTIONS, LOOKALIKES)
    assert precision >= 0.92 and recall >= 0.95
    told = _scores(CORRECTIONS, LOOKALIKES, _told)
    assert told[0] >= 0.97, told[3]


def test_the_second_set_written_later_is_held_to_the_same_targets():
    """Scored before the rules were adjusted to it (precision .980, recall .817 then): the
    targets now guard the classes it added (undo of the agent's last change, "X is Y, not Z",
    "that change broke ...", a style complaint with a clause after it)."""
    assert len(FRESH_CORRECTIONS) >= 60 and len(FRESH_LOOKALIKES) >= 60
    fresh = {m for _i, m in FRESH_CORRECTIONS + FRESH_LOOKALIKES}
    assert not fresh & {m for _i, m in CORRECTIONS + LOOKALIKES}
    precision, recall, missed, alarms = _scores(FRESH_CORRECTIONS, FRESH_LOOKALIKES, detect_by_rules)
    assert precision >= 0.97, alarms
    assert recall >= 0.95, missed


def test_the_third_set_indirect_phrasings_are_held_to_the_same_targets():
    """Written by someone who had seen neither the rules nor the other sets, and scored first at
    recall .350: most of its corrections lack a correction's usual opening ("the api listens on
    8081 not 8080", "CI's red since your commit", "`any` is a no-go", "back that out"). The
    second stage (capture/cues.py) was written from its misses by class."""
    assert len(THIRD_CORRECTIONS) >= 120 and len(THIRD_LOOKALIKES) >= 120
    precision, recall, missed, alarms = _scores(THIRD_CORRECTIONS, THIRD_LOOKALIKES, detect_by_rules)
    assert precision >= 0.97, alarms
    assert recall >= 0.95, missed


def test_ordinary_prompts_holding_the_second_stage_cue_words_are_left_alone():
    """A contrast in a statement, a failure beside "your" that is praise or history, "revert" as
    a planned task, "keep the diff minimal" as a first instruction, reported speech. The rules
    leave them alone and Claude is told of none; the learned model, trained on real typing too,
    may keep one for review."""
    alarms = [(m, detect_by_rules(m)) for _k, m in THIRD_CUE_LOOKALIKES if detect_by_rules(m) is not None]
    assert not alarms
    assert not [m for _k, m in THIRD_CUE_LOOKALIKES if _told(m) is not None]


def test_the_fourth_set_is_caught_by_the_rules_refined_on_it():
    """Held out until the rules were refined on its misses (recall .694 then, docs/corrections.md).
    Six corrections stay to the model: a reason given instead of a ban ("cargo build --release
    takes ten minutes here, use cargo check while iterating") or a value asked for with "please"."""
    precision, recall, missed, alarms = _scores(FOURTH_CORRECTIONS, FOURTH_LOOKALIKES, detect_by_rules)
    assert precision >= 0.97, alarms
    assert recall >= 0.93, missed


def test_the_later_sets_keep_what_the_rules_reached_on_them():
    """Each was the held-out set of one round (recall .677, .626 and .610 as shipped then,
    docs/corrections.md) before the rules were refined on its misses. Longer, more formal
    prompts: the rules alone stay well short of the first sets, the model covers part of it."""
    for corrections, lookalikes, floor, min_precision in (
        (FIFTH_CORRECTIONS, FIFTH_LOOKALIKES, 0.74, 0.97),
        (SIXTH_CORRECTIONS, SIXTH_LOOKALIKES, 0.65, 0.96),  # two instructions about code ("..., return a miss instead")
        (SEVENTH_CORRECTIONS, SEVENTH_LOOKALIKES, 0.55, 0.97),
    ):
        precision, recall, missed, alarms = _scores(corrections, lookalikes, detect_by_rules)
        assert precision >= min_precision, alarms
        assert recall >= floor, missed


def test_the_held_out_set_scores_what_the_docs_say():
    """Never used to write a rule or to train: the honest estimate on new phrasings. Measured at
    recall .270 (precision .871) with the detector this work started from, .680 (precision
    .932) with the model trained on the synthetic sets alone, .910 (precision .901) with the
    model trained on real prompts too, and .700 (precision .946) now that a prompt without the
    agent's turn (these sets have none) is judged at the stricter threshold chosen for that case
    on real people held out (docs/corrections.md); this guards against falling back.
    Its misses are never printed."""
    every = [m for _i, m in EIGHTH_CORRECTIONS + EIGHTH_LOOKALIKES]
    earlier = TUNING_CORRECTIONS + TUNING_LOOKALIKES
    assert len(EIGHTH_CORRECTIONS) >= 100 and len(EIGHTH_LOOKALIKES) >= 99
    assert not {m.lower() for m in every} & {m.lower() for _i, m in earlier}
    precision, recall, _missed, _alarms = _scores(EIGHTH_CORRECTIONS, EIGHTH_LOOKALIKES)
    assert precision >= 0.93
    assert recall >= 0.68
    assert recall > _scores(EIGHTH_CORRECTIONS, EIGHTH_LOOKALIKES, detect_by_rules)[1] + 0.15


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
