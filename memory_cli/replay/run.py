"""Replaying one rule on recorded sessions: which calls it would have blocked, asked or warned.

Every recorded call goes through :func:`memory_cli.rules.engine.evaluate` as a ``PreToolUse``
of its session, the rule's scope decided from the session's directory as the hook decides it.
The rule is replayed as it would act once confirmed (a proposal only warns until approved; the
question here is what approving it would do). Intent rules need the embedding daemon for each
call and are not replayed. Nothing is audited.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from . import claude, codex, gemini
from .calls import RecordedCall, Session

READERS = {"claude": claude, "codex": codex, "gemini": gemini}
AGENTS = tuple(READERS)
# Each call's check may spend up to this long on expensive work (risky regexes), as a hook would.
CALL_BUDGET_S = 0.25
# At most this many matched calls are kept with their text; counts cover every one.
MAX_HITS = 500


# Sessions already parsed by this process, by path: (size, mtime in ns, the session). The
# dashboard replays every proposal of the review page on each load; a file that has not changed
# is not read again. Bounded by the calls it holds.
_PARSED: dict[str, tuple[int, int, Session]] = {}
CACHE_CALLS = 200_000


def sessions(home: str | None = None, agents=None, since_epoch: float | None = None, cache: bool = False):
    """Every session the agents keep under ``home`` (default: the person's home), oldest
    file first per agent. ``cache``: keep what was parsed for the next call in this process."""
    home = home or os.path.expanduser("~")
    for name in agents or AGENTS:
        reader = READERS[name]
        for path in reader.session_files(home, since_epoch):
            s = _read(reader, path) if cache else reader.read(path)
            if s is not None:
                yield s


def _read(reader, path: str) -> Session | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    got = _PARSED.get(path)
    if got is not None and got[0] == st.st_size and got[1] == st.st_mtime_ns:
        return got[2]
    s = reader.read(path)
    if s is not None:
        if sum(len(v[2].calls) for v in _PARSED.values()) + len(s.calls) > CACHE_CALLS:
            _PARSED.clear()
        _PARSED[path] = (st.st_size, st.st_mtime_ns, s)
    return s


def pattern_row(pattern: str, pattern_type: str, *, action: str = "block", tools=None, case_sensitive=False) -> dict:
    """A rule not stored, in the shape :func:`memory_cli.rules.ruleset.single` reads; the
    pattern is checked as ``rules add`` checks it."""
    import json

    from ..rules import spec

    ptype = spec.check_pattern_type(pattern_type)
    pat = spec.check_pattern(pattern, ptype, case_sensitive=case_sensitive)
    return {
        "id": "(pattern)",
        "pattern": pat,
        "pattern_type": ptype,
        "action": action,
        "severity": "medium",
        "alternative": None,
        "message": None,
        "tools": json.dumps(list(tools) if tools else (["Bash"] if ptype == "command" else [])),
        "fields": "[]",
        "case_sensitive": case_sensitive,
        "provenance": "manual",
        "confirmed": 1,
        "conditions": "[]",
        "name": None,
        "hook_events": "[]",
        "analysis": None,
        "content": pat,
        "scope": "global",
    }


def rule_set(row: dict):
    """The rule alone, as confirmed. Its 3-gram index is dropped: it only picks candidates
    among many rules (the engine checks every rule of the tool without it, same decision),
    and cutting each call's texts into 3-grams costs more than checking one rule."""
    from ..rules import ruleset

    rs = ruleset.single(dict(row, confirmed=1), keep_scope=True)
    rs.gram = {}
    return rs


class _Scopes:
    """Project of each session directory, found once (the hook's rule: the repository holding
    it, else the directory itself, as when Claude Code is started there)."""

    def __init__(self):
        self._projects: dict = {}

    def applies(self, call: RecordedCall):
        from .. import scope as scopes

        cwd = call.cwd
        got = self._projects.get(cwd)
        if got is None:
            root = scopes.find_project_root(cwd, env={}) if cwd else None
            root = root or cwd
            got = self._projects[cwd] = (scopes.project_name(root), root)
        project, root = got
        files = [
            v for k, v in call.tool_input.items() if k in ("file_path", "notebook_path", "path") and isinstance(v, str)
        ]
        return lambda sc: scopes.applies(sc, project, files, root)


@dataclass
class Hit:
    call: RecordedCall
    action: str
    field: str
    matched: str

    def to_dict(self) -> dict:
        from ..privacy.redact import redact

        c = self.call
        subject = c.tool_input.get("command") or c.tool_input.get("file_path") or ""
        return {
            "agent": c.agent,
            "session_id": c.session_id,
            "timestamp": c.timestamp,
            "tool": c.tool,
            "agent_tool": c.agent_tool,
            "action": self.action,
            "field": self.field,
            "matched": redact(str(self.matched)[:300])[0],
            "call": redact(str(subject)[:300])[0],
            "turn": c.turn,
            "rejected": c.rejected,
            "interrupted": c.interrupted,
        }


@dataclass
class Report:
    counts: dict = field(default_factory=dict)  # action -> calls
    sessions: dict = field(default_factory=dict)  # (agent, session id) -> calls matched
    hits: list = field(default_factory=list)
    calls: int = 0
    sessions_read: int = 0
    by_agent: dict = field(default_factory=dict)  # agent -> calls read
    undecided: int = 0
    read_s: float = 0.0
    check_s: float = 0.0
    skipped: str | None = None

    @property
    def fired(self) -> int:
        return sum(self.counts.values())

    def to_dict(self) -> dict:
        return {
            "fired": self.fired,
            "counts": dict(self.counts),
            "sessions": [{"agent": a, "session_id": s, "calls": n} for (a, s), n in sorted(self.sessions.items())],
            "calls": [h.to_dict() for h in self.hits],
            "calls_read": self.calls,
            "sessions_read": self.sessions_read,
            "calls_by_agent": dict(self.by_agent),
            "undecided": self.undecided,
            "read_seconds": round(self.read_s, 4),
            "check_seconds": round(self.check_s, 4),
            **({"not_replayed": self.skipped} if self.skipped else {}),
        }


def check_calls(rs, calls, report: Report | None = None, keep: int = MAX_HITS) -> Report:
    """Pass each call through the engine; the hits and counts go to ``report``."""
    from ..rules import engine

    report = report or Report()
    scopes = _Scopes()
    t0 = time.perf_counter()
    for call in calls:
        report.calls += 1
        report.by_agent[call.agent] = report.by_agent.get(call.agent, 0) + 1
        v = engine.evaluate(
            rs,
            event="PreToolUse",
            tool_name=call.tool,
            tool_input=call.tool_input,
            payload={"tool_name": call.tool, "tool_input": call.tool_input, "cwd": call.cwd},
            applies=scopes.applies(call),
            deadline=time.perf_counter() + CALL_BUDGET_S,
            use_intent=False,
        )
        if v.unchecked:
            report.undecided += 1
        if not v.matches:
            continue
        m = v.matches[0]
        report.counts[m.action] = report.counts.get(m.action, 0) + 1
        key = (call.agent, call.session_id)
        report.sessions[key] = report.sessions.get(key, 0) + 1
        if len(report.hits) < keep:
            report.hits.append(Hit(call, m.action, m.field, m.snippet))
    report.check_s += time.perf_counter() - t0
    return report


def replay(row: dict, *, home: str | None = None, agents=None, since_epoch: float | None = None) -> Report:
    """Replay one rule (a stored rule's row or :func:`pattern_row`) on every recorded session."""
    report = Report()
    if row["pattern_type"] == "intent":
        report.skipped = "intent rules need the embedding daemon for every call; they are not replayed"
        return report
    rs = rule_set(row)
    t0 = time.perf_counter()
    read: list[Session] = list(sessions(home, agents, since_epoch))
    report.read_s = time.perf_counter() - t0
    report.sessions_read = len(read)
    check_calls(rs, (c for s in read for c in s.calls), report)
    return report
