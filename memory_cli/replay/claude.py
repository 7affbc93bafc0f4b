"""Claude Code's sessions: ``~/.claude/projects/<project>/<session id>.jsonl``.

One JSON record a line (see :mod:`memory_cli.capture.transcript_records`): an ``assistant``
record's ``message.content`` holds ``tool_use`` blocks (``id``, ``name``, ``input``, already
in the shape the hooks receive); a ``user`` record holds either what the person typed or the
``tool_result`` blocks, where a call the person declined answers with Claude Code's fixed
"The user doesn't want to proceed with this tool use" text.
"""

from __future__ import annotations

import os

from ..capture import transcript_records as tr
from .calls import PROMPT_CHARS, RecordedCall, Session, files_under, lines_of, modified_since, read_bytes

AGENT = "claude"
_INTERRUPTED = "[Request interrupted"
_REJECTED = ("The user doesn't want to proceed with this tool use", "The user doesn't want to take this action")


def root(home: str) -> str:
    return os.path.join(home, ".claude", "projects")


def session_files(home: str, since_epoch: float | None = None):
    for path in files_under(root(home), lambda n: n.endswith(".jsonl"), depth=1):
        if modified_since(path, since_epoch):
            yield path


def _result_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def read(path: str) -> Session | None:
    got = read_bytes(path)
    if got is None:
        return None
    data, truncated = got
    session = Session(AGENT, os.path.basename(path)[: -len(".jsonl")], path, truncated=truncated)
    by_id: dict[str, RecordedCall] = {}
    turn = 0
    for rec in lines_of(data):
        if rec.get("sessionId") and session.session_id != rec["sessionId"] and not session.calls:
            session.session_id = str(rec["sessionId"])
        if rec.get("cwd") and not session.cwd:
            session.cwd = str(rec["cwd"])
        ts = str(rec.get("timestamp") or "")
        if not session.started and ts:
            session.started = ts
        kind = rec.get("type")
        if kind == "user":
            texts = [
                b.get("text") for b in tr.blocks(rec) if b.get("type") == "text" and isinstance(b.get("text"), str)
            ]
            if texts and texts[0].startswith(_INTERRUPTED) and session.calls and session.calls[-1].turn == turn:
                if not session.calls[-1].rejected:
                    session.calls[-1].interrupted = True
                continue
            if tr.is_person_prompt(rec):
                turn += 1
                text = " ".join(b.get("text", "") for b in tr.blocks(rec) if isinstance(b.get("text"), str))
                session.prompts.append((ts, text[:PROMPT_CHARS]))
                continue
            for b in tr.blocks(rec):
                if b.get("type") == "tool_result":
                    call = by_id.get(str(b.get("tool_use_id")))
                    if call is not None and _result_text(b).startswith(_REJECTED):
                        call.rejected = True
        elif kind == "assistant" and not rec.get("isApiErrorMessage"):
            for b in tr.blocks(rec):
                if b.get("type") != "tool_use" or not isinstance(b.get("name"), str):
                    continue
                cid = str(b.get("id") or "")
                if cid and cid in by_id:
                    continue
                ti = b.get("input") if isinstance(b.get("input"), dict) else {}
                call = RecordedCall(
                    AGENT,
                    session.session_id,
                    b["name"],
                    ti,
                    ts,
                    rec.get("cwd") or session.cwd,
                    None,
                    cid,
                    turn,
                    path=path,
                )
                session.calls.append(call)
                if cid:
                    by_id[cid] = call
    return session
