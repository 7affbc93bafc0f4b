#!/usr/bin/env python3
"""Correction detection on the labelled prompt sets (tests/fixtures/correction_corpus*.py), and
promoted rules on the probe table (tests/test_rules_probes.py).

Prints the confusion matrix, precision and recall of the hand-written rules alone and of the
detector as shipped (rules, then the learned model for short prompts they pass), per set:
- "all", "dev", "held": the first set; the rules were refined on "dev" misses first;
- "fresh": the second set, scored before the rules were adjusted to it (then refined on);
- "third": the third set, written without seeing the detector (recall .350 at first); the
  second stage of the rules was written from its misses;
- "cue look-alikes": ordinary prompts holding the second stage's cue words (no corrections);
- "fourth" to "seventh": written the same way, each held out for one round of refinement and
  then refined on (recall .694, .677, .626 and .610 while held out);
- "eighth": held out from everything, the honest estimate on new phrasings.
The model is trained on sets 1-7. Then every miss and false alarm of the first seven sets (never
of the eighth: reading them would end its use as a held-out set; only its misses per intent
are counted).

    .venv/bin/python scripts/bench_capture.py
    .venv/bin/python scripts/bench_capture.py --timing [--prompts N]

``--timing`` measures instead what detection costs a prompt: each of N labelled prompts (half
corrections, half look-alikes, a fixed sample) is judged by a fresh process, as a hook judges
it, timing ``detect`` alone (imports excluded): with no file for ``memory_cli/files/regex_cache.py`` (every
process compiles what it needs, and none saves); with the file ``memory-cli install`` writes, each process adding what it compiled as the hooks do (the first prompts after
install); and again once those prompts have been seen (the steady state).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

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

TARGET_PRECISION, TARGET_RECALL = 0.97, 0.95


def confusion(rows_pos, rows_neg, judge):
    tp = sum(1 for _i, m in rows_pos if judge(m) is not None)
    fp = sum(1 for _k, m in rows_neg if judge(m) is not None)
    fn, tn = len(rows_pos) - tp, len(rows_neg) - fp
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return tp, fp, fn, tn, precision, recall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timing", action="store_true", help="time detection per prompt in fresh processes")
    ap.add_argument("--prompts", type=int, default=120, help="prompts to time (default 120)")
    args = ap.parse_args()
    if args.timing:
        return timing(args.prompts)
    sets = [
        ("all", CORRECTIONS, LOOKALIKES),
        ("dev", [r for r in CORRECTIONS if fold(r[1]) == "dev"], [r for r in LOOKALIKES if fold(r[1]) == "dev"]),
        ("held", [r for r in CORRECTIONS if fold(r[1]) == "held"], [r for r in LOOKALIKES if fold(r[1]) == "held"]),
        ("fresh", FRESH_CORRECTIONS, FRESH_LOOKALIKES),
        ("third", THIRD_CORRECTIONS, THIRD_LOOKALIKES),
        ("cue look-alikes", [], THIRD_CUE_LOOKALIKES),
        ("fourth", FOURTH_CORRECTIONS, FOURTH_LOOKALIKES),
        ("fifth", FIFTH_CORRECTIONS, FIFTH_LOOKALIKES),
        ("sixth", SIXTH_CORRECTIONS, SIXTH_LOOKALIKES),
        ("seventh", SEVENTH_CORRECTIONS, SEVENTH_LOOKALIKES),
        ("eighth (held out)", EIGHTH_CORRECTIONS, EIGHTH_LOOKALIKES),
    ]
    print(
        f"{'set':<19}{'detector':<16}{'corr.':>6}{'look-al.':>9}{'TP':>5}{'FP':>5}{'FN':>5}{'TN':>5}{'precision':>11}{'recall':>8}"
    )
    for name, pos, neg in sets:
        for label, judge in (("rules", detect_by_rules), ("rules + model", detect)):
            tp, fp, fn, tn, p, r = confusion(pos, neg, judge)
            print(f"{name:<19}{label:<16}{len(pos):>6}{len(neg):>9}{tp:>5}{fp:>5}{fn:>5}{tn:>5}{p:>11.3f}{r:>8.3f}")
    _tp, _fp, _fn, _tn, p, r = confusion(EIGHTH_CORRECTIONS, EIGHTH_LOOKALIKES, detect)
    print(
        f"target (held out): precision >= {TARGET_PRECISION} and recall >= {TARGET_RECALL} -> "
        f"{'ok' if p >= TARGET_PRECISION and r >= TARGET_RECALL else 'MISSED'}"
    )
    missed8 = Counter(i for i, m in EIGHTH_CORRECTIONS if detect(m) is None)
    print("eighth set, misses per intent: " + ", ".join(f"{i} {n}" for i, n in missed8.most_common()))
    misses = [(i, m) for i, m in TUNING_CORRECTIONS if detect(m) is None]
    alarms = [(k, m, d) for k, m in TUNING_LOOKALIKES if (d := detect(m)) is not None]
    if misses:
        print("\nmissed corrections (sets 1-7):")
        for i, m in misses:
            print(f"  [{i}] {m!r}")
    if alarms:
        print("\nfalse alarms (sets 1-7):")
        for k, m, d in alarms:
            print(f"  [{k}] {m!r} -> {d.signal}: wrong={d.what_was_wrong!r} right={d.what_is_right!r}")
    probes()
    return 0


_TIME_ONE = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from memory_cli.capture.detect import detect
text = sys.stdin.read()
started = time.perf_counter()
detect(text)
print((time.perf_counter() - started) * 1000)
if sys.argv[2] == "save":  # as the hook runner does after every event
    from memory_cli.files import regex_cache

    regex_cache.save()
"""


