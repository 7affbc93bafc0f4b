"""Normalisation and fusion of BM25 and cosine, with truncated candidate lists as the real store would give."""
from __future__ import annotations
import numpy as np
from common import metrics, fmt
from scores import bm25_mats, cos_mats, evs, rank

spk = lambda t: f"{t.speaker}: {t.text}"
B = bm25_mats(spk)
C = cos_mats(spk)
E = evs()
print(fmt("bm25", metrics(rank(B), E)))
print(fmt("cos", metrics(rank(C), E)))

K = 50  # candidates per side


def topk_mask(row, k):
    idx = np.argsort(-row, kind="stable")[:k]
    m = np.zeros(row.shape, bool)
    m[idx] = True
    return m & (row > 0) if row.min() >= 0 else m


def fuse(norm_b, norm_c, wb=0.5, k=K):
    outs = []
    for Bm, Cm in zip(B, C):
        F = np.zeros_like(Bm)
        for qi in range(Bm.shape[0]):
            b = Bm[qi]
            c = Cm[qi]
            mb = topk_mask(b, k)
            idx = np.argsort(-c)[:k]
            mc = np.zeros(c.shape, bool); mc[idx] = True
            nb = np.zeros_like(b); nc = np.zeros_like(c)
            if mb.any():
                nb[mb] = norm_b(b[mb])
            nc[mc] = norm_c(c[mc])
            F[qi] = wb * nb + (1 - wb) * nc
        outs.append(F)
    return rank(outs)


def minmax(x):
    lo, hi = x.min(), x.max()
    return (x - lo) / (hi - lo) if hi > lo else np.ones_like(x)


def bymax(x):
    return x / x.max()


def zscore(x):
    s = x.std()
    z = (x - x.mean()) / s if s > 0 else np.zeros_like(x)
    return np.clip((z + 3) / 6, 0, 1)  # not 0-1 exact, ranking only


def ident(x):
    return x


def rankn(x):
    o = np.argsort(-x, kind="stable")
    r = np.empty(len(x)); r[o] = np.arange(len(x))
    return 1 / (1 + r / 10)


def sat(k):
    return lambda x: x / (x + k)


for wb in (0.3, 0.4, 0.5, 0.6, 0.7):
    print(fmt(f"minmax/minmax w={wb}", metrics(fuse(minmax, minmax, wb), E)))
for wb in (0.4, 0.5, 0.6):
    print(fmt(f"bymax/ident w={wb}", metrics(fuse(bymax, ident, wb), E)))
    print(fmt(f"bymax/minmax w={wb}", metrics(fuse(bymax, minmax, wb), E)))
    print(fmt(f"z/z w={wb}", metrics(fuse(zscore, zscore, wb), E)))
    print(fmt(f"rank/rank w={wb}", metrics(fuse(rankn, rankn, wb), E)))
    for kk in (2, 5, 10):
        print(fmt(f"sat{kk}/ident w={wb}", metrics(fuse(sat(kk), ident, wb), E)))
