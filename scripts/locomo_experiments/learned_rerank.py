#!/usr/bin/env python3
"""A learned re-ranking of the first results, scored by the same cross-validation as
``scripts/bench_retrieval_cv.py``: not shipped, measured.

For each of the ten splits, a logistic regression (numpy, class-balanced, L2) is trained on the
three training files' candidates to tell evidence turns from the others, using only what the
shipped ranking already knows about each candidate: its score, its score relative to the
query's best, its rank, its keyword and vector signals and their ranks, the neighbours'
evidence and scores, the cues (subject, date, time expression) and its session's rank among
the sessions of the first 50 results. It then re-orders the first ``--top`` results of the two
held-out files. Inference would be one dot product per candidate (pure Python on the hook path).

    .venv/bin/python scripts/bench_retrieval_cv.py --locomo ../shared/data/locomo/conv-*.json --cache /tmp/cands.pkl
    .venv/bin/python scripts/locomo_experiments/learned_rerank.py /tmp/cands.pkl

Needs numpy (installed with the semantic extra).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import math
import pickle
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_retrieval_cv import recalls  # noqa: E402

from memory_cli.retrieval import fts, fusion, hybrid  # noqa: E402

NAMES = [
    "score",
    "keyword",
    "keyword with context",
    "vector",
    "base",
    "neighbour gain",
    "subject named",
    "date matches",
    "time expression",
    "1/keyword rank",
    "1/vector rank",
    "1/rank",
    "previous vector",
    "next vector",
    "previous keyword",
    "next keyword",
    "score / best score",
    "1/session rank",
    "session best score",
    "query words held",
    "previous score",
    "next score",
    "subject not named",
    "log length",
]


def features(c, w):
    """``(ids, X)``: one row of :data:`NAMES` per ranked candidate, column 0 the shipped score."""
    vec01 = fusion.vector_scores(c.cosines, w) if c.cosines is not None else {}
    kw = c.keyword or {}
    kwc = fusion.with_context(kw, c.previous, w.keyword_context) if kw else {}
    base = fusion.fuse(kwc, vec01, w.keyword)
    rel = fusion.neighbour_bonus(base, c.around, w.neighbours)
    cues = hybrid._cues_of(c)
    order = hybrid.rank(c, w)
    score = dict(order)
    rank = {k: i for i, (k, _s) in enumerate(order)}
    kr = {k: i for i, k in enumerate(sorted(kw, key=kw.get, reverse=True))}
    vr = {k: i for i, k in enumerate(sorted(vec01, key=vec01.get, reverse=True))}
    rows = {e["id"]: e for e in c.rows}
    best = order[0][1] if order else 1.0
    sess: dict = collections.defaultdict(float)
    for k, s in order[:50]:
        sid = rows[k].get("session_id")
        sess[sid] = max(sess[sid], s)
    srank = {sid: i for i, sid in enumerate(sorted(sess, key=sess.get, reverse=True))}
    qt = set(fts.query_terms(c.text))
    ids, X = [], []
    for k, s in order:
        e = rows[k]
        p, n = c.around.get(k, (None, None))
        subj, date, _rej, timed, _con = cues[k]
        sid = e.get("session_id")
        X.append(
            [
                s,
                kw.get(k, 0.0),
                kwc.get(k, 0.0),
                vec01.get(k, 0.0),
                base.get(k, 0.0),
                rel.get(k, 0.0) - base.get(k, 0.0),
                float(subj),
                float(date),
                float(timed),
                1 / (1 + kr.get(k, 400)),
                1 / (1 + vr.get(k, 400)),
                1 / (1 + rank[k]),
                vec01.get(p, 0.0) if p else 0.0,
                vec01.get(n, 0.0) if n else 0.0,
                kw.get(p, 0.0) if p else 0.0,
                kw.get(n, 0.0) if n else 0.0,
                s / (best or 1.0),
                1 / (1 + srank.get(sid, 50)),
                sess.get(sid, 0.0),
                len(qt & set(fts.query_terms(e["content"]))) / max(1, len(qt)),
                score.get(p, 0.0) if p else 0.0,
                score.get(n, 0.0) if n else 0.0,
                float(bool(e["subject"]) and not subj),
                math.log(1 + len(e["content"])),
            ]
        )
        ids.append(k)
    return ids, np.array(X, dtype=float).reshape(len(ids), len(NAMES))


def train(data, idx, cols, top, l2=1e-3, steps=300):
    xs, ys = [], []
    for i in idx:
        for _ids, X, y, _ev in data[i]:
            xs.append(X[:top, cols])
            ys.append(y[:top])
    X, y = np.vstack(xs), np.concatenate(ys)
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = (X - mu) / sd
    w, b = np.zeros(Z.shape[1]), 0.0
    pos = y.mean()
    weight = np.where(y > 0, 0.5 / pos, 0.5 / (1 - pos))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(Z @ w + b)))
        w -= 0.5 * (Z.T @ (weight * (p - y)) / len(y) + l2 * w)
        b -= 0.5 * float(np.sum(weight * (p - y)) / len(y))
    return mu, sd, w


def evaluate(data, idx, cols, top, model=None):
    out = []
    for i in idx:
        for ids, X, _y, ev in data[i]:
            order = list(ids)
            if model is not None and len(ids):
                mu, sd, w = model
                s = ((X[:top, cols] - mu) / sd) @ w
                order = [ids[j] for j in np.argsort(-s, kind="stable")] + order[top:]
            out.append(recalls(order[:10], ev) if order else (0.0, 0.0, 0.0, 0.0))
    return [sum(r[j] for r in out) / len(out) for j in range(4)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cache", help="candidates pickled by bench_retrieval_cv.py --cache")
    ap.add_argument("--top", type=int, nargs="+", default=[20, 30, 40])
    args = ap.parse_args(argv)
    with open(args.cache, "rb") as fh:
        per_file, _latency = pickle.load(fh)
    w = fusion.DEFAULT.neutral()
    data = []
    for _name, cands in per_file:
        rows = []
        for c, ev in cands:
            ids, X = features(c, w)
            rows.append((ids, X, np.array([1.0 if k in ev else 0.0 for k in ids]), ev))
        data.append(rows)
    splits = list(itertools.combinations(range(len(data)), 3))
    every = list(range(len(NAMES)))
    no_length = every[:-1]

    def cv(cols, top, learned=True):
        held = []
        for train_idx in splits:
            test = [i for i in range(len(data)) if i not in train_idx]
            model = train(data, train_idx, cols, top) if learned else None
            held.append(evaluate(data, test, cols, top, model))
        mean = [sum(h[j] for h in held) / len(held) for j in range(4)]
        return mean, min(h[1] for h in held), min(h[2] for h in held)

    print("| ranking (held-out mean of 10 splits) | R@1 | R@5 | R@10 | MRR | worst R@5 / R@10 |")
    print("|---|---|---|---|---|---|")
    m, w5, w10 = cv(every, 0, learned=False)
    print(f"| shipped ranking | {m[0]:.3f} | {m[1]:.3f} | {m[2]:.3f} | {m[3]:.3f} | {w5:.3f} / {w10:.3f} |")
    for top in args.top:
        for label, cols in (("all features", every), ("without memory length", no_length)):
            m, w5, w10 = cv(cols, top)
            print(
                f"| learned re-ranking of the first {top}, {label} | {m[0]:.3f} | {m[1]:.3f} | {m[2]:.3f} | "
                f"{m[3]:.3f} | {w5:.3f} / {w10:.3f} |"
            )
    mu, sd, wts = train(data, range(len(data)), every, 30)
    print("\nweights (standardised features) trained on all files, first 30:")
    for name, x in sorted(zip(NAMES, wts), key=lambda t: -abs(t[1])):
        print(f"  {name:<22}{x:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
