"""Decide, without a model, whether two phrasings say the same thing or opposite things.

Used on the hook path when the embedding daemon is not warm (and as the tie-breaker when it
is): the person who types "never use pythonw.exe", then "No! Don't use pythonw.exe again",
then "stop using pythonw.exe" has made one correction three times, not three corrections; the
agent that writes "Takes 60s to start after restart" and later "Takes about 60 seconds to
start after a restart" has reinforced one observation.

How it works
------------
:func:`tokens` lower-cases, expands contractions, folds durations to seconds ("60 seconds",
"60s", "a minute" all become ``60s``), drops filler (articles, pronouns, auxiliaries,
politeness, "again", "ever") and applies a light suffix stemmer ("started", "starts",
"starting" -> ``start``). Tokens that look like names (``pythonw.exe``, ``--no-verify``,
``src/main.py``, ``v1.2``) are kept verbatim.

:func:`similarity` blends two set measures: Jaccard (shared / all) and containment (shared
/ smaller set), averaged. Containment lets a terse phrasing match a wordier one ("don't push to
main" vs "never push directly to the main branch": 0.75); Jaccard keeps one shared word from
making a short set match a long one ("never use npm" vs "don't run npm install with force":
0.67).

Thresholds (documented here because callers and tests depend on them)
----------------------------------------------------------------------
``SAME_THRESHOLD = 0.7``: two texts say the same thing at or above it.
``TOPIC_THRESHOLD = 0.5``: two observations are about the same thing (prerequisite for a
contradiction) at or above it, computed without the polarity and direction words.
``CONFLICT_THRESHOLD = 0.34``: two "what is right" parts that score below it name different
alternatives ("use pnpm, not npm" vs "use yarn, not npm"), so the corrections differ.

Polarity words (never, don't, stop, avoid, always, use) are dropped for corrections because a
correction's structure already records them: "never use X" and "stop using X" both have X as
the wrong part, and the comparison is role by role (wrong with wrong, right with right). For
observations polarity is what a contradiction is made of, so it is computed separately on the
main clause (text before " -- ", " - ", ";" or "(", which usually hold an explanation).

Standard library only.
"""

from __future__ import annotations

import re

from ..files import regex_cache

__all__ = [
    "SAME_THRESHOLD",
    "TOPIC_THRESHOLD",
    "CONFLICT_THRESHOLD",
    "tokens",
    "similarity",
    "same_text",
    "correction_key",
    "same_correction",
    "same_observation",
    "contradicts",
]

SAME_THRESHOLD = 0.7
TOPIC_THRESHOLD = 0.5
CONFLICT_THRESHOLD = 0.34

_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "it's",
        "i",
        "me",
        "my",
        "mine",
        "you",
        "your",
        "yours",
        "we",
        "us",
        "our",
        "they",
        "them",
        "their",
        "he",
        "she",
        "him",
        "her",
        "his",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "as",
        "into",
        "onto",
        "about",
        "around",
        "approx",
        "approximately",
        "roughly",
        "some",
        "any",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "doing",
        "done",
        "have",
        "has",
        "had",
        "having",
        "will",
        "would",
        "should",
        "could",
        "can",
        "may",
        "might",
        "must",
        "shall",
        "please",
        "pls",
        "just",
        "again",
        "ever",
        "really",
        "very",
        "so",
        "then",
        "than",
        "also",
        "too",
        "now",
        "here",
        "there",
        "still",
        "even",
        "only",
        "okay",
        "ok",
        "hey",
        "well",
        "yeah",
        "oh",
        "like",
        "said",
        "told",
        "say",
        "tell",
        "already",
        "once",
        "more",
        "anymore",
        "one",
        "thing",
        "things",
        "stuff",
        "etc",
    ]
)

# Words that carry a correction's polarity; roles (wrong/right) encode it instead.
_POLARITY = frozenset(
    [
        "not",
        "no",
        "never",
        "don't",
        "dont",
        "do-not",
        "stop",
        "quit",
        "avoid",
        "always",
        "use",
        "using",
        "used",
        "instead",
        "rather",
    ]
)

