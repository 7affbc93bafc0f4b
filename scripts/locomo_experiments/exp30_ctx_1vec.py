"""One vector per memory (what the store has): does an index-time context column (previous
same-session memory, weight 0.3) beat query-time keyword context?"""
from __future__ import annotations
import numpy as np
from common import fmt
import exp13_product_like as P
import exp25_bounded as Bd
import exp28_unseen_terms as U
Kp = [np.clip(b / np.maximum(s[:, None], 1e-9), 0, 1) for b, s in zip(Bd.B_prev, U.IDF2)]
for name, Ks in (("query-time context", U.K2), ("context column", Kp)):
    for kn in (0.0, 0.3, 0.5, 0.7):
        for wk in (0.6,):
            m, _ = Bd.run(Ks, P.C_content, wk=wk, kn=kn, fn=0.15, bs=0.5, bd=0.5, k=300)
            print(fmt(f"{name} kn={kn} wk={wk}", m), flush=True)
