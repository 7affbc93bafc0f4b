from __future__ import annotations
import random
import numpy as np
from common import metrics, fmt
from scores import bm25_mats, cos_mats, doc_vecs, q_vecs, evs, rank, convs, cats
E = evs(); K = cats()
capt = lambda t: (f" [image: {t.caption}]" if t.caption else "")
spk = lambda t: f"{t.speaker}: {t.text}"
spkcap = lambda t: f"{t.speaker}: {t.text}" + capt(t)
prevspkcap = lambda t: (f"{t.prev_speaker}: {t.prev}\n" if t.prev else "") + spkcap(t)
dspk = lambda t: f"({t.date}) {t.speaker}: {t.text}" + capt(t)
B2 = bm25_mats(spkcap, ctx_fn=lambda t: t.prev + " | " + t.date, weights=(1.0, 0.3))
C2 = [(a + b) / 2 for a, b in zip(cos_mats(dspk), cos_mats(prevspkcap))]
F = [0.5 * b / np.maximum(b.max(1, keepdims=True), 1e-9) + 0.5 * c for b, c in zip(B2, C2)]
R = rank(F)
for cat in (1, 2, 3, 4):
    sel = [i for i, k in enumerate(K) if k == cat]
    print(cat, fmt("", metrics([R[i] for i in sel], [E[i] for i in sel])))
# speaker stats
n = hit = 0
for c in convs():
    for q, ev, cat in c.qs:
        names = [s for s in c.speakers if s.lower() in q.lower()]
        for e in ev:
            n += 1
            hit += c.turns[e].speaker in names
print("evidence spoken by a speaker named in q:", hit / n)
n2 = sum(1 for c in convs() for q, ev, cat in c.qs if sum(s.lower() in q.lower() for s in c.speakers) == 1)
print("questions naming exactly one speaker", n2)
