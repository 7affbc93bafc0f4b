"""Choosing which memories the agent sees beside a prompt (UserPromptSubmit).

Only memories above the relevance threshold, a few of them, never one this session already
received. A question about what was decided *against* ("what did we decide not to do about
caching") also pulls decisions that record a rejected alternative. What every injection shares
is :mod:`.inject`. Standard library and apsw only at module level: this runs inside hook processes.
"""

from __future__ import annotations

import re

from ..files import regex_cache
from . import format as fmt
from .inject import already_injected, applies, drop_dormant, project_aliases, record_injection, search

_NEGATIVE_Q = regex_cache.compile(
    r"\b(decided?|decision|chose|agreed)\s+(not|against)\b|\brejected\b|\bruled out\b|\bdecided? against\b"
    r"|\bwhy (not|didn'?t we|don'?t we)\b|\b(didn'?t|did not|don'?t|do not) (we )?(use|go with|choose|pick)\b"
    r"|\bnot to (do|use)\b|\binstead of\b|\balternatives?\b",
    re.I,
)
_NEG_WORDS = {
    "decide",
    "decided",
    "decision",
    "not",
    "against",
    "rejected",
    "ruled",
    "out",
    "why",
    "didn",
    "didn't",
    "did",
    "we",
    "use",
    "go",
    "with",
    "choose",
    "chose",
    "pick",
    "instead",
    "alternative",
    "alternatives",
    "what",
    "do",
    "about",
    "to",
    "the",
    "a",
    "for",
    "on",
}


def is_negative_question(text: str) -> bool:
    """ "What did we decide not to do about caching?" and its relatives."""
    return bool(_NEGATIVE_Q.search(text or ""))


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


def rejected_decisions(store, text: str, *, project: str | None, files=(), limit: int = 3) -> list[dict]:
    """Decisions recording a rejected alternative that share a topic word with ``text``.

    The topic words are the question minus its negation wording; matching is on word stems
    (caching ~ cache) against the decision's content and its ``rejected:<alternative>`` tags.
    """
    from .fts import query_terms as terms

    topic = [t for t in terms(text) if t not in _NEG_WORDS and len(t) > 2]
    if not topic:
        return []
    hits = search(
        store, " ".join(topic) + " rejected", project=project, files=files, limit=max(10, limit * 4), type="decision"
    )
    out = []
    stems = {_stem(t) for t in topic}
    for h in hits:
        tags = h.get("tags") or []
        rejected = [t for t in tags if str(t).lower().startswith("rejected:")]
        body = (h.get("content") or "").lower() + " " + " ".join(str(t).lower() for t in tags)
        words = {_stem(w) for w in regex_cache.findall(r"[a-z0-9]+", body)}
        says_rejected = rejected or regex_cache.search(r"\b(against|rejected|over|instead of|rather than|not)\b", body)
        if says_rejected and stems & words:
            out.append(h)
    return out[:limit]


_TRIVIAL_PROMPT = regex_cache.compile(
    r"^\s*(/\S+|y(es)?|no?|ok(ay)?|thanks?( you)?|continue|go on|go ahead|do it|sure)\W*\s*$", re.I
)


def for_prompt(
    store,
    prompt: str,
    settings,
    *,
    project: str | None = None,
    project_root: str | None = None,
    files=(),
    session_id: str | None = None,
    record: bool = True,
    hook_event: str | None = None,
) -> dict:
    """The few memories most relevant to what the person just asked, not yet seen this session."""
    from .fts import query_terms as terms

    empty = {"text": "", "ids": [], "included": 0, "eligible": 0, "tokens": 0}
    if not prompt or _TRIVIAL_PROMPT.match(prompt) or len(terms(prompt)) < 2:
        return empty
    from ..settings import value as setting

    max_entries = int(setting(settings, "injection.per_prompt_max_entries"))
    max_tokens = int(setting(settings, "injection.per_prompt_max_tokens"))
    threshold = float(setting(settings, "injection.similarity_threshold"))
    min_conf = float(setting(settings, "injection.min_confidence"))
    if max_entries <= 0 or max_tokens <= 0:
        return empty
    projects = project_aliases(project)
    seen = already_injected(store, session_id)
    timeout = setting(settings, "daemon.request_timeout_ms")
    query_text = prompt[:2000]
    hits: list[dict] = []
    if is_negative_question(prompt):
        hits.extend(
            rejected_decisions(
                store, query_text, project=projects[0] if projects else None, files=files, limit=max_entries
            )
        )
    hits.extend(
        search(
            store,
            query_text,
            project=projects[0] if projects else None,
            files=files,
            limit=max_entries * 4,
            min_score=threshold,
            timeout_ms=timeout,
            root=project_root,
        )
    )
    chosen, ids = [], set()
    for h in hits:
        if h["id"] in ids or h["id"] in seen or h.get("pinned"):
            continue  # pinned memories already sit in CLAUDE.md
        if h.get("status", "active") != "active" or float(h.get("confidence") or 0) < min_conf:
            continue
        if not applies(h.get("scope") or "global", projects, list(files), project_root):
            continue
        ids.add(h["id"])
        chosen.append(h)
    chosen = drop_dormant(store, chosen, settings)
    rendered = fmt.render_prompt(chosen, max_entries=max_entries, max_tokens=max_tokens)
    if record and rendered.included:
        record_injection(
            store,
            rendered.included,
            session_id=session_id,
            context="prompt",
            total=rendered.total,
            tokens=rendered.tokens,
            hook_event=hook_event,
        )
    return {
        "text": rendered.text,
        "ids": [e["id"] for e in rendered.included],
        "included": rendered.count,
        "eligible": rendered.total,
        "tokens": rendered.tokens,
    }
