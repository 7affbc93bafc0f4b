"""Date context, pseudo relevance feedback (vector Rocchio and BM25 term expansion)."""
from __future__ import annotations
import math, re, collections
import numpy as np
from common import metrics, fmt, terms, fts_index, fts_search, TOKEN_RE, STOP
from scores import bm25_mats, cos_mats, doc_vecs, q_vecs, evs, rank, convs

E = evs()
capt = lambda t: (f" [image: {t.caption}]" if t.caption else "")
spk = lambda t: f"{t.speaker}: {t.text}"
spkcap = lambda t: f"{t.speaker}: {t.text}" + capt(t)
prevspkcap = lambda t: (f"{t.prev_speaker}: {t.prev}\n" if t.prev else "") + spkcap(t)
dspk = lambda t: f"({t.date}) {t.speaker}: {t.text}" + capt(t)

B1 = bm25_mats(spkcap, ctx_fn=lambda t: t.prev, weights=(1.0, 0.3))
B2 = bm25_mats(spkcap, ctx_fn=lambda t: t.prev + " | " + t.date, weights=(1.0, 0.3))
V0 = doc_vecs(spk); Vp = doc_vecs(prevspkcap); Vd = doc_vecs(dspk)
Q = q_vecs()
C1 = [(q @ a.T + q @ b.T) / 2 for q, a, b in zip(Q, V0, Vp)]
C2 = [(q @ a.T + q @ b.T) / 2 for q, a, b in zip(Q, Vd, Vp)]


def bymax(M):
    return M / np.maximum(M.max(1, keepdims=True), 1e-9)


def fuse(Bs, Cs, wb=0.5):
    return [wb * bymax(b) + (1 - wb) * c for b, c in zip(Bs, Cs)]


print(fmt("B1+C1", metrics(rank(fuse(B1, C1)), E)))
print(fmt("B2+C1", metrics(rank(fuse(B2, C1)), E)))
print(fmt("B1+C2", metrics(rank(fuse(B1, C2)), E)))
print(fmt("B2+C2", metrics(rank(fuse(B2, C2)), E)))

# vector PRF: q' = q + beta * mean(top-m fused docs' vectors)
F0 = fuse(B1, C1)
for m in (1, 2, 3, 5):
    for beta in (0.3, 0.5, 1.0):
        Cn = []
        for F, q, a, b in zip(F0, Q, V0, Vp):
            top = np.argsort(-F, axis=1)[:, :m]
            cen = ((a[top] + b[top]) / 2).mean(1)
            q2 = q + beta * cen
            q2 /= np.linalg.norm(q2, axis=1, keepdims=True)
            Cn.append((q2 @ a.T + q2 @ b.T) / 2)
        print(fmt(f"vecPRF m={m} beta={beta}", metrics(rank(fuse(B1, Cn)), E)), flush=True)
