"""Field conditions: "this part of the tool call, compared this way, with this pattern".

The vocabulary is hookify's (field names ``command``, ``new_text``, ``old_text``, ``content``,
``file_path``, ``prompt``...; operators ``regex_match``, ``contains``, ``equals``,
``not_contains``, ``starts_with``, ``ends_with``), so rules imported from
``.claude/hookify.*.local.md`` keep their meaning, and native rules limited to some files
("never write console.log in src") use the same form. Like hookify, ``regex_match`` ignores
case and the string operators do not. One deliberate difference: hookify reads ``new_text`` of
a Write as empty (Write has no ``new_string``), so its file rules never see written files; its
documentation says ``new_text`` is "new content being added (Edit, Write)", and that is what we
do.

Standard library only; used by the hooks.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for annotations only: the hook path never imports typing
    from collections.abc import Callable
    from typing import Any


__all__ = [
    "Condition",
    "OPERATORS",
    "REGEX_OPERATORS",
    "field_value",
    "check_string_operator",
    "WRITE_TOOLS",
    "tool_texts",
    "windows_path_as_posix",
]

OPERATORS = frozenset(
    {"regex_match", "not_regex_match", "contains", "not_contains", "equals", "not_equals", "starts_with", "ends_with"}
)
REGEX_OPERATORS = frozenset({"regex_match", "not_regex_match"})
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})

# Largest transcript read for a `transcript` condition: a Stop hook has a budget too.
_TRANSCRIPT_MAX_BYTES = 4 * 1024 * 1024


class Condition:
    __slots__ = ("field", "operator", "pattern")

    def __init__(self, field: str, operator: str, pattern: str):
        self.field, self.operator, self.pattern = field, operator, pattern

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Condition) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"Condition({self.field!r}, {self.operator!r}, {self.pattern!r})"

    def to_dict(self) -> dict:
        return {"field": self.field, "operator": self.operator, "pattern": self.pattern}

    @classmethod
    def from_dict(cls, d: dict) -> Condition:
        return cls(str(d.get("field", "")), str(d.get("operator") or "regex_match"), str(d.get("pattern", "")))


def _s(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        import json

        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _edits(tool_input: dict, key: str) -> str | None:
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        return "\n".join(_s(e.get(key)) for e in edits if isinstance(e, dict))
    return None


_INTERPRETER_RE = (
    r"^(?:python[\d.]*w?|py|pypy[\d.]*|node|nodejs|deno|bun|ruby|perl|php|lua|rscript)"
    r"(?:\.exe)?$"
)
_CODE_FLAG_RE = r"^-(?:[A-Za-z]*[ce]|-eval|-exec|-command|r|p|pe|ne)$"


def inline_code(command) -> str | None:
    """The code a shell command hands to an interpreter inline (``python -c "..."``,
    ``node -e '...'``, ``deno eval '...'``), joined; None when it runs none. A rule about a
    code construct looks here too, so it catches ``python -c "import os; os.system(...)"``
    but not ``grep -rn os.system src/``, which only mentions it."""
    if not isinstance(command, str) or not command:
        return None
    import re  # here, not at module level: an allowed tool call imports this module without re

    from .shellparse import simple_commands

    interpreter, code_flag = re.compile(_INTERPRETER_RE, re.I), re.compile(_CODE_FLAG_RE)

    out = []
    for sc in simple_commands(command):
        if not interpreter.match(sc.name or ""):
            continue
        args = list(sc.args)
        if sc.name.lower().startswith("deno") and args[:1] == ["eval"] and len(args) > 1:
            out.append(args[1])
            continue
        for i, a in enumerate(args[:-1]):
            if code_flag.match(a):
                out.append(args[i + 1])
                break
            if not a.startswith("-"):
                break  # a script file: its code is not on the command line
    return "\n".join(out) if out else None


def field_value(field: str, tool_name: str, tool_input: dict | None, payload: dict | None = None) -> str | None:
    """The text a condition on ``field`` looks at, or None when the call has no such field."""
    ti = tool_input if isinstance(tool_input, dict) else {}
    pl = payload if isinstance(payload, dict) else {}
    f = field.strip()
    if f == "command":
        return _s(ti["command"]) if "command" in ti else None
    if f == "inline_code":
        return inline_code(ti.get("command")) if "command" in ti else None
    if f in ("new_text", "new_string", "content"):
        if f == "content" and "content" in ti:
            return _s(ti["content"])
        if "new_string" in ti:
            return _s(ti["new_string"])
        if "content" in ti:
            return _s(ti["content"])
        if "new_source" in ti:  # NotebookEdit
            return _s(ti["new_source"])
        return _edits(ti, "new_string")
    if f in ("old_text", "old_string"):
        if "old_string" in ti:
            return _s(ti["old_string"])
        return _edits(ti, "old_string")
    if f == "file_path":
        for key in ("file_path", "notebook_path", "path"):
            if key in ti:
                return _s(ti[key])
        return None
    if f in ("prompt", "user_prompt"):
        v = pl.get("prompt", pl.get("user_prompt"))
        return None if v is None else _s(v)
    if f in ("output", "stdout", "stderr", "tool_response", "response"):
        resp = pl.get("tool_response")
        if resp is None:
            return None
        if f in ("stdout", "stderr"):
            return _s(resp.get(f)) if isinstance(resp, dict) and f in resp else None
        if isinstance(resp, dict) and f == "output":
            parts = [_s(resp.get(k)) for k in ("stdout", "stderr", "output", "content") if resp.get(k)]
            return "\n".join(parts) if parts else _s(resp)
        return _s(resp)
    if f == "transcript":
        return read_transcript(pl.get("transcript_path"))
    if f in ti:
        return _s(ti[f])
    if f in pl:
        return _s(pl[f])
    return None


def read_transcript(path) -> str | None:
    """The transcript's text (its first ``_TRANSCRIPT_MAX_BYTES``), or None when the path is
    not a readable regular file: not a string, a NUL inside, a FIFO or device (opened without
    blocking and refused), missing. Only the rules that look at the transcript lose it."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], _TRANSCRIPT_MAX_BYTES
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def tool_texts(
    fields: list[str] | None, tool_name: str, tool_input: dict | None, payload: dict | None = None
) -> list[tuple[str, str]]:
    """(field, text) pairs a pattern rule looks at. No fields given means the natural ones:
    Bash command; Write content and file_path; Edit new_string and file_path. Other tools
    (Read, Grep, WebFetch, MCP tools...) are looked at only through fields a rule names: a rule
    about running pythonw.exe must not fire on `Grep pattern=pythonw.exe`."""
    ti = tool_input if isinstance(tool_input, dict) else {}
    if not fields:
        if tool_name == "Bash":
            fields = ["command"]
        elif tool_name in WRITE_TOOLS:
            fields = ["content", "file_path"]
        else:
            return []
    out = []
    for f in fields:
        v = field_value(f, tool_name, ti, payload)
        if v:
            out.append((f, v))
            if f == "command" and tool_name == "Bash" and "\\\n" in v:
                out.append((f, v.replace("\\\n", "")))  # bash drops a line continuation
            if f == "file_path" and "\\" in v:
                # A Windows path (C:\Users\me\proj\.env) is also looked at with forward
                # slashes, so a rule written for paths, (?:^|/)\.env$, matches it too.
                out.append((f, v.replace("\\", "/")))
    return out


