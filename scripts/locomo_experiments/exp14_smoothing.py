"""Asymmetric neighbour smoothing, per-side smoothing, candidate depth."""
from __future__ import annotations
import numpy as np
from common import metrics, fmt
from scores import evs, rank, convs
import exp13_product_like as P
import exp12_dates_prf as D
E = evs()


def smooth2(Ms, lp, ln):
    out = []
    for c, M in zip(convs(), Ms):
        sess = np.array([t.session for t in c.turns])
        prev = np.roll(M, 1, axis=1); prev[:, 0] = 0
        nxt = np.roll(M, -1, axis=1); nxt[:, -1] = 0
        prev[:, 1:][:, sess[1:] != sess[:-1]] = 0
        nxt[:, :-1][:, sess[:-1] != sess[1:]] = 0
        out.append(M + lp * prev + ln * nxt)
    return out


def run(Bs, Cs, lp, ln, hb="z", hc="z", wb=0.5, db=0.2, kb=100, kc=100):
    F = [wb * P.norm(P.cand(b, kb), hb) + (1 - wb) * P.norm(P.cand(c, kc), hc) for b, c in zip(Bs, Cs)]
    F = smooth2(F, lp, ln)
    F = D.date_boost(F, db) if db else F
    return metrics(rank(F), E)


for name, Bs, Cs in (("A+sent(max)", P.B_content, P.C_sent), ("A+ctxcol+sent+ctxvec", P.B_ctx, P.C_sent_ctx)):
    for lp, ln in ((0.15, 0.15), (0.3, 0.1), (0.3, 0.2), (0.4, 0.2), (0.2, 0.3), (0.1, 0.3), (0.3, 0.3), (0.5, 0.3)):
        print(fmt(f"{name} lp={lp} ln={ln}", run(Bs, Cs, lp, ln)), flush=True)
    for k in (30, 50, 200):
        print(fmt(f"{name} .3/.2 k={k}", run(Bs, Cs, 0.3, 0.2, kb=k, kc=k)), flush=True)
    for hb, hc in (("max", "raw"), ("minmax", "minmax"), ("max", "minmax"), ("z", "minmax")):
        for wb in (0.4, 0.5, 0.6):
            print(fmt(f"{name} .3/.2 {hb}/{hc} wb={wb}", run(Bs, Cs, 0.3, 0.2, hb, hc, wb)), flush=True)
