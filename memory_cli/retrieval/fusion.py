"""How keyword and vector evidence become one relevance score on a fixed 0-1 scale.

Why absolute scales rather than min-max, z-scores or reciprocal rank fusion: those describe a
hit relative to the other candidates of the same query, so the best hit of a query that matches
nothing well still scores 1.0 (or the top rank), and a threshold such as the injection's 0.6 or a
token budget cannot tell "the best of nothing" from "exactly this". Here each signal means the
same thing for every query:

- keyword: BM25 divided by the sum of the query terms' IDF, i.e. roughly the IDF-weighted share of
  the query's words found in the memory (1.0 = every word, once, in a memory of average length).
  Rare words count for more than common ones; words in half the store count for almost nothing;
  words no memory contains count as rare ones (nothing was found for them).
- vector: cosine similarity mapped linearly from [0.2, 0.75] to [0, 1]. all-MiniLM-L6-v2 cosines
  below about 0.2 are noise between unrelated sentences; above about 0.75 the texts say nearly
  the same thing.

``base = w * keyword + (1 - w) * vector`` (keyword alone when no vectors are available). Extra
evidence (a neighbouring memory of the same session that matches, the query naming the memory's
subject, a date in the query matching the day the memory was recorded) closes part of the gap
to 1: ``r + (1 - r) * b``. That keeps scores inside 0-1 without clipping, so their order is kept.
The reported score is ``1 - (1 - r)^2`` (see :func:`calibrate`: partial matches of long queries
are real hits) times confidence and recency factors (relevance x recency x confidence).

On the LoCoMo turn benchmark these choices ranked as well as the best relative normalisation
(see scripts/locomo_experiments/RESULTS.md). Everything here is pure and standard library only:
hooks import it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping  # cheap (re already loads collections); typing is not

from ..files import regex_cache


class Weights:
    """Every knob of the ranking. Defaults: what cross-validation on LoCoMo chose in most of its ten
    splits (scripts/bench_retrieval_cv.py; tuned on three conversations, scored on the other two).

    A plain class rather than a dataclass: ``dataclasses`` costs ~10 ms to import on the hook path.
    """

    __slots__ = (
        "keyword",
        "cos_floor",
        "cos_full",
        "keyword_context",
        "neighbours",
        "subject",
        "date",
        "rejected",
        "concept",
        "temporal",
        "feedback",
        "confidence",
        "recency",
        "half_life_days",
    )

    def __init__(
        self,
        *,
        keyword: float = 0.6,  # share of the keyword signal in the base score
        cos_floor: float = 0.2,  # cosine mapped to 0 ...
        cos_full: float = 0.75,  # ... and to 1
        keyword_context: float = 0.3,  # share of the previous same-session memory's keyword score
        neighbours: float = 0.2,  # gap closed per unit of the neighbours' summed base score
        subject: float = 0.5,  # gap closed when the query names the memory's subject
        date: float = 0.5,  # gap closed when a date in the query matches the memory's day
        rejected: float = 0.5,  # gap closed for a rejected alternative asked about
        concept: float = 0.5,  # gap closed when the memory names an instance of a concept asked about
        temporal: float = 0.25,  # gap closed when a "when" question meets a time expression
        feedback: float = 0.15,  # gap closed by sharing the top hits' other words (feedback)
        confidence: float = 0.3,  # 0 = ignore confidence; 1 = score x confidence
        recency: float = 0.1,  # 0 = ignore age; 1 = score x 0.5 ** (age / half life)
        half_life_days: float = 90.0,
    ):
        for name in self.__slots__:
            setattr(self, name, float(locals()[name]))

    def replace(self, **changes) -> Weights:
        return Weights(**{**{n: getattr(self, n) for n in self.__slots__}, **changes})

    def neutral(self) -> Weights:
        """The same ranking with confidence and recency switched off (benchmarks)."""
        return self.replace(confidence=0.0, recency=0.0)

    def __repr__(self) -> str:
        return "Weights(" + ", ".join(f"{n}={getattr(self, n):g}" for n in self.__slots__) + ")"


DEFAULT = Weights()


# ----------------------------------------------------------------------------- keyword side


def fts5_idf(n_docs: int, doc_freq: int) -> float:
    """IDF exactly as SQLite FTS5's bm25() computes it (so that bm25 / sum(idf) is ~0-1).

    FTS5 floors a non-positive IDF (a term in half the rows or more) at 1e-6.
    """
    if doc_freq <= 0 or n_docs <= 0:
        return 0.0
    # The two counts come from separate statements, so a write in between can make the word
    # count exceed the row count (seen with concurrent writers); FTS5 itself never sees that.
    doc_freq = min(doc_freq, n_docs)
    idf = math.log((n_docs - doc_freq + 0.5) / (doc_freq + 0.5))
    return idf if idf > 0 else 1e-6


def query_term_idf(n_docs: int, doc_freq: int) -> float:
    """A query word's weight in the denominator of the keyword score.

    A word no memory contains still counts, as if one memory had it: the person asked for it and
    nothing has it, so a query that grazes the store on one word must not look fully matched.
    """
    return fts5_idf(max(n_docs, 1), max(doc_freq, 1))


def keyword_scores(bm25: Mapping[str, float], idf_sum: float) -> dict[str, float]:
    """Positive BM25 per id -> the 0-1 keyword signal (share of the query found)."""
    if idf_sum <= 0:
        return {k: 0.0 for k in bm25}
    return {k: min(1.0, max(0.0, s / idf_sum)) for k, s in bm25.items()}


def with_context(
    keyword: Mapping[str, float], previous: Mapping[str, str | None], share: float = 0.3
) -> dict[str, float]:
    """Add the previous same-session memory's keyword score, so that an answer recorded right
    after the question it answers is found by the question's words. Clipped to 1."""
    out = {}
    for k, s in keyword.items():
        p = previous.get(k)
        out[k] = min(1.0, s + share * keyword.get(p, 0.0)) if p else s
    for k, p in previous.items():  # memories found only through their predecessor
        if k not in out and p and keyword.get(p, 0.0) > 0:
            out[k] = min(1.0, share * keyword[p])
    return out


