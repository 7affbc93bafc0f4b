#!/usr/bin/env python3
"""Choose correction detection on prompts people really typed, held out by person.

The real labelled prompts (tests/fixtures/real/prompts.jsonl) are split into folds by
``person``, never by prompt: one person's phrasing recurs across their prompts, so a prompt-level
split would score the model on phrasings it was trained on. Each fold is held out in turn (5
folds, people balanced by prompt count, repeated with different shuffles); the people of the
other folds train, and choose the threshold by an inner split of those people as
scripts/train_capture_model.py does for the shipped model (the lowest one at which the detector
keeps an inner held-out precision of ``TARGET_PRECISION``, else the one of best F1 among those
keeping ``FLOOR_PRECISION``). The synthetic sets in tests/fixtures (``correction_sets``) may be added to training;
they are never scored here.

Compared on the held-out people, pooled over folds and repeats:
- ``rules``: the hand-written rules alone;
- ``shipped``: the rules, then the model in memory_cli/capture/correction_model.json;
- ``model``/``rules + model``: a model of feature version 1 or 2 (learned.features2) trained on
  real and synthetic, or real only.
Prints precision, recall and F1 overall, without borderline prompts, recall per kind, and the
learning curve of the chosen detector (held-out F1 by number of training people).

    .venv/bin/python scripts/cv_capture_real.py [--repeats 3] [--curve]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
sys.path.insert(0, str(ROOT / "scripts"))

from correction_sets import TUNING_CORRECTIONS, TUNING_LOOKALIKES  # noqa: E402
from real_prompts import load_prompts, load_turns  # noqa: E402
from train_capture_model import BUCKETS, fit  # noqa: E402

from memory_cli.capture import learned  # noqa: E402
from memory_cli.capture.detect import _OWN_MISTAKE, _Masked, detect, detect_by_rules  # noqa: E402
from memory_cli.capture.wording import is_confident  # noqa: E402

FOLDS = 5
TARGET_PRECISION = 0.80
FLOOR_PRECISION = 0.50  # when no threshold reaches the target: best F1 among those keeping this
THRESHOLDS = [round(0.2 + 0.05 * i, 2) for i in range(16)]


def person_folds(rows: list[dict], seed: int, k: int = FOLDS) -> list[set[str]]:
    """People into ``k`` folds: the few who typed more than a tenth of all prompts go one to a
    fold, each into the lightest so far, so that no fold holds two of them; the others into folds
    drawn at random (``seed``). Repeats with other seeds change who is held out together."""
    size: dict[str, int] = {}
    for r in rows:
        size[r["person"]] = size.get(r["person"], 0) + 1
    rng = random.Random(seed)
    people = sorted(size)
    rng.shuffle(people)
    big = sorted((p for p in people if size[p] * 10 > len(rows)), key=lambda p: -size[p])
    folds: list[set[str]] = [set() for _ in range(k)]
    load = [0] * k
    order = list(range(k))
    rng.shuffle(order)
    for p in big:
        i = min(order, key=lambda j: load[j])
        folds[i].add(p)
        load[i] += size[p]
    for p in people:
        if p not in big:
            folds[rng.randrange(k)].add(p)
    return [f for f in folds if f]


class Data:
    """The real and synthetic prompts with their features and rule verdicts computed once."""

    def __init__(self) -> None:
        self.real = load_prompts()
        self.turns = load_turns()
        self.synth = [(m, 1) for _, m in TUNING_CORRECTIONS] + [(m, 0) for _, m in TUNING_LOOKALIKES]
        random.Random(1).shuffle(self.synth)
        self.masked = [_Masked(r["prompt"][:4000]).text for r in self.real]
        self.rules = [detect_by_rules(r["prompt"]) is not None for r in self.real]
        self.told = [is_confident(detect(r["prompt"]), r["prompt"]) for r in self.real]
        self.own = [bool(_OWN_MISTAKE.search(r["prompt"][:4000])) for r in self.real]
        self.feats = {
            v: [learned.indexes(t, BUCKETS, v, turn) for t, turn in zip(self.masked, self.turns)] for v in (1, 2, 3)
        }
        self.synth_feats = {v: [learned.indexes(_Masked(m).text, BUCKETS, v) for m, _ in self.synth] for v in (1, 2, 3)}

    def train(self, idx: list[int], version: int, synthetic: bool) -> dict:
        rows = [(self.feats[version][i], int(self.real[i]["correction"])) for i in idx]
        if synthetic:
            rows += [(f, y) for f, (_, y) in zip(self.synth_feats[version], self.synth)]
        model = fit(rows)
        model["features"] = version
        from array import array

        model["weights"] = array("f", model["weights"])
        return model

    def probs(self, model: dict, idx: list[int], max_words: int | None) -> dict[int, float]:
        out = {}
        for i in idx:
            text = self.masked[i]
            if self.own[i] or (max_words and len(text.split()) > max_words):
                out[i] = 0.0
            else:
                out[i] = learned.probability(text, model, self.turns[i])
        return out


def counts(data: Data, idx, hit) -> tuple[int, int, int]:
    tp = sum(1 for i in idx if hit(i) and data.real[i]["correction"])
    fp = sum(1 for i in idx if hit(i) and not data.real[i]["correction"])
    fn = sum(1 for i in idx if not hit(i) and data.real[i]["correction"])
    return tp, fp, fn


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def choose_threshold(data: Data, train_idx: list[int], version, synthetic, with_rules, max_words, seed) -> float:
    """The threshold from an inner split of the training people."""
    inner = person_folds([data.real[i] for i in train_idx], seed + 100, k=4)
    scored: dict[int, float] = {}
    for fold in inner:
        tr = [i for i in train_idx if data.real[i]["person"] not in fold]
        te = [i for i in train_idx if data.real[i]["person"] in fold]
        if not tr or not te:
            continue
        scored.update(data.probs(data.train(tr, version, synthetic), te, max_words))
    idx = list(scored)
    best, best_f1 = THRESHOLDS[-1], -1.0
    for t in THRESHOLDS:
        p, r, f1 = prf(*counts(data, idx, lambda i, t=t: (with_rules and data.rules[i]) or scored[i] >= t))
        if p >= TARGET_PRECISION:
            return t
        if p >= FLOOR_PRECISION and f1 > best_f1:
            best, best_f1 = t, f1
    return best


VARIANTS = {
    # name: (feature version, synthetic in training, rules first, max words scored[, fixed threshold])
    "model v1, real+synthetic": (1, True, False, 25),
    "rules + model v1, real+synthetic": (1, True, True, 25),
    "model v2, real only": (2, False, False, None),
    "model v2, real+synthetic": (2, True, False, None),
    "rules + model v2, real+synthetic": (2, True, True, None),
    "model v3, real+synthetic": (3, True, False, None),
    "rules + model v3, real+synthetic": (3, True, True, None),
    # at a fixed threshold: the one shipped before the turn was read (v2), the one shipped now (v3)
    "rules + model v2 at 0.45": (2, True, True, None, 0.45),
    "rules + model v3 at 0.35": (3, True, True, None, 0.35),
    "rules + model v3 at 0.25": (3, True, True, None, 0.25),
}


def report(data: Data, name: str, hits: dict[int, bool]) -> None:
    idx = list(hits)
    strict = [i for i in idx if not data.real[i]["borderline"]]
    tp, fp, fn = counts(data, idx, hits.__getitem__)
    p, r, f1 = prf(tp, fp, fn)
    sp, sr, sf = prf(*counts(data, strict, hits.__getitem__))
    kinds = []
    for kind in ("pushback", "standing"):
        sel = [i for i in idx if data.real[i]["kind"] == kind]
        kinds.append(sum(hits[i] for i in sel) / max(1, len(sel)))
    print(
        f"{name:<36}{tp:>5}{fp:>5}{fn:>5}{p:>7.2f}{r:>7.2f}{f1:>7.2f}"
        f"{sp:>7.2f}{sr:>7.2f}{sf:>7.2f}{kinds[0]:>8.2f}{kinds[1]:>8.2f}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--curve", action="store_true", help="also print the learning curve")
    ap.add_argument("--only", help="only the variants whose name contains this")
    args = ap.parse_args()
    data = Data()
    n = len(data.real)
    print(
        f"{n} real prompts, {len({r['person'] for r in data.real})} people; {FOLDS} folds by person x "
        f"{args.repeats} repeats; figures pooled over the held-out folds of every repeat\n"
    )
    print(
        f"{'detector':<36}{'TP':>5}{'FP':>5}{'FN':>5}{'prec':>7}{'rec':>7}{'F1':>7}"
        f"{'P-nb':>7}{'R-nb':>7}{'F1-nb':>7}{'R-push':>8}{'R-stand':>8}"
    )
    before = data.train([], 1, True)  # the model as it was: synthetic sets only, threshold 0.80
    before_p = data.probs(before, list(range(n)), 25)
    pooled: dict[str, dict[int, bool]] = {
        "rules": {},
        "before: rules + model v1, synthetic only": {},
        "told to Claude (shipped)": {},
    }
    chosen: dict[str, list[float]] = {}
    for rep in range(args.repeats):
        for k, fold in enumerate(person_folds(data.real, rep)):
            test = [i for i in range(n) if data.real[i]["person"] in fold]
            train = [i for i in range(n) if data.real[i]["person"] not in fold]
            for i in test:
                pooled["rules"][rep * n + i] = data.rules[i]
                pooled["before: rules + model v1, synthetic only"][rep * n + i] = data.rules[i] or before_p[i] >= 0.8
                pooled["told to Claude (shipped)"][rep * n + i] = data.told[i]
            for name, (version, synthetic, with_rules, max_words, *fixed) in VARIANTS.items():
                if args.only and args.only not in name:
                    continue
                t = (
                    fixed[0]
                    if fixed
                    else choose_threshold(data, train, version, synthetic, with_rules, max_words, rep * 10 + k)
                )
                chosen.setdefault(name, []).append(t)
                p = data.probs(data.train(train, version, synthetic), test, max_words)
                for i in test:
                    pooled.setdefault(name, {})[rep * n + i] = (with_rules and data.rules[i]) or p[i] >= t
    # report() indexes data.real by the prompt index: fold the repeat offset back in
    for name, hits in pooled.items():
        flat = _Pooled(data, hits)
        flat.show(name)
    for name, ts in chosen.items():
        print(f"  thresholds chosen for {name}: {', '.join(f'{t:.2f}' for t in ts)}")
    if args.curve:
        learning_curve(data, args.repeats)
    return 0


class _Pooled:
    """Held-out verdicts of several repeats, each prompt once per repeat."""

    def __init__(self, data: Data, hits: dict[int, bool]) -> None:
        self.data, self.hits = data, hits

    def show(self, name: str) -> None:
        n = len(self.data.real)
        rows = [(self.data.real[key % n], v) for key, v in self.hits.items()]

        def c(sel):
            tp = sum(1 for r, v in sel if v and r["correction"])
            fp = sum(1 for r, v in sel if v and not r["correction"])
            fn = sum(1 for r, v in sel if not v and r["correction"])
            return tp, fp, fn

        tp, fp, fn = c(rows)
        p, r, f1 = prf(tp, fp, fn)
        sp, sr, sf = prf(*c([x for x in rows if not x[0]["borderline"]]))
        kind = {k: [v for r, v in rows if r["kind"] == k] for k in ("pushback", "standing")}
        rk = {k: sum(v) / max(1, len(v)) for k, v in kind.items()}
        print(
            f"{name:<36}{tp:>5}{fp:>5}{fn:>5}{p:>7.2f}{r:>7.2f}{f1:>7.2f}"
            f"{sp:>7.2f}{sr:>7.2f}{sf:>7.2f}{rk['pushback']:>8.2f}{rk['standing']:>8.2f}"
        )


def learning_curve(data: Data, repeats: int, version: int = 3) -> None:
    """Held-out F1 of rules + model v3 (real + synthetic) by how many people trained it, at the
    shipped model's threshold (so that the curve shows the model, not the threshold's choice)."""
    n = len(data.real)
    t = learned.load()["threshold"]
    print(f"\nlearning curve: rules + model v{version} (real + synthetic), held out by person, threshold {t}")
    print(f"{'training people':>16}{'prompts':>9}{'prec':>7}{'rec':>7}{'F1':>7}")
    for m in (0, 2, 4, 8, 16, 24, 32):
        tot, sizes = [0, 0, 0], []
        for rep in range(repeats):
            for k, fold in enumerate(person_folds(data.real, rep)):
                test = [i for i in range(n) if data.real[i]["person"] in fold]
                people = sorted({data.real[i]["person"] for i in range(n)} - fold)
                if m > len(people):
                    continue
                random.Random(rep * 100 + k).shuffle(people)
                keep = set(people[:m])
                train = [i for i in range(n) if data.real[i]["person"] in keep]
                sizes.append(len(train))
                p = data.probs(data.train(train, version, True), test, None)
                for j, x in enumerate(counts(data, test, lambda i, p=p: data.rules[i] or p[i] >= t)):
                    tot[j] += x
        if sizes:
            print(f"{m:>16}{sum(sizes) // len(sizes):>9}" + "".join(f"{x:>7.2f}" for x in prf(*tot)))


if __name__ == "__main__":
    sys.exit(main())
