"""Where does 0.6 fall on the absolute scale? Scores of evidence vs non-evidence hits, and of the best
hit for questions asked of the wrong conversation (nothing relevant exists)."""
from __future__ import annotations
import numpy as np
from scores import evs, rank, convs
import exp13_product_like as P
import exp22_absolute as A
E = evs()
m, G = A.pipe(A.Kabs, P.C_sent, wk=0.5, sb=0.2, db=0.2)
ev_scores, non_scores, top1 = [], [], []
j = 0
for c, M in zip(convs(), G):
    for qi, (q, ev, cat) in enumerate(c.qs):
        o = np.argsort(-M[qi])[:10]
        for i in o:
            (ev_scores if i in ev else non_scores).append(M[qi, i])
        top1.append(M[qi, o[0]])
ev_scores, non_scores, top1 = map(np.array, (ev_scores, non_scores, top1))
qs = lambda a: " ".join(f"{x:.2f}" for x in np.percentile(a, [10, 25, 50, 75, 90]))
print("evidence in top10  p10/25/50/75/90:", qs(ev_scores))
print("non-evid in top10  p10/25/50/75/90:", qs(non_scores))
print("top1 (right conv)  p10/25/50/75/90:", qs(top1))
for th in (0.4, 0.5, 0.6, 0.7):
    print(f"th={th}: evidence kept {np.mean(ev_scores >= th):.2f}, non-evidence kept {np.mean(non_scores >= th):.2f}, queries with a hit {np.mean(top1 >= th):.2f}")
