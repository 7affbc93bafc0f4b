"""Partial matches of long queries: a concave keyword scale 1-(1-K)^p (half the query's weight found
-> 0.75 at p=2) so a memory matching the distinctive half of a noisy query clears 0.6. Ranking cost?"""
from __future__ import annotations
import numpy as np
from common import fmt
import exp13_product_like as P
import exp25_bounded as Bd
import exp28_unseen_terms as U
for p in (1.0, 1.5, 2.0, 3.0):
    Ks = [1 - (1 - k) ** p for k in U.K2]
    for wk in (0.5, 0.6, 0.7):
        m, G = Bd.run(Ks, P.C_content, wk=wk, kn=0.7, fn=0.15, bs=0.5, bd=0.5, k=300)
        print(fmt(f"p={p} 1vec wk={wk}", m), flush=True)
    m, G = Bd.run(Ks, P.C_content, kn=0.7, fn=0.15, bs=0.5, bd=0.5, k=300, keyword_only=True)
    print(fmt(f"p={p} keyword-only", m), flush=True)
