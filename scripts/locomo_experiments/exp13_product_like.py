"""What survives in a real store: one FTS column over content, candidates truncated to top-K per side,
neighbour smoothing only among candidates, date boost from created_at. Variants add store-side features."""
from __future__ import annotations
import itertools
import numpy as np
from common import metrics, fmt
from scores import bm25_mats, cos_mats, doc_vecs, q_vecs, evs, rank, convs
import exp10_sentences as X
import exp12_dates_prf as D
E = evs()
spkcap = X.spkcap
B_content = bm25_mats(spkcap)
B_ctx = X.B  # + prev|date column (needs a context column in the FTS index)
Vc = doc_vecs(spkcap)
Q = X.Q
C_content = [q @ v.T for q, v in zip(Q, Vc)]
C_sent = [np.maximum(q @ v.T, s) for q, v, s in zip(Q, Vc, X.Sm)]  # whole + sentences, max
C_sent_mean = [(q @ v.T + s) / 2 for q, v, s in zip(Q, Vc, X.Sm)]
C_sent_ctx = [(q @ v.T + s + q @ p.T) / 3 for q, v, s, p in zip(Q, Vc, X.Sm, X.Vp)]


def cand(M, k):
    """keep top-k positive (bm25) or top-k (cos) per row; others -> nan (absent)."""
    out = np.full_like(M, np.nan)
    for qi, row in enumerate(M):
        idx = np.argsort(-row)[:k]
        if row.min() >= 0 and np.all(row >= 0) and (row == 0).any():
            idx = idx[row[idx] > 0]
        out[qi, idx] = row[idx]
    return out


def norm(M, how):
    out = np.zeros_like(M)
    for qi, row in enumerate(M):
        m = ~np.isnan(row)
        v = row[m]
        if len(v) == 0:
            continue
        if how == "max":
            n = v / v.max()
        elif how == "minmax":
            n = (v - v.min()) / (v.max() - v.min()) if v.max() > v.min() else np.ones_like(v)
        elif how == "z":
            n = np.clip((v - v.mean()) / (v.std() + 1e-9) / 3 + 0.5, 0, None)
        else:
            n = v
        out[qi, m] = n
    return out


def smooth(Ms, lam):
    return D.G.smooth(Ms, lam)


def run(Bs, Cs, hb="z", hc="z", wb=0.5, lam=0.15, dboost=0.2, kb=100, kc=100):
    F = [wb * norm(cand(b, kb), hb) + (1 - wb) * norm(cand(c, kc), hc) for b, c in zip(Bs, Cs)]
    F = smooth(F, lam)
    if dboost:
        F = D.date_boost(F, dboost)
    return metrics(rank(F), E)


if __name__ == "__main__":
    print(fmt("bm25 content only", metrics(rank(B_content), E)))
    print(fmt("cos content only", metrics(rank(C_content), E)))
    print(fmt("cos content+sentences max", metrics(rank(C_sent), E)))
    print(fmt("cos content+sentences mean", metrics(rank(C_sent_mean), E)))
    for name, Bs, Cs in (("A: content/content", B_content, C_content),
                         ("A+sent(max)", B_content, C_sent),
                         ("A+sent(mean)", B_content, C_sent_mean),
                         ("A+ctxcol", B_ctx, C_content),
                         ("A+ctxcol+sent(mean)", B_ctx, C_sent_mean),
                         ("A+ctxcol+sent+ctxvec", B_ctx, C_sent_ctx)):
        for lam, db in ((0, 0), (0.15, 0), (0.15, 0.2), (0.3, 0.2)):
            print(fmt(f"{name} lam={lam} date={db}", run(Bs, Cs, lam=lam, dboost=db)), flush=True)
