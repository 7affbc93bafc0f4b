"""A rule file memory-cli owns outright (Codex's ``rules/memory-cli.rules``, Gemini CLI's
``policies/memory-cli.toml``): written whole, marked, removed whole.

The first line records a hash of the rest, so a hand edit is seen (``doctor`` reports it as
drift) instead of being overwritten unnoticed. A file of that name memory-cli did not write is
never touched; a symlink in its place is refused (the agent would read wherever it points).
Removing the last rule deletes the file, and the folders memory-cli created for it when they
are empty, so install-then-uninstall leaves the agent's folder byte for byte as it was.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInput
from ..files import safe_write

HASH_LEN = 16
_HEADER = re.compile(r"^# memory-cli native rules .*\bsha256=([0-9a-f]+)")


def body_hash(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:HASH_LEN]


def render(body: str, agent: str) -> str:
    head = (
        f"# memory-cli native rules (managed by memory-cli; change them with `memory-cli rules`) "
        f"sha256={body_hash(body)}\n"
        f"# Restore: memory-cli rules export --to {agent} --write\n"
    )
    return head + body


@dataclass(frozen=True)
class FileState:
    path: Path
    exists: bool
    ours: bool = False
    edited: bool = False
    body: str | None = None
    problem: str | None = None


def read(path: Path) -> FileState:
    path = Path(path)
    if path.is_symlink():
        return FileState(path, True, problem=f"{path} is a symlink; memory-cli writes its rule file only as a file")
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return FileState(path, False)
    except (OSError, UnicodeDecodeError) as err:
        return FileState(path, True, problem=f"cannot read {path}: {err}")
    first, _, rest = text.partition("\n")
    m = _HEADER.match(first)
    if not m:
        return FileState(path, True, problem=f"{path} exists and was not written by memory-cli; not touching it")
    body = rest.partition("\n")[2] if rest.startswith("# Restore:") else rest
    return FileState(path, True, True, m.group(1) != body_hash(body), body)


def diff(path: Path, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"{path} (before)",
            tofile=f"{path} (after)",
        )
    )


def _missing_dirs(path: Path) -> list[str]:
    out = []
    d = path.parent
    while not d.exists():
        out.append(str(d))
        d = d.parent
    return out


def write(path: Path, body: str, agent: str, *, dry_run: bool = False) -> dict:
    """Make ``path`` hold ``body`` (None or "": no file). Returns what changed, with a diff and
    the folders created (to remove again)."""
    path = Path(path)
    state = read(path)
    if state.problem:
        raise InvalidInput(state.problem)
    before = path.read_bytes().decode("utf-8") if state.exists else ""
    after = render(body, agent) if body else ""
    out = {"path": str(path), "changed": before != after, "diff": diff(path, before, after), "created_dirs": []}
    out["action"] = "nothing" if not out["changed"] else ("remove" if not after else "write")
    if dry_run or not out["changed"]:
        return out
    if not after:
        path.unlink()
        safe_write.fsync_dir(path.parent)
        return out
    out["created_dirs"] = _missing_dirs(path)
    safe_write.ensure_dir(path.parent, roots=[str(path.parent)])
    safe_write.write_file(path, after.encode("utf-8"), roots=[str(path.parent)], new_mode=0o644)
    return out


def remove_dirs(dirs) -> None:
    """Remove the folders memory-cli created, deepest first, while they are empty."""
    for d in sorted(dirs or [], key=len, reverse=True):
        try:
            os.rmdir(d)
        except OSError:
            break
