"""Gemini CLI's sessions: ``~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl``.

Checked against Gemini CLI 0.61.0: the first line holds ``sessionId``; then one record per
message (``type`` ``user`` or ``gemini``), a message written again when its tool calls are
added (``toolCalls``: ``id``, ``name``, ``args``, ``status``, ``timestamp``), and ``$set``
lines that only update the session's metadata. Earlier versions wrote one JSON object
(``session-*.json``, ``messages`` a list): both are read. The project's directory is in the
``.project_root`` file beside ``chats/``. Tool names become Claude's through
:func:`memory_cli.agent_calls.translate` (``run_shell_command`` is ``Bash``...).
"""

from __future__ import annotations

import os

from .. import agent_calls
from ..fastjson import loads
from .calls import PROMPT_CHARS, RecordedCall, Session, files_under, lines_of, modified_since, read_bytes

AGENT = "gemini"
_ADDED = ("<session_context>", "<hook_context>", "<memory-cli-context>")


def root(home: str) -> str:
    return os.path.join(home, ".gemini", "tmp")


def session_files(home: str, since_epoch: float | None = None):
    def accept(name: str) -> bool:
        return name.startswith("session-") and name.endswith((".json", ".jsonl"))

    for path in files_under(root(home), accept, depth=2):
        if os.path.basename(os.path.dirname(path)) == "chats" and modified_since(path, since_epoch):
            yield path


def _project_root(path: str) -> str | None:
    got = read_bytes(os.path.join(os.path.dirname(os.path.dirname(path)), ".project_root"), 4096)
    if not got:
        return None
    text = got[0].decode("utf-8", "replace").strip()
    return text or None


def _records(path: str, data: bytes):
    if path.endswith(".json"):
        try:
            whole = loads(data.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            whole = None
        if isinstance(whole, dict):
            yield {k: v for k, v in whole.items() if k != "messages"}
            for m in whole.get("messages") or []:
                if isinstance(m, dict):
                    yield m
            return
    yield from lines_of(data)


def _typed(rec: dict) -> str:
    """What the person typed, or "" for a message that is not theirs."""
    content = rec.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = [p for p in content if isinstance(p, dict)]
        if any("functionResponse" in p for p in parts):
            return ""
        text = "\n".join(p.get("text", "") for p in parts if isinstance(p.get("text"), str))
    else:
        return ""
    text = agent_calls.typed_prompt(text.strip())
    return "" if text.startswith(_ADDED) else text


def read(path: str) -> Session | None:
    got = read_bytes(path)
    if got is None:
        return None
    data, truncated = got
    session = Session(AGENT, os.path.basename(path).rsplit(".", 1)[0], path, truncated=truncated)
    session.cwd = _project_root(path)
    seen: set[str] = set()
    turn = 0
    for rec in _records(path, data):
        if rec.get("sessionId") and not session.calls:
            session.session_id = str(rec["sessionId"])
            session.started = str(rec.get("startTime") or session.started)
            continue
        kind = rec.get("type")
        ts = str(rec.get("timestamp") or "")
        typed = _typed(rec) if kind == "user" else ""
        if typed:
            if str(rec.get("id")) not in seen:
                seen.add(str(rec.get("id")))
                turn += 1
                session.prompts.append((ts, typed[:PROMPT_CHARS]))
            continue
        if kind != "gemini":
            continue
        for tc in rec.get("toolCalls") or []:
            if not isinstance(tc, dict) or not isinstance(tc.get("name"), str):
                continue
            cid = str(tc.get("id") or "")
            if cid in seen:
                continue
            seen.add(cid)
            args = tc.get("args") if isinstance(tc.get("args"), dict) else {}
            hook_payload = {"tool_name": tc["name"], "tool_input": args, "cwd": session.cwd}
            for p in agent_calls.translate(AGENT, "PreToolUse", hook_payload):
                session.calls.append(
                    RecordedCall(
                        AGENT,
                        session.session_id,
                        p["tool_name"],
                        p.get("tool_input") or {},
                        str(tc.get("timestamp") or ts),
                        session.cwd,
                        tc["name"],
                        cid,
                        turn,
                        rejected=tc.get("status") == "cancelled",
                        path=path,
                    )
                )
    return session
