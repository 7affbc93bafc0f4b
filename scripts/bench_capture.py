#!/usr/bin/env python3
"""Correction detection on the labelled prompt set (tests/fixtures/correction_corpus.py), and
promoted rules on the probe table (tests/test_rules_probes.py).

Prints the confusion matrix, precision and recall, overall and per half of the set: the
detector's hand-written rules were refined on misses of the "dev" half only, so the "held"
half is data they were never adjusted to; and on the "fresh" set
(tests/fixtures/correction_corpus_fresh.py), written later and scored before the rules were
adjusted to it. Then every miss and every false alarm, by intent.

    .venv/bin/python scripts/bench_capture.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

from correction_corpus import CORRECTIONS, LOOKALIKES, fold  # noqa: E402
from correction_corpus_fresh import FRESH_CORRECTIONS, FRESH_LOOKALIKES  # noqa: E402

from memory_cli.capture.detect import detect  # noqa: E402

TARGET_PRECISION, TARGET_RECALL = 0.97, 0.95


def confusion(rows_pos, rows_neg):
    tp = sum(1 for _i, m in rows_pos if detect(m) is not None)
    fp = sum(1 for _k, m in rows_neg if detect(m) is not None)
    fn, tn = len(rows_pos) - tp, len(rows_neg) - fp
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return tp, fp, fn, tn, precision, recall


def main() -> int:
    print(f"{'set':<8}{'corr.':>6}{'look-al.':>9}{'TP':>5}{'FP':>5}{'FN':>5}{'TN':>5}{'precision':>11}{'recall':>8}")
    for name, pick in (
        ("all", lambda m: True),
        ("dev", lambda m: fold(m) == "dev"),
        ("held", lambda m: fold(m) == "held"),
    ):
        pos = [r for r in CORRECTIONS if pick(r[1])]
        neg = [r for r in LOOKALIKES if pick(r[1])]
        tp, fp, fn, tn, p, r = confusion(pos, neg)
        print(f"{name:<8}{len(pos):>6}{len(neg):>9}{tp:>5}{fp:>5}{fn:>5}{tn:>5}{p:>11.3f}{r:>8.3f}")
    tp, fp, fn, tn, p, r = confusion(FRESH_CORRECTIONS, FRESH_LOOKALIKES)
    print(
        f"{'fresh':<8}{len(FRESH_CORRECTIONS):>6}{len(FRESH_LOOKALIKES):>9}{tp:>5}{fp:>5}{fn:>5}{tn:>5}{p:>11.3f}{r:>8.3f}"
    )
    _tp, _fp, _fn, _tn, p, r = confusion(CORRECTIONS, LOOKALIKES)
    print(
        f"target: precision >= {TARGET_PRECISION} and recall >= {TARGET_RECALL} -> "
        f"{'ok' if p >= TARGET_PRECISION and r >= TARGET_RECALL else 'MISSED'}"
    )
    misses = [(i, m) for i, m in CORRECTIONS + FRESH_CORRECTIONS if detect(m) is None]
    alarms = [(k, m, detect(m)) for k, m in LOOKALIKES + FRESH_LOOKALIKES if detect(m) is not None]
    if misses:
        print("\nmissed corrections:")
        for i, m in misses:
            print(f"  [{i}/{fold(m)}] {m!r}")
    if alarms:
        print("\nfalse alarms:")
        for k, m, d in alarms:
            print(f"  [{k}/{fold(m)}] {m!r} -> {d.signal}: wrong={d.what_was_wrong!r} right={d.what_is_right!r}")
    probes()
    return 0


def probes() -> None:
    """Each correction of the probe table promoted to a rule in a throwaway store; per class,
    how many calls the rule decided right (fired on the mistake, silent on the look-alike)."""
    import tempfile

    sys.path.insert(0, str(ROOT / "tests"))
    from test_rules_probes import score

    from memory_cli.db import Store

    with tempfile.TemporaryDirectory() as d:
        n = iter(range(10_000))
        right, total, failures = score(lambda: Store.open(Path(d) / f"p{next(n)}.db"))
    print(f"\npromoted rules: {right}/{total} calls decided right ({right / total:.1%}; target 95%)")
    for cls, message, call, want, rule in failures:
        print(f"  [{cls}] {message!r}: {call[0]} {call[1]} should {'fire' if want else 'pass'}; rule {rule}")


if __name__ == "__main__":
    raise SystemExit(main())
