"""Query side: stripped wh-words for the embedding, phrase (bigram) bonus for BM25, neighbour smoothing."""
from __future__ import annotations
import re
import numpy as np
from common import metrics, fmt, fts_index, fts_search, terms, embed
from scores import cos_mats, doc_vecs, evs, rank, convs
E = evs()
capt = lambda t: (f" [image: {t.caption}]" if t.caption else "")
spkcap = lambda t: f"{t.speaker}: {t.text}" + capt(t)
prevspkcap = lambda t: (f"{t.prev_speaker}: {t.prev}\n" if t.prev else "") + spkcap(t)
dspk = lambda t: f"({t.date}) {t.speaker}: {t.text}" + capt(t)
Vd = doc_vecs(dspk); Vp = doc_vecs(prevspkcap)

WH = re.compile(r"^\s*(what|when|where|who|whom|which|why|how|would|could|does|did|do|is|are|was|were|has|have|can)\b(\s+(is|are|was|were|did|does|do|has|have|kind of|type of|long|many|much|might|would|could))*\s*", re.I)


def strip_q(q):
    return WH.sub("", q).rstrip("?").strip() or q


def cosq(qfn, tag):
    out = []
    for c, a, b in zip(convs(), Vd, Vp):
        Q = embed([qfn(q) for q, _, _ in c.qs], tag)
        out.append((Q @ a.T + Q @ b.T) / 2)
    return out


def bm(term_expr):
    out = []
    for c in convs():
        docs = [spkcap(t) for t in c.turns]
        con = fts_index(docs, cols=["body", "ctx"], extra=[[t.prev + " | " + t.date for t in c.turns]])
        M = np.zeros((len(c.qs), len(docs)))
        for qi, (q, ev, cat) in enumerate(c.qs):
            expr = term_expr(q)
            if not expr:
                continue
            for r, s in con.execute("select rowid, -bm25(f, 1.0, 0.3) from f where f match ?", (expr,)):
                M[qi, r] = s
        out.append(M)
    return out


def q_or(q):
    return " OR ".join(f'"{t}"' for t in terms(q))


def q_or_bigrams(q):
    ts = terms(q)
    big = [f'"{a} {b}"' for a, b in zip(ts, ts[1:])]
    return " OR ".join([f'"{t}"' for t in ts] + big)


def fuse(Bs, Cs, wb=0.5):
    return [wb * b / np.maximum(b.max(1, keepdims=True), 1e-9) + (1 - wb) * c for b, c in zip(Bs, Cs)]


B = bm(q_or)
Bb = bm(q_or_bigrams)
C = cosq(lambda q: q, "q")
Cs = cosq(strip_q, "qs")
print(fmt("B+C", metrics(rank(fuse(B, C)), E)))
print(fmt("Bbigram+C", metrics(rank(fuse(Bb, C)), E)))
print(fmt("B+Cstripped", metrics(rank(fuse(B, Cs)), E)))
print(fmt("B+mean(C,Cs)", metrics(rank(fuse(B, [(a + b) / 2 for a, b in zip(C, Cs)])), E)))
print(fmt("cos only C", metrics(rank(C), E)))
print(fmt("cos only Cs", metrics(rank(Cs), E)))
print(fmt("bm only B", metrics(rank(B), E)))
print(fmt("bm only Bb", metrics(rank(Bb), E)))