# ----------------------------------------------------------------------------- vector side


def vector_score(cosine: float, floor: float = DEFAULT.cos_floor, full: float = DEFAULT.cos_full) -> float:
    if full <= floor:
        return 1.0 if cosine >= full else 0.0
    return min(1.0, max(0.0, (cosine - floor) / (full - floor)))


def vector_scores(cosines: Mapping[str, float], weights: Weights = DEFAULT) -> dict[str, float]:
    return {k: vector_score(c, weights.cos_floor, weights.cos_full) for k, c in cosines.items()}


# ----------------------------------------------------------------------------- fusion


def fuse(
    keyword: Mapping[str, float], vector: Mapping[str, float] | None, keyword_weight: float = DEFAULT.keyword
) -> dict[str, float]:
    """Base relevance of every candidate of either list (missing on one side counts as 0).

    ``vector=None`` means no vectors could be consulted (daemon cold, no semantic extra): the
    keyword signal then stands alone on the same 0-1 scale instead of being capped at its weight.
    """
    if vector is None:
        return {k: float(v) for k, v in keyword.items()}
    w = min(1.0, max(0.0, keyword_weight))
    ids = list(dict.fromkeys([*keyword, *vector]))
    return {k: w * keyword.get(k, 0.0) + (1.0 - w) * vector.get(k, 0.0) for k in ids}


def close_gap(score: float, bonus: float) -> float:
    """``score + (1 - score) * bonus`` with bonus clipped to 0-1: more evidence, never past 1."""
    b = min(1.0, max(0.0, bonus))
    return score + (1.0 - score) * b


def neighbour_bonus(
    base: Mapping[str, float], neighbours: Mapping[str, Iterable[str]], share: float = DEFAULT.neighbours
) -> dict[str, float]:
    """Raise memories whose same-session neighbours are relevant too (computed from ``base``)."""
    out = dict(base)
    for k, s in base.items():
        around = sum(base.get(n, 0.0) for n in neighbours.get(k, ()) if n)
        if around > 0:
            out[k] = close_gap(s, share * around)
    return out


# ----------------------------------------------------------------------------- query cues

_NAME_CACHE: dict[str, re.Pattern] = {}


def names_subject(query: str, subject: str | None) -> bool:
    """Does the query name this subject (whole words, case-insensitive, possessive allowed)?"""
    if not subject or not subject.strip():
        return False
    key = subject.strip().lower()
    pat = _NAME_CACHE.get(key)
    if pat is None:
        words = r"[\s_\-]+".join(re.escape(w) for w in re.split(r"[\s_\-]+", key) if w)
        pat = re.compile(r"(?<![\w])" + words + r"(?![\w])", re.IGNORECASE)
        if len(_NAME_CACHE) < 512:
            _NAME_CACHE[key] = pat
    return pat.search(query) is not None


_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_HAS_YEAR = regex_cache.compile(r"\d{4}")
_DATE_RES: list = []  # compiled on first use: most queries name no date, and hooks pay for imports


def _date_res():
    if not _DATE_RES:
        mon = (
            r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
            r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
        )
        _DATE_RES.extend(
            [
                regex_cache.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+" + mon + r"\.?,?\s+(\d{4})\b", re.I),
                regex_cache.compile(r"\b" + mon + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s*(\d{4})\b", re.I),
                regex_cache.compile(r"\b" + mon + r"\.?,?\s+(\d{4})\b", re.I),
                regex_cache.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"),
                regex_cache.compile(r"\b(\d{4})-(\d{2})\b(?!-)"),
            ]
        )
    return _DATE_RES


def _month(name: str) -> int:
    n = name.lower()[:3]
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(n))


