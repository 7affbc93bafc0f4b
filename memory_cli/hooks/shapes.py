"""A command tool's input in the shapes agents send it, read as the one shape rules know.

Command rules read ``tool_input.command`` as one command line. Agents do not all send that:
Codex's ``shell`` tool gives ``command`` as an argv array (``["bash", "-lc", "git push"]``),
its ``exec_command`` a ``cmd`` string, and a newer client may send either for ``Bash``. Read
as they came, those calls met no rule and were allowed in silence. Here each is turned into
the command line it runs (an argv array joined with the quoting a shell would need, so that
``bash -lc '...'`` is read as the script it runs), the other fields kept as they were; an
input with no command in any known field is left alone and :func:`unreadable` names it, so
the rules handler can say that nothing was checked instead of allowing it unsaid.
Standard library only: this is on the hook path, imported only for an input of another shape.
"""

from __future__ import annotations

# Tools whose input is a command line to run (the agents' shell tools arrive as Bash).
COMMAND_TOOLS = frozenset({"Bash"})
# Fields a command may come in, in the order they are tried.
COMMAND_FIELDS = ("command", "cmd", "argv")
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def quote(word: str) -> str:
    """``word`` as one shell word (``shlex.quote``, without importing shlex and re)."""
    if word and all(c in _PLAIN for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def command_line(value) -> str | None:
    """The command line a field's value stands for: a string as it is, an argv array (all
    strings, or numbers) joined; None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value:
        words = []
        for w in value:
            if isinstance(w, bool) or not isinstance(w, (str, int, float)):
                return None
            words.append(quote(str(w)))
        return " ".join(words)
    return None


def needs_reading(payload: dict) -> bool:
    """True when the payload is a command tool's call whose ``command`` is not a string."""
    ti = payload.get("tool_input")
    return payload.get("tool_name") in COMMAND_TOOLS and isinstance(ti, dict) and not isinstance(ti.get("command"), str)


def normalise(payload: dict) -> dict:
    """The payload with ``tool_input.command`` the command line its input runs, when one of
    :data:`COMMAND_FIELDS` holds it; otherwise the payload unchanged."""
    if not needs_reading(payload):
        return payload
    ti = payload["tool_input"]
    for key in COMMAND_FIELDS:
        line = command_line(ti.get(key))
        if line is not None and line.strip():
            return dict(payload, tool_input=dict(ti, command=line))
    return payload


def unreadable(tool: str | None, tool_input: dict) -> str | None:
    """For a command tool whose input holds no command line memory-cli can read, a few words
    naming what it holds instead (its fields); None when the command is readable or the tool
    runs no command."""
    if tool not in COMMAND_TOOLS:
        return None
    if isinstance(tool_input.get("command"), str):
        return None  # read as it is (an empty one runs nothing)
    fields = ", ".join(sorted(str(k)[:40] for k in tool_input)[:8]) or "no fields"
    return f"its input has no command line memory-cli can read (fields: {fields})"
