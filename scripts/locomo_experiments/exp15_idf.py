"""BM25 reimplemented over FTS5's own tokens (fts5vocab instance table): IDF floor, k1, b."""
from __future__ import annotations
import math
import numpy as np
import apsw
from common import metrics, fmt, terms
from scores import evs, rank, convs
import exp13_product_like as P
import exp14_smoothing as S
import exp12_dates_prf as D
E = evs()
spkcap = P.spkcap


def stats(docs):
    con = apsw.Connection(":memory:")
    con.execute("create virtual table f using fts5(body, tokenize='porter unicode61')")
    con.execute("create virtual table vi using fts5vocab(f, 'instance')")
    with con:
        for i, d in enumerate(docs):
            con.execute("insert into f(rowid, body) values (?, ?)", (i, d))
    tf = {}
    dl = np.zeros(len(docs))
    for term, doc, col, off in con.execute("select term, doc, col, offset from vi"):
        tf.setdefault(term, {}).setdefault(doc, 0)
        tf[term][doc] += 1
        dl[doc] += 1
    return con, tf, dl


def stem_terms(con, q_terms):
    out = []
    c2 = apsw.Connection(":memory:")
    c2.execute("create virtual table g using fts5(x, tokenize='porter unicode61'); create virtual table gv using fts5vocab(g, 'row')")
    for t in q_terms:
        c2.execute("delete from g"); c2.execute("insert into g(x) values (?)", (t,))
        out += [r[0] for r in c2.execute("select term from gv")]
    return list(dict.fromkeys(out))


def bm25(idf_kind="fts", k1=1.2, b=0.75):
    out = []
    for c in convs():
        docs = [spkcap(t) for t in c.turns]
        con, tf, dl = stats(docs)
        N = len(docs); avg = dl.mean()
        M = np.zeros((len(c.qs), N))
        for qi, (q, ev, cat) in enumerate(c.qs):
            for t in stem_terms(con, terms(q)):
                post = tf.get(t)
                if not post:
                    continue
                n = len(post)
                if idf_kind == "fts":
                    idf = math.log((N - n + 0.5) / (n + 0.5))
                    idf = idf if idf > 0 else 1e-6
                else:  # lucene
                    idf = math.log(1 + (N - n + 0.5) / (n + 0.5))
                for d, f in post.items():
                    M[qi, d] += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * dl[d] / avg))
        out.append(M)
    return out


def full(Bs, Cs=P.C_sent):
    F = [0.5 * P.norm(P.cand(b, 100), "z") + 0.5 * P.norm(P.cand(c, 100), "z") for b, c in zip(Bs, Cs)]
    return metrics(rank(D.date_boost(S.smooth2(F, 0.3, 0.2), 0.2)), E)


print(fmt("fts5 builtin", metrics(rank(P.B_content), E)))
for kind in ("fts", "lucene"):
    for k1, b in ((1.2, 0.75), (0.9, 0.4), (1.5, 0.75), (1.2, 0.5), (2.0, 0.75), (1.2, 1.0)):
        B = bm25(kind, k1, b)
        print(fmt(f"{kind} k1={k1} b={b}", metrics(rank(B), E)), "  fused:", fmt("", full(B)), flush=True)
