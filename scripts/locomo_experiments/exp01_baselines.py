"""Reproduce the README's naive baselines: BM25 (porter, stop words, OR), MiniLM cosine, min-max 0.5/0.5."""
from __future__ import annotations
import numpy as np
from common import load, embed, metrics, fmt, terms, fts_index, fts_search

convs = load()
R = {"bm25": [], "cos": [], "mm": []}
evs = []
for c in convs:
    docs = [t.text for t in c.turns]
    con = fts_index(docs)
    V = embed(docs, "text")
    Q = embed([q for q, _, _ in c.qs], "q")
    for (q, ev, cat), qv in zip(c.qs, Q):
        evs.append(ev)
        b = fts_search(con, terms(q), limit=len(docs))
        R["bm25"].append([i for i, _ in b])
        sims = V @ qv
        order = list(np.argsort(-sims))
        R["cos"].append(order)
        # min-max over full lists (bm25 absent = 0)
        bs = np.zeros(len(docs))
        for i, s in b:
            bs[i] = s
        def mm(x):
            lo, hi = x.min(), x.max()
            return (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x)
        f = 0.5 * mm(bs) + 0.5 * mm(sims)
        R["mm"].append(list(np.argsort(-f)))
for k, v in R.items():
    print(fmt(k, metrics(v, evs)))
