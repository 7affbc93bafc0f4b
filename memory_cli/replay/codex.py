"""Codex CLI's sessions: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl``.

Checked against Codex CLI 0.169.0. One record a line, ``{"timestamp", "type", "payload"}``: the
first, ``session_meta``, names the session (``payload.id``) and its ``cwd``; a
``response_item`` whose payload is a ``function_call`` (``name`` ``exec_command`` with
``arguments`` a JSON text holding ``cmd``; older ``shell`` calls hold ``command`` as a list) or
a ``custom_tool_call`` (``apply_patch`` with the patch as ``input``) is a tool call; a
``message`` with role ``user`` is the person's prompt (the ``<environment_context>`` and other
texts Codex adds on the person's side are not). Tool names and ``apply_patch`` become the calls
Codex's hooks send, through :func:`memory_cli.agent_calls.translate`.
"""

from __future__ import annotations

import json
import os
import shlex

from .. import agent_calls
from .calls import PROMPT_CHARS, RecordedCall, Session, files_under, lines_of, modified_since, read_bytes

AGENT = "codex"
_SHELL_TOOLS = ("exec_command", "shell", "local_shell", "container.exec", "shell_command")
_ADDED = (
    "<environment_context>",
    "<user_instructions>",
    "<skills_instructions>",
    "<memory-cli-context>",
    "# AGENTS.md",
)


def root(home: str) -> str:
    return os.path.join(os.environ.get("CODEX_HOME") or os.path.join(home, ".codex"), "sessions")


def session_files(home: str, since_epoch: float | None = None):
    for path in files_under(root(home), lambda n: n.startswith("rollout-") and n.endswith(".jsonl"), depth=3):
        if modified_since(path, since_epoch):
            yield path


def _command(args: dict) -> str | None:
    cmd = args.get("cmd", args.get("command"))
    if isinstance(cmd, list) and all(isinstance(c, str) for c in cmd):
        if len(cmd) == 3 and os.path.basename(cmd[0]) in ("bash", "sh", "zsh") and cmd[1] in ("-lc", "-c"):
            return cmd[2]
        return shlex.join(cmd)
    return cmd if isinstance(cmd, str) else None


def _typed(payload: dict) -> str:
    """What the person typed, or "" for a message that is not theirs."""
    if payload.get("role") != "user":
        return ""
    texts = [c.get("text", "") for c in payload.get("content") or [] if isinstance(c, dict)]
    joined = "\n".join(t for t in texts if isinstance(t, str)).strip()
    return "" if joined.startswith(_ADDED) else joined


def read(path: str) -> Session | None:
    got = read_bytes(path)
    if got is None:
        return None
    data, truncated = got
    stem = os.path.basename(path)[: -len(".jsonl")]
    session = Session(AGENT, stem[-36:] if len(stem) > 36 else stem, path, truncated=truncated)
    turn = 0
    for rec in lines_of(data):
        payload = rec.get("payload")
        if not isinstance(payload, dict):
            continue
        ts = str(rec.get("timestamp") or "")
        kind = rec.get("type")
        if kind == "session_meta":
            session.session_id = str(payload.get("id") or payload.get("session_id") or session.session_id)
            session.cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else session.cwd
            session.started = str(payload.get("timestamp") or ts)
            continue
        if kind == "turn_context" and isinstance(payload.get("cwd"), str):
            session.cwd = payload["cwd"]
            continue
        if kind != "response_item":
            continue
        ptype = payload.get("type")
        if ptype == "message":
            text = _typed(payload)
            if text:
                turn += 1
                session.prompts.append((ts, text[:PROMPT_CHARS]))
            continue
        name = payload.get("name")
        if ptype == "function_call" and name in _SHELL_TOOLS:
            try:
                args = json.loads(payload.get("arguments") or "{}")
            except (ValueError, TypeError, RecursionError):
                continue
            command = _command(args) if isinstance(args, dict) else None
            if command is None:
                continue
            hook_payload = {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": session.cwd}
        elif ptype == "custom_tool_call" and name == agent_calls.PATCH_TOOL and isinstance(payload.get("input"), str):
            hook_payload = {"tool_name": name, "tool_input": {"command": payload["input"]}, "cwd": session.cwd}
        elif ptype == "function_call" and isinstance(name, str):
            try:
                args = json.loads(payload.get("arguments") or "{}")
            except (ValueError, TypeError, RecursionError):
                args = {}
            hook_payload = {"tool_name": name, "tool_input": args if isinstance(args, dict) else {}, "cwd": session.cwd}
        else:
            continue
        for p in agent_calls.translate(AGENT, "PreToolUse", hook_payload):
            session.calls.append(
                RecordedCall(
                    AGENT,
                    session.session_id,
                    p["tool_name"],
                    p.get("tool_input") or {},
                    ts,
                    session.cwd,
                    name,
                    str(payload.get("call_id") or ""),
                    turn,
                    path=path,
                )
            )
    return session
