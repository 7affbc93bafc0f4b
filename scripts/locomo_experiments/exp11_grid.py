"""Grid over normalisation, weight and neighbour smoothing for the best sides so far."""
from __future__ import annotations
import itertools
import numpy as np
from common import metrics, fmt
from scores import evs, rank, convs
import exp10_sentences as X  # reuses cached matrices
E = evs()
B = X.B
C = [(q @ a.T + s + q @ p.T) / 3 for q, a, s, p in zip(X.Q, X.Vd, X.Sm, X.Vp)]


def topk_norm(M, how, k=50):
    out = np.zeros_like(M)
    for qi, row in enumerate(M):
        idx = np.argsort(-row)[:k]
        idx = idx[row[idx] > 0] if how != "raw" and row.min() >= 0 and row[idx].min() == 0 else idx
        v = row[idx]
        if len(v) == 0:
            continue
        if how == "max":
            n = v / v.max()
        elif how == "minmax":
            n = (v - v.min()) / (v.max() - v.min()) if v.max() > v.min() else np.ones_like(v)
        elif how == "z":
            n = (v - v.mean()) / (v.std() + 1e-9) / 3 + 0.5
        else:
            n = v
        out[qi, idx] = n
    return out


def smooth(Ms, lam):
    if lam == 0:
        return Ms
    out = []
    for c, M in zip(convs(), Ms):
        sess = np.array([t.session for t in c.turns])
        prev = np.roll(M, 1, axis=1); prev[:, 0] = 0
        nxt = np.roll(M, -1, axis=1); nxt[:, -1] = 0
        prev[:, 1:][:, sess[1:] != sess[:-1]] = 0
        nxt[:, :-1][:, sess[:-1] != sess[1:]] = 0
        out.append(M + lam * np.maximum(prev, nxt))
    return out


NB = {h: [topk_norm(M, h) for M in B] for h in ("max", "minmax", "z")}
NC = {h: [topk_norm(M, h) for M in C] for h in ("raw", "minmax", "z")}
res = []
for hb, hc, wb, lam in itertools.product(NB, NC, (0.3, 0.4, 0.5, 0.6), (0, 0.15, 0.3)):
    F = smooth([wb * b + (1 - wb) * c for b, c in zip(NB[hb], NC[hc])], lam)
    m = metrics(rank(F), E)
    res.append((m["R@5"], f"{hb}/{hc} wb={wb} lam={lam}", m))
res.sort(key=lambda r: -r[0])
for r in res[:25]:
    print(fmt(r[1], r[2]))
