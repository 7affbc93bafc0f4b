#!/usr/bin/env python3
"""How far local models get at telling corrections on real prompts, held out by person.

The shipped detector is a logistic regression over hashed words (memory_cli/capture/learned.py),
cheap enough for the UserPromptSubmit hook. This script asks whether anything local does much
better, on the same real prompts (tests/fixtures/real/prompts.jsonl) and the same person folds as
scripts/cv_capture_real.py (5 folds x ``--repeats``), each model alone (no rules):

- ``words``: learned.features2, the prompt's words and shape (feature version 2);
- ``words + turn``: learned.features3, the same and the agent's last turn (version 3, shipped);
- ``sentence vector + turn``: the prompt's all-MiniLM-L6-v2 vector (the model memory-cli ships
  for search), its length and the turn's flags, a dense logistic regression;
- ``sentence vectors + turn``: the same and the vector of the agent's last words.

Prints ranking quality (ROC AUC, average precision: independent of any threshold) and precision /
recall at a few thresholds. The vectors need the embedding model (``memory-cli install`` puts it
in place); they take a minute or two to compute on two cores. Numpy only.

    .venv/bin/python scripts/cv_capture_ceiling.py [--repeats 3] [--no-vectors]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
sys.path.insert(0, str(ROOT / "scripts"))

from correction_sets import TUNING_CORRECTIONS, TUNING_LOOKALIKES  # noqa: E402
from cv_capture_real import person_folds  # noqa: E402
from real_prompts import load_prompts, load_turns  # noqa: E402
from train_capture_model import BUCKETS, fit  # noqa: E402

from memory_cli.capture import learned  # noqa: E402
from memory_cli.capture.detect import _Masked  # noqa: E402

THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    """ROC AUC by ranks (ties averaged)."""
    order = scores.argsort()
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    for s in np.unique(scores):
        same = scores == s
        if same.sum() > 1:
            ranks[same] = ranks[same].mean()
    pos = y == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def average_precision(scores: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(-scores, kind="stable")
    hits = y[order] == 1
    cum = np.cumsum(hits)
    precision_at = cum / np.arange(1, len(y) + 1)
    return float(precision_at[hits].sum() / max(1, hits.sum()))


def dense_fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, epochs: int = 3000) -> tuple:
    """L2-regularised logistic regression (penalty ``l2``/2 |w|^2 beside the summed log loss),
    by gradient descent with a step of the inverse Lipschitz bound: the vectors are unit length
    and the flags 0 or 1, so the columns need no scaling."""
    n = len(y)
    w, b = np.zeros(x.shape[1]), 0.0
    step = 1.0 / (0.25 * np.linalg.norm(x, 2) ** 2 / n + l2 / n)
    for _ in range(epochs):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        err = p - y
        w -= step * (x.T @ err + l2 * w) / n
        b -= step * err.mean()
    return w, b


def dense_predict(model: tuple, x: np.ndarray) -> np.ndarray:
    w, b = model
    return 1 / (1 + np.exp(-(x @ w + b)))


def flag_columns(turns, prompts) -> np.ndarray:
    names = ["NONE", "UNK", "EDIT", "ERR", "REJ", "INT", "ASK", "DONE", "T0", "T1", "T2", "T3"]
    rows = []
    for turn, r in zip(turns, prompts):
        flags = set(learned.turn_flags(turn))
        words = len(r["prompt"].split())
        rows.append(
            [float(n in flags) for n in names] + [math.log1p(words) / 5, float(r["prompt"].rstrip().endswith("?"))]
        )
    return np.array(rows)


def report(name: str, scores: np.ndarray, y: np.ndarray) -> None:
    cells = []
    for t in THRESHOLDS:
        hit = scores >= t
        tp = int((hit & (y == 1)).sum())
        cells.append(f"{tp / max(1, hit.sum()):.2f}/{tp / max(1, (y == 1).sum()):.2f}")
    print(
        f"{name:<28}{auc(scores, y):>6.3f}{average_precision(scores, y):>6.3f}  " + "  ".join(f"{c:>9}" for c in cells)
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-vectors", action="store_true", help="skip the sentence-vector models")
    args = ap.parse_args()
    prompts, turns = load_prompts(), load_turns()
    y = np.array([int(r["correction"]) for r in prompts])
    masked = [_Masked(r["prompt"][:4000]).text for r in prompts]
    synth = [(m, 1) for _, m in TUNING_CORRECTIONS] + [(m, 0) for _, m in TUNING_LOOKALIKES]
    sparse = {
        "words": (
            [learned.indexes(t, BUCKETS, 2) for t in masked],
            [learned.indexes(_Masked(m).text, BUCKETS, 2) for m, _ in synth],
        ),
        "words + turn": (
            [learned.indexes(t, BUCKETS, 3, turn) for t, turn in zip(masked, turns)],
            [learned.indexes(_Masked(m).text, BUCKETS, 3) for m, _ in synth],
        ),
    }
    dense = {}
    if not args.no_vectors:
        from memory_cli.embeddings.model import resolve_model_path
        from memory_cli.embeddings.numpy_encoder import NumpyEncoder

        encoder = NumpyEncoder(resolve_model_path())
        flags = flag_columns(turns, prompts)
        said = encoder.encode([(t.text[-500:] if t is not None and t.found else "") or "(none)" for t in turns])
        said *= np.array([[1.0 if t is not None and t.found else 0.0] for t in turns])
        typed = encoder.encode([r["prompt"][:1000] for r in prompts])
        dense["sentence vector + turn"] = np.hstack([typed, flags])
        dense["sentence vectors + turn"] = np.hstack([typed, said, flags])
    print(
        f"{len(prompts)} real prompts, {len({r['person'] for r in prompts})} people, 5 folds by person x "
        f"{args.repeats}; each model alone, no rules; precision/recall at thresholds {', '.join(map(str, THRESHOLDS))}\n"
    )
    print(f"{'model':<28}{'AUC':>6}{'AP':>6}  " + "  ".join(f"{t:>9}" for t in THRESHOLDS))
    for name in [*sparse, *dense]:
        pooled, labels = [], []
        for rep in range(args.repeats):
            scores = np.zeros(len(prompts))
            for fold in person_folds(prompts, rep):
                test = np.array([r["person"] in fold for r in prompts])
                if name in sparse:
                    real, synthetic = sparse[name]
                    rows = [(real[i], int(y[i])) for i in np.flatnonzero(~test)] + [
                        (f, lab) for f, (_, lab) in zip(synthetic, synth)
                    ]
                    model = fit(rows)
                    w = np.array(model["weights"])
                    for i in np.flatnonzero(test):
                        z = model["bias"] + w[list(real[i])].sum()
                        scores[i] = 1 / (1 + math.exp(-max(-60.0, min(60.0, z))))
                else:
                    model = dense_fit(dense[name][~test], y[~test])
                    scores[test] = dense_predict(model, dense[name][test])
            pooled.append(scores)
            labels.append(y)
        report(name, np.concatenate(pooled), np.concatenate(labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
