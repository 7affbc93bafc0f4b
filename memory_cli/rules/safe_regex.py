"""User regexes that cannot stall a hook.

A PreToolUse hook that overruns Claude Code's patience decides nothing (the call goes
through), and one that runs for seconds makes every tool call sluggish. Two things make a user
regex slow: the pattern (``(a+)+$`` backtracks exponentially; ``a.*b`` is quadratic on a long
line) and the text (a 10 MB Write). CPython's ``re`` holds the GIL and cannot be interrupted by
signals or threads while matching, so a time budget cannot be enforced in-process. Cutting the
text into windows is not an answer either: the forbidden string may sit at the end of the file.

What we do instead:

1. Analyse each pattern once, when the rule is stored (``analyze_regex``): is it a plain
   literal, which substrings must every match contain (``required``), and how bad can its
   backtracking get (``risk``: linear, poly, exp). The analysis is plain data and is cached
   with the compiled rule set, so hooks do not re-parse patterns.
2. At match time (``search_many``) most work is decided without running a regex: literals are a
   substring search on the case-folded text (a few ms for 10 MB), and a pattern whose required
   substrings are absent cannot match.
3. What is left runs in-process when the text is small enough for its risk class to be
   harmless, and otherwise in a forked child with a hard deadline. The child inherits the text
   (copy-on-write, nothing serialised), streams each verdict as soon as it has it, and is
   SIGKILLed at the deadline; whatever it had not decided is reported as ``unchecked`` so the
   caller can allow and audit the overrun. Without ``os.fork`` (Windows) such work is reported
   unchecked instead of being risked.

Measured on the 2-core development machine: fork+wait of a small process ~1 ms, of a process
holding 100 MB ~5 ms; case-folding 10 MB of ASCII ~3 ms; a literal search through it ~3 ms,
where ``re.search`` with IGNORECASE takes ~40 ms and a pattern starting with ``\\b`` ~180 ms.

Standard library only (``re._parser`` is the stdlib's own regex parser).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for annotations only: the hook path never imports typing
    from collections.abc import Sequence

import os
import re
import select
import signal
import time

try:  # Python 3.11+
    from re import _constants as _c
    from re import _parser as _sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

__all__ = [
    "InvalidRegex",
    "RegexInfo",
    "SafeRegex",
    "SearchOutcome",
    "compile_user_regex",
    "analyze_regex",
    "search_many",
    "fork_available",
    "SNIPPET_CHARS",
]

# In-process size limits per risk class (characters of one text). Past them the search runs in
# the deadline-bound child. Worst cases measured: a linear pattern without a literal prefix
# scans ~60 MB/s, so 256 KB is ~5 ms; a quadratic one (a.*b on one long line) needs ~5 ms at
# 4 KB and ~70 ms at 16 KB.
LINEAR_INPROCESS_CHARS = 256 * 1024
POLY_INPROCESS_CHARS = 8 * 1024
# Texts this large use the pattern compiled for case-folded text (see RegexInfo.fold_ok).
FOLDED_SEARCH_CHARS = 64 * 1024
SNIPPET_CHARS = 200


class InvalidRegex(ValueError):
    """A pattern Python's ``re`` refuses; the message says where and why."""


def compile_user_regex(pattern: str, *, case_sensitive: bool = False) -> re.Pattern[str]:
    """Compile a rule's regex (case-insensitive unless asked); raises InvalidRegex."""
    if not isinstance(pattern, str) or pattern == "":
        raise InvalidRegex("empty regular expression (it would match everything)")
    try:
        return re.compile(pattern, 0 if case_sensitive else re.IGNORECASE)
    except re.error as e:
        where = f" at position {e.pos}" if e.pos is not None else ""
        msg = e.msg if hasattr(e, "msg") else str(e)
        raise InvalidRegex(f"invalid regular expression {pattern!r}: {msg}{where}") from None
    except (RecursionError, OverflowError, ValueError, TypeError) as e:
        raise InvalidRegex(f"invalid regular expression {pattern!r}: {e}") from None