_NEGATIONS = frozenset(["not", "no", "never", "cannot", "without", "none", "nothing", "neither", "nor"])
# After stemming. "independent(ly) of X" denies a dependency on X; "optional" denies a need.
_NEGATING_STEMS = frozenset(["independent", "independ", "optional", "unnecessary", "unneed", "regardless"])
_ANTONYMS = {  # plain words; stemmed on first use
    "after": "before",
    "before": "after",
    "always": "never",
    "fast": "slow",
    "slow": "fast",
    "succeeds": "fails",
    "fails": "succeeds",
    "success": "failure",
    "failure": "success",
    "enabled": "disabled",
    "disabled": "enabled",
    "true": "false",
    "false": "true",
    "safe": "unsafe",
    "unsafe": "safe",
    "required": "optional",
    "increase": "decrease",
    "decrease": "increase",
    "faster": "slower",
    "slower": "faster",
    "earlier": "later",
    "later": "earlier",
    "more": "less",
    "less": "more",
    "higher": "lower",
    "lower": "higher",
}
_STEMMED_ANTONYMS: dict[str, str] = {}


def _antonyms() -> dict[str, str]:
    if not _STEMMED_ANTONYMS:
        _STEMMED_ANTONYMS.update({_stem(a): _stem(b) for a, b in _ANTONYMS.items()})
    return _STEMMED_ANTONYMS


def _cue_stems() -> frozenset[str]:
    return frozenset(_antonyms()) | _NEGATING_STEMS | _NEGATIONS


_CONTRACTIONS = [
    (r"\bcan't\b", "can not"),
    (r"\bwon't\b", "will not"),
    (r"\bshan't\b", "shall not"),
    (r"n't\b", " not"),
    (r"'re\b", " are"),
    (r"'ve\b", " have"),
    (r"'ll\b", " will"),
    (r"'d\b", " would"),
    (r"'m\b", " am"),
    (r"'s\b", ""),
]
_UNIT_SECONDS = {
    "ms": 0.001,
    "msec": 0.001,
    "millisecond": 0.001,
    "milliseconds": 0.001,
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
}
_WORD_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "five": 5, "ten": 10, "half a": 0.5}

_compiled: dict[str, re.Pattern[str]] = {}


def _re(name: str) -> re.Pattern[str]:
    pattern = _compiled.get(name)
    if pattern is None:
        sources = {
            "token": r"-{0,2}[a-z0-9](?:[a-z0-9_.\-/+:]*[a-z0-9])?",
            "named": r"([a-z][a-z0-9_\-]*)\.[a-z]{1,4}",
            "duration": r"\b(\d+(?:\.\d+)?|half a|an|a|one|two|three|five|ten)\s*("
            + "|".join(sorted(_UNIT_SECONDS, key=len, reverse=True))
            + r")\b",
            # explanations after a dash/semicolon/colon/parenthesis, and contrasts
            # ("302 when healthy, not 200"), are not the claim itself
            "main_clause": r"\s+(?:--|—|–|-)\s+|;|\(|:\s|,?\s+(?:not|rather\s+than|instead\s+of)\s+(?=\S+\s*$)|"
            r",\s*(?:not|rather\s+than|instead\s+of)\b",
        }
        pattern = regex_cache.compile(sources[name])
        _compiled[name] = pattern
    return pattern


