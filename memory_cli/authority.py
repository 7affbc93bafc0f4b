"""Whose word a command carries: the person's, or a coding agent's acting in their account.

Commands that weaken enforcement or approve what the agent asked for (``rules disable``,
``review --approve``, ``uninstall``, ``serve`` handing out a token...) must come from the
person. Environment markers (``CLAUDECODE``...) cannot decide that: the agent's shell can clear
them. The process tree can: every process an agent's shell tool starts descends from the agent's
own process, and no process can choose a new parent. So :func:`agent_ancestor` walks the
``ppid`` chain in ``/proc`` and names the first ancestor that is Claude Code, Codex CLI or
Gemini CLI (or the bubblewrap sandbox an agent runs its shell in, whose pid namespace hides the
agent from the walk).

Inside an agent's tree the person can still confirm, on their own terminal only: the process's
controlling terminal (``/dev/tty``) must be the agent's own terminal, the one the person typed
``claude`` into. Claude Code starts each shell call in a session of its own without a terminal,
and a pseudo-terminal the agent makes (``script``, ``expect``) is not the agent's terminal, so
nothing the agent runs can answer the question.

:func:`hook_from_agent` tells a real hook from one the agent typed: a hook's process is started
by the agent itself (directly or through ``/bin/sh -c HOOK-COMMAND``), while the agent's Bash
tool wraps every command in its own shell script (``source <snapshot> && eval ...``).

Standard library only; Linux ``/proc``. Elsewhere (no ``/proc``) nothing is found and the
environment markers remain the only signal.
"""

from __future__ import annotations

import os


class Proc:
    """One process as ``/proc`` shows it: pid, parent, name, controlling terminal, argv."""

    __slots__ = ("pid", "ppid", "comm", "tty", "exe", "argv")

    def __init__(self, pid: int, ppid: int, comm: str, tty: int, exe: str, argv: list[str]):
        self.pid, self.ppid, self.comm, self.tty, self.exe, self.argv = pid, ppid, comm, tty, exe, argv


class Agent:
    """The agent process a command descends from, and how many generations up it is."""

    __slots__ = ("name", "pid", "tty", "depth")

    def __init__(self, name: str, pid: int, tty: int, depth: int):
        self.name, self.pid, self.tty, self.depth = name, pid, tty, depth


