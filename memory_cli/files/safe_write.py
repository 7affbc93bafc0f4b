"""Writing a file memory-cli owns or edits, without ever writing somewhere else.

Many of the files memory-cli writes sit in directories someone else may control: a cloned
repository's ``.claude/`` (settings, the shared ``memory-cli.toml``, CLAUDE.md) can commit a
symlink under any name, so a fixed temporary name such as ``<target>.tmp`` opened with a plain
``open`` writes through a planted ``<target>.tmp -> ~/.ssh/authorized_keys``. Every write here
therefore:

* creates a new temporary file under a random name in the target's real directory with
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` (an existing name, symlink or not, is never opened), mode
  0600 while it is written;
* resolves the target's real path first and refuses (:class:`UnsafeTarget`, exit 4) when a
  symlink in it leads outside the directories the caller names (``roots``), or when the target
  is not a regular file (a FIFO would hang, a device would be replaced);
* writes through a symlinked target that stays inside ``roots`` (the link stays a link, so a
  dotfiles-managed settings.json keeps working), fsyncs the data, gives the file the target's
  mode (and owner, when allowed) or ``new_mode`` for a new file, and moves it into place with
  ``os.replace`` (or, with ``exclusive``, a hard link that never clobbers an existing file);
  then fsyncs the directory.

Standard library only; not imported by the hook path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..errors import MemoryCliError


class UnsafeTarget(MemoryCliError):
    """A file memory-cli must not write: it leads outside where it belongs, or is no file."""

    exit_code = 4


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def umask_mode() -> int:
    """The mode an ordinary new file gets (0666 less the umask): for files the person shares."""
    return 0o666 & ~current_umask()


def within(child: str, root: str) -> bool:
    """Whether the real path ``child`` is ``root`` or lies under it."""
    return child == root or child.startswith(root.rstrip(os.sep) + os.sep)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def real_target(path, roots: Iterable[str] | None = None) -> Path:
    """The file a write of ``path`` really changes, refused when that is unsafe.

    ``roots``: the directories the real path must lie in when it differs from the path as
    written (a symlink somewhere in it); by default the real directory ``path`` names.
    """
    path = Path(path)
    absolute = os.path.abspath(path)
    real = os.path.realpath(absolute)
    if real != absolute:
        allowed = [os.path.realpath(r) for r in roots] if roots is not None else []
        if roots is None:
            allowed = [os.path.realpath(os.path.dirname(absolute))]
        if not any(within(real, r) for r in allowed):
            raise UnsafeTarget(
                f"{path} leads to {real}, outside {' and '.join(allowed) or 'where it belongs'}; "
                "not writing through it (replace the link with a file)"
            )
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return Path(real)
    except OSError as e:
        raise UnsafeTarget(f"cannot inspect {path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeTarget(f"{path} is {_kind(st.st_mode)}, not a regular file; not writing it")
    return Path(real)


def fsync_dir(directory) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - Windows cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def write_temp(directory, name: str, data: bytes, mode: int) -> Path:
    """A new file with ``data`` under a random name beside ``name`` in ``directory``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    tmp = Path(directory) / f".{name}.memory-cli-{os.getpid()}-{os.urandom(6).hex()}.tmp"
    fd = os.open(tmp, flags, 0o600)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
        try:
            os.fchmod(fd, mode)
        except (OSError, AttributeError):  # pragma: no cover
            pass
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    return tmp


def write_file(
    path,
    data: bytes | str,
    *,
    roots: Iterable[str] | None = None,
    new_mode: int = 0o600,
    exclusive: bool = False,
) -> Path:
    """Replace (or create) ``path`` with ``data`` atomically; returns the file written.

    ``exclusive``: the file must not exist yet (a backup, a new file): FileExistsError if it does.
    An existing file keeps its mode (and owner, when permitted).
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    real = real_target(path, roots)
    directory = real.parent
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    if exclusive and (st is not None or os.path.lexists(path)):
        raise FileExistsError(f"{path} exists")
    mode = stat.S_IMODE(st.st_mode) if st is not None else new_mode
    tmp = write_temp(directory, real.name, data, mode)
    try:
        if st is not None and hasattr(os, "chown") and st.st_uid != os.geteuid():
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:
                pass
        if exclusive:
            os.link(tmp, real)  # never clobbers a file created meanwhile
        else:
            os.replace(tmp, real)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(directory)
    return real


def ensure_dir(directory, roots: Iterable[str] | None = None) -> None:
    """Create ``directory`` (and parents) unless it exists; refuse one that leads out of ``roots``."""
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    if roots is not None:
        real = os.path.realpath(directory)
        allowed = [os.path.realpath(r) for r in roots]
        if real != directory and not any(within(real, r) for r in allowed):
            raise UnsafeTarget(f"{directory} leads to {real}, outside {' and '.join(allowed)}; not writing there")
