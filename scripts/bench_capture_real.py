#!/usr/bin/env python3
"""Correction detection scored on prompts people really typed (tests/fixtures/real/prompts.jsonl).

The labelled sets in tests/fixtures/correction_corpus*.py were written by the people building
the detector; these prompts were not: they come from Claude Code session logs that strangers
committed to public repositories, each labelled by hand (docs/corrections.md). The rules were
never tuned on them, so the rules' figures here are held out; the learned model is trained on
them (scripts/train_capture_model.py), so the "rules + model" figures are in-sample and say only
that it fits them. The held-out figures of the model, by person, come from
scripts/cv_capture_real.py.

Prints, for the hand-written rules alone and for the detector as shipped (rules, then the
learned model for short prompts they pass):
- precision, recall and F1 over all prompts, and again without the borderline ones;
- recall per kind of correction (pushback, standing; with and without a reusable lesson):
  the detector does not tell the kinds apart, so precision is only overall;
- the same counts per person, largest first, and their mean over people: one person's
  phrasing recurs across their prompts, so a figure carried by one person is not a figure
  about people;
- with ``--show N``, up to N misses and N false alarms, each cut to one line.

    .venv/bin/python scripts/bench_capture_real.py [--show 20]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

from real_prompts import by_person, load_prompts  # noqa: E402

from memory_cli.capture.detect import detect, detect_by_rules  # noqa: E402

JUDGES = (("rules", detect_by_rules), ("rules + model", detect))


def scores(rows: list[dict], hits: dict[int, bool]) -> tuple[int, int, int, int, float, float, float]:
    """TP, FP, FN, TN, precision, recall, F1 of the rows (by index into ``hits``)."""
    tp = sum(1 for i, r in rows if r["correction"] and hits[i])
    fp = sum(1 for i, r in rows if not r["correction"] and hits[i])
    fn = sum(1 for i, r in rows if r["correction"] and not hits[i])
    tn = len(rows) - tp - fp - fn
    p = tp / (tp + fp) if tp + fp else 0.0
    rc = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * rc / (p + rc) if p + rc else 0.0
    return tp, fp, fn, tn, p, rc, f1


def line(name: str, judge: str, rows, hits) -> str:
    tp, fp, fn, tn, p, r, f1 = scores(rows, hits)
    pos = tp + fn
    return f"{name:<28}{judge:<15}{len(rows):>6}{pos:>6}{tp:>5}{fp:>5}{fn:>5}{tn:>5}{p:>7.2f}{r:>7.2f}{f1:>7.2f}"


def one_line(text: str, width: int = 110) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", type=int, default=0, help="list up to N misses and N false alarms")
    args = ap.parse_args()
    prompts = load_prompts()
    rows = list(enumerate(prompts))
    hits = {label: {i: judge(r["prompt"]) is not None for i, r in rows} for label, judge in JUDGES}
    people = by_person(prompts)
    corr = [r for r in prompts if r["correction"]]
    print(
        f"{len(prompts)} prompts from {len(people)} people, "
        f"{len({r['session'] for r in prompts})} sessions; {len(corr)} corrections "
        f"({sum(r['kind'] == 'pushback' for r in corr)} pushback, "
        f"{sum(r['kind'] == 'standing' for r in corr)} standing; "
        f"{sum(bool(r['lesson']) for r in corr)} with a lesson), "
        f"{sum(r['borderline'] for r in prompts)} borderline\n"
    )
    head = f"{'set':<28}{'detector':<15}{'rows':>6}{'pos':>6}{'TP':>5}{'FP':>5}{'FN':>5}{'TN':>5}{'prec':>7}{'rec':>7}{'F1':>7}"
    print(head)
    strict = [(i, r) for i, r in rows if not r["borderline"]]
    for label, _ in JUDGES:
        print(line("all", label, rows, hits[label]))
        print(line("without borderline", label, strict, hits[label]))
    print("\nrecall per kind (the detector does not tell kinds apart)")
    for label, _ in JUDGES:
        for name, pick in (
            ("pushback", lambda r: r["kind"] == "pushback"),
            ("standing", lambda r: r["kind"] == "standing"),
            ("with a lesson", lambda r: r["correction"] and r["lesson"]),
            ("bare verdict (no lesson)", lambda r: r["correction"] and not r["lesson"]),
            ("pushback, not borderline", lambda r: r["kind"] == "pushback" and not r["borderline"]),
        ):
            sel = [i for i, r in rows if pick(r)]
            found = sum(hits[label][i] for i in sel)
            rate = found / len(sel) if sel else 0.0
            print(f"  {name:<28}{label:<15}{found:>4} of {len(sel):<4} recall {rate:.2f}")
    print("\nby person (rules + model), largest first")
    print(f"  {'person':<24}{'prompts':>8}{'corr.':>6}{'TP':>5}{'FP':>5}{'FN':>5}{'prec':>7}{'rec':>7}")
    index = {id(r): i for i, r in rows}
    for person, own in sorted(people.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        sub = [(index[id(r)], r) for r in own]
        tp, fp, fn, _tn, p, r, _f1 = scores(sub, hits["rules + model"])
        ps = f"{p:.2f}" if tp + fp else "-"
        rs = f"{r:.2f}" if tp + fn else "-"
        print(f"  {person[:23]:<24}{len(own):>8}{tp + fn:>6}{tp:>5}{fp:>5}{fn:>5}{ps:>7}{rs:>7}")
    per = [scores([(index[id(r)], r) for r in own], hits["rules + model"]) for own in people.values()]
    with_corr = [sc for sc in per if sc[0] + sc[2]]
    flagged = [sc for sc in per if sc[0] + sc[1]]
    if with_corr:
        mean_r = sum(sc[5] for sc in with_corr) / len(with_corr)
        mean_p = sum(sc[4] for sc in flagged) / len(flagged) if flagged else 0.0
        print(
            f"  mean over people: recall {mean_r:.2f} ({len(with_corr)} people with a correction), "
            f"precision {mean_p:.2f} ({len(flagged)} people with an alarm)"
        )
    others = [(i, r) for i, r in rows if len(people[r["person"]]) < 10]
    if others:
        print(line("people with < 10 prompts", "rules + model", others, hits["rules + model"]))
    if args.show:
        misses = [r for i, r in rows if r["correction"] and not hits["rules + model"][i]]
        alarms = [(r, detect(r["prompt"])) for i, r in rows if not r["correction"] and hits["rules + model"][i]]
        print(f"\nmisses ({len(misses)}), first {args.show}:")
        for r in misses[: args.show]:
            print(f"  [{r['kind']}{', borderline' if r['borderline'] else ''}] {one_line(r['prompt'])}")
        print(f"\nfalse alarms ({len(alarms)}), first {args.show}:")
        for r, d in alarms[: args.show]:
            print(f"  [{d.kind}] {one_line(r['prompt'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
