"""The automatic team sync: started by SessionStart and SessionEnd, run in a detached process.

A hook never waits for the network. When the store has joined a team store, SessionStart (at
most every ``team.sync_interval_s``) and SessionEnd (always) start ``python -m
memory_cli.team.background`` in its own session, with output in ``run/team-sync.log``, and
return at once. A lock per database (held by the child, released by the kernel however it ends)
keeps syncs from piling up. The child does what ``memory-cli team sync`` does; a failure is
recorded in the store, where ``team status`` and ``doctor`` show it.

Standard library only at import time (the hooks import this module).
"""

from __future__ import annotations

import os
import sys
import time

from memory_cli.maintenance import detached
from memory_cli.store.locks import open_lock_file, try_lock_fd

LOG_NAME = "team-sync.log"
CHILD_MODULE = "memory_cli.team.background"
TIME_LIMIT_S = 120
STARTED, RECENT, BUSY, NOT_JOINED = "started", "recent", "busy", "not-joined"


def _paths(db_path, run_dir=None):
    rd = detached._run_dir(run_dir)
    key = detached.db_key(db_path)
    return rd, rd / f"team-sync-{key}.lock", rd / f"team-sync-{key}.stamp"


def maybe_start(store, settings, *, at_end: bool, run_dir=None, python: str | None = None) -> str:
    """Start a sync unless none is due; returns STARTED, RECENT, BUSY or NOT_JOINED at once."""
    from ..settings import value as setting

    if not setting(settings, "team.auto_sync"):
        return NOT_JOINED
    from memory_cli.store import kvstate

    if not kvstate.exists(store, "team.conninfo"):
        return NOT_JOINED
    rd, lock, stamp = _paths(store.path, run_dir)
    interval = float(setting(settings, "team.sync_interval_s"))
    if not at_end:
        try:
            if time.time() - os.stat(stamp).st_mtime < interval:
                return RECENT
        except FileNotFoundError:
            pass
    detached._ensure_run_dir(rd)
    fd = open_lock_file(lock)
    try:
        if not try_lock_fd(fd):
            return BUSY
        import subprocess

        from memory_cli.interpreter_paths import child_env

        log_path = rd / LOG_NAME
        try:
            if log_path.stat().st_size > detached.LOG_MAX_BYTES:
                os.replace(log_path, log_path.with_name(LOG_NAME + ".1"))
        except FileNotFoundError:
            pass
        log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            subprocess.Popen(
                [
                    python or sys.executable,
                    "-m",
                    CHILD_MODULE,
                    "--db",
                    os.path.abspath(os.fspath(store.path)),
                    "--lock-fd",
                    str(fd),
                    "--stamp",
                    str(stamp),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log_fd,
                stderr=log_fd,
                pass_fds=(fd,),
                close_fds=True,
                start_new_session=True,
                env=child_env(),
                cwd=os.getcwd(),
            )
        finally:
            os.close(log_fd)
        return STARTED
    finally:
        os.close(fd)  # the child's inherited copy keeps the lock


def main(argv=None) -> int:
    import argparse
    import signal
    from datetime import datetime, timezone

    parser = argparse.ArgumentParser(prog="python -m " + CHILD_MODULE)
    parser.add_argument("--db", required=True)
    parser.add_argument("--lock-fd", type=int, default=None)
    parser.add_argument("--stamp", default=None)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGALRM, lambda *_: os._exit(124))
    signal.alarm(TIME_LIMIT_S)

    def log(msg):
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        print(f"{stamp} pid={os.getpid()} {msg}", flush=True)

    fd = args.lock_fd if args.lock_fd is not None else open_lock_file(_paths(args.db)[1])
    if not try_lock_fd(fd):
        log("another team sync holds the lock; exiting")
        return 75
    from memory_cli.errors import MemoryCliError
    from memory_cli.store.db import Store
    from memory_cli.team import api

    if args.stamp:  # stamped at the start: a failing server is retried after the interval, not every session
        with open(args.stamp, "a"):
            os.utime(args.stamp)
    try:
        with Store.open(args.db) as store:
            result = api.sync_now(store)
    except MemoryCliError as err:
        log(f"team sync failed: {err}")
        return 1
    log(f"team sync done: {result}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
