"""What each hook event brings on stdin, checked before any handler sees it.

A payload that lacks what the event promises is a protocol problem (an old or newer Claude
Code, a hand-written test): it is audited and the call is allowed, never blocked.
"""

from __future__ import annotations

# event -> {field: (python types, required)}
_COMMON = {
    "session_id": (str, True),
    "hook_event_name": (str, False),
    "cwd": (str, False),
    "transcript_path": (str, False),
    "permission_mode": (str, False),
    "agent_id": (str, False),
    "agent_type": (str, False),
}

EVENTS: dict[str, dict] = {
    "SessionStart": {"source": (str, False), "model": (str, False)},
    "UserPromptSubmit": {"prompt": (str, True)},
    "PreToolUse": {"tool_name": (str, True), "tool_input": (dict, True), "tool_use_id": (str, False)},
    "PostToolUse": {
        "tool_name": (str, True),
        "tool_input": (dict, True),
        "tool_response": (object, False),
        "tool_use_id": (str, False),
        "duration_ms": ((int, float), False),
    },
    "PostToolUseFailure": {
        "tool_name": (str, True),
        "tool_input": (dict, True),
        "error": (object, False),
        "is_interrupt": (bool, False),
        "tool_use_id": (str, False),
    },
    "PermissionDenied": {
        "tool_name": (str, True),
        "tool_input": (dict, True),
        "tool_use_id": (str, False),
        "reason": (str, False),
        "mcp_server": (object, False),
    },
    "PreCompact": {"trigger": (str, False), "custom_instructions": ((str, type(None)), False)},
    "Stop": {"stop_hook_active": (bool, False), "last_assistant_message": ((str, type(None)), False)},
    "SessionEnd": {"reason": (str, False)},
}


class HookInputError(Exception):
    """The event JSON could not be used. ``str()`` is one line for the audit log."""

    too_deep = False


class TooDeep(HookInputError):
    """The payload nests deeper than any real tool input: it cannot be checked, so a gate
    (PreToolUse) refuses it instead of letting it through unchecked."""

    too_deep = True


# Real tool inputs nest a few levels (MultiEdit: 3); deeper ones are refused before any
# handler walks them, and JSON deeper than the interpreter's recursion limit never parses.
MAX_DEPTH = 100


def _depth_exceeds(value, limit: int) -> bool:
    """Whether ``value`` nests deeper than ``limit`` (iterative: no recursion to run out of)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))
    return False


def parse(event: str, raw: bytes | str) -> dict:
    if event not in EVENTS:
        raise HookInputError(f"unknown hook event {event!r}")
    return check(event, load(raw))


def load(raw: bytes | str) -> dict:
    """The JSON object on stdin, not yet checked against what ``event`` promises."""
    from ..fastjson import loads

    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not raw.strip():
        raise HookInputError("empty stdin: the event JSON is missing")
    try:
        payload = loads(raw)
    except ValueError as e:
        raise HookInputError(f"stdin is not valid JSON ({e})") from None
    except RecursionError:
        raise TooDeep("the event JSON nests too deep to read") from None
    if not isinstance(payload, dict):
        raise HookInputError(f"event JSON must be an object, got {type(payload).__name__}")
    return payload


def check(event: str, payload: dict) -> dict:
    """``payload`` when it holds what ``event`` promises (as Claude Code sends it)."""
    if event not in EVENTS:
        raise HookInputError(f"unknown hook event {event!r}")
    problems = []
    for spec in (_COMMON, EVENTS[event]):
        for field, (types, required) in spec.items():
            if field not in payload or payload[field] is None:
                if required:
                    problems.append(f"missing field {field!r}")
                continue
            if types is not object and not isinstance(payload[field], types):
                problems.append(f"field {field!r} has the wrong type ({type(payload[field]).__name__})")
    name = payload.get("hook_event_name")
    if isinstance(name, str) and name and name != event:
        problems.append(f"hook_event_name {name!r} does not match the command's event {event!r}")
    if problems:
        raise HookInputError("; ".join(problems))
    if _depth_exceeds(payload.get("tool_input"), MAX_DEPTH):
        raise TooDeep(f"the tool input nests deeper than {MAX_DEPTH} levels")
    if event == "UserPromptSubmit" and is_generated_prompt(payload["prompt"]):
        # Not what the person typed: no correction, prompt rule or prompt injection may come
        # from it. The text stays available to handlers that want it.
        payload["generated_prompt"] = payload["prompt"]
        payload["prompt"] = ""
    return payload


# Claude Code hands some messages of its own to UserPromptSubmit as if they were typed: when a
# background subagent (the Task tool) finishes, the main agent gets a ``<task-notification>``
# block holding the subagent's last words (seen with Claude Code 2.1.328).
GENERATED_PROMPT_PREFIXES = ("<task-notification>",)


def is_generated_prompt(prompt: str) -> bool:
    """True for a prompt Claude Code generated rather than the person typed."""
    return prompt.lstrip().startswith(GENERATED_PROMPT_PREFIXES)
