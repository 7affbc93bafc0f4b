"""Another process holding the store's write lock: a bulk change that lasts as long as the caller
wants (the dashboard's, an import's), for the spool tests, the busy-store end-to-end test and
``scripts/bench_hooks.py``. A real second process opens the store, begins a write transaction
(``BEGIN IMMEDIATE``) that touches the entries and the audit log, says "locked", and rolls it back
only when it reads a line."""

from __future__ import annotations

import subprocess
import sys

_WRITER = """
import sys
from memory_cli.store.db import Store
s = Store.open(sys.argv[1])
s.conn.execute("BEGIN IMMEDIATE")
s.conn.execute("UPDATE memory_entries SET tags = tags")
s.conn.execute("INSERT INTO memory_audit_log(id, timestamp, action) VALUES ('bulk', '2000', 'bulk')")
print("locked", flush=True)
sys.stdin.readline()
s.conn.execute("ROLLBACK")
print("released", flush=True)
"""


class HeldWriteLock:
    """The lock held from construction until :meth:`release` (``python`` runs the writer; it must
    import this checkout's memory_cli, from ``cwd`` if need be)."""

    def __init__(self, db_path, python: str = sys.executable, cwd=None):
        self.proc = subprocess.Popen(
            [python, "-c", _WRITER, str(db_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=str(cwd) if cwd is not None else None,
        )
        if self.proc.stdout.readline().strip() != "locked":
            self.proc.kill()
            self.proc.wait(timeout=60)
            raise RuntimeError(f"could not hold the write lock of {db_path}")

    def still_held(self) -> bool:
        return self.proc.poll() is None

    def release(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.write("go\n")
            self.proc.stdin.flush()
            assert self.proc.stdout.readline().strip() == "released"
        self.proc.wait(timeout=60)
