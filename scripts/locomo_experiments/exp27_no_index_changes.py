"""No schema change at all: keyword over content, neighbour smoothing at query time, 1 or sentence vectors."""
from __future__ import annotations
from common import fmt
import exp13_product_like as P
import exp25_bounded as Bd
for cn, Cs in (("1vec", P.C_content), ("sent", P.C_sent)):
    for wk in (0.5, 0.6, 0.7):
        for kn, fn in ((0.5, 0.15), (0.7, 0.15), (0.7, 0.0), (1.0, 0.15)):
            m, _ = Bd.run(Bd.K_cont, Cs, wk=wk, kn=kn, fn=fn, bs=0.5, bd=0.5, k=300)
            print(fmt(f"K_content {cn} wk={wk} kn={kn} fn={fn} k=300", m), flush=True)
m, _ = Bd.run(Bd.K_cont, P.C_sent, kn=0.7, fn=0.15, bs=0.5, bd=0.5, k=300, keyword_only=True)
print(fmt("keyword-only kn=0.7", m))
