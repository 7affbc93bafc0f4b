from __future__ import annotations
import numpy as np, random
from scores import bm25_mats, cos_mats, convs
spk = lambda t: f"{t.speaker}: {t.text}"
B = bm25_mats(spk); C = cos_mats(spk)
random.seed(1)
rows = []
for c, Bm, Cm in zip(convs(), B, C):
    for qi, (q, ev, cat) in enumerate(c.qs):
        f = 0.6 * Bm[qi] / max(Bm[qi].max(), 1e-9) + 0.4 * Cm[qi]
        o = list(np.argsort(-f))
        rows.append((c, q, ev, cat, o, list(np.argsort(-Bm[qi])), list(np.argsort(-Cm[qi]))))
miss = [r for r in rows if r[2] and not set(r[2]) & set(r[4][:5])]
print(len(miss), "of", len(rows))
for c, q, ev, cat, o, ob, oc in random.sample(miss, 25):
    print("Q", cat, q)
    for e in ev:
        t = c.turns[e]
        print("   EV", o.index(e), ob.index(e), oc.index(e), t.dia_id, t.speaker, ":", t.text[:150], "| cap:", t.caption[:60])
    t = c.turns[o[0]]
    print("   TOP1", t.speaker, ":", t.text[:120])
