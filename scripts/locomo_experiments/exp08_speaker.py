"""How much does the speaker (the memory's subject) matter? Separate weighted column vs an oracle-free boost."""
from __future__ import annotations
import numpy as np
from common import metrics, fmt, fts_index, fts_search, terms
from scores import cos_mats, evs, rank, convs
E = evs()
capt = lambda t: (f" [image: {t.caption}]" if t.caption else "")
spkcap = lambda t: f"{t.speaker}: {t.text}" + capt(t)
prevspkcap = lambda t: (f"{t.prev_speaker}: {t.prev}\n" if t.prev else "") + spkcap(t)
dspk = lambda t: f"({t.date}) {t.speaker}: {t.text}" + capt(t)
C2 = [(a + b) / 2 for a, b in zip(cos_mats(dspk), cos_mats(prevspkcap))]


def bm(body, cols, weights):
    out = []
    for c in convs():
        import apsw
        con = apsw.Connection(":memory:")
        names = ["body"] + [f"c{i}" for i in range(len(cols))]
        con.execute(f"create virtual table f using fts5({', '.join(names)}, tokenize='porter unicode61')")
        with con:
            for i, t in enumerate(c.turns):
                con.execute(f"insert into f(rowid, {', '.join(names)}) values (?{', ?' * len(names)})",
                            (i, body(t), *[fn(t) for fn in cols]))
        M = np.zeros((len(c.qs), len(c.turns)))
        for qi, (q, ev, cat) in enumerate(c.qs):
            for i, s in fts_search(con, terms(q), limit=len(c.turns), weights=weights):
                M[qi, i] = s
        out.append(M)
    return out


def fuse(Bs, Cs, wb=0.5):
    return [wb * b / np.maximum(b.max(1, keepdims=True), 1e-9) + (1 - wb) * c for b, c in zip(Bs, Cs)]


txtcap = lambda t: t.text + capt(t)
ctx = lambda t: t.prev + " | " + t.date
base = bm(spkcap, [ctx], (1.0, 0.3))
print(fmt("base spk-in-body", metrics(rank(fuse(base, C2)), E)))
for w in (0.5, 1.0, 2.0, 4.0):
    B = bm(txtcap, [ctx, lambda t: t.speaker], (1.0, 0.3, w))
    print(fmt(f"speaker col w={w}", metrics(rank(fuse(B, C2)), E)), flush=True)
# measurement only: hard boost of turns by a speaker named in the question
F = fuse(base, C2)
G = []
for c, M in zip(convs(), F):
    M = M.copy()
    for qi, (q, ev, cat) in enumerate(c.qs):
        names = [s for s in c.speakers if s.lower() in q.lower()]
        if names:
            M[qi] += 0.2 * np.array([t.speaker in names for t in c.turns])
    G.append(M)
print(fmt("oracle-ish speaker boost 0.2 (NOT generic)", metrics(rank(G), E)))
B = bm(txtcap, [ctx, lambda t: t.speaker], (1.0, 0.3, 4.0))
print(np.abs(B[0] - base[0]).max(), B[0][0][:10], base[0][0][:10])
B1 = bm(txtcap, [ctx, lambda t: t.speaker], (1.0, 0.3, 0.0))
print(np.abs(B[0] - B1[0]).max())