class RegexInfo:
    """What matching a pattern may cost, and shortcuts that avoid running it. Plain data.

    literal: the whole pattern is this string (case-folded unless case-sensitive);
    required: substrings (same folding) that every match contains;
    risk: "linear" | "poly" (an unbounded repeat) | "exp" (nested repeats, backreferences);
    fold_ok: may run case-sensitively on case-folded text with the same verdicts;
    anchor: (L, lo, hi): every match contains literal L (same folding) starting lo..hi
    characters after the match starts, so on a large text the regex need only be tried just
    before the occurrences of L."""

    __slots__ = ("literal", "required", "risk", "fold_ok", "anchor")

    def __init__(
        self,
        literal: str | None,
        required: tuple[str, ...],
        risk: str,
        fold_ok: bool,
        anchor: tuple[str, int, int] | None = None,
    ):
        self.literal = literal
        self.required = tuple(required)
        self.risk = risk
        self.fold_ok = fold_ok
        self.anchor = tuple(anchor) if anchor else None

    def _key(self) -> tuple:
        return (self.literal, self.required, self.risk, self.fold_ok, self.anchor)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RegexInfo) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"RegexInfo(literal={self.literal!r}, required={self.required!r}, "
            f"risk={self.risk!r}, fold_ok={self.fold_ok!r}, anchor={self.anchor!r})"
        )

    def to_dict(self) -> dict:
        return {
            "literal": self.literal,
            "required": list(self.required),
            "risk": self.risk,
            "fold_ok": self.fold_ok,
            "anchor": list(self.anchor) if self.anchor else None,
        }

    @classmethod
    def from_dict(cls, d: dict) -> RegexInfo:
        anchor = d.get("anchor")
        return cls(
            d.get("literal"),
            tuple(d.get("required") or ()),
            d.get("risk", "exp"),
            bool(d.get("fold_ok")),
            tuple(anchor) if anchor else None,
        )


_UNBOUNDED = _c.MAXREPEAT
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT}
if hasattr(_c, "POSSESSIVE_REPEAT"):
    _REPEATS.add(_c.POSSESSIVE_REPEAT)


def _risk(items, inside_unbounded: bool = False) -> tuple[str, bool]:
    """(risk of this sequence, whether it contains an unbounded repeat)."""
    risk = "linear"
    has_unbounded = False

    def worse(a: str, b: str) -> str:
        order = {"linear": 0, "poly": 1, "exp": 2}
        return a if order[a] >= order[b] else b

    for op, av in items:
        if op in _REPEATS:
            lo, hi, sub = av
            unbounded = hi == _UNBOUNDED or hi > 1000
            sub_risk, sub_unbounded = _risk(sub, inside_unbounded or unbounded)
            risk = worse(risk, sub_risk)
            if hi > 1 and (sub_unbounded or (unbounded and _has_repeat(sub))):
                risk = "exp"  # (a+)+  (a*)*  (\w+\s?)*
            if unbounded and _has_branch(sub):
                risk = "exp"  # (a|ab)*
            if unbounded:
                has_unbounded = True
                risk = worse(risk, "poly")
            has_unbounded = has_unbounded or sub_unbounded
        elif op is _c.SUBPATTERN:
            sub_risk, sub_unbounded = _risk(av[-1], inside_unbounded)
            risk = worse(risk, sub_risk)
            has_unbounded = has_unbounded or sub_unbounded
        elif op is _c.BRANCH:
            for alt in av[1]:
                sub_risk, sub_unbounded = _risk(alt, inside_unbounded)
                risk = worse(risk, sub_risk)
                has_unbounded = has_unbounded or sub_unbounded
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            sub_risk, sub_unbounded = _risk(av[1], inside_unbounded)
            # a lookaround is re-run at every position: unbounded inside it is quadratic.
            risk = worse(risk, "poly" if sub_unbounded else sub_risk)
            risk = worse(risk, sub_risk)
        elif op is getattr(_c, "ATOMIC_GROUP", object()):
            sub_risk, sub_unbounded = _risk(av, inside_unbounded)
            risk = worse(risk, sub_risk)
            has_unbounded = has_unbounded or sub_unbounded
        elif op in (_c.GROUPREF, _c.GROUPREF_EXISTS) or op is getattr(_c, "GROUPREF_IGNORE", None):
            risk = "exp"
            if op is _c.GROUPREF_EXISTS:
                for sub in av[1:]:
                    if sub is not None:
                        sub_risk, sub_unbounded = _risk(sub, inside_unbounded)
                        has_unbounded = has_unbounded or sub_unbounded
    return risk, has_unbounded


