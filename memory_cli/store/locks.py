"""Advisory file locks that die with their holder.

Maintenance must never pile up and CLAUDE.md must never be written by two memory-cli processes
at once, but a crashed process must not leave a lock behind that needs manual cleaning. OS
advisory locks (``flock`` on POSIX, ``msvcrt.locking`` on Windows) are released by the kernel
when the holder exits, so a stale lock file is harmless: only the lock on it matters.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

try:  # POSIX
    import fcntl as _fcntl

    _msvcrt = None
except ImportError:  # pragma: no cover - Windows
    _fcntl = None  # type: ignore[assignment]
    import msvcrt as _msvcrt  # type: ignore[assignment]


class LockBusy(Exception):
    """Another process holds the lock."""


def try_lock_fd(fd: int) -> bool:
    """Take an exclusive lock on an open descriptor without waiting; False if it is held."""
    if _fcntl is not None:
        try:
            _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        except OSError as err:  # some filesystems answer EACCES/EAGAIN instead
            if err.errno in (11, 13, 35):
                return False
            raise
    try:  # pragma: no cover - Windows
        os.lseek(fd, 0, 0)
        _msvcrt.locking(fd, _msvcrt.LK_NBLCK, 1)
        return True
    except OSError:  # pragma: no cover
        return False


def open_lock_file(path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, 0o600)


class FileLock:
    """An exclusive lock on ``path``, taken with a deadline (``timeout=0``: try once)."""

    def __init__(self, path: Path, timeout: float = 5.0, poll: float = 0.02) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self.poll = poll
        self.fd: int | None = None

    def acquire(self) -> FileLock:
        fd = open_lock_file(self.path)
        deadline = time.monotonic() + self.timeout
        while True:
            if try_lock_fd(fd):
                self.fd = fd
                return self
            if time.monotonic() >= deadline:
                os.close(fd)
                raise LockBusy(str(self.path))
            time.sleep(self.poll)

    def release(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)  # closing the descriptor drops the lock

    def __enter__(self) -> FileLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
