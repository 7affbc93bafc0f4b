"""What text to index per memory: text, speaker, caption, date, previous turn."""
from __future__ import annotations
import sys
import numpy as np
from common import load, embed, metrics, fmt, terms, fts_index, fts_search

VARIANTS = {
    "text": lambda t: t.text,
    "spk: text": lambda t: f"{t.speaker}: {t.text}",
    "text + cap": lambda t: t.text + (f" [image: {t.caption}]" if t.caption else ""),
    "spk: text + cap": lambda t: f"{t.speaker}: {t.text}" + (f" [image: {t.caption}]" if t.caption else ""),
    "date spk: text + cap": lambda t: f"({t.date}) {t.speaker}: {t.text}" + (f" [image: {t.caption}]" if t.caption else ""),
    "prev + spk: text + cap": lambda t: (f"{t.prev_speaker}: {t.prev}\n" if t.prev else "") + f"{t.speaker}: {t.text}" + (f" [image: {t.caption}]" if t.caption else ""),
}
convs = load()
for name, fn in VARIANTS.items():
    rb, rc, evs = [], [], []
    for c in convs:
        docs = [fn(t) for t in c.turns]
        con = fts_index(docs)
        V = embed(docs, "v")
        Q = embed([q for q, _, _ in c.qs], "q")
        for (q, ev, cat), qv in zip(c.qs, Q):
            evs.append(ev)
            rb.append([i for i, _ in fts_search(con, terms(q), limit=len(docs))])
            rc.append(list(np.argsort(-(V @ qv))))
    print(fmt("bm25 " + name, metrics(rb, evs)))
    print(fmt("cos  " + name, metrics(rc, evs)))
    sys.stdout.flush()
