#!/usr/bin/env python3
"""Train the learned second opinion of correction detection (memory_cli/capture/learned.py).

Trains on two kinds of labelled prompts: the synthetic sets in tests/fixtures that
``correction_sets`` names for tuning (never the held-out one), and the prompts people really
typed (tests/fixtures/real/prompts.jsonl, labelled by hand). Fits an L2-regularised logistic
regression over ``learned.features3`` (the prompt's words and shape, and the agent's last turn
before it, ``tests/fixtures/real/context.jsonl``) hashed into ``BUCKETS`` buckets (``learned.indexes``) by
plain gradient descent (numpy, deterministic).

The threshold is chosen on the real prompts held out by person (``FOLDS`` folds of people,
balanced by prompt count; the synthetic sets are in every training fold): the lowest of 0.20,
0.25, ... 0.95 at which the detector as shipped (rules, then the model for prompts they pass)
reaches a held-out precision of ``TARGET_PRECISION``; when none does, the one of best F1 among
those that keep ``FLOOR_PRECISION``. A model hit is only kept quietly for review, never told to
Claude (``memory_cli/capture/hook.py``), so a threshold that finds more at lower precision costs
the person a longer review queue, not a wrong line in the session. The synthetic sets are also
scored by 10-fold cross-validation (the real prompts in every training fold). Writes
memory_cli/capture/correction_model.json with both figures, and prints them.

    .venv/bin/python scripts/train_capture_model.py [--check] [--top N]

``--check`` trains and compares with the shipped file instead of writing it (exit 1 when they
differ): the model in the package is the one these sets give. ``--top N`` also prints the N
features of the training prompts with the largest weights either way (the shipped file holds
buckets, not names). ``scripts/cv_capture_real.py`` compares this model with the rules and with
other training choices, and prints the learning curve.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

from correction_sets import TUNING_CORRECTIONS, TUNING_LOOKALIKES  # noqa: E402
from real_prompts import load_prompts, load_turns  # noqa: E402

from memory_cli.capture import learned  # noqa: E402
from memory_cli.capture.detect import _OWN_MISTAKE, _Masked, detect_by_rules  # noqa: E402

L2 = 1.0  # regularisation strength (scaled by the number of examples)
EPOCHS = 300
STEP = 2.5
MAX_WORDS = 200  # longer prompts are pasted text; features2 reads only the first 60 words anyway
BUCKETS = 1 << 16  # for about 20,000 distinct features: few share a bucket (1 << 15 let collisions flip a look-alike)
FEATURES = 3  # learned.features3: any script, apostrophes optional, the prompt's shape, the agent's last turn
TARGET_PRECISION = 0.80
FLOOR_PRECISION = 0.50
FOLDS = 5  # folds of real people
SYNTHETIC_FOLDS = 10
THRESHOLDS = [round(0.2 + 0.05 * i, 2) for i in range(16)]


def examples() -> list[tuple[str, int]]:
    rows = [(m, 1) for _, m in TUNING_CORRECTIONS] + [(m, 0) for _, m in TUNING_LOOKALIKES]
    random.Random(1).shuffle(rows)
    return rows


def real_examples() -> list[dict]:
    """The real prompts with their masked text, the agent's turn before them and the person who
    typed them."""
    return [
        {
            "text": _Masked(r["prompt"][:4000]).text,
            "prompt": r["prompt"],
            "turn": turn,
            "y": int(r["correction"]),
            "person": r["person"],
        }
        for r, turn in zip(load_prompts(), load_turns(), strict=True)
    ]


def person_folds(people_sizes: dict[str, int], k: int, seed: int = 0) -> list[set[str]]:
    """People into ``k`` folds of about equal prompt counts: shuffled with ``seed``, then the
    largest first into the fold with fewest prompts so far."""
    people = sorted(people_sizes)
    random.Random(seed).shuffle(people)
    people.sort(key=lambda p: -people_sizes[p])
    folds: list[set[str]] = [set() for _ in range(k)]
    load = [0] * k
    for p in people:
        i = min(range(k), key=lambda j: (load[j], j))
        folds[i].add(p)
        load[i] += people_sizes[p]
    return folds


def feats(message: str) -> set[int]:
    return learned.indexes(_Masked(message).text, BUCKETS, FEATURES)


def scored_probability(text: str, model: dict, turn=None) -> float:
    return learned.probability(text, model, turn) if len(text.split()) <= MAX_WORDS else 0.0


def fit(rows: list[tuple[set[int], int]], weights: list[float] | None = None) -> dict:
    """Gradient descent on the sparse design matrix: each prompt holds about 40 of the 65,536
    buckets, so products are sums over (row, bucket) pairs, not dense matrix products.
    ``weights`` counts some examples more than others (all 1 when None)."""
    pairs = [(i, j) for i, (f, _) in enumerate(rows) for j in sorted(f)]
    r_idx = np.array([i for i, _ in pairs])
    c_idx = np.array([j for _, j in pairs])
    y = np.array([label for _, label in rows], dtype=float)
    n = len(rows)
    sw = np.ones(n) if weights is None else np.array(weights, dtype=float)
    w, b = np.zeros(BUCKETS), 0.0
    for _ in range(EPOCHS):
        p = 1.0 / (1.0 + np.exp(-(np.bincount(r_idx, weights=w[c_idx], minlength=n) + b)))
        err = (p - y) * sw
        grad = np.bincount(c_idx, weights=err[r_idx], minlength=BUCKETS)
        w -= STEP * (grad + L2 * w) / n
        b -= STEP * float(err.mean())
    weights = w.astype("<f4")
    return {
        "bias": round(b, 4),
        "buckets": BUCKETS,
        "weights_f32le": base64.b64encode(weights.tobytes()).decode("ascii"),
        "weights": weights.tolist(),
    }


def top_features(model: dict, rows: list[tuple[str, int]], n: int) -> None:
    names = {f for m, _ in rows for f in learned.features2(_Masked(m).text)}
    weight = {f: model["weights"][learned.bucket(f, BUCKETS)] for f in names}
    ranked = sorted(weight.items(), key=lambda kv: kv[1])
    print("towards a correction: " + ", ".join(f"{f} {w:+.2f}" for f, w in reversed(ranked[-n:])))
    print("away from one:        " + ", ".join(f"{f} {w:+.2f}" for f, w in ranked[:n]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the shipped model instead of writing it")
    ap.add_argument("--top", type=int, default=0, metavar="N", help="print the N weightiest features either way")
    args = ap.parse_args()

    rows = examples()
    real = real_examples()
    synth_feats = [(feats(m), y) for m, y in rows]
    real_feats = [(learned.indexes(r["text"], BUCKETS, FEATURES, r["turn"]), r["y"]) for r in real]

    def trained(feat_rows):
        model = fit(feat_rows)
        model["features"] = FEATURES
        return model

    # real prompts, held out by person
    sizes: dict[str, int] = {}
    for r in real:
        sizes[r["person"]] = sizes.get(r["person"], 0) + 1
    real_scored: list[tuple[float, int, bool]] = []
    blind_scored: list[tuple[float, int, bool]] = []  # the same, without the agent's turn
    for fold in person_folds(sizes, FOLDS):
        train = [f for f, r in zip(real_feats, real) if r["person"] not in fold] + synth_feats
        model = trained(train)
        for r in real:
            if r["person"] in fold:
                own = bool(_OWN_MISTAKE.search(r["prompt"][:4000]))
                p = 0.0 if own else scored_probability(r["text"], model, r["turn"])
                rule = detect_by_rules(r["prompt"]) is not None
                real_scored.append((p, r["y"], rule))
                blind = 0.0 if own else scored_probability(r["text"], model, None)
                blind_scored.append((blind, r["y"], rule))
    # synthetic prompts, 10-fold (the real ones in every training fold)
    synth_scored: list[tuple[float, int, bool]] = []
    for k in range(SYNTHETIC_FOLDS):
        train = [f for i, f in enumerate(synth_feats) if i % SYNTHETIC_FOLDS != k] + real_feats
        model = trained(train)
        for m, y in rows[k::SYNTHETIC_FOLDS]:
            synth_scored.append((scored_probability(_Masked(m).text, model), y, detect_by_rules(m) is not None))

    def figures(scored, th: float) -> dict:
        n_pos = sum(y for _, y, _ in scored)
        tp = sum(1 for p, y, rule in scored if y and (rule or p >= th))
        fp = sum(1 for p, y, rule in scored if not y and (rule or p >= th))
        mtp = sum(1 for p, y, _ in scored if y and p >= th)
        mfp = sum(1 for p, y, _ in scored if not y and p >= th)
        prec, rec = tp / max(1, tp + fp), tp / max(1, n_pos)
        return {
            "precision": round(prec, 4),
            "recall": round(rec, 4),
            "f1": round(2 * prec * rec / (prec + rec), 4) if prec + rec else 0.0,
            "model_alone_precision": round(mtp / max(1, mtp + mfp), 4),
            "model_alone_recall": round(mtp / max(1, n_pos), 4),
        }

    def choose(scored) -> float:
        reached = [t for t in THRESHOLDS if figures(scored, t)["precision"] >= TARGET_PRECISION]
        floor = [t for t in THRESHOLDS if figures(scored, t)["precision"] >= FLOOR_PRECISION] or THRESHOLDS
        return reached[0] if reached else max(floor, key=lambda t: (figures(scored, t)["f1"], -t))

    # One threshold for prompts whose agent turn was read (the hook, with a transcript), one for
    # prompts judged without it (no transcript): each chosen the same way on real held-out people.
    threshold = choose(real_scored)
    threshold_blind = choose(blind_scored)
    final = trained(real_feats + synth_feats)
    n_pos = sum(y for _, y in rows)
    out = {
        "about": "memory_cli/capture/learned.py; written by scripts/train_capture_model.py",
        "threshold": threshold,
        "threshold_without_turn": threshold_blind,
        "max_words": MAX_WORDS,
        "features": FEATURES,
        "trained_on": {
            "synthetic_corrections": n_pos,
            "synthetic_look_alikes": len(rows) - n_pos,
            "real_prompts": len(real),
            "real_corrections": sum(r["y"] for r in real),
            "real_people": len(sizes),
        },
        "held_out_real_people": {"folds": FOLDS, **figures(real_scored, threshold)},
        "held_out_real_people_without_turn": {"folds": FOLDS, **figures(blind_scored, threshold_blind)},
        "cross_validated_synthetic": {"folds": SYNTHETIC_FOLDS, **figures(synth_scored, threshold_blind)},
        "bias": final["bias"],
        "buckets": BUCKETS,
        "weights_f32le": final["weights_f32le"],
    }
    print(
        f"{'threshold':>10}{'precision':>11}{'recall':>8}{'F1':>7}{'model P':>9}{'model R':>9}"
        f"{'blind P':>9}{'blind R':>9}{'synth P':>9}{'synth R':>9}"
        "  (real: held out by person, with / without the agent's turn; synthetic: 10-fold; rules + model)"
    )
    for t in THRESHOLDS:
        f, b, g = figures(real_scored, t), figures(blind_scored, t), figures(synth_scored, t)
        mark = "  <- with the turn" if t == threshold else ""
        mark += "  <- without" if t == threshold_blind else ""
        print(
            f"{t:>10.2f}{f['precision']:>11.3f}{f['recall']:>8.3f}{f['f1']:>7.3f}"
            f"{f['model_alone_precision']:>9.3f}{f['model_alone_recall']:>9.3f}"
            f"{b['precision']:>9.3f}{b['recall']:>9.3f}{g['precision']:>9.3f}{g['recall']:>9.3f}{mark}"
        )
    if args.top:
        top_features(final, rows, args.top)
    text = json.dumps(out, indent=0, sort_keys=False) + "\n"
    path = Path(learned.MODEL_PATH)
    if args.check:
        same = path.exists() and path.read_text(encoding="utf-8") == text
        print("shipped model is up to date" if same else "shipped model differs: run without --check")
        return 0 if same else 1
    path.write_text(text, encoding="utf-8")
    used = sum(1 for w in final["weights"] if w)
    print(f"wrote {path.relative_to(ROOT)} ({used:,} of {BUCKETS:,} buckets used)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
