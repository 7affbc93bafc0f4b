"""Waiting in tests for an event (a file, a lock, a process gone), never for a fixed time, with a
bound that grows with the machine's load: a 2-core machine at a load of 20 runs each process
several times slower, and a bound sized on a quiet machine then fails a correct program.

``MEMORY_CLI_TEST_SLOWDOWN`` multiplies every bound further (a slow CI runner)."""

from __future__ import annotations

import os
import time


def slowdown() -> float:
    """How many times slower than a quiet machine this one runs now (at least 1)."""
    try:
        load = os.getloadavg()[0] / max(1, os.cpu_count() or 1)
    except OSError:
        load = 1.0
    try:
        extra = float(os.environ.get("MEMORY_CLI_TEST_SLOWDOWN") or 1)
    except ValueError:
        extra = 1.0
    return max(1.0, load) * max(1.0, extra)


def bound(seconds: float) -> float:
    """``seconds`` on a quiet machine, scaled to this one's load."""
    return seconds * slowdown()


def wait_until(done, seconds: float, what) -> None:
    """Poll ``done()`` until true; past the scaled bound, fail with ``what()`` (what was seen)."""
    limit = bound(seconds)
    deadline = time.monotonic() + limit
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"not done after {limit:.0f} s: {what()}")
        time.sleep(0.05)


def wait_for_maintenance(db, run_dir=None, seconds: float = 60) -> None:
    """Until no detached maintenance run of the store ``db`` holds its lock (a hook started it;
    while it writes, the next hook may find the store busy and fail open). ``run_dir``: where
    its lock is, by default the run directory of this process's home."""
    from pathlib import Path

    from memory_cli import paths
    from memory_cli.maintenance import detached
    from memory_cli.store.locks import open_lock_file, try_lock_fd

    key = detached.db_key(db)
    path = detached.lock_path(Path(run_dir) if run_dir else paths.run_dir(), key)

    def free() -> bool:
        fd = open_lock_file(path)
        try:
            return try_lock_fd(fd)
        finally:
            os.close(fd)

    log = detached.log_path(path.parent, key)
    wait_until(
        free,
        seconds,
        lambda: "the maintenance run holds its lock; log: " + (log.read_text()[-1500:] if log.exists() else "(none)"),
    )