def query_dates(query: str) -> list[tuple[str, str]]:
    """Calendar days or months named in the query, as inclusive ``(YYYY-MM-DD, YYYY-MM-DD)``.

    Absolute dates only ("8 May 2023", "May 8, 2023", "2023-05-08", "May 2023", "2023-05"):
    relative ones ("last week") would need a reference time the store does not have.
    """
    if not query or not _HAS_YEAR.search(query):
        return []
    import datetime as dt

    day_month_year, month_day_year, month_year, iso_day, iso_month = _date_res()
    out: list[tuple[str, str]] = []

    def day(y, m, d):
        try:
            s = dt.date(int(y), int(m), int(d)).isoformat()
        except ValueError:
            return
        out.append((s, s))

    for m in day_month_year.finditer(query):
        day(m.group(3), _month(m.group(2)), m.group(1))
    for m in month_day_year.finditer(query):
        day(m.group(3), _month(m.group(1)), m.group(2))
    for m in iso_day.finditer(query):
        day(m.group(1), m.group(2), m.group(3))
    if not out:
        months = [(int(m.group(2)), _month(m.group(1))) for m in month_year.finditer(query)]
        months += [(int(m.group(1)), int(m.group(2))) for m in iso_month.finditer(query) if 1 <= int(m.group(2)) <= 12]
        for y, mo in months:
            try:
                first = dt.date(y, mo, 1)
            except ValueError:
                continue
            nxt = dt.date(y + (mo == 12), mo % 12 + 1, 1)
            out.append((first.isoformat(), (nxt - dt.timedelta(days=1)).isoformat()))
    return list(dict.fromkeys(out))


def date_matches(created_at: str | None, ranges: list[tuple[str, str]], slack_days: int = 1) -> bool:
    """Was the memory recorded within one of ``ranges`` (plus a day either side, for time zones)?"""
    if not created_at or not ranges:
        return False
    import datetime as dt

    try:
        d = dt.date.fromisoformat(created_at[:10])
    except ValueError:
        return False
    slack = dt.timedelta(days=slack_days)
    return any(dt.date.fromisoformat(lo) - slack <= d <= dt.date.fromisoformat(hi) + slack for lo, hi in ranges)


_CUE_RES: dict = {}


def _cue(name: str):
    pat = _CUE_RES.get(name)
    if pat is None:
        if name == "asks":
            pat = regex_cache.compile(
                r"\b(decided?|decision|chose|agreed)\s+(not|against)\b|\brejected\b|\bruled out\b"
                r"|\bwhy (not|didn'?t we|don'?t we)\b|\b(didn'?t|did not|don'?t|do not) (we )?(use|go with|choose|pick)\b"
                r"|\bnot to (do|use|go)\b|\binstead of\b|\balternatives?\b",
                re.I,
            )
        else:
            pat = regex_cache.compile(
                r"\b(rejected|ruled out|instead of|rather than|decided against|decided not|chose not|not to use"
                r"|don'?t use|do not use|never use|over)\b",
                re.I,
            )
        _CUE_RES[name] = pat
    return pat


def asks_for_rejected(query: str) -> bool:
    """ "What did we decide not to do about caching?" and its relatives."""
    return bool(query) and _cue("asks").search(query) is not None


def records_rejection(content: str | None, tags: Iterable[str] = ()) -> bool:
    """A decision that names the alternative it turned down (in its text or a ``rejected:`` tag)."""
    if any(str(t).lower().startswith("rejected") for t in tags or ()):
        return True
    return bool(content) and _cue("records").search(content) is not None


# ----------------------------------------------------------------------------- temporal cue

_TIME_RES: list = []


def _time_res():
    if not _TIME_RES:
        _TIME_RES.append(
            regex_cache.compile(
                r"\bwhen\b|\bwhat (year|month|day|date|time|week)\b|\bhow long (ago|before|after|since)\b"
                r"|\bwhich (year|month|day|week)\b",
                re.I,
            )
        )
        days = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
        _TIME_RES.append(
            regex_cache.compile(
                r"\b(last|next|this|past|coming|few|couple of)\s+(\w+\s+)?(week|weeks|month|months|year|years|night"
                r"|weekend|summer|winter|spring|fall|autumn|" + days[1:-1] + r")\b",
                re.I,
            )
        )
    return _TIME_RES


def asks_when(query: str) -> bool:
    """Does the question ask for a time ("when did ...", "what year ...", "how long ago ...")?"""
    return bool(query) and _time_res()[0].search(query) is not None


_DAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
# "may" is left out: as a word it is mostly the verb.
_TIME_WORDS = (
    frozenset(["yesterday", "today", "tonight", "tomorrow", "recently", "ago", "lately", "earlier", "weekend"])
    | _DAYS
    | frozenset(m for m in _MONTHS if m != "may")
)
_TIME_STARTS = frozenset(["last", "next", "this", "past", "coming", "few", "couple"])
_WORDS = regex_cache.compile(r"\w+")
_ISO_DAY = regex_cache.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def mentions_time(content: str | None) -> bool:
    """Does the memory carry a time expression ("yesterday", "last week", "in 2022", "on Friday")?

    A time word, a year (19xx, 20xx), an ISO date, or "last|next|this|past|coming|few|couple of"
    followed, one word apart at most, by a unit ("last week", "this past summer"). The words are
    looked up in sets and the phrase expression runs only when a word that starts one is there:
    the search asks this of every candidate of a "when" question (hundreds), and one expression
    for all of it took 10 ms of a 50 ms search.
    """
    if not content:
        return False
    text = content.lower()
    words = _WORDS.findall(text)
    if not _TIME_WORDS.isdisjoint(words):
        return True
    for w in words:
        if len(w) == 4 and w[:2] in ("19", "20") and w.isdigit():
            return True
    if "-" in text and _ISO_DAY.search(text):
        return True
    return not _TIME_STARTS.isdisjoint(words) and _time_res()[1].search(text) is not None


# ----------------------------------------------------------------------------- feedback


def feedback_bonus(
    rel: Mapping[str, float], terms_of, query_terms: Iterable[str], share: float, top: int = 5, pool: int = 50
) -> dict[str, float]:
    """Pseudo-relevance feedback inside the candidate set: the words the best ``top`` hits share
    (other than the query's own) describe what the query is about; the best ``pool`` candidates
    gain ``share x`` the weighted share of those words they hold (lower ones could not reach the
    first results anyway). ``terms_of(id)`` gives a candidate's words."""
    if share <= 0 or sum(1 for v in rel.values() if v > 0) < 2:
        return dict(rel)  # one hit alone would be rewarded with its own words
    ranked = sorted(rel, key=rel.get, reverse=True)
    skip = set(query_terms)
    weight: dict[str, float] = {}
    for k in ranked[:top]:
        for t in set(terms_of(k)):
            if t not in skip:
                weight[t] = weight.get(t, 0.0) + rel[k]
    weight = {t: v for t, v in weight.items() if v > 0}
    if not weight:
        return dict(rel)
    norm = sum(sorted(weight.values(), reverse=True)[:20]) or 1.0
    out = dict(rel)
    for k in ranked[:pool]:
        got = sum(weight.get(t, 0.0) for t in set(terms_of(k)))
        if got:
            out[k] = close_gap(rel[k], share * min(1.0, got / norm))
    return out


# ----------------------------------------------------------------------------- weights


def confidence_factor(confidence: float | None, strength: float = DEFAULT.confidence) -> float:
    """``1 - s + s * confidence``: at the default 0.3 a 0.3-confidence memory keeps 79 %."""
    c = 0.5 if confidence is None else min(1.0, max(0.0, float(confidence)))
    s = min(1.0, max(0.0, strength))
    return 1.0 - s + s * c


def recency_factor(
    age_days: float | None, strength: float = DEFAULT.recency, half_life_days: float = DEFAULT.half_life_days
) -> float:
    """``1 - s + s * 0.5 ** (age / half life)``: new memories 1.0, old ones down to ``1 - s``."""
    s = min(1.0, max(0.0, strength))
    if s == 0.0 or age_days is None or half_life_days <= 0:
        return 1.0
    return 1.0 - s + s * 0.5 ** (max(0.0, age_days) / half_life_days)


def calibrate(relevance: float) -> float:
    """``1 - (1 - r)^2``: the reported relevance. Monotonic, so it never changes the order.

    The fused evidence ``r`` is a share of the query's weight; a memory holding the distinctive
    half of a long, noisy query (an error message, a prompt) is a strong hit, yet ``r`` is 0.5.
    With this curve r = 0.37 reaches 0.6 and r = 0.5 gives 0.75, while a memory that grazes one
    word of four (r ~ 0.25) stays at ~0.44.
    """
    r = min(1.0, max(0.0, relevance))
    return 1.0 - (1.0 - r) ** 2


def final_score(
    relevance: float, *, confidence: float | None = None, age_days: float | None = None, weights: Weights = DEFAULT
) -> float:
    """Calibrated relevance x confidence x recency, on 0-1."""
    return (
        calibrate(relevance)
        * confidence_factor(confidence, weights.confidence)
        * recency_factor(age_days, weights.recency, weights.half_life_days)
    )
