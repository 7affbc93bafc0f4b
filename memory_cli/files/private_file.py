"""Replacing a cache file memory-cli keeps beside the store, readable by its owner only.

The compiled rule set (``<store>.rules-cache``) and the compiled-regex cache are rewritten by
hooks, so this stays on the hook path's budget (``os`` only; :mod:`memory_cli.files.safe_write` is
the heavier writer for files in folders others may control). The new content goes to a fresh
file under a random name, created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` and mode 0600 (a name
planted in advance, symlink or not, is never opened; a name no one can guess cannot be
planted), then is renamed over the target: a reader sees the old file or the new one, and the
result is private whatever the umask, since the cache tells which rules exist.
"""

from __future__ import annotations

import os

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def replace(path: str, data: bytes) -> None:
    """Write ``data`` as ``path`` (mode 0600) through a random temporary name; raises OSError
    (the temporary file is removed)."""
    tmp = f"{path}.{os.getpid()}-{os.urandom(8).hex()}.tmp"
    fd = os.open(tmp, _FLAGS | getattr(os, "O_BINARY", 0), 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, 0o600)  # O_CREAT's mode is masked by the umask; 0600 is kept anyway
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
