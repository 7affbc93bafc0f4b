"""The shipped form: bounded 0-1 arithmetic. base = wk*K + wv*V'; each extra signal closes a fraction
of the remaining gap (r + (1 - r) * beta), so the score never leaves 0-1 and keeps its meaning."""
from __future__ import annotations
import re
import numpy as np
from common import metrics, fmt
from scores import bm25_mats, evs, rank, convs
import exp13_product_like as P
import exp22_absolute as A
import exp12_dates_prf as D
import exp14_smoothing as S
E = evs()
B_prev = bm25_mats(P.spkcap, ctx_fn=lambda t: t.prev, weights=(1.0, 0.3))
K_prev = [np.clip(b / np.maximum(s[:, None], 1e-9), 0, 1) for b, s in zip(B_prev, A.IDF)]
K_cont = [np.clip(b / np.maximum(s[:, None], 1e-9), 0, 1) for b, s in zip(P.B_content, A.IDF)]


def masks():
    subj, date = [], []
    for c in convs():
        sm = np.zeros((len(c.qs), len(c.turns)), bool); dm = np.zeros_like(sm)
        tds = [D.turn_date(t.date) for t in c.turns]
        for qi, (q, ev, cat) in enumerate(c.qs):
            named = {s for s in c.speakers if re.search(r"\b" + re.escape(s.lower()) + r"\b", q.lower())}
            sm[qi] = [t.speaker in named for t in c.turns]
            for a, b in D.query_dates(q):
                lo, hi = a - D.dt.timedelta(days=1), b + D.dt.timedelta(days=1)
                dm[qi] |= np.array([lo <= d <= hi for d in tds])
        subj.append(sm); date.append(dm)
    return subj, date


SUBJ, DATE = masks()


def vcal(C, lo, hi):
    return np.clip((C - lo) / (hi - lo), 0, 1)


def run(Ks, Cs, wk=0.5, lo=0.2, hi=0.75, kn=0.3, fn=0.15, bs=0.3, bd=0.3, k=100, keyword_only=False):
    G = []
    for Kq, Cq, sm, dm in zip(Ks, Cs, SUBJ, DATE):
        Kc = np.nan_to_num(P.cand(Kq, k), nan=0.0)
        Vc = vcal(np.nan_to_num(P.cand(Cq, k), nan=0.0), lo, hi)
        G.append((Kc, Vc, sm, dm))
    out = []
    Kn = S.smooth2([g[0] for g in G], kn, 0) if kn else [g[0] for g in G]
    for (Kc, Vc, sm, dm), Ksm in zip(G, Kn):
        Ksm = np.clip(Ksm, 0, 1)
        r = Ksm if keyword_only else wk * Ksm + (1 - wk) * Vc
        out.append(r)
    if fn:
        nb = [s - r for s, r in zip(S.smooth2(out, 1.0, 1.0), out)]  # sum of neighbours
        out = [r + (1 - r) * np.clip(fn * n, 0, 1) for r, n in zip(out, nb)]
    out = [r + (1 - r) * bs * sm for r, sm in zip(out, SUBJ)]
    out = [r + (1 - r) * bd * dm for r, dm in zip(out, DATE)]
    return metrics(rank(out), E), out


if __name__ == "__main__":
    for kn_, Ks in (("K_prev", K_prev), ("K_content", K_cont)):
        for cn, Cs in (("sent", P.C_sent), ("1vec", P.C_content)):
            for wk in (0.5, 0.6):
                for bs, bd in ((0.3, 0.3), (0.4, 0.4), (0.5, 0.5)):
                    m, _ = run(Ks, Cs, wk=wk, bs=bs, bd=bd)
                    print(fmt(f"{kn_} {cn} wk={wk} bs={bs} bd={bd}", m), flush=True)
        m, _ = run(Ks, P.C_sent, keyword_only=True)
        print(fmt(f"{kn_} keyword-only", m))
