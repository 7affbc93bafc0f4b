"""Is the chosen point on a plateau? Vary one knob at a time around it."""
from __future__ import annotations
from common import fmt
import exp13_product_like as P
import exp17_side_smoothing as T
B = P.B_ctx; C = P.C_sent
base = dict(bl=(0.3, 0.0), cl=(0, 0), fl=(0.15, 0.15), hb="z", hc="z", wb=0.5, sb=0.2, db=0.2, k=100)
print(fmt("chosen", T.pipe(B, C, **base)))
for key, vals in (("wb", (0.4, 0.45, 0.55, 0.6)), ("k", (50, 200)), ("hb", ("max", "minmax")), ("hc", ("minmax", "raw")),
                  ("sb", (0.1, 0.15, 0.25, 0.3)), ("db", (0.1, 0.3)), ("bl", ((0.2, 0), (0.4, 0), (0.3, 0.1))),
                  ("fl", ((0.1, 0.1), (0.2, 0.2), (0.2, 0.1)))):
    for v in vals:
        kw = dict(base); kw[key] = v
        print(fmt(f"{key}={v}", T.pipe(B, C, **kw)), flush=True)
