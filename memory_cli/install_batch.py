"""One ``uninstall``: one diff and one backup per file it changed, and no file left behind that
``install`` created and that holds nothing else.

Several parts of memory-cli write into the same settings file (the hooks, the native rule
copies, the Stop checks, the sandbox entries), each with its own writer. While a :class:`Batch`
is open, :func:`memory_cli.install.apply_text` notes each file's bytes before its first write
in the command and leaves the backup to the batch; :meth:`Batch.finish` then compares every
noted file with what it holds now, writes one backup of the bytes from before the command, and
returns one diff per file. The person reads one change per file, not the steps it took.

Which files ``install`` created is kept in ``installed-files.json`` in the memory folder: a file
that did not exist before ``install`` and holds nothing but empty objects once memory-cli's
entries are gone is removed by ``uninstall`` (with the folders install made for it, while
empty); a file the person had stays, minus memory-cli's entries.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

_active: Batch | None = None

RECORD_NAME = "installed-files.json"


def active() -> Batch | None:
    """The batch of the running command, or None (every write then backs itself up)."""
    return _active


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


class Batch:
    """The files one command changes, as they were before its first write."""

    def __init__(self) -> None:
        self.originals: dict[Path, bytes | None] = {}
        self.modes: dict[Path, int] = {}

    def __enter__(self) -> Batch:
        global _active
        _active = self
        return self

    def __exit__(self, *exc) -> None:
        global _active
        _active = None

    def note(self, path) -> None:
        """Keep ``path``'s bytes as they are now, unless already kept in this command."""
        p = Path(os.path.abspath(path))
        if p in self.originals:
            return
        self.originals[p] = _read(p)
        try:
            self.modes[p] = os.stat(p).st_mode & 0o777
        except OSError:
            pass

    def holds(self, path) -> bool:
        return Path(os.path.abspath(path)) in self.originals

    def finish(self) -> list[dict]:
        """One report per file that changed: ``{"path", "diff", "backup", "removed"}``."""
        created = load_created()
        out = []
        dirs: list[str] = []
        for p, before in self.originals.items():
            now = _read(p)
            if now is not None and str(p) in created and holds_nothing(now):
                p.unlink()
                dirs += created[str(p)]
                now = None
            if str(p) in created:  # from now on the person's file, or gone
                forget_created(str(p))
            if now == before:
                continue
            backup = self._backup(p, before) if before is not None and now is not None else None
            out.append({"path": str(p), "diff": text_diff(p, before, now), "backup": backup, "removed": now is None})
        _remove_dirs(dirs)  # once every file in them is gone (hooks.json and config.toml share ~/.codex)
        return out

    def _backup(self, p: Path, data: bytes) -> str:
        from .files import safe_write

        n = 0
        while True:
            backup = backup_name(p, n)
            try:
                safe_write.write_file(backup, data, roots=[str(p.parent)], exclusive=True)
                break
            except FileExistsError:
                n += 1
        if p in self.modes:
            os.chmod(backup, self.modes[p])
        return str(backup)


def backup_name(path: Path, n: int = 0) -> Path:
    """``settings.json.bak-<time>``, ``-<n>`` added when that name is taken."""
    from datetime import datetime

    stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
    return path.with_name(f"{path.name}.bak-{stamp}" + (f"-{n}" if n else ""))


def text_diff(path, before: bytes | None, after: bytes | None) -> str:
    """A unified diff a terminal shows as it is: every line ends with a newline, a last line
    without one is marked as ``diff`` marks it."""
    a = (before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (after or b"").decode("utf-8", "replace").splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(a, b, fromfile=f"{path} (before)", tofile=f"{path} (after)"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def holds_nothing(data: bytes) -> bool:
    """Whether a file's content is empty: blank, or JSON of nothing but empty objects and lists."""
    text = data.decode("utf-8", "replace").strip()
    if not text:
        return True
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return _empty(value)


def _empty(value) -> bool:
    if isinstance(value, dict):
        return all(_empty(v) for v in value.values())
    if isinstance(value, list):
        return all(_empty(v) for v in value)
    return False


def _remove_dirs(dirs) -> None:
    for d in sorted(set(dirs or []), key=len, reverse=True):  # deepest first; a folder in use stays
        try:
            os.rmdir(d)
        except OSError:
            continue


# -- the files install created ----------------------------------------------------------------


def record_file() -> str:
    from . import paths

    return os.path.join(paths.memory_dir_str(), RECORD_NAME)


def load_created() -> dict[str, list[str]]:
    """File -> the folders ``install`` created for it, for every file it created."""
    try:
        with open(record_file(), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return {k: list(v) for k, v in data.items() if isinstance(v, list)} if isinstance(data, dict) else {}


def _save(data: dict[str, list[str]]) -> None:
    from . import paths
    from .files.private_file import replace as write_private

    if not data:
        try:
            os.remove(record_file())
        except OSError:
            pass
        return
    paths.ensure_private_dir(paths.memory_dir_str())
    write_private(record_file(), (json.dumps(data, indent=2) + "\n").encode())


def missing_dirs(path) -> list[str]:
    """The folders above ``path`` that do not exist yet (what writing it creates)."""
    out = []
    d = Path(os.path.abspath(path)).parent
    while not d.exists():
        out.append(str(d))
        d = d.parent
    return out


def remember_created(path, dirs: list[str]) -> None:
    data = load_created()
    data[str(Path(os.path.abspath(path)))] = dirs
    _save(data)


def forget_created(path: str) -> None:
    data = load_created()
    if data.pop(path, None) is not None:
        _save(data)
