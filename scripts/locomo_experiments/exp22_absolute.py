"""Absolute (query-independent) scales, so one score both ranks and thresholds:
keyword = bm25 / sum of the query terms' IDF (~ IDF-weighted share of the query found), vector = cosine."""
from __future__ import annotations
import math
import numpy as np
from common import metrics, fmt, fts_index, terms
from scores import evs, rank, convs
import exp13_product_like as P
import exp14_smoothing as S
import exp12_dates_prf as D
import exp16_subject as U
E = evs()


def idf_sums():
    out = []
    for c in convs():
        con = fts_index([P.spkcap(t) for t in c.turns])
        N = len(c.turns)
        sums = []
        for q, ev, cat in c.qs:
            s = 0.0
            for t in terms(q):
                n = con.execute("select count(*) from f where f match ?", ('"' + t + '"',)).fetchone()[0]
                if n:
                    idf = math.log((N - n + 0.5) / (n + 0.5))
                    s += idf if idf > 0 else 1e-6
            sums.append(s)
        out.append(np.array(sums))
    return out


IDF = idf_sums()
Kabs = [np.clip(b / np.maximum(s[:, None], 1e-9), 0, 1) for b, s in zip(P.B_ctx, IDF)]
print("keyword abs: mean top1", np.mean([k.max(1).mean() for k in Kabs]), "median", np.median(np.concatenate([k.max(1) for k in Kabs])))
print("cos sent: mean top1", np.mean([c.max(1).mean() for c in P.C_sent]))


def vcal(C, lo, hi):
    return np.clip((C - lo) / (hi - lo), 0, 1)


def pipe(Ks, Cs, wk=0.5, lp=0.3, fl=(0.15, 0.15), sb=0.2, db=0.2, k=100):
    F = []
    for Kq, Cq in zip(Ks, Cs):
        Kc = np.nan_to_num(P.cand(Kq, k), nan=0.0)
        Cc = np.nan_to_num(P.cand(Cq, k), nan=0.0)
        F.append((Kc, Cc))
    Kz = S.smooth2([f[0] for f in F], lp, 0) if lp else [f[0] for f in F]
    Ks2 = [np.clip(x, 0, 1) for x in Kz]
    G = [wk * a + (1 - wk) * b for a, b in zip(Ks2, [f[1] for f in F])]
    G = S.smooth2(G, *fl) if any(fl) else G
    G = U.subject_boost(G, sb) if sb else G
    G = D.date_boost(G, db) if db else G
    return metrics(rank(G), E), G


if __name__ == "__main__":
    for lo, hi in ((0.0, 1.0), (0.1, 0.7), (0.2, 0.7), (0.2, 0.6), (0.3, 0.7)):
        Cs = [vcal(c, lo, hi) for c in P.C_sent]
        for wk in (0.4, 0.5, 0.6):
            for sb, db in ((0.1, 0.1), (0.2, 0.2)):
                m, _ = pipe(Kabs, Cs, wk=wk, sb=sb, db=db)
                print(fmt(f"abs vcal({lo},{hi}) wk={wk} sb={sb} db={db}", m), flush=True)