def windows_path_as_posix(field: str, pattern: str, value: str | None) -> str | None:
    """The value a regex condition on ``field`` compares: a Windows file path with forward
    slashes, unless the pattern itself spells backslashes (then it was written for them)."""
    if value and field.strip() == "file_path" and "\\" in value and "\\\\" not in pattern:
        return value.replace("\\", "/")
    return value


def check_string_operator(
    operator: str, pattern: str, value: str | None, regex: Callable[[str, str], bool] | None = None
) -> bool:
    """Evaluate one condition. ``regex(pattern, value)`` decides the regex operators (the
    caller supplies a budget-safe matcher). A missing field never matches, as in hookify."""
    if value is None:
        return False
    if operator == "contains":
        return pattern in value
    if operator == "not_contains":
        return pattern not in value
    if operator == "equals":
        return value == pattern
    if operator == "not_equals":
        return value != pattern
    if operator == "starts_with":
        return value.startswith(pattern)
    if operator == "ends_with":
        return value.endswith(pattern)
    if operator in REGEX_OPERATORS:
        if regex is None:
            import re

            hit = re.search(pattern, value, re.IGNORECASE) is not None
        else:
            hit = regex(pattern, value)
        return hit if operator == "regex_match" else not hit
    return False  # unknown operator: never matches (hookify's behaviour)
