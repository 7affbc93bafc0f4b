"""Vector side: what to embed, neighbour context, multiple vectors per memory."""
from __future__ import annotations
import numpy as np
from common import metrics, fmt
from scores import cos_mats, evs, rank

E = evs()
capt = lambda t: (f" [image: {t.caption}]" if t.caption else "")
V = {
    "spk": lambda t: f"{t.speaker}: {t.text}",
    "spkcap": lambda t: f"{t.speaker}: {t.text}" + capt(t),
    "spk+capsep": lambda t: f"{t.speaker} shared an image: {t.caption}" if t.caption else f"{t.speaker}: {t.text}",
    "prev+spkcap": lambda t: (f"{t.prev_speaker}: {t.prev}\n" if t.prev else "") + f"{t.speaker}: {t.text}" + capt(t),
    "spkcap+next": lambda t: f"{t.speaker}: {t.text}" + capt(t) + (f"\n{t.next}" if t.next else ""),
    "date spkcap": lambda t: f"({t.date}) {t.speaker}: {t.text}" + capt(t),
}
M = {}
for k, fn in V.items():
    M[k] = cos_mats(fn)
    print(fmt(k, metrics(rank(M[k]), E)), flush=True)


def comb(keys, how):
    out = []
    for mats in zip(*[M[k] for k in keys]):
        S = np.stack(mats)
        out.append(S.max(0) if how == "max" else S.mean(0))
    return out


for keys in (("spk", "prev+spkcap"), ("spkcap", "prev+spkcap"), ("spk", "spk+capsep"), ("spk", "spk+capsep", "prev+spkcap"),
             ("spk", "prev+spkcap", "spkcap+next")):
    for how in ("max", "mean"):
        print(fmt(f"{how}({'; '.join(keys)})", metrics(rank(comb(keys, how)), E)), flush=True)
