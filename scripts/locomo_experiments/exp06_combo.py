"""Best sides combined; neighbour smoothing of fused scores; PRF on the vector side."""
from __future__ import annotations
import numpy as np
from common import metrics, fmt
from scores import bm25_mats, cos_mats, doc_vecs, q_vecs, evs, rank, convs

E = evs()
capt = lambda t: (f" [image: {t.caption}]" if t.caption else "")
spk = lambda t: f"{t.speaker}: {t.text}"
spkcap = lambda t: f"{t.speaker}: {t.text}" + capt(t)
prevspkcap = lambda t: (f"{t.prev_speaker}: {t.prev}\n" if t.prev else "") + spkcap(t)
dspk = lambda t: f"({t.date}) {t.speaker}: {t.text}" + capt(t)

B0 = bm25_mats(spk)
B1 = bm25_mats(spkcap, ctx_fn=lambda t: t.prev, weights=(1.0, 0.3))
C0 = cos_mats(spk)
Cd = cos_mats(dspk)
Cp = cos_mats(prevspkcap)
C1 = [(a + b) / 2 for a, b in zip(C0, Cp)]


def bymax(M):
    return M / np.maximum(M.max(1, keepdims=True), 1e-9)


def minmax(M):
    lo = M.min(1, keepdims=True); hi = M.max(1, keepdims=True)
    return (M - lo) / np.maximum(hi - lo, 1e-9)


def fuse(Bs, Cs, wb, nb=bymax, nc=lambda x: x):
    return [wb * nb(b) + (1 - wb) * nc(c) for b, c in zip(Bs, Cs)]


def smooth(Ms, lam, mode="mean"):
    out = []
    for c, M in zip(convs(), Ms):
        sess = np.array([t.session for t in c.turns])
        prev = np.roll(M, 1, axis=1); prev[:, 0] = 0
        nxt = np.roll(M, -1, axis=1); nxt[:, -1] = 0
        prev[:, 1:][:, sess[1:] != sess[:-1]] = 0
        nxt[:, :-1][:, sess[:-1] != sess[1:]] = 0
        nbr = (prev + nxt) / 2 if mode == "mean" else np.maximum(prev, nxt)
        out.append(M + lam * nbr)
    return out


for wb in (0.4, 0.5, 0.6):
    print(fmt(f"B0+C0 bymax/raw wb={wb}", metrics(rank(fuse(B0, C0, wb)), E)))
    print(fmt(f"B1+C0 bymax/raw wb={wb}", metrics(rank(fuse(B1, C0, wb)), E)))
    print(fmt(f"B1+C1 bymax/raw wb={wb}", metrics(rank(fuse(B1, C1, wb)), E)))
    print(fmt(f"B1+Cd bymax/raw wb={wb}", metrics(rank(fuse(B1, Cd, wb)), E)))
    print(fmt(f"B1+C1 minmax wb={wb}", metrics(rank(fuse(B1, C1, wb, minmax, minmax)), E)))
for lam in (0.1, 0.2, 0.3, 0.5):
    for mode in ("mean", "max"):
        print(fmt(f"smooth{lam} {mode} (B0+C0 .5)", metrics(rank(smooth(fuse(B0, C0, 0.5), lam, mode)), E)))
        print(fmt(f"smooth{lam} {mode} (B1+C1 .5)", metrics(rank(smooth(fuse(B1, C1, 0.5), lam, mode)), E)))
