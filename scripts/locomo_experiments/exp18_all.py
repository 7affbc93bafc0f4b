"""Everything that helped, with index-time context; ablations."""
from __future__ import annotations
from common import metrics, fmt
import exp13_product_like as P
import exp17_side_smoothing as T
C_ctx1 = [(a + b) / 2 for a, b in zip(P.C_content, [q @ p.T for q, p in zip(P.Q, P.X.Vp)])]
for Bn, Bs in (("B_content", P.B_content), ("B_ctx", P.B_ctx)):
    for Cn, Cs in (("1vec", P.C_content), ("1vec+ctxvec", C_ctx1), ("sent", P.C_sent), ("sent+ctxvec", P.C_sent_ctx)):
        for bl in ((0, 0), (0.3, 0.0)):
            for sb, db in ((0, 0), (0.2, 0), (0, 0.2), (0.2, 0.2)):
                print(fmt(f"{Bn} {Cn} bsmooth={bl} f=.15 sb={sb} db={db}", T.pipe(Bs, Cs, bl, (0, 0), (0.15, 0.15), sb=sb, db=db)), flush=True)
