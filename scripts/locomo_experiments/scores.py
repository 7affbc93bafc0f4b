"""Dense per-question score matrices (BM25 and cosine) for a document variant, cached in memory."""
from __future__ import annotations
import numpy as np
from common import load, embed, terms, fts_index, fts_search

_convs = None


def convs():
    global _convs
    if _convs is None:
        _convs = load()
    return _convs


def bm25_mats(doc_fn, tokenize="porter unicode61", term_fn=terms, ctx_fn=None, weights=None):
    """list per conv of (nq, ndocs) arrays of positive bm25 (0 = no match)."""
    out = []
    for c in convs():
        docs = [doc_fn(t) for t in c.turns]
        if ctx_fn:
            con = fts_index(docs, tokenize, cols=["body", "ctx"], extra=[[ctx_fn(t) for t in c.turns]])
        else:
            con = fts_index(docs, tokenize)
        M = np.zeros((len(c.qs), len(docs)), dtype=np.float64)
        for qi, (q, ev, cat) in enumerate(c.qs):
            for i, s in fts_search(con, term_fn(q), limit=len(docs), weights=weights):
                M[qi, i] = s
        out.append(M)
    return out


def cos_mats(doc_fn, tag="v", q_fn=lambda q: q):
    out = []
    for c in convs():
        V = embed([doc_fn(t) for t in c.turns], tag)
        Q = embed([q_fn(q) for q, _, _ in c.qs], "q")
        out.append(Q @ V.T)
    return out


def doc_vecs(doc_fn, tag="v"):
    return [embed([doc_fn(t) for t in c.turns], tag) for c in convs()]


def q_vecs():
    return [embed([q for q, _, _ in c.qs], "q") for c in convs()]


def evs():
    return [ev for c in convs() for _, ev, _ in c.qs]


def cats():
    return [cat for c in convs() for _, _, cat in c.qs]


def rank(mats):
    """rankings (list of index lists) from score matrices, ties broken by index."""
    out = []
    for M in mats:
        for row in M:
            out.append(list(np.argsort(-row, kind="stable")[:50]))
    return out
