"""Multiple vectors per memory: one per sentence (with the speaker prefix), score = max or blend with whole."""
from __future__ import annotations
import re
import numpy as np
from common import metrics, fmt, embed
from scores import bm25_mats, doc_vecs, q_vecs, evs, rank, convs
E = evs()
capt = lambda t: (f" [image: {t.caption}]" if t.caption else "")
spkcap = lambda t: f"{t.speaker}: {t.text}" + capt(t)
prevspkcap = lambda t: (f"{t.prev_speaker}: {t.prev}\n" if t.prev else "") + spkcap(t)
dspk = lambda t: f"({t.date}) {t.speaker}: {t.text}" + capt(t)
SPLIT = re.compile(r"(?<=[.!?])\s+")
B = bm25_mats(spkcap, ctx_fn=lambda t: t.prev + " | " + t.date, weights=(1.0, 0.3))
Vd = doc_vecs(dspk); Vp = doc_vecs(prevspkcap); Q = q_vecs()


def sent_mats(fmt_sent):
    out = []
    for c, q in zip(convs(), Q):
        owners, texts = [], []
        for i, t in enumerate(c.turns):
            parts = [s for s in SPLIT.split(t.text) if s.strip()]
            if t.caption:
                parts.append(f"[image: {t.caption}]")
            for s in parts:
                owners.append(i); texts.append(fmt_sent(t, s))
        S = embed(texts, "sent") @ q.T  # (nsent, nq)
        owners = np.array(owners)
        M = np.full((q.shape[0], len(c.turns)), -1.0)
        np.maximum.at(M.T, owners, S)
        out.append(M)
    return out


def fuse(Bs, Cs, wb=0.5):
    return [wb * b / np.maximum(b.max(1, keepdims=True), 1e-9) + (1 - wb) * c for b, c in zip(Bs, Cs)]


Sm = sent_mats(lambda t, s: f"{t.speaker}: {s}")
Cw = [(q @ a.T + q @ b.T) / 2 for q, a, b in zip(Q, Vd, Vp)]
Cd = [q @ a.T for q, a in zip(Q, Vd)]
print(fmt("cos whole (d+p)", metrics(rank(Cw), E)))
print(fmt("cos max-sentence", metrics(rank(Sm), E)))
for mix in ("(Cd+Sm)/2", "(Cw*2+Sm)/3", "(Cd+Sm+Cp)/3", "max(Cd,Sm)"):
    if mix == "(Cd+Sm)/2":
        C = [(a + b) / 2 for a, b in zip(Cd, Sm)]
    elif mix == "(Cw*2+Sm)/3":
        C = [(2 * a + b) / 3 for a, b in zip(Cw, Sm)]
    elif mix == "(Cd+Sm+Cp)/3":
        C = [(q @ a.T + s + q @ p.T) / 3 for q, a, s, p in zip(Q, Vd, Sm, Vp)]
    else:
        C = [np.maximum(a, b) for a, b in zip(Cd, Sm)]
    print(fmt("cos " + mix, metrics(rank(C), E)))
    for wb in (0.4, 0.5):
        print(fmt(f"  fused wb={wb}", metrics(rank(fuse(B, C, wb)), E)), flush=True)
