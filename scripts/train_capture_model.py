#!/usr/bin/env python3
"""Train the learned second opinion of correction detection (memory_cli/capture/learned.py).

Reads the labelled sets in tests/fixtures that ``correction_sets`` names for tuning (never the
held-out one), fits an L2-regularised logistic regression over
``learned.features`` hashed into ``BUCKETS`` buckets (``learned.indexes``) by plain gradient
descent (numpy, deterministic), and chooses its
threshold by 10-fold cross-validation: the lowest of 0.50, 0.55, ... 0.95 at which the
detector as shipped (rules, then the model for prompts the rules pass) keeps a held-out
precision of at least 0.97 over the folds. Writes memory_cli/capture/correction_model.json with
the cross-validated figures, and prints them.

    .venv/bin/python scripts/train_capture_model.py [--check] [--top N]

``--check`` trains and compares with the shipped file instead of writing it (exit 1 when they
differ): the model in the package is the one these sets give. ``--top N`` also prints the N
features of the training prompts with the largest weights either way (the shipped file holds
buckets, not names).
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

from memory_cli.capture import learned  # noqa: E402
from memory_cli.capture.detect import _Masked, detect_by_rules  # noqa: E402

L2 = 1.0  # regularisation strength (scaled by the number of examples)
EPOCHS = 300
STEP = 2.5
MAX_WORDS = 25  # longer prompts are mostly pasted text, where the model fires on 4 paragraphs in 10
BUCKETS = 1 << 16  # for about 13,000 distinct features: few share a bucket (1 << 15 let collisions flip a look-alike)
TARGET_PRECISION = 0.97
FOLDS = 10


def examples() -> list[tuple[str, int]]:
    rows = [(m, 1) for _, m in TUNING_CORRECTIONS] + [(m, 0) for _, m in TUNING_LOOKALIKES]
    random.Random(1).shuffle(rows)
    return rows


def feats(message: str) -> set[int]:
    return learned.indexes(_Masked(message).text, BUCKETS)


def fit(rows: list[tuple[set[int], int]]) -> dict:
    """Gradient descent on the sparse design matrix: each prompt holds about 40 of the 65,536
    buckets, so products are sums over (row, bucket) pairs, not dense matrix products."""
    pairs = [(i, j) for i, (f, _) in enumerate(rows) for j in sorted(f)]
    r_idx = np.array([i for i, _ in pairs])
    c_idx = np.array([j for _, j in pairs])
    y = np.array([label for _, label in rows], dtype=float)
    n = len(rows)
    w, b = np.zeros(BUCKETS), 0.0
    for _ in range(EPOCHS):
        p = 1.0 / (1.0 + np.exp(-(np.bincount(r_idx, weights=w[c_idx], minlength=n) + b)))
        grad = np.bincount(c_idx, weights=(p - y)[r_idx], minlength=BUCKETS)
        w -= STEP * (grad + L2 * w) / n
        b -= STEP * float((p - y).mean())
    weights = w.astype("<f4")
    return {
        "bias": round(b, 4),
        "buckets": BUCKETS,
        "weights_f32le": base64.b64encode(weights.tobytes()).decode("ascii"),
        "weights": weights.tolist(),
    }


def top_features(model: dict, rows: list[tuple[str, int]], n: int) -> None:
    names = {f for m, _ in rows for f in learned.features(_Masked(m).text)}
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
    scored: list[tuple[str, float, int]] = []
    for k in range(FOLDS):
        train = [(feats(m), y) for i, (m, y) in enumerate(rows) if i % FOLDS != k]
        model = fit(train)
        for m, y in rows[k::FOLDS]:
            text = _Masked(m).text
            p = learned.probability(text, model) if len(text.split()) <= MAX_WORDS else 0.0
            scored.append((m, p, y))
    by_rules = {m: detect_by_rules(m) is not None for m, _ in rows}
    n_pos = sum(y for _, y in rows)

    def figures(th: float) -> dict:
        tp = sum(1 for m, p, y in scored if y and (by_rules[m] or p >= th))
        fp = sum(1 for m, p, y in scored if not y and (by_rules[m] or p >= th))
        mtp = sum(1 for m, p, y in scored if y and p >= th)
        mfp = sum(1 for m, p, y in scored if not y and p >= th)
        return {
            "precision": round(tp / (tp + fp), 4),
            "recall": round(tp / n_pos, 4),
            "model_alone_precision": round(mtp / max(1, mtp + mfp), 4),
            "model_alone_recall": round(mtp / n_pos, 4),
        }

    thresholds = [round(0.5 + 0.05 * i, 2) for i in range(10)]
    threshold = next((t for t in thresholds if figures(t)["precision"] >= TARGET_PRECISION), thresholds[-1])
    final = fit([(feats(m), y) for m, y in rows])
    out = {
        "about": "memory_cli/capture/learned.py; written by scripts/train_capture_model.py",
        "threshold": threshold,
        "max_words": MAX_WORDS,
        "trained_on": {"corrections": n_pos, "look_alikes": len(rows) - n_pos},
        "cross_validated": {"folds": FOLDS, **figures(threshold)},
        "bias": final["bias"],
        "buckets": BUCKETS,
        "weights_f32le": final["weights_f32le"],
    }
    print(f"{'threshold':>10}{'precision':>11}{'recall':>8}{'model P':>9}{'model R':>9}  (10-fold, rules + model)")
    for t in thresholds:
        f = figures(t)
        mark = "  <- chosen" if t == threshold else ""
        print(
            f"{t:>10.2f}{f['precision']:>11.3f}{f['recall']:>8.3f}"
            f"{f['model_alone_precision']:>9.3f}{f['model_alone_recall']:>9.3f}{mark}"
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
