"""Final candidates in the shape the product can build: context column = previous memory of the
same session (no date text), date handled by a created_at boost, subject boost, sentence vectors."""
from __future__ import annotations
from common import metrics, fmt
from scores import bm25_mats
import exp13_product_like as P
import exp17_side_smoothing as T
B_prev = bm25_mats(P.spkcap, ctx_fn=lambda t: t.prev, weights=(1.0, 0.3))
rows = []
for Bn, Bs in (("B_content", P.B_content), ("B_prev", B_prev), ("B_prev+date", P.B_ctx)):
    for Cn, Cs in (("1vec", P.C_content), ("sent", P.C_sent)):
        for bl in ((0, 0), (0.3, 0.0)):
            for fl in ((0, 0), (0.15, 0.15)):
                for sb, db in ((0.2, 0.2), (0.1, 0.2), (0.2, 0.3)):
                    m = T.pipe(Bs, Cs, bl, (0, 0), fl, sb=sb, db=db)
                    rows.append((m["R@5"], fmt(f"{Bn} {Cn} bs={bl} fs={fl} sb={sb} db={db}", m)))
                    print(rows[-1][1], flush=True)
print("---- best")
for r in sorted(rows, reverse=True)[:12]:
    print(r[1])