def _fold_durations(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        raw, unit = m.group(1), m.group(2)
        try:
            amount = float(raw)
        except ValueError:
            amount = _WORD_NUMBERS[raw]
        seconds = amount * _UNIT_SECONDS[unit]
        return f" {seconds:g}s "

    return _re("duration").sub(repl, text)


def _stem(word: str) -> str:
    if any(ch.isdigit() for ch in word) or any(ch in word for ch in "./_+:") or word.startswith("-"):
        return word  # a name, a flag, a path or a quantity: keep verbatim
    w = word
    for suffix, replacement, min_len in (
        ("ies", "y", 5),
        ("sses", "ss", 6),
        ("ingly", "", 7),
        ("ing", "", 5),
        ("edly", "", 6),
        ("ed", "", 4),
        ("ly", "", 5),
        ("es", "", 5),
        ("s", "", 4),
    ):
        if w.endswith(suffix) and len(w) >= min_len and not (suffix == "s" and w.endswith(("ss", "us", "is"))):
            w = w[: len(w) - len(suffix)] + replacement
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "dflsz":
        w = w[:-1]  # running -> run, stopped -> stop
    if len(w) > 2 and w.endswith("e"):
        w = w[:-1]  # use/using/used -> us, restart/restarted stay
    return w


def _raw_tokens(text: str) -> list[str]:
    t = text.lower().replace("’", "'").replace("`", " ")
    for pattern, replacement in _CONTRACTIONS:
        t = regex_cache.sub(pattern, replacement, t)
    t = _fold_durations(t)
    return _re("token").findall(t)


def tokens(text: str, *, keep_polarity: bool = True) -> list[str]:
    """Normalised content tokens of ``text`` (order kept, duplicates removed)."""
    seen: dict[str, None] = {}
    for raw in _raw_tokens(text or ""):
        if raw in _STOPWORDS or (not keep_polarity and raw in _POLARITY):
            continue
        stem = _stem(raw)
        if not keep_polarity and stem in ("us", "avoid", "stop", "quit"):
            continue
        seen.setdefault(stem, None)
        # A file or program name also stands for itself without its extension, so
        # "pythonw" matches "pythonw.exe" (and "python.exe" still does not).
        m = _re("named").fullmatch(raw)
        if m:
            seen.setdefault(m.group(1), None)
    return list(seen)


def similarity(a: str | set[str] | list[str], b: str | set[str] | list[str]) -> float:
    """Blend of Jaccard and containment over normalised token sets, in [0, 1]."""
    sa = set(tokens(a)) if isinstance(a, str) else set(a)
    sb = set(tokens(b)) if isinstance(b, str) else set(b)
    if not sa or not sb:
        return 0.0
    shared = len(sa & sb)
    return (shared / len(sa | sb) + shared / min(len(sa), len(sb))) / 2


def same_text(a: str, b: str, threshold: float = SAME_THRESHOLD) -> bool:
    return similarity(a, b) >= threshold


def _correction_tokens(text: str) -> set[str]:
    return set(tokens(text or "", keep_polarity=False))


def correction_key(what_was_wrong: str, what_is_right: str) -> str:
    """A stable dedupe key: the sorted correction tokens of each role."""
    w = " ".join(sorted(_correction_tokens(what_was_wrong)))
    r = " ".join(sorted(_correction_tokens(what_is_right)))
    return f"w:{w}|r:{r}"


def same_correction(a_wrong: str, a_right: str, b_wrong: str, b_right: str) -> bool:
    """True when two corrections forbid the same thing (and do not name different fixes),
    or, when neither names a wrong, ask for the same thing."""
    wa, ra = _correction_tokens(a_wrong), _correction_tokens(a_right)
    wb, rb = _correction_tokens(b_wrong), _correction_tokens(b_right)
    # One correction's fix is the other's mistake: opposite, not the same.
    if (wa and rb and similarity(wa, rb) >= SAME_THRESHOLD) or (wb and ra and similarity(wb, ra) >= SAME_THRESHOLD):
        return False
    if wa and wb:
        if similarity(wa, wb) < SAME_THRESHOLD:
            return False
        return not (ra and rb and similarity(ra, rb) < CONFLICT_THRESHOLD)
    if ra and rb:
        return similarity(ra, rb) >= SAME_THRESHOLD
    return False


def _main_clause(text: str) -> str:
    return _re("main_clause").split(text, maxsplit=1)[0]


def _negated(text: str) -> bool:
    count = 0
    for raw in _raw_tokens(_main_clause(text)):
        if raw in _NEGATIONS or _stem(raw) in _NEGATING_STEMS:
            count += 1
    return count % 2 == 1


def _durations(text: str) -> list[float]:
    out = []
    for tok in tokens(text):
        m = regex_cache.fullmatch(r"(\d+(?:\.\d+)?)s", tok)
        if m:
            out.append(float(m.group(1)))
    return out


def contradicts(a: str, b: str) -> bool:
    """True when two observations are about the same thing and conclude differently:
    one is negated and the other not ("Must be started after WireGuard" vs "Can be started
    independently of WireGuard"), they use opposite words (after/before, succeeds/fails), or
    they give clearly different durations for the same thing (60s vs 10s)."""
    cues = _cue_stems()
    ta = set(tokens(_main_clause(a))) - cues
    tb = set(tokens(_main_clause(b))) - cues
    if similarity(ta, tb) < TOPIC_THRESHOLD:
        return False
    if _negated(a) != _negated(b):
        return True
    sa, sb = set(tokens(_main_clause(a))), set(tokens(_main_clause(b)))
    antonyms = _antonyms()
    for word in sa - sb:
        if antonyms.get(word) in sb - sa:
            return True
    da, db = _durations(a), _durations(b)
    if da and db and not set(da) & set(db):
        lo, hi = min(da[0], db[0]), max(da[0], db[0])
        if lo == 0 or hi / lo > 1.25:
            return True
    return False


def same_observation(a: str, b: str) -> bool:
    """True when ``b`` restates ``a`` (reinforcement), never when it contradicts it."""
    return similarity(a, b) >= SAME_THRESHOLD and not contradicts(a, b)