# Backtracking paths per start position (see _paths) up to which a pattern counts as linear,
# and past which it counts as exponential: a repeat of something that can itself match in
# several ways (``(a{1,999}){1,999}``, ``(a|a){1,1000}``) multiplies the ways at every level.
_LINEAR_PATHS = 64
_EXP_PATHS = 4096
_PATHS_CAP = float(1 << 62)


def _paths(items) -> float:
    """An upper bound on the ways this sequence can match from one start position that the
    engine may try before failing (bounded repeats and alternations; unbounded repeats are
    classified by :func:`_risk`). ``\\d{1,3}`` is 3, ``(\\.\\d{1,3}){3}`` 27,
    ``(a{1,10}){1,10}`` about 10**10."""
    total = 1.0
    for op, av in items:
        if op in _REPEATS:
            lo, hi, sub = av
            p = _paths(sub)
            if hi == _UNBOUNDED or hi > 1000:
                node = _PATHS_CAP if p > 1 else 1.0
            elif p <= 1:
                node = float(hi - lo + 1)
            else:
                node, term = 0.0, p**lo if lo else 1.0
                for _ in range(lo, hi + 1):
                    node += term
                    term *= p
                    if node >= _PATHS_CAP:
                        break
        elif op is _c.SUBPATTERN:
            node = _paths(av[-1])
        elif op is _c.BRANCH:
            node = sum(_paths(alt) for alt in av[1])
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            node = _paths(av[1])
        elif op is getattr(_c, "ATOMIC_GROUP", object()):
            node = 1.0  # no backtracking into an atomic group
        elif op is _c.GROUPREF_EXISTS:
            node = sum(_paths(s) for s in av[1:] if s is not None)
        else:
            node = 1.0
        total = min(_PATHS_CAP, total * max(node, 1.0))
    return total


def _children(op, av):
    if op in _REPEATS:
        return [av[2]]
    if op is _c.SUBPATTERN:
        return [av[-1]]
    if op is _c.BRANCH:
        return list(av[1])
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        return [av[1]]
    if op is getattr(_c, "ATOMIC_GROUP", object()):
        return [av]
    if op is _c.GROUPREF_EXISTS:
        return [s for s in av[1:] if s is not None]
    return []


def _has_repeat(items) -> bool:
    for op, av in items:
        if op in _REPEATS and av[1] > 1:
            return True
        if any(_has_repeat(ch) for ch in _children(op, av)):
            return True
    return False


def _has_branch(items) -> bool:
    for op, av in items:
        if op is _c.BRANCH:
            return True
        if any(_has_branch(ch) for ch in _children(op, av)):
            return True
    return False


