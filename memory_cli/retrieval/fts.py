"""Keyword side of hybrid retrieval: BM25 over retrieval's ranking index ``memory_rank_fts``
(content, tags, subject plus session context; see :mod:`.hybrid`), the store's one FTS index, put on the
0-1 scale of :mod:`.fusion` (BM25 / sum of the query words' IDF).

A person's query is free text, not FTS5 syntax: it is split into words, stop words and
possessives dropped, each word quoted (so ``-``, ``:`` or ``NEAR`` in it cannot become an
operator) and the words OR-ed, so any overlap ranks and BM25 decides the order. The index's own
porter tokenizer stems both sides. Standard library + apsw only: hooks call this.
"""

from __future__ import annotations

import re

from ..files import regex_cache
from . import fusion

# memory_rank_fts (retrieval's ranking index, migration 5): content, tags, subject, context.
# Tags and subject are short and curated: a hit there is worth half a hit in the text, or one-word
# subjects would outrank whole sentences. Context (the previous memory of the same session) is
# evidence about the memory, not the memory: half weight too (LoCoMo: 0.3-0.5 equally good).
RANK_TABLE = "memory_rank_fts"
COLUMN_WEIGHTS = (1.0, 0.5, 0.5, 0.5)
RANK_BM25 = "bm25(memory_rank_fts, {})".format(", ".join(str(w) for w in COLUMN_WEIGHTS))
# Fallback for a store opened read-only before migration 5 (it still has the foundation's index).
_BASE_BM25 = "bm25(memory_fts, 1.0, 0.5, 0.5)"

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "he'd",
        "he'll",
        "he's",
        "her",
        "here",
        "here's",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "how's",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "let's",
        "me",
        "more",
        "most",
        "mustn't",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "shan't",
        "she",
        "she'd",
        "she'll",
        "she's",
        "should",
        "shouldn't",
        "so",
        "some",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they'd",
        "they'll",
        "they're",
        "they've",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn't",
        "we",
        "we'd",
        "we'll",
        "we're",
        "we've",
        "were",
        "weren't",
        "what",
        "what's",
        "when",
        "when's",
        "where",
        "where's",
        "which",
        "while",
        "who",
        "who's",
        "whom",
        "why",
        "why's",
        "will",
        "with",
        "won't",
        "would",
        "wouldn't",
        "you",
        "you'd",
        "you'll",
        "you're",
        "you've",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "just",
    ]
)

_WORD = regex_cache.compile(r"[\w][\w.\-']*", re.UNICODE)
_PARTS = regex_cache.compile(r"[.\-']+")


def query_terms(text: str) -> list[str]:
    """The words of a query worth matching, lower-cased, in order, without repeats.

    Dotted and hyphenated names are split into their parts ("sounddevice.PortAudioError" ->
    sounddevice, portaudioerror), as the index's tokenizer splits them: a memory that names only
    ``PortAudioError`` must still match.
    """
    out: list[str] = []
    for word in _WORD.findall((text or "").lower()):
        word = word.strip(".-'")
        if word in STOP_WORDS:  # contractions such as don't, it's
            continue
        if word.endswith("'s"):
            word = word[:-2]
        for w in _PARTS.split(word):
            if len(w) < 2 or w in STOP_WORDS:  # single characters ("1", "x") match noise
                continue
            if w not in out:
                out.append(w)
    return out


def _phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def match_expression(terms: list[str]) -> str | None:
    return " OR ".join(_phrase(t) for t in terms) if terms else None


def _table(store) -> tuple[str, str]:
    if store.table_exists(RANK_TABLE):
        return RANK_TABLE, RANK_BM25
    return "memory_fts", _BASE_BM25


def indexed_count(store) -> int:
    """How many rows the ranking index holds: one per entry when it is in step with the store."""
    return int(store.value(f"SELECT count(*) FROM {RANK_TABLE}") or 0)


def idf_sum(store, terms: list[str], table: str | None = None) -> float:
    """Sum of the query words' IDF as bm25() counts them in ``table`` (rows matching in any
    column), words that nothing contains included (see :func:`fusion.query_term_idf`)."""
    table = table or _table(store)[0]
    n = int(store.value("SELECT count(*) FROM memory_entries") or 0)
    total = 0.0
    for t in terms:
        df = int(store.value(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (_phrase(t),)) or 0)
        total += fusion.query_term_idf(n, df)
    return total


def search(store, terms: list[str], *, limit: int = 300, where: str = "", params=()) -> dict[str, float]:
    """``{entry id: positive BM25}`` of the best ``limit`` matches, best first.

    ``where`` is extra SQL over the entry alias ``e`` (status, scope, type filters).
    """
    expr = match_expression(terms)
    if expr is None or limit <= 0:
        return {}
    table, rank = _table(store)
    sql = (
        f"SELECT e.id AS id, -{rank} AS s FROM {table} JOIN memory_entries e "
        f"ON e.rowid = {table}.rowid WHERE {table} MATCH ?"
        + (f" AND {where}" if where else "")
        + f" ORDER BY {rank} LIMIT ?"
    )
    rows = store.rows(sql, [expr, *params, int(limit)])
    return {r["id"]: float(r["s"]) for r in rows}


def keyword_scores(store, text: str, *, limit: int = 300, where: str = "", params=()) -> dict[str, float]:
    """``{entry id: keyword score 0-1}`` for the query ``text``.

    A memory's score never exceeds the IDF share of the query's words it contains: BM25 gives a
    word repeated in a short memory more than its own weight, which in a young store (where
    every word's IDF is about equal) let "no, don't use npm here, use pnpm" reach a memory that
    only says "use" twice as if it held two of the prompt's three words."""
    terms = query_terms(text)
    raw = search(store, terms, limit=limit, where=where, params=params)
    if not raw:
        return {}
    table = _table(store)[0]
    n = int(store.value("SELECT count(*) FROM memory_entries") or 0)
    marks = ",".join("?" * len(raw))
    held: dict[str, float] = {}
    total = 0.0
    for t in terms:
        df = int(store.value(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (_phrase(t),)) or 0)
        idf = fusion.query_term_idf(n, df)
        total += idf
        if df:
            sql = (
                f"SELECT e.id AS id FROM {table} JOIN memory_entries e ON e.rowid = {table}.rowid "
                f"WHERE {table} MATCH ? AND e.id IN ({marks})"
            )
            for r in store.rows(sql, [_phrase(t), *raw]):
                held[r["id"]] = held.get(r["id"], 0.0) + idf
    scores = fusion.keyword_scores(raw, total)
    if total <= 0:
        return scores
    return {k: min(s, held.get(k, 0.0) / total) for k, s in scores.items()}
