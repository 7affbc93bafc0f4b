"""BM25 side: tokenizer, stop words, caption/date/context columns and weights."""
from __future__ import annotations
from common import metrics, fmt, terms, STOP
from scores import bm25_mats, evs, rank

E = evs()
spk = lambda t: f"{t.speaker}: {t.text}"
spkcap = lambda t: f"{t.speaker}: {t.text}" + (f" [image: {t.caption}]" if t.caption else "")
for tok in ("porter unicode61", "unicode61", "trigram"):
    tf = terms if tok != "trigram" else (lambda q: [w for w in terms(q) if len(w) >= 3])
    print(fmt(f"spk {tok}", metrics(rank(bm25_mats(spk, tok, tf)), E)))

EXTRA = STOP | set("""go went going get got like likely would could think kind type ever also
something many much one ones new recently lately last first still yet""".split())
print(fmt("spk porter extra-stop", metrics(rank(bm25_mats(spk, term_fn=lambda q: terms(q, EXTRA))), E)))
print(fmt("spk porter no-stop", metrics(rank(bm25_mats(spk, term_fn=lambda q: terms(q, set()))), E)))

# columns: body, ctx with weights
cap = lambda t: t.caption
for w in (0.3, 0.5, 1.0):
    print(fmt(f"spk | cap col w={w}", metrics(rank(bm25_mats(spk, ctx_fn=cap, weights=(1.0, w))), E)))
date = lambda t: t.date
for w in (0.2, 0.5, 1.0):
    print(fmt(f"spkcap | date col w={w}", metrics(rank(bm25_mats(spkcap, ctx_fn=date, weights=(1.0, w))), E)))
prev = lambda t: t.prev
for w in (0.1, 0.2, 0.3, 0.5):
    print(fmt(f"spkcap | prev col w={w}", metrics(rank(bm25_mats(spkcap, ctx_fn=prev, weights=(1.0, w))), E)))
nb = lambda t: t.prev + " " + t.next
for w in (0.1, 0.2, 0.3):
    print(fmt(f"spkcap | prev+next col w={w}", metrics(rank(bm25_mats(spkcap, ctx_fn=nb, weights=(1.0, w))), E)))