def timing(n: int) -> int:
    from bench_retrieval import pct  # the benchmarks' one percentile

    rnd = random.Random(3)
    half = max(1, n // 2)
    sample = [m for _, m in rnd.sample(TUNING_CORRECTIONS, half)] + [m for _, m in rnd.sample(TUNING_LOOKALIKES, half)]

    def run(env: dict, save: bool) -> list[float]:
        out = []
        for text in sample:
            r = subprocess.run(
                [sys.executable, "-I", "-S", "-c", _TIME_ONE, str(ROOT), "save" if save else "-"],
                input=text,
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            out.append(float(r.stdout))
        return sorted(out)

    print(f"detect() per prompt, fresh process each, {len(sample)} labelled prompts (ms)")
    print(f"{'cache':<34}{'median':>8}{'p90':>8}{'max':>8}")
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, CLAUDE_CONFIG_DIR=d)
        cold = run(env, save=False)  # every process compiles what its prompt needs
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
                "from memory_cli.capture.detect import warm_regex_cache; warm_regex_cache()",
            ],
            env=env,
            check=True,
        )
        first = run(env, save=True)
        steady = run(env, save=False)
    rows = (
        ("none (every process compiles)", cold),
        ("after install, first prompts", first),
        ("after install, steady state", steady),
    )
    for label, v in rows:
        print(f"{label:<34}{pct(v, 50):>8.1f}{pct(v, 90):>8.1f}{v[-1]:>8.1f}")
    return 0


def probes() -> None:
    """Each correction of the probe table promoted to a rule in a throwaway store; per class,
    how many calls the rule decided right (fired on the mistake, silent on the look-alike)."""
    import tempfile

    sys.path.insert(0, str(ROOT / "tests"))
    from test_rules_probes import score

    from memory_cli.store.db import Store

    with tempfile.TemporaryDirectory() as d:
        n = iter(range(10_000))
        right, total, failures = score(lambda: Store.open(Path(d) / f"p{next(n)}.db"))
    print(f"\npromoted rules: {right}/{total} calls decided right ({right / total:.1%}; target 95%)")
    for cls, message, call, want, rule in failures:
        print(f"  [{cls}] {message!r}: {call[0]} {call[1]} should {'fire' if want else 'pass'}; rule {rule}")


if __name__ == "__main__":
    raise SystemExit(main())