# Executable names (``comm`` or the exe's basename) of the agents' own processes, and script
# paths a ``node`` process runs them from.
_AGENT_NAMES = {"claude": "Claude Code", "claude.exe": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI"}
_AGENT_SCRIPTS = (
    ("@anthropic-ai/claude-code", "Claude Code"),
    ("@openai/codex", "Codex CLI"),
    ("@google/gemini-cli", "Gemini CLI"),
)
# a node process running the agent's launcher script by name (``node_modules/.bin/gemini``)
_SCRIPT_NAMES = {"gemini": "Gemini CLI", "gemini.js": "Gemini CLI", "codex": "Codex CLI", "codex.js": "Codex CLI"}
_SANDBOXES = ("bwrap",)
_SHELLS = ("sh", "dash", "bash", "zsh")
_MAX_DEPTH = 64


def read_proc(pid: int, root: str = "/proc") -> Proc | None:
    """One process as ``/proc`` shows it to this user, or None when it is gone or hidden."""
    try:
        with open(f"{root}/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    try:
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        ppid, tty = int(fields[1]), int(fields[4])
    except (ValueError, IndexError):
        return None
    try:
        exe = os.readlink(f"{root}/{pid}/exe")
    except OSError:
        exe = ""
    try:
        with open(f"{root}/{pid}/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        argv = []
    return Proc(pid, ppid, comm, tty, exe, argv)


def agent_of(p: Proc) -> str | None:
    """The agent this process is (its display name), 'an agent's sandbox', or None."""
    names = {p.comm, os.path.basename(p.exe).replace(" (deleted)", "")}
    if p.argv:
        names.add(os.path.basename(p.argv[0]))
    for n in names:
        if n in _AGENT_NAMES:
            return _AGENT_NAMES[n]
        if n.startswith("codex-") or n.startswith("codex."):
            return "Codex CLI"
        if n in _SANDBOXES:
            return "an agent's sandbox (bubblewrap)"
    if "node" in names or any(n.startswith("node") for n in names):
        for arg in p.argv[1:3]:
            for marker, agent in _AGENT_SCRIPTS:
                if marker in arg:
                    return agent
            if os.path.basename(arg) in _SCRIPT_NAMES:
                return _SCRIPT_NAMES[os.path.basename(arg)]
    return None


def _walk(pid: int | None, root: str):
    """Ancestors of ``pid`` one at a time, nearest first, up to pid 1 of its pid namespace
    (inside a sandbox's namespace pid 1 is the sandbox's own init)."""
    p = read_proc(os.getpid() if pid is None else pid, root)
    for _ in range(_MAX_DEPTH):
        if p is None or p.ppid < 1:
            return
        p = read_proc(p.ppid, root)
        if p is None:
            return
        yield p


def ancestors(pid: int | None = None, root: str = "/proc") -> list[Proc]:
    """The whole chain from ``pid``'s parent up, nearest first."""
    return list(_walk(pid, root))


def _nearest_agent(pid: int | None, root: str) -> tuple[list[Proc], Agent | None]:
    """The chain up to the nearest agent process (included), and that agent; stops there."""
    chain: list[Proc] = []
    for depth, p in enumerate(_walk(pid, root), start=1):
        chain.append(p)
        name = agent_of(p)
        if name:
            return chain, Agent(name, p.pid, p.tty, depth)
    return chain, None


def agent_ancestor(pid: int | None = None, root: str = "/proc") -> Agent | None:
    """The nearest agent process this one descends from, or None (a process the person
    started outside any agent)."""
    return _nearest_agent(pid, root)[1]


def terminal_is_agents(agent: Agent, root: str = "/proc") -> bool:
    """Whether this process's controlling terminal (the kernel's, as ``/proc`` shows it) is the
    agent's own, the person's. A process gets a controlling terminal only by inheriting it or by
    opening one in a session of its own, so nothing under a shell call Claude Code starts in a
    new session can share the agent's."""
    if not agent.tty:
        return False
    me = read_proc(os.getpid(), root)
    return me is not None and me.tty == agent.tty


def confirm_on_terminal(question: str, tty_path: str = "/dev/tty") -> bool:
    """Ask ``question`` on the controlling terminal; True only for a typed ``yes``."""
    try:
        fd = os.open(tty_path, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return False
    try:
        os.write(fd, (question + " Type 'yes' to run it as the person: ").encode())
        answer = b""
        while not answer.endswith(b"\n") and len(answer) < 64:
            chunk = os.read(fd, 64)
            if not chunk:
                break
            answer += chunk
        return answer.decode("utf-8", "replace").strip().lower() == "yes"
    except OSError:
        return False
    finally:
        os.close(fd)


def person_confirms(agent: Agent, what: str) -> bool:
    """The person's own yes on the agent's terminal (never anything the agent can type)."""
    if not terminal_is_agents(agent):
        return False
    return confirm_on_terminal(f"memory-cli: this command was started inside {agent.name}; `{what}` needs your word.")


def refusal(agent_name: str, what: str) -> str:
    return (
        f"`{what}` needs the person's word and this process runs inside {agent_name}: "
        "run it in your own terminal (a shell no agent started)"
    )


# -- hooks that speak for the person ----------------------------------------------------------------
_WRAPPERS = (";", "&&", "||", "|", "`", "$(", "eval ", "source ", "\n")


def _is_hook_shell(p: Proc) -> bool:
    """A shell as an agent starts a hook: ``/bin/sh -c COMMAND`` with one command and no script
    around it (the Bash tool's shell runs ``source <snapshot> && eval '...'``), or the plugin's
    exec form ``/bin/sh <launcher> hook EVENT``."""
    if os.path.basename(p.comm) not in _SHELLS:
        return False
    if len(p.argv) == 3 and p.argv[1] == "-c":
        command = p.argv[2]
        return " hook " in f" {command} " and not any(w in command for w in _WRAPPERS)
    return len(p.argv) >= 4 and not p.argv[1].startswith("-") and p.argv[2] == "hook"


def hook_from_agent(pid: int | None = None, root: str = "/proc") -> tuple[bool, str]:
    """Whether this hook process was started by the agent itself, and why not.

    True when the parent is the agent, or a hook shell (:func:`_is_hook_shell`) whose parent is
    the agent, or when no agent is found at all (the event comes from elsewhere: a test, a
    plugin host; judged by the caller). False when an agent is an ancestor further up: the
    event was typed into the agent's shell tool."""
    chain, agent = _nearest_agent(pid, root)
    if agent is None:
        return True, ""
    if agent.depth == 1 and not agent.name.startswith("an agent's sandbox"):
        return True, ""
    if agent.depth == 2 and _is_hook_shell(chain[0]) and not agent.name.startswith("an agent's sandbox"):
        return True, ""
    how = " ".join(chain[0].argv[:2])[:60] if chain else "?"
    return False, f"started by {how!r} inside {agent.name}, not by the agent's hook runner"
