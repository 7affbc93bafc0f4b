"""Absolute-scale pipeline: ablation of each component (what the product would need)."""
from __future__ import annotations
import numpy as np
from common import metrics, fmt
from scores import bm25_mats
import exp13_product_like as P
import exp22_absolute as A
B_prev = bm25_mats(P.spkcap, ctx_fn=lambda t: t.prev, weights=(1.0, 0.3))
K = {"content": [np.clip(b / np.maximum(s[:, None], 1e-9), 0, 1) for b, s in zip(P.B_content, A.IDF)],
     "content+prevctx": [np.clip(b / np.maximum(s[:, None], 1e-9), 0, 1) for b, s in zip(B_prev, A.IDF)]}
C = {"1vec": P.C_content, "sent": P.C_sent}
for kn, Ks in K.items():
    for cn, Cs in C.items():
        for lp, fl in ((0, (0, 0)), (0.3, (0.15, 0.15))):
            for sb, db in ((0, 0), (0.2, 0), (0, 0.2), (0.2, 0.2)):
                m, _ = A.pipe(Ks, Cs, wk=0.5, lp=lp, fl=fl, sb=sb, db=db)
                print(fmt(f"{kn} {cn} smooth={lp}/{fl[0]} subj={sb} date={db}", m), flush=True)
