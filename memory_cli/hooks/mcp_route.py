"""A hook event answered inside the running MCP server (Claude Code's ``mcp_tool`` hooks).

Claude Code calls the server's ``hook`` tool with the hook input's fields as string arguments
(see :mod:`memory_cli.hook_routes`). This module puts the payload back together and hands it to
:func:`memory_cli.hooks.runner.main`, the very function a hook process runs, with in-memory
streams: the same handlers, decisions, audit rows, spool and budgets, and the same JSON on the
way out. Only the process start is saved, and the modules the handlers import stay loaded
between calls.

Calls are answered one at a time: the runner keeps per-call state at module level, and the
server runs each tool call in a worker thread.
"""

from __future__ import annotations

import io
import os
import threading

from ..hook_routes import EVENT_FIELDS, JSON_FIELDS

_lock = threading.Lock()
LOCK_WAIT_S = 4.0  # below the 5 s timeout `install` gives the per-call events


def payload_from(event: str, fields: dict[str, str]) -> dict:
    """The hook input as Claude Code sent it, from its interpolated fields: an empty string is a
    field the input did not have; an object or a number is read back from its JSON text (a
    string that is not JSON stays the string it was, as ``error`` usually is)."""
    from ..fastjson import loads

    payload: dict = {}
    for name, value in fields.items():
        if not isinstance(value, str) or value == "":
            continue
        if name in JSON_FIELDS:
            try:
                parsed = loads(value)
            except (ValueError, RecursionError):
                parsed = None
            if name in ("tool_response", "error"):
                value = parsed if isinstance(parsed, (dict, list)) else value
            elif name == "tool_input":
                continue  # spliced into the runner's input as its text (see stdin_bytes)
            elif parsed is None:
                continue
            else:
                value = parsed
        payload[name] = value
    payload.setdefault("hook_event_name", event)
    return payload


def stdin_bytes(event: str, fields: dict[str, str]) -> bytes:
    """What the command route reads on stdin for the same input. ``tool_input`` is spliced in
    as the JSON text Claude Code made of it, so the runner reads it as a hook process reads its
    stdin (a tool input nesting too deep to check is refused there, not dropped here)."""
    from ..fastjson import dumps

    text = dumps(payload_from(event, fields), ensure_ascii=False)
    tool_input = fields.get("tool_input")
    if isinstance(tool_input, str) and tool_input.lstrip().startswith("{"):
        text = text[:-1] + (', "tool_input": ' if len(text) > 2 else '"tool_input": ') + tool_input + "}"
    return text.encode("utf-8")


def session_env(environ=None) -> None:
    """What Claude Code tells a hook process through its environment but not the MCP server it
    starts: ``CLAUDE_CODE_SESSION_ATTENDED=0`` in a print-mode session (``claude -p``, whose
    servers see ``CLAUDE_CODE_ENTRYPOINT=sdk-cli``), which decides whether an ask rule defers
    (``enforcement.headless_ask``). Set once in this server's environment, as a hook would see it."""
    env = os.environ if environ is None else environ
    if "CLAUDE_CODE_SESSION_ATTENDED" not in env and env.get("CLAUDE_CODE_ENTRYPOINT") == "sdk-cli":
        env["CLAUDE_CODE_SESSION_ATTENDED"] = "0"


def answer(event: str, fields: dict[str, str], db: str | None = None, config: str | None = None) -> str:
    """The hook JSON for one event, exactly what ``memory-cli hook EVENT`` would print for the
    same input (``{}`` when it prints nothing: no decision, the call goes ahead)."""
    from . import runner

    if event not in EVENT_FIELDS:
        # Only the per-call events take this route; anything else is refused as the runner
        # refuses an unknown event: no decision.
        return "{}"
    raw = stdin_bytes(event, fields)
    session_env()
    out = io.StringIO()
    # A call stalled in the runner (a filesystem that hangs) must not hold up every later one
    # forever: past the wait, this call fails, which Claude Code treats as the hook failing
    # (the gate, with onFailure "block", blocks the call and says so).
    if not _lock.acquire(timeout=LOCK_WAIT_S):
        raise TimeoutError(f"memory-cli's {event} hook is still busy with an earlier call")
    try:
        runner.main(event, db, stdin=io.BytesIO(raw), stdout=out, config_override=config, own_process=False)
    finally:
        _lock.release()
    return out.getvalue() or "{}"
