"""Is the context index needed, or does query-time neighbour smoothing of the keyword score do the same?"""
from __future__ import annotations
from common import fmt
import exp13_product_like as P
import exp25_bounded as Bd
for kn_, Ks in (("K_prev", Bd.K_prev), ("K_content", Bd.K_cont)):
    for kn in (0, 0.3, 0.5, 0.7):
        for k in (100, 300):
            m, _ = Bd.run(Ks, P.C_sent, wk=0.6, kn=kn, bs=0.5, bd=0.5, k=k)
            print(fmt(f"{kn_} sent kn={kn} k={k}", m), flush=True)
