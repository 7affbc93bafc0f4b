"""One recorded tool call and one recorded session, and bounded reading of the agents' files.

The agents' directories are read as found: a link is never followed (a session file or a
directory that is a symlink is skipped), a file that is not regular is skipped, and each file is
read up to ``MAX_FILE_BYTES`` (a longer session is read from its start to the limit).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

MAX_FILE_BYTES = 64 * 1024 * 1024
# Directories deeper than this under an agent's root are not walked (Codex nests YYYY/MM/DD).
MAX_DEPTH = 6
PROMPT_CHARS = 500


@dataclass
class RecordedCall:
    """A tool call as the hook would have seen it: ``tool`` and ``tool_input`` Claude-shaped
    (Codex and Gemini names translated as :mod:`memory_cli.agent_calls` does);
    ``agent_tool`` the agent's own name. ``turn``: how many prompts the person had typed in the
    session before it. ``rejected``: the person declined it in the permission prompt;
    ``interrupted``: the person stopped the turn while or after it ran (the last call before
    Claude Code's "[Request interrupted by user]"); ``denied``: the permission check refused
    it (a ``permission_denied`` audit row of the PermissionDenied hook names its id)."""

    agent: str
    session_id: str
    tool: str
    tool_input: dict
    timestamp: str = ""
    cwd: str | None = None
    agent_tool: str | None = None
    call_id: str | None = None
    turn: int = 0
    rejected: bool = False
    path: str = ""
    interrupted: bool = False
    denied: bool = False


@dataclass
class Session:
    agent: str
    session_id: str
    path: str
    cwd: str | None = None
    started: str = ""
    calls: list[RecordedCall] = field(default_factory=list)
    # what the person typed, in order: (timestamp, the first ``PROMPT_CHARS`` of the text)
    prompts: list[tuple[str, str]] = field(default_factory=list)
    truncated: bool = False


def read_bytes(path: str, limit: int = MAX_FILE_BYTES) -> tuple[bytes, bool] | None:
    """(the first ``limit`` bytes, whether the file was longer) of a regular file that is not a
    link; None for anything else or a file that cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        chunks, left = [], limit
        while left > 0:
            data = os.read(fd, min(left, 1 << 20))
            if not data:
                break
            chunks.append(data)
            left -= len(data)
        return b"".join(chunks), st.st_size > limit
    except OSError:
        return None
    finally:
        os.close(fd)


def files_under(root: str, accept, depth: int = MAX_DEPTH):
    """Paths of regular files under ``root`` whose name ``accept(name)`` takes, walked without
    following links, sorted so a replay reads in a stable order."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        try:
            if e.is_symlink():
                continue
            if e.is_dir(follow_symlinks=False):
                if depth > 0:
                    yield from files_under(e.path, accept, depth - 1)
            elif e.is_file(follow_symlinks=False) and accept(e.name):
                yield e.path
        except OSError:
            continue


def modified_since(path: str, since_epoch: float | None) -> bool:
    if since_epoch is None:
        return True
    try:
        return os.lstat(path).st_mtime >= since_epoch
    except OSError:
        return False


def lines_of(data: bytes):
    """JSON objects of a JSONL text (broken or non-object lines skipped)."""
    from ..capture.transcript_records import decode_line

    for raw in data.split(b"\n"):
        rec = decode_line(raw)
        if rec is not None:
            yield rec