def _required(items, fold: bool) -> list[str]:
    """Substrings every match of this sequence must contain (a sound under-approximation)."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            s = "".join(run)
            out.append(s.casefold() if fold else s)
            run.clear()

    for op, av in items:
        if op is _c.LITERAL:
            ch = chr(av)
            if fold and not ch.isascii():
                flush()  # non-ASCII case folding is not 1:1; do not rely on it
                continue
            run.append(ch)
            continue
        if op is _c.AT:
            continue  # zero-width: the literals around it are still adjacent
        flush()
        if op in _REPEATS and av[0] >= 1:
            out.extend(_required(av[2], fold))
        elif op is _c.SUBPATTERN:
            add_flags, del_flags = av[1], av[2]
            if (add_flags | del_flags) & (re.VERBOSE | re.IGNORECASE) and not fold:
                continue  # the group changes case rules: be conservative
            out.extend(_required(av[-1], fold))
        elif op is getattr(_c, "ATOMIC_GROUP", object()):
            out.extend(_required(av, fold))
    flush()
    return [s for s in out if s]


# An anchor is only worth it when few start positions need trying per occurrence.
_MAX_ANCHOR_SPREAD = 256


def _anchor(state, items, fold: bool) -> tuple[str, int, int] | None:
    """The first top-level literal run and the width range of everything before it."""
    for j, (op, _av) in enumerate(items):
        if op is _c.LITERAL:
            run = []
            for op2, av2 in items[j:]:
                if op2 is not _c.LITERAL:
                    break
                ch = chr(av2)
                if fold and not ch.isascii():
                    break
                run.append(ch)
            if not run:
                return None
            lo, hi = _sre_parse.SubPattern(state, items[:j]).getwidth()
            if hi - lo > _MAX_ANCHOR_SPREAD:
                return None
            lit = "".join(run)
            return (lit.casefold() if fold else lit, lo, hi)
        if op is _c.SUBPATTERN and (_av[1] | _av[2]):
            return None  # flag changes before the literal: keep it simple
    return None


def _literal(items) -> str | None:
    chars = []
    for op, av in items:
        if op is not _c.LITERAL:
            return None
        chars.append(chr(av))
    return "".join(chars) if chars else None


def _fold_ok(pattern: str, items) -> bool:
    """Whether running the pattern case-sensitively on ``text.casefold()`` gives the same
    verdicts as running it with IGNORECASE on ``text``: true when nothing in the pattern can
    match an uppercase letter (no uppercase literal, class or range, no escape that names a
    character by code) and it is ASCII-only."""
    if not pattern.isascii() or pattern != pattern.lower():
        return False
    if re.search(r"\\[xuUN0-7]", pattern):
        return False

    def ok(seq) -> bool:
        for op, av in seq:
            if op is _c.LITERAL and chr(av).lower() != chr(av):
                return False
            if op is _c.IN:
                for iop, iav in av:
                    if iop is _c.RANGE and not (iav[1] < 65 or iav[0] > 90):
                        return False
                    if iop is _c.LITERAL and chr(iav).lower() != chr(iav):
                        return False
            if op is _c.SUBPATTERN and (av[1] | av[2]) & re.IGNORECASE:
                return False
            if not all(ok(ch) for ch in _children(op, av)):
                return False
        return True

    return ok(items)


def analyze_regex(pattern: str, *, case_sensitive: bool = False) -> RegexInfo:
    """Validate and analyse a user regex once (when the rule is stored); raises InvalidRegex."""
    compile_user_regex(pattern, case_sensitive=case_sensitive)
    flags = 0 if case_sensitive else re.IGNORECASE
    try:
        parsed = _sre_parse.parse(pattern, flags)
    except Exception:  # pragma: no cover - compiled fine, so parse cannot fail
        return RegexInfo(None, (), "exp", False)
    fold = not case_sensitive
    global_flags = parsed.state.flags
    items = list(parsed)
    literal = _literal(items)
    if literal is not None and (global_flags & re.VERBOSE or (fold and not literal.isascii())):
        literal = None
    if literal is not None and fold:
        literal = literal.casefold()
    try:
        risk, _ = _risk(items)
        paths = _paths(items)
    except RecursionError:  # pragma: no cover
        risk, paths = "exp", _PATHS_CAP
    if paths > _EXP_PATHS:
        risk = "exp"  # nested or alternated bounded repeats: (a{1,999}){1,999}, (a|a){1,1000}
    elif paths > _LINEAR_PATHS and risk == "linear":
        risk = "poly"  # a{1,999}$ may try 999 lengths at every position
    required = tuple(dict.fromkeys(_required(items, fold)))
    if not case_sensitive and (global_flags & re.IGNORECASE) == 0:  # pragma: no cover
        fold = False
    if case_sensitive and global_flags & re.IGNORECASE:
        # (?i) inside a case-sensitive rule: the literals are compared folded after all.
        required = tuple(s.casefold() for s in required)
        literal = literal.casefold() if literal else None
        case_sensitive = False
    fold_ok = fold and _fold_ok(pattern, items)
    anchor = None
    if literal is None and not (case_sensitive and global_flags & re.IGNORECASE):
        try:
            anchor = _anchor(parsed.state, items, fold)
        except Exception:  # pragma: no cover - getwidth on exotic patterns
            anchor = None
    return RegexInfo(literal, required, risk, fold_ok, anchor)


class SafeRegex:
    """A rule regex with its analysis; compiled lazily, only when a shortcut cannot decide."""

    __slots__ = ("pattern", "case_sensitive", "info", "_compiled", "_folded")

    def __init__(self, pattern: str, *, case_sensitive: bool = False, info: RegexInfo | dict | None = None):
        self.pattern = pattern
        self.case_sensitive = case_sensitive
        if info is None:
            info = analyze_regex(pattern, case_sensitive=case_sensitive)
        elif isinstance(info, dict):
            info = RegexInfo.from_dict(info)
        self.info: RegexInfo = info
        self._compiled: re.Pattern[str] | None = None
        self._folded: re.Pattern[str] | None = None

    def __repr__(self) -> str:
        return f"SafeRegex({self.pattern!r}, risk={self.info.risk})"

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = compile_user_regex(self.pattern, case_sensitive=self.case_sensitive)
        return self._compiled

    @property
    def folded(self) -> re.Pattern[str]:
        if self._folded is None:
            self._folded = re.compile(self.pattern)
        return self._folded

    def search(self, text: str, budget_ms: float = 1000.0) -> str | None:
        """The matched text (truncated) or None; raises TimeoutError past the budget."""
        out = search_many([(self, text)], budget_ms=budget_ms)
        if out.unchecked:
            raise TimeoutError(f"regex {self.pattern!r} was not decided within {budget_ms} ms")
        return out.matches.get(0)


class SearchOutcome:
    """matches: job index -> matched text; unchecked: jobs not decided (budget, or no fork);
    reasons: job index -> why it was not decided (``REASON_*``)."""

    __slots__ = ("matches", "unchecked", "reasons", "elapsed_ms", "forked", "timed_out")

    def __init__(self) -> None:
        self.matches: dict[int, str] = {}
        self.unchecked: list[int] = []
        self.reasons: dict[int, str] = {}
        self.elapsed_ms = 0.0
        self.forked = False
        self.timed_out = False

    def __repr__(self) -> str:
        return (
            f"SearchOutcome(matches={self.matches!r}, unchecked={self.unchecked!r}, "
            f"elapsed_ms={self.elapsed_ms:.1f}, forked={self.forked}, "
            f"timed_out={self.timed_out})"
        )


class _Folds:
    """Case-folded copies of the texts, made once per text object and only when needed."""

    def __init__(self) -> None:
        self._by_id: dict[int, str] = {}

    def get(self, text: str) -> str:
        f = self._by_id.get(id(text))
        if f is None:
            f = text.casefold()
            self._by_id[id(text)] = f
        return f


def _snippet(text: str, folded: str, start: int, end: int, from_folded: bool) -> str:
    if from_folded and len(folded) == len(text):
        return text[start : min(end, start + SNIPPET_CHARS)]
    src = folded if from_folded else text
    return src[start : min(end, start + SNIPPET_CHARS)]


def _prefilter(sr: SafeRegex, text: str, folds: _Folds) -> tuple[bool, str | None]:
    """(decided, match): decide without running the regex when a shortcut allows."""
    info = sr.info
    if info.literal is not None:
        hay = text if sr.case_sensitive else folds.get(text)
        pos = hay.find(info.literal)
        if pos < 0:
            return True, None
        return True, _snippet(text, hay, pos, pos + len(info.literal), not sr.case_sensitive)
    if info.required:
        hay = text if sr.case_sensitive else folds.get(text)
        for s in info.required:
            if s not in hay:
                return True, None
    return False, None


# Past this many match attempts an anchored search gives up and scans the whole text.
_MAX_ANCHOR_TRIES = 20000


def _anchored(sr: SafeRegex, text: str, folds: _Folds) -> tuple[bool, str | None]:
    """(decided, match) trying the regex only where its anchor literal occurs."""
    lit, lo, hi = sr.info.anchor  # type: ignore[misc]
    if sr.case_sensitive:
        hay, pat, from_folded = text, sr.compiled, False
    else:
        hay = folds.get(text)
        if sr.info.fold_ok:
            pat, from_folded = sr.folded, True
        elif len(hay) == len(text):  # folding kept positions: try the original text
            pat, from_folded = sr.compiled, False
        else:
            return False, None
    subject = hay if from_folded or sr.case_sensitive else text
    tries = 0
    next_start = 0
    p = hay.find(lit)
    while p >= 0:
        first = max(next_start, p - hi, 0)
        for start in range(first, p - lo + 1):
            m = pat.match(subject, start)
            if m is not None:
                return True, _snippet(text, hay, m.start(), m.end(), from_folded)
        tries += max(0, p - lo + 1 - first)
        if tries > _MAX_ANCHOR_TRIES:
            return False, None
        next_start = max(next_start, p - lo + 1)
        p = hay.find(lit, p + 1)
    return True, None


def _run_regex(sr: SafeRegex, text: str, folds: _Folds) -> str | None:
    """Decide one job, however long it takes (the child, or a text known to be cheap)."""
    if sr.info.anchor is not None and len(text) > FOLDED_SEARCH_CHARS:
        decided, hit = _anchored(sr, text, folds)
        if decided:
            return hit
    if sr.info.fold_ok and len(text) > FOLDED_SEARCH_CHARS:
        folded = folds.get(text)
        m = sr.folded.search(folded)
        return None if m is None else _snippet(text, folded, m.start(), m.end(), True)
    m = sr.compiled.search(text)
    return None if m is None else m.group(0)[:SNIPPET_CHARS]


def _try_inprocess(sr: SafeRegex, text: str, folds: _Folds) -> tuple[bool, str | None]:
    """(decided, match) when this job is cheap enough to run in the hook process itself."""
    risk = sr.info.risk
    if risk == "linear" and len(text) <= LINEAR_INPROCESS_CHARS:
        return True, _run_regex(sr, text, folds)
    if risk == "linear" and sr.info.anchor is not None:
        # No unbounded repeat: each anchored attempt is short, and the number of attempts is
        # capped; past the cap the whole-text scan goes to the child.
        return _anchored(sr, text, folds)
    if risk == "poly" and len(text) <= POLY_INPROCESS_CHARS:
        return True, _run_regex(sr, text, folds)
    return False, None


def fork_available() -> bool:
    return hasattr(os, "fork")


def is_cheap(sr: SafeRegex, text: str) -> bool:
    """Whether deciding this job is bounded by a small constant whatever the pattern's input:
    the text is within the in-process size of the pattern's risk class. Cheap jobs are always
    decided; only the others are bounded by a time budget."""
    n = len(text)
    risk = sr.info.risk
    if sr.info.literal is not None or risk == "linear":
        return n <= LINEAR_INPROCESS_CHARS
    if risk == "poly":
        return n <= POLY_INPROCESS_CHARS
    return False


# Why a job was left undecided (``SearchOutcome.reasons``).
REASON_BUDGET = "budget"  # expensive job (risky pattern or large input), budget spent
REASON_CEILING = "ceiling"  # cheap job, but the safety ceiling of the whole check passed
REASON_NO_FORK = "no_fork"  # risky job and no os.fork to run it under a deadline
REASON_ERROR = "error"


def search_many(
    jobs: Sequence[tuple[SafeRegex, str]],
    *,
    budget_ms: float | None = None,
    deadline: float | None = None,
    ceiling: float | None = None,
) -> SearchOutcome:
    """Search each (regex, text) job; cheap jobs always, expensive ones within the budget.

    ``deadline`` is an absolute ``time.perf_counter()`` value; ``budget_ms`` is relative to
    now. It bounds only expensive jobs (see :func:`is_cheap`): risky patterns, which run in a
    forked child killed at the deadline, and texts past the in-process size. Cheap jobs are
    decided whatever the clock says, up to ``ceiling`` (a ``time.process_time()`` value: CPU
    time, which a busy machine does not stretch; default: no limit), a safety stop far past
    any budget that only thousands of jobs on large texts could reach. Undecided jobs are listed
    in ``unchecked`` with the reason in ``reasons``: the caller allows and audits. Never raises
    for a slow pattern or a huge text."""
    t0 = time.perf_counter()
    if deadline is None:
        deadline = t0 + (budget_ms if budget_ms is not None else 1000.0) / 1000.0
    out = SearchOutcome()
    folds = _Folds()
    deferred: list[int] = []
    for k, (sr, text) in enumerate(jobs):
        if not text:
            continue
        cheap = is_cheap(sr, text)
        now = time.perf_counter()
        if not cheap and now >= deadline:
            out.timed_out = True
            out.unchecked.append(k)
            out.reasons[k] = REASON_BUDGET
            continue
        if cheap and ceiling is not None and time.process_time() >= ceiling:
            out.timed_out = True
            out.unchecked.append(k)
            out.reasons[k] = REASON_CEILING
            continue
        try:
            decided, hit = _prefilter(sr, text, folds)
            if decided:
                if hit is not None:
                    out.matches[k] = hit
                continue
            decided, hit = _try_inprocess(sr, text, folds)
            if decided:
                if hit is not None:
                    out.matches[k] = hit
                continue
        except (InvalidRegex, re.error, RecursionError):
            out.unchecked.append(k)
            out.reasons[k] = REASON_ERROR
            continue
        deferred.append(k)
    if deferred:
        # One catastrophic pattern must not starve the others in the child: cheapest first.
        rank = {"linear": 0, "poly": 1, "exp": 2}
        deferred.sort(key=lambda j: (rank.get(jobs[j][0].info.risk, 2), j))
        if not fork_available():
            out.unchecked.extend(deferred)
            out.reasons.update((k, REASON_NO_FORK) for k in deferred)
        else:
            _search_in_child(jobs, deferred, folds, deadline, out)
    out.unchecked.sort()
    out.elapsed_ms = (time.perf_counter() - t0) * 1000.0
    return out


def _search_in_child(
    jobs: Sequence[tuple[SafeRegex, str]], todo: list[int], folds: _Folds, deadline: float, out: SearchOutcome
) -> None:
    remaining = deadline - time.perf_counter()
    if remaining <= 0:
        out.timed_out = True
        out.unchecked.extend(todo)
        out.reasons.update((k, REASON_BUDGET) for k in todo)
        return
    for k in todo:  # compile in the parent: the child then starts matching at once, and a
        try:  # compile error is reported here rather than lost in the child
            sr = jobs[k][0]
            _ = sr.folded if (sr.info.fold_ok and len(jobs[k][1]) > FOLDED_SEARCH_CHARS) else sr.compiled
        except (InvalidRegex, re.error):
            pass
    try:
        r, w = os.pipe()
    except OSError:
        out.unchecked.extend(todo)
        out.reasons.update((k, REASON_ERROR) for k in todo)
        return
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        out.unchecked.extend(todo)
        out.reasons.update((k, REASON_ERROR) for k in todo)
        return
    if pid == 0:  # child: decide, stream verdicts, exit without running any cleanup
        try:
            # Die at the deadline on our own, even if the parent is gone: SIGALRM's default
            # action ends the process in the kernel, whatever the regex engine is doing.
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.setitimer(signal.ITIMER_REAL, max(0.001, deadline - time.perf_counter()) + 0.05)
            os.close(r)
            for k in todo:
                sr, text = jobs[k]
                try:
                    hit = _run_regex(sr, text, folds)
                except Exception:
                    hit = None
                    line = f"{k}\t?\t\n"
                else:
                    line = (
                        f"{k}\t1\t{hit.encode('unicode_escape').decode('ascii')}\n"
                        if hit is not None
                        else f"{k}\t0\t\n"
                    )
                os.write(w, line.encode("ascii", "backslashreplace"))
        finally:
            os._exit(0)
    out.forked = True
    os.close(w)
    decided: set[int] = set()
    buf = b""
    eof = False
    try:
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                break
            ready, _, _ = select.select([r], [], [], remaining)
            if not ready:
                break
            chunk = os.read(r, 65536)
            if not chunk:
                eof = True
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                k_s, verdict, snippet = line.decode("ascii").split("\t", 2)
                k = int(k_s)
                if verdict == "?":
                    continue
                decided.add(k)
                if verdict == "1":
                    out.matches[k] = snippet.encode("ascii").decode("unicode_escape")
    finally:
        os.close(r)
        if not eof:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out.timed_out = True
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # pragma: no cover
            pass
    left = [k for k in todo if k not in decided]
    out.unchecked.extend(left)
    out.reasons.update((k, REASON_BUDGET) for k in left)
