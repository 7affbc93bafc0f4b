from __future__ import annotations
import random
import numpy as np
from common import metrics, fmt
from scores import evs, rank, convs, cats
import exp13_product_like as P
import exp14_smoothing as S
import exp12_dates_prf as D
E = evs(); K = cats()
F = [0.5 * P.norm(P.cand(b, 100), "z") + 0.5 * P.norm(P.cand(c, 100), "z") for b, c in zip(P.B_ctx, P.C_sent_ctx)]
F = D.date_boost(S.smooth2(F, 0.15, 0.15), 0.2)
R = rank(F)
for cat in (1, 2, 3, 4):
    sel = [i for i, k in enumerate(K) if k == cat]
    print(cat, len(sel), fmt("", metrics([R[i] for i in sel], [E[i] for i in sel])))
random.seed(7)
rows = []
j = 0
for c in convs():
    for q, ev, cat in c.qs:
        rows.append((c, q, ev, cat, R[j])); j += 1
miss = [r for r in rows if r[3] == 4 and r[2] and not set(r[2]) & set(r[4][:5])]
print(len(miss))
for c, q, ev, cat, o in random.sample(miss, 20):
    print("Q", q)
    for e in ev:
        t = c.turns[e]
        print("   EV", o.index(e) if e in o else ">50", t.speaker, ":", t.text[:140], "| cap:", t.caption[:50], "| PREV:", t.prev[:80])
    for i in o[:2]:
        print("   TOP", c.turns[i].speaker, ":", c.turns[i].text[:110])
