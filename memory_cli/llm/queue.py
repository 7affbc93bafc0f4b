"""SessionEnd's part: note the transcript for the detached job (standard library only).

The hook has no time for a model, so it only records ``llm.pending:<transcript>`` in the
store's ``kv`` table (one small write) and lets the detached maintenance job summarise it. A
queue in the store rather than a command-line argument means a transcript is not forgotten
when the job cannot start now (another run holds the lock): the next run picks it up.
"""

from __future__ import annotations

PENDING_KEY = "llm.pending:"


def enqueue_from_hook(ctx) -> bool:
    """Queue this session's transcript; True when there is something for the job to do."""
    from ..settings import value as setting

    if not setting(ctx.settings, "llm.session_end"):
        return False
    path = (ctx.payload or {}).get("transcript_path")
    if not isinstance(path, str) or not path:
        return False
    import os

    if not os.path.isfile(path):
        return False
    from memory_cli import scope as scopes
    from memory_cli.store import kvstate
    from memory_cli.store.db import LockBusy

    key = PENDING_KEY + os.path.realpath(path)
    value = {
        "session_id": ctx.session_id,
        "project": f"project:{ctx.project}" if ctx.project else None,
        "checkout": scopes.checkout(ctx.project_root),  # where its memories and report are kept
        "cwd": ctx.cwd,
    }
    try:
        kvstate.put(ctx.store, key, value)
    except LockBusy:  # another process is writing: queued through the spool, which the job drains first
        from memory_cli.store import spool

        spool.put(ctx.store.path, [spool.make("kv", {"key": key, "value": value})])
    return True
