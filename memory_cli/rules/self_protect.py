"""memory-cli's own state as a protected resource: the agent cannot switch the gate off.

A rule holds only while the store, its caches, the config and the hook entries in each agent's
settings stay as the person left them. Every agent can change those with one ordinary tool call
(``memory-cli rules disable``, ``sqlite3 <store> "UPDATE ..."``, ``rm`` of the store, an edit of
``settings.json``), and prompt injection makes that the first thing an attacker tries. So a
PreToolUse check, run before the person's rules, asks the person about any call that would
change or remove:

- the store file and its ``-wal``/``-shm``/``-journal`` companions, its rule cache, its spool
  folder;
- the compiled-regex cache folder, the config file;
- each agent's settings where memory-cli's hook entries live (Claude Code's user, project and
  local settings, Codex's ``config.toml`` and ``hooks.json``, Gemini's ``settings.json``) and the
  repository file ``.claude/memory-cli.toml``;

and about memory-cli's own commands that weaken enforcement (:mod:`.weakening`) run from the
agent's shell. Codex cannot ask, and a headless Gemini waits forever on an ask, so in those two
the answer is a denial. Reading stays free: ``cat``,
``grep``, ``sqlite3 <store> 'SELECT ...'``, a ``python3 -c`` query that only selects,
``memory-cli list``/``rules list``/``doctor``; so does writing a project's own files whose
text merely names these paths (a test that builds ``~/.claude/settings.json`` in a tmp dir).

Cheap by construction: a call that names none of these files or programs (almost every call) is
settled here by a few substring tests; only the others import :mod:`.protected_state` (what is
protected, and how a command or a file would touch it). Standard library only.
The switch (``protection.enabled``) is read from the person's config only, never from the
environment. What a process of the same user can still do outside the agent's tool calls is
said in docs/trust.md ("The agent as an attacker").
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response

# Environment markers each agent sets in the processes its shell tool starts.
AGENT_MARKERS = (
    ("CLAUDECODE", "Claude Code"),
    ("CODEX_THREAD_ID", "Codex CLI"),
    ("CODEX_SANDBOX", "Codex CLI"),
    ("GEMINI_CLI", "Gemini CLI"),
)

_WORDS = (
    "memory-cli",
    "memory_cli",
    "fasthook",
    ".claude",
    ".codex",
    ".gemini",
    "settings",
    "rules-cache",
    ".spool",
    "regex-",
    "hooks.json",
    "config.toml",
)


_REMOVERS = ("rm ", "mv ", "chmod ", "chown ", "find ", "shred ", "rsync ")


def may_touch(command: str, store_path: str | None) -> bool:
    """Whether ``command`` names anything protected at all: a few substring tests, so the
    commands that do not (nearly all) cost no parsing and no path work."""
    low = command.lower()
    if any(w in low for w in _WORDS):
        return True
    if ("~" in low or "$home" in low or "${home}" in low or "/home" in low or "/root" in low) and any(
        w in low for w in _REMOVERS
    ):  # `rm -rf ~` removes everything below it
        return True
    from .. import paths

    names = [paths.memory_dir_str(), os.path.basename(paths.config_file())]
    if store_path:
        names += [os.path.basename(store_path), os.path.dirname(os.path.abspath(store_path))]
    return any(n and n.lower() in low for n in names)


def agent_marker(environ=None) -> str | None:
    """The agent whose shell started this process, from the marker it sets (None: none)."""
    env = os.environ if environ is None else environ
    for name, agent in AGENT_MARKERS:
        if env.get(name):
            return agent
    return None


# -- the hook --------------------------------------------------------------------------------
_FILE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")


def check(tool_name, tool_input: dict, store_path: str | None, cwd: str | None, store=None) -> str | None:
    """The one-line reason a call is asked of the person, or None when it leaves memory-cli's
    state alone. ``store`` (open) tells a memory from a rule for ``archive``/``delete``..."""
    if tool_name == "Bash":
        command = tool_input.get("command")
        if isinstance(command, list):  # an argv array
            command = " ".join(str(a) for a in command)
        if not isinstance(command, str) or not command or not may_touch(command, store_path):
            return None
        from .protected_state import Checker

        checker = Checker(store_path, cwd, store)
        hit = checker.check_command(command)
        if hit is None:
            return None
        what, t = hit
        if t is None:
            return f"this command {what}, which weakens memory-cli's enforcement"
        return f"this command {what} {t.label} ({t.path})"
    if tool_name in _FILE_TOOLS:
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        if not isinstance(path, str) or not path:
            return None
        if may_touch(path, store_path) or os.path.islink(path):  # a link: where it leads
            from .protected_state import Checker

            t = Checker(store_path, cwd).check_file(path)
            if t is not None:
                return f"this {tool_name} changes {t.label} ({t.path})"
        text = _written_text(tool_input)
        if text and may_touch(text, store_path):  # a script that would do it when run
            from .protected_state import Checker

            hit = Checker(store_path, cwd, store).check_script(path, text)
            if hit is not None:
                what, t = hit
                if t is None:
                    return f"this {tool_name} {what}, which weakens memory-cli's enforcement"
                return f"this {tool_name} {what} {t.label} ({t.path})"
    return None


def _written_text(tool_input: dict) -> str:
    parts = [tool_input.get(k) for k in ("content", "new_string", "new_source")]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        parts += [e.get("new_string") for e in edits if isinstance(e, dict)]
    return "\n".join(p for p in parts if isinstance(p, str) and p)


def pre_tool_use(ctx: HookContext, resp: Response) -> None:
    """Ask (deny where the agent cannot ask) before a call changes memory-cli's own state."""
    from ..settings import value as setting

    if not setting(ctx.settings, "protection.enabled"):
        return
    reason = check(ctx.tool_name, ctx.tool_input, getattr(ctx.store, "path", None), ctx.cwd, ctx.store)
    if reason is None:
        return
    # Codex has no PreToolUse ask; Gemini turns a hook's ask into a confirmation that a headless
    # run (`gemini -p`) waits for forever, and a hook cannot tell the two modes apart: both deny.
    deny = ctx.client in ("codex", "gemini")
    text = f"memory-cli protects its own state: {reason}; only the person can approve that"
    if deny:
        text += " (run it yourself in your own terminal if you mean it)"
    resp.decide("deny" if deny else "ask", text)
    resp.notify("memory-cli: " + reason)
    subject = ctx.tool_input.get("command") or ctx.tool_input.get("file_path") or ctx.tool_input.get("notebook_path")
    from .hook import _redacted

    ctx.audit(
        "protect_deny" if deny else "protect_ask",
        context=ctx.tool_name,
        result="denied" if deny else "asked",
        details={"reason": reason, "subject": _redacted(subject if isinstance(subject, str) else None)},
        elapsed_ms=ctx.elapsed_ms(),
    )
