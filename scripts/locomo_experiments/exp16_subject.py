"""Product-feasible pipeline on the foundation's schema: FTS(content, tags, subject), one vector per
memory, session neighbours, and a boost when the query names the memory's subject (subject = speaker)."""
from __future__ import annotations
import re
import numpy as np
from common import metrics, fmt
from scores import evs, rank, convs
import exp13_product_like as P
import exp14_smoothing as S
import exp12_dates_prf as D
E = evs()


def subject_boost(Ms, beta):
    out = []
    for c, M in zip(convs(), Ms):
        M = M.copy()
        for qi, (q, ev, cat) in enumerate(c.qs):
            ql = q.lower()
            named = {s for s in c.speakers if re.search(r"\b" + re.escape(s.lower()) + r"\b", ql)}
            if named:
                M[qi] += beta * np.array([t.speaker in named for t in c.turns])
        out.append(M)
    return out


def pipe(Bs, Cs, hb="z", hc="z", wb=0.5, lp=0.15, ln=0.15, db=0.0, sb=0.0, k=100, order="boost_after"):
    F = [wb * P.norm(P.cand(b, k), hb) + (1 - wb) * P.norm(P.cand(c, k), hc) for b, c in zip(Bs, Cs)]
    if order == "boost_before":
        F = subject_boost(F, sb) if sb else F
        F = S.smooth2(F, lp, ln)
    else:
        F = S.smooth2(F, lp, ln)
        F = subject_boost(F, sb) if sb else F
    F = D.date_boost(F, db) if db else F
    return metrics(rank(F), E)


if __name__ == "__main__":
    for name, Cs in (("1vec", P.C_content), ("sentvec", P.C_sent)):
        for sb in (0, 0.1, 0.2, 0.3):
            for db in (0, 0.2):
                for order in ("boost_after", "boost_before"):
                    if order == "boost_before" and not sb:
                        continue
                    print(fmt(f"{name} sb={sb} db={db} {order}", pipe(P.B_content, Cs, sb=sb, db=db, order=order)), flush=True)
