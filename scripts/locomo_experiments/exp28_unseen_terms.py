"""Query words absent from the store must count against the keyword score (else a query that
grazes one word looks fully matched). Unseen term IDF = that of a term in one memory."""
from __future__ import annotations
import math
import numpy as np
from common import metrics, fmt, fts_index, terms
from scores import convs
import exp13_product_like as P
import exp25_bounded as Bd
import exp22_absolute as A


def idf_sums_unseen():
    out = []
    for c in convs():
        con = fts_index([P.spkcap(t) for t in c.turns])
        N = len(c.turns)
        sums = []
        for q, ev, cat in c.qs:
            s = 0.0
            for t in terms(q):
                n = con.execute("select count(*) from f where f match ?", ('"' + t + '"',)).fetchone()[0]
                idf = math.log((N - max(n, 1) + 0.5) / (max(n, 1) + 0.5))
                s += idf if idf > 0 else 1e-6
            sums.append(s)
        out.append(np.array(sums))
    return out


IDF2 = idf_sums_unseen()
K2 = [np.clip(b / np.maximum(s[:, None], 1e-9), 0, 1) for b, s in zip(P.B_content, IDF2)]
print("share of queries with unseen terms:", np.mean(np.concatenate([a != b for a, b in zip(A.IDF, IDF2)])))
for name, Ks in (("seen-only idf sum", Bd.K_cont), ("unseen counted", K2)):
    for wk in (0.5, 0.6, 0.7):
        m, G = Bd.run(Ks, P.C_content, wk=wk, kn=0.7, fn=0.15, bs=0.5, bd=0.5, k=300)
        print(fmt(f"{name} 1vec wk={wk}", m), flush=True)
    m, G = Bd.run(Ks, P.C_content, kn=0.7, fn=0.15, bs=0.5, bd=0.5, k=300, keyword_only=True)
    print(fmt(f"{name} keyword-only", m))
