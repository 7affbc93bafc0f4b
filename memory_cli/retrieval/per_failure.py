"""Offering past solutions after a failure (PostToolUseFailure, a failed Bash call).

The error's salient lines are the query; matches are offered as past solutions, never repeating
one the session was already offered after a failure. What every injection shares is
:mod:`.inject`. Standard library and apsw only at module level: this runs inside hook processes.
"""

from __future__ import annotations

import re

from .. import fastjson as json  # json's loads/dumps without importing json (and its patterns)
from ..files import regex_cache
from . import format as fmt
from .inject import applies, drop_dormant, project_aliases, record_injection, search


def _redacted(text: str) -> str:
    from ..privacy.redact import redact

    return redact(text)[0]


def already_offered_for_failures(store, session_id: str | None) -> set[str]:
    """Solutions already offered after a failure in this session.

    Not everything the session was shown: a memory injected at session start among a dozen
    others is not the same as "this error again, the fix was X" at the moment it happens.
    """
    if not session_id:
        return set()
    out: set[str] = set()
    for r in store.rows(
        "SELECT details FROM memory_audit_log WHERE action = 'inject' AND session_id = ? AND context LIKE 'failure:%'",
        (session_id,),
    ):
        try:
            out.update(json.loads(r["details"] or "{}").get("ids") or [])
        except ValueError:
            pass
    return out


_ERRORISH = regex_cache.compile(
    r"Traceback \(most recent call last\)|\b[A-Z]\w*(Error|Exception|Failure)\b|\berror\b|\bfatal\b|\bfailed\b"
    r"|command not found|No such file or directory|Permission denied|ERR!|\bexit (code|status) [1-9]"
    r"|cannot|can't|could not|unable to|refused|denied|not found|timed out|segmentation fault",
    re.I,
)
_NOISE = regex_cache.compile(r"0x[0-9a-f]{6,}|\b[0-9a-f]{12,}\b|\b\d{5,}\b", re.I)
# Lines every error of a kind shares: they dilute the keyword score of the line that matters.
_BOILERPLATE = regex_cache.compile(
    r"^(Traceback \(most recent call last\):?|During handling of the above exception.*"
    r"|The above exception was the direct cause.*|File \".*\", line \d+.*|Exit code \d+|\^+)$",
    re.I,
)
_PATH = regex_cache.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.@+-]+){2,}")


def bash_failed(tool_response) -> str | None:
    """The error text of a Bash call that failed, or None when it looks like it succeeded.

    Claude Code reports most failed commands through PostToolUseFailure; a PostToolUse Bash
    response has no exit code field on most versions, so an explicit non-zero code (when a
    version sends one) or error lines on stderr are taken as failure.
    """
    if not isinstance(tool_response, dict) or tool_response.get("interrupted"):
        return None
    for key in ("exit_code", "exitCode", "returncode", "returnCode", "return_code"):
        code = tool_response.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            return str(tool_response.get("stderr") or tool_response.get("stdout") or f"exit code {code}")
    stderr = tool_response.get("stderr")
    if isinstance(stderr, str) and stderr.strip() and _ERRORISH.search(stderr):
        return stderr
    return None


def error_text(error) -> str:
    """PostToolUseFailure's ``error`` is a string on current versions; tolerate objects."""
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        parts = [str(error.get(k)) for k in ("message", "error", "stderr", "stdout") if error.get(k)]
        return "\n".join(parts) or json.dumps(error)[:2000]
    return "" if error is None else str(error)


def failure_query(error: str, command: str | None = None) -> str:
    """The salient part of an error as search text: the last error-looking lines, the program."""
    lines = [ln.strip() for ln in (error or "").splitlines() if ln.strip() and not _BOILERPLATE.match(ln.strip())]
    salient = [ln for ln in lines if _ERRORISH.search(ln)] or lines[-3:]
    picked = salient[-3:]
    if lines and lines[-1] not in picked and len(picked) < 4:
        picked.append(lines[-1])  # the final line of a traceback names the exception
    text = " ".join(ln[:240] for ln in picked)
    text = _PATH.sub(lambda m: regex_cache.split(r"[\\/]", m.group(0))[-1], text)
    text = _NOISE.sub(" ", text)
    if command:
        first = command.strip().split()
        if first:
            prog = regex_cache.split(r"[\\/]", first[0])[-1]
            if prog and prog.lower() not in text.lower():
                text = f"{prog} {text}"
    return " ".join(text.split())[:600]


def for_failure(
    store,
    error: str,
    settings,
    *,
    tool_name: str | None = None,
    command: str | None = None,
    project: str | None = None,
    project_root: str | None = None,
    files=(),
    session_id: str | None = None,
    record: bool = True,
    hook_event: str | None = None,
) -> dict:
    """Past solutions to errors like this one, above the relevance threshold."""
    empty = {"text": "", "ids": [], "included": 0, "eligible": 0, "tokens": 0, "query": ""}
    query = failure_query(error, command)
    from .fts import query_terms as terms

    if len(terms(query)) < 2:
        return empty
    from ..settings import value as setting

    threshold = float(setting(settings, "injection.similarity_threshold"))
    min_conf = float(setting(settings, "injection.min_confidence"))
    max_entries = max(1, int(setting(settings, "injection.per_prompt_max_entries")))
    max_tokens = max(100, int(setting(settings, "injection.per_prompt_max_tokens")) + 100)
    projects = project_aliases(project)
    seen = already_offered_for_failures(store, session_id)
    timeout = setting(settings, "daemon.request_timeout_ms")
    hits = search(
        store,
        query,
        project=projects[0] if projects else None,
        files=files,
        limit=max_entries * 4,
        min_score=threshold,
        timeout_ms=timeout,
        root=project_root,
    )
    chosen = [
        h
        for h in hits
        if h["id"] not in seen
        and h.get("status", "active") == "active"
        and float(h.get("confidence") or 0) >= min_conf
        and applies(h.get("scope") or "global", projects, list(files), project_root)
    ]
    chosen = drop_dormant(store, chosen, settings)
    rendered = fmt.render_solutions(chosen, tool_name=tool_name, max_entries=max_entries, max_tokens=max_tokens)
    if record and rendered.included:
        record_injection(
            store,
            rendered.included,
            session_id=session_id,
            context=f"failure:{tool_name or 'tool'}",
            total=rendered.total,
            tokens=rendered.tokens,
            hook_event=hook_event,
            extra={"query": _redacted(query[:200])},
        )
    return {
        "text": rendered.text,
        "ids": [e["id"] for e in rendered.included],
        "included": rendered.count,
        "eligible": rendered.total,
        "tokens": rendered.tokens,
        "query": query,
    }
