"""Where memory-cli keeps its files.

Every location derives from Claude Code's own configuration directory so that a user who
moves Claude Code (``CLAUDE_CONFIG_DIR``) moves memory-cli with it, and so that tests and the
demo can point everything at a throwaway directory with one variable.

Hooks import this on every tool call, and ``pathlib`` alone costs ~4 ms to import (it pulls
in ``urllib.parse``), so the ``*_file``/``*_str`` functions work on plain strings for the hook
path, and the ``Path``-returning functions import ``pathlib`` only when called.
"""

from __future__ import annotations

import os


def _path(p: str):
    from pathlib import Path

    return Path(p)


def claude_dir_str() -> str:
    """Claude Code's configuration directory: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return os.path.expanduser(configured)
    return os.path.join(os.path.expanduser("~"), ".claude")


def memory_dir_str() -> str:
    return os.path.join(claude_dir_str(), "memory")


def config_file() -> str:
    """The config file: ``$MEMORY_CLI_CONFIG`` or ``<memory dir>/config.json``."""
    configured = os.environ.get("MEMORY_CLI_CONFIG")
    if configured:
        return os.path.expanduser(configured)
    return os.path.join(memory_dir_str(), "config.json")


def default_db_file() -> str:
    return os.path.join(memory_dir_str(), "memory.db")


def error_log_file() -> str:
    """Last-resort log for hook errors that could not reach the audit log (no database)."""
    return os.path.join(memory_dir_str(), "hook-errors.log")


def run_dir_str() -> str:
    """See :func:`run_dir` (a string: the daemon client runs inside hooks)."""
    return os.path.join(memory_dir_str(), "run")


def expand_str(path: str) -> str:
    return os.path.expanduser(os.path.expandvars(path))


# -- Path-returning API (CLI, daemon, maintenance) ---------------------------------------------
def claude_dir():
    return _path(claude_dir_str())


def config_path():
    return _path(config_file())


def run_dir():
    """Private directory (mode 0700) for the daemon's socket, lock and pid files."""
    return _path(run_dir_str())


def backups_dir():
    return _path(os.path.join(memory_dir_str(), "backups"))


def hook_error_log():
    return _path(error_log_file())


def expand(path: str):
    return _path(expand_str(path))


# -- private modes --------------------------------------------------------------------------
# What memory-cli writes holds what the person told it: files 0600 and directories 0700 from
# creation, whatever the umask.
def ensure_private_dir(path: str) -> str:
    """Create ``path`` (and missing parents) as 0700; tighten it if memory-cli's own and open."""
    missing = []
    d = os.path.abspath(path)
    while not os.path.isdir(d):
        missing.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            continue
        os.chmod(d, 0o700)
    if not missing:
        _tighten(path, 0o700)
    return path


def _tighten(path: str, mode: int) -> None:
    try:
        st = os.stat(path)
        if st.st_mode & 0o077 and st.st_uid == os.geteuid() and os.path.abspath(path) in _own_dirs(path):
            os.chmod(path, mode)
    except (OSError, AttributeError):
        pass


def _own_dirs(path: str) -> set:
    """Directories memory-cli owns outright (others, such as a project folder, are left alone)."""
    return {
        os.path.abspath(memory_dir_str()),
        os.path.abspath(os.path.join(memory_dir_str(), "run")),
        os.path.abspath(os.path.join(memory_dir_str(), "backups")),
        os.path.abspath(os.path.join(memory_dir_str(), "cache")),
    }


def open_private(path: str, mode: str = "a"):
    """Open a text file for writing/appending, created 0600 whatever the umask."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode.startswith("a") else os.O_TRUNC)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o077 and st.st_uid == os.geteuid():
            os.fchmod(fd, 0o600)
    except (OSError, AttributeError):
        pass
    if "b" in mode:
        return os.fdopen(fd, mode)
    return os.fdopen(fd, mode, encoding="utf-8")
