"""memory-cli's own code, sealed by ``install``: a change made by anything else is said.

Without ``install --harden`` the agent's shell can write the package the hooks run: one line
appended to a module, or a ``__pycache__`` file Python loads instead of the source, and the gate
decides what the agent wants. Nothing in the person's account can stop that (the sandbox can);
what memory-cli can do is notice it at the next SessionStart and in ``doctor``.

``install`` compiles the package for the interpreter the hooks run (so no bytecode appears later
by itself) and records every ``.py`` and every ``.pyc`` of that interpreter with its size, its
times and its SHA-256 in ``code-seal.json`` in memory-cli's folder. :func:`changes` compares
the package with that record: a file whose size or times moved is hashed, and only a different
content counts (a ``touch`` is not a change); a file added or removed counts. The times include
the change time (``ctime``), which no process can set back, so a write that restores the
modification time is still looked at.

A development checkout (an editable install: the package beside a ``.git``) is not sealed: its
code changes all day, by the person. That is decided when ``install`` seals, not when the hook looks, so a
``.git`` folder made later above an installed package changes nothing.

The walk (some 600 files) runs off the hook's clock, in the detached job every SessionEnd and
the daily maintenance start (:func:`note`), and in ``doctor``; SessionStart reads what the job
noted (:func:`noted`), so a change made in one session is said when the next one starts.
Standard library only.
"""

from __future__ import annotations

import json
import os
import sys

SEAL_NAME = "code-seal.json"
NOTE_KEY = "seals.code-changed"  # kv: what the last check found, for the next SessionStart
CHECKOUT = "checkout"
SEALED = "sealed"


def package_dir() -> str:
    """The folder of the ``memory_cli`` package that is running (the one the hooks run)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def seal_path() -> str:
    from ..paths import memory_dir_str

    return os.path.join(memory_dir_str(), SEAL_NAME)


def in_checkout(pkg: str) -> bool:
    """Whether the package runs from a source checkout (an editable install: ``repo/memory_cli``
    or ``repo/src/memory_cli`` beside ``.git``), not from an installed copy. A copy installed in
    a virtualenv that lives inside some git project is still an installed copy."""
    parts = set(os.path.normpath(pkg).split(os.sep))
    if {"site-packages", "dist-packages"} & parts:
        return False
    here = os.path.dirname(pkg)
    return any(os.path.exists(os.path.join(folder, ".git")) for folder in (here, os.path.dirname(here)))


def _ours(name: str, tag: str) -> bool:
    """A file the interpreter may load as memory-cli's code: sources, and bytecode of this
    interpreter (not of an optimisation level the hooks never run at)."""
    if name.endswith(".py"):
        return True
    return name.endswith(".pyc") and f".{tag}." in name and ".opt-" not in name


def _files(pkg: str) -> dict[str, os.stat_result]:
    tag = sys.implementation.cache_tag or ""
    out: dict[str, os.stat_result] = {}
    for folder, dirs, names in os.walk(pkg):
        dirs.sort()
        for name in names:
            if _ours(name, tag):
                path = os.path.join(folder, name)
                try:
                    out[os.path.relpath(path, pkg)] = os.lstat(path)
                except OSError:
                    continue
    return out


def _digest(path: str) -> str | None:
    import hashlib  # only where a file's size or times moved: most sessions hash nothing

    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _stamp(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def seal(pkg: str | None = None, path: str | None = None) -> dict:
    """Compile and record the package as it is now (``install`` calls this: the person's act).
    Returns what was written: ``{"mode", "package", "files"}``."""
    from ..files import private_file

    pkg = pkg or package_dir()
    if in_checkout(pkg):
        record: dict = {"mode": CHECKOUT, "package": pkg, "files": {}}
    else:
        _compile(pkg)
        files = {}
        for rel, st in _files(pkg).items():
            digest = _digest(os.path.join(pkg, rel))
            if digest is not None:
                files[rel] = [*_stamp(st), digest]
        record = {"mode": SEALED, "package": pkg, "python": sys.implementation.cache_tag, "files": files}
    target = path or seal_path()
    os.makedirs(os.path.dirname(target) or ".", mode=0o700, exist_ok=True)
    private_file.replace(target, (json.dumps(record, sort_keys=True) + "\n").encode())
    return record


def _compile(pkg: str) -> None:
    """Bytecode for every module now, where the package can be written: otherwise the first
    import of a module after sealing would add a file the seal does not know."""
    try:
        import compileall

        compileall.compile_dir(pkg, quiet=2, workers=1)
    except Exception:
        pass


def _load(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else None


def changes(pkg: str | None = None, path: str | None = None) -> list[str] | None:
    """The files of memory-cli's code changed, added or removed since ``install`` sealed it, as
    ``"name (changed)"``; [] when none; None when nothing is sealed (a development checkout, or
    never installed since sealing began)."""
    record = _load(path or seal_path())
    if record is None or record.get("mode") != SEALED:
        return None
    pkg = pkg or package_dir()
    if os.path.realpath(str(record.get("package"))) != os.path.realpath(pkg):
        return [f"the hooks now run memory-cli from {pkg}, sealed at {record.get('package')}"]
    if record.get("python") != sys.implementation.cache_tag:
        return None  # sealed for another interpreter: its bytecode names differ; install reseals
    sealed: dict = record["files"]
    out = []
    now = _files(pkg)
    for rel, st in now.items():
        known = sealed.get(rel)
        if known is None:
            out.append(f"{rel} (added)")
        elif list(known[:3]) != _stamp(st) and _digest(os.path.join(pkg, rel)) != known[3]:
            out.append(f"{rel} (changed)")
    out.extend(f"{rel} (removed)" for rel in sealed if rel not in now)
    return sorted(out)


def _seal_stamp(path: str | None = None) -> int | None:
    try:
        return os.stat(path or seal_path()).st_mtime_ns
    except OSError:
        return None


def note(store) -> list[str] | None:
    """The detached job's check: what changed is kept in ``kv`` for the next SessionStart
    (with the seal it was judged against), and the note is removed once nothing has."""
    from ..store import kvstate

    found = changes()
    with store.transaction():
        if found:
            kvstate.put(store, NOTE_KEY, {"files": found, "seal": _seal_stamp()})
        elif kvstate.exists(store, NOTE_KEY):
            kvstate.delete(store, NOTE_KEY)
    return found


def noted(store) -> list[str] | None:
    """What the last check found, unless ``install`` has sealed the code again since."""
    from ..store import kvstate

    value = kvstate.get(store, NOTE_KEY)
    if not isinstance(value, dict) or value.get("seal") != _seal_stamp():
        return None
    files = value.get("files")
    return [str(f) for f in files] if isinstance(files, list) else None


def notice(pkg: str | None = None, path: str | None = None, found: list[str] | None = None) -> str | None:
    """The line said when the code changed, else None: ``found`` as noted, or checked now."""
    if found is None:
        try:
            found = changes(pkg, path)
        except Exception:
            return None
    if not found:
        return None
    shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    return (
        f"memory-cli: its own code was changed by a process that was not memory-cli ({shown}), so what "
        "its hooks decide can no longer be trusted. If you upgraded memory-cli, run `memory-cli install` "
        "to seal the new code; otherwise reinstall it (`pip install --force-reinstall memory-cli`), then "
        "`memory-cli install`."
    )
