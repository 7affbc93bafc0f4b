"""The gate fails closed: a tool call memory-cli could not check is refused, with the reason.

A PreToolUse hook that cannot read the rules (the store missing, locked by another process,
unreadable or corrupt, a config file that cannot be read, a handler that raised, the hard
deadline) does not know whether a block rule applies. Letting the call through would make
every such fault a way around the person's rules (one process holding the store locked was
enough), so the gate answers *deny* with one line saying what is wrong and the way back
(``memory-cli doctor``). The person's work stops visibly instead of a rule silently not
holding; the next call, once the fault is gone, is checked as usual.

Only the gate fails closed. The events after a call (PostToolUse, PostToolUseFailure,
PermissionDenied), the prompt and session events add memories and capture corrections; none
of them decides whether an action happens, so their faults stay notices (the work goes on and
``doctor`` shows what failed). See docs/trust.md.

Standard library only, and :func:`answer` imports nothing at all: the deadline's alarm may call
it while an import is half done.
"""

from __future__ import annotations

import os

# The events whose faults deny instead of letting the call proceed (Claude-shaped names; each
# agent's own event is mapped to them first, see :mod:`.agents`).
GATE_EVENTS = frozenset({"PreToolUse"})

# How long the gate's reads wait on a lock another process holds before the call is refused.
# In WAL mode readers never wait on writers; only an exclusive lock (``PRAGMA locking_mode =
# EXCLUSIVE``, a rollback-journal write) makes them wait, and then the gate must answer within
# its budget rather than wait out the agent's timeout. A moment, not zero: SQLite's own
# short-lived locks (a checkpoint, WAL recovery) clear within it.
GATE_BUSY_TIMEOUT_MS = 250
# The same wait for the events that decide nothing (they fail open when it passes): longer, as
# what they read is worth a moment more, but far below their deadlines (4.5 s and up), which a
# wait inside SQLite (holding the interpreter) could otherwise outlast.
HOOK_BUSY_TIMEOUT_MS = 1000

DOCTOR = "run `memory-cli doctor`"


class GateFault(Exception):
    """A fault that keeps the gate from checking a call; ``str()`` is the one line shown."""


def guards(event: str) -> bool:
    """Whether a fault of ``event``'s hook must refuse the call it was asked about."""
    return event in GATE_EVENTS


def _is_file_path(db_path: str) -> bool:
    return bool(db_path) and db_path != ":memory:" and not db_path.startswith("file:")


class StoreGone(GateFault):
    """The store is missing where memory-cli had one: said, and not recreated by a hook."""


# Files memory-cli keeps beside its store: one of them without the store means the store existed
# and was deleted (a first run, before any store, has none of them).
_TRACES = (".rules-cache", "-wal", "-shm", ".spool")


def store_was_deleted(db_path: str) -> bool:
    """No store at ``db_path``, but files memory-cli keeps beside one are there."""
    if not _is_file_path(db_path) or os.path.exists(db_path):
        return False
    return any(os.path.exists(db_path + suffix) for suffix in _TRACES)


def check_before_open(gate: bool, db_path: str, settings) -> None:
    """Raise :class:`GateFault` for what can be seen before the store is opened. The gate (``gate``: this call is one the gate decides): a
    missing store (never recreated empty for enforcement: every rule would be gone without a
    word) and a config file that could not be read at all. Any other event: :class:`StoreGone`
    for a store deleted after memory-cli had one (a first run still creates it)."""
    if not gate:
        if store_was_deleted(db_path):
            raise StoreGone(
                f"memory-cli's store at {db_path} was deleted by a process that was not memory-cli: "
                f"every tool call is refused until you {DOCTOR}"
            )
        return
    if _is_file_path(db_path) and not os.path.exists(db_path):
        raise GateFault(f"memory-cli's store is missing at {db_path}: {DOCTOR}")
    for problem in getattr(settings, "problems", None) or ():
        if problem.startswith("config ") and not problem.startswith("config key "):
            raise GateFault(f"memory-cli's {problem}: fix it or {DOCTOR}")


def reason_for(exc: BaseException, db_path: str | None) -> str:
    """The one line for a fault met while checking a call."""
    if isinstance(exc, GateFault) or type(exc).__name__ == "StoreReplaced":
        return str(exc)
    text = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
    text = (text.splitlines() or [""])[0][:200]
    where = db_path or "its configured path"
    if "locked" in text.lower() or type(exc).__name__ == "BusyError":
        return (
            f"memory-cli's store at {where} is locked by another process, so this call could not be "
            f"checked against the rules; it is refused until the lock is released ({DOCTOR})"
        )
    if type(exc).__name__ == "StoreRefused":
        return f"memory-cli's store cannot be used ({text}): {DOCTOR}"
    return f"memory-cli's gate failed ({text}), so this call could not be checked: {DOCTOR}"


def refusal(reason: str) -> str:
    """The text of a refusal: why, and that it was memory-cli's fault, not the call's."""
    return f"memory-cli refused this tool call: {reason}"


def _json_string(text: str) -> str:
    out = []
    for c in text:
        if c == "\\" or c == '"':
            out.append("\\" + c)
        elif c < " ":
            out.append(" ")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def answer(agent: str, reason: str) -> str:
    """The deny answer in the calling agent's words, built without an import: Claude Code and
    Codex read ``permissionDecision``, Gemini CLI ``decision``; the person sees ``systemMessage``."""
    text = _json_string(refusal(reason))
    if agent == "gemini":
        return f'{{"decision":"deny","reason":{text},"systemMessage":{text}}}'
    return (
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
        f'"permissionDecisionReason":{text}}},"systemMessage":{text}}}'
    )
