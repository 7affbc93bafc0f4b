"""Regular expressions compiled once per machine instead of once per hook process.

Every prompt is a fresh hook process, and correction capture holds about 130 patterns, some
over a thousand characters long. Compiling the ones a prompt needs cost 10-40 ms a prompt, more
than everything else the hook does. CPython compiles a pattern in two steps:
1. parse it and generate the engine's code (pure Python: nearly all of the time);
2. hand that code to the C engine, ``_sre.compile``, which checks it and builds the pattern
   object (microseconds).

:func:`compile` keeps the code of step 1 in a cache file and repeats only step 2. The result is
the same pattern object ``re.compile`` returns.

The file is ``<memory dir>/cache/regex-<interpreter>-<engine version>.bin``, 0600 in a 0700
folder, in :mod:`marshal` format: the interpreter's own format for its bytecode caches
(``__pycache__``), read in a fraction of a millisecond where JSON took two. Unlike a bytecode
cache, it is not trusted for sitting in a private folder: in a process with a store (every hook,
every CLI command) it is used only when its bytes have the digest that store recorded when
memory-cli wrote it (:mod:`cache_seal`); a file rewritten by anything else is compiled afresh
and replaced. It holds the patterns' own source text and the
engine's code for them, nothing the person typed. The engine checks any code it is given, so a
damaged entry is refused rather than run; an entry that fails that check, a file of another
shape or version, or any error falls back to ``re.compile``.

Hooks add the patterns they compiled (:func:`save`, only when there are new ones); ``memory-cli
install`` writes every capture pattern at once (``memory_cli.capture.detect.warm_regex_cache``).
Only the program's own patterns go through here: a pattern built from stored or typed text (a
memory's subject, a rule's regex) would be written to the file, so those use ``re`` directly.
"""

from __future__ import annotations

import _sre
import marshal
import os
import re
import sys
from array import array

try:  # the compiler's two steps (re._parser/_compiler since 3.11, sre_* before)
    from re import _compiler, _parser
except ImportError:  # pragma: no cover - Python 3.10
    import sre_compile as _compiler
    import sre_parse as _parser

_TAG = f"{sys.implementation.cache_tag}-{getattr(_sre, 'MAGIC', 0)}-{getattr(_sre, 'CODESIZE', 0)}-{marshal.version}"

_loaded: dict | None = None
_seen: dict = {}  # every pattern this process compiled, from the cache or not: key -> entry
_new: set = set()  # the keys of those the cache file does not hold


def cache_file() -> str:
    from ..paths import memory_dir_str

    return os.path.join(memory_dir_str(), "cache", f"regex-{_TAG}.bin")


SEAL = f"regex-cache:{_TAG}"


def _sealed(raw: bytes) -> bool:
    """Whether the store of this process vouches for these bytes (see :mod:`cache_seal`); a
    process without a store (a library use, a script) has nothing to compare with."""
    from . import cache_seal

    st = cache_seal.store
    if st is None:
        return True
    return cache_seal.expected(st, SEAL) == cache_seal.digest(raw)


def _read(path: str, *, trusted_only: bool = True) -> dict:
    """The patterns the file holds for this interpreter ({} when it is missing, unreadable,
    another interpreter's, or not what the store sealed: a file rewritten outside memory-cli
    is compiled afresh, never run)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        if trusted_only and not _sealed(raw):
            return {}
        data = marshal.loads(raw)
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if isinstance(data, dict) and data.get("tag") == _TAG and isinstance(data.get("patterns"), dict):
        return data["patterns"]
    return {}


def _entries() -> dict:
    global _loaded
    if _loaded is None:
        _loaded = _read(cache_file())
    return _loaded


def _key(source: str, flags: int) -> str:
    return f"{int(flags)}:{source}"


def compile(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)`` for a ``str`` pattern, from the cache when it holds it."""
    key = _key(source, flags)
    entry = _entries().get(key)
    if entry is not None:
        try:
            pattern = _build(source, entry)
        except Exception:  # damaged or foreign entry: compile it the usual way
            pass
        else:
            _seen[key] = entry
            return pattern
    try:
        entry = _generate(source, int(flags))
        pattern = _build(source, entry)
    except Exception:
        return re.compile(source, flags)
    _seen[key] = entry
    _new.add(key)
    return pattern


def _generate(source: str, flags: int) -> list:
    """Step 1 of ``re._compiler.compile``: the engine's code (as bytes) and group tables."""
    parsed = _parser.parse(source, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return (
        flags | parsed.state.flags,
        array("I", code).tobytes(),
        parsed.state.groups - 1,
        groupindex,
        tuple(indexgroup),
    )


def _build(source: str, entry: tuple) -> re.Pattern[str]:
    """Step 2: hand the code to the engine, which validates it."""
    flags, code, groups, groupindex, indexgroup = entry
    return _sre.compile(source, flags, array("I", code).tolist(), groups, dict(groupindex), tuple(indexgroup))


def save(replace: bool = False) -> bool:
    """Write the patterns compiled in this process to the cache file: merged with what it
    holds, or, with ``replace``, instead of it (dropping patterns no longer used). One write
    through a temporary file and a rename, so a reader never sees half a file; two processes saving at once lose at most each other's additions.
    Never raises: the cache only saves time."""
    global _loaded
    if not _new and not replace:
        return False
    try:
        from ..paths import ensure_private_dir

        path = cache_file()
        ensure_private_dir(os.path.dirname(path))
        patterns = {} if replace else dict(_entries())
        patterns.update(_seen if replace else {k: _seen[k] for k in _new})
        raw = marshal.dumps({"tag": _TAG, "patterns": patterns})
        from . import cache_seal

        if cache_seal.store is not None and not cache_seal.record(cache_seal.store, SEAL, cache_seal.digest(raw)):
            return False  # unsealed, the file would not be trusted: keep the one there
        from .private_file import replace  # 0600, through a random temporary name

        replace(path, raw)
    except Exception:
        return False
    _loaded = patterns
    _new.clear()
    return True


# ``re``'s module-level functions, through the cache (``re`` keeps its own per-process memo of
# compiled patterns; this is the same, in front of :func:`compile`).
_memo: dict = {}


def _get(pattern: str, flags: int) -> re.Pattern[str]:
    key = (pattern, flags)
    p = _memo.get(key)
    if p is None:
        p = _memo[key] = compile(pattern, flags)
    return p


def match(pattern: str, string: str, flags: int = 0) -> re.Match[str] | None:
    return _get(pattern, flags).match(string)


def fullmatch(pattern: str, string: str, flags: int = 0) -> re.Match[str] | None:
    return _get(pattern, flags).fullmatch(string)


def search(pattern: str, string: str, flags: int = 0) -> re.Match[str] | None:
    return _get(pattern, flags).search(string)


def sub(pattern: str, repl, string: str, count: int = 0, flags: int = 0) -> str:
    return _get(pattern, flags).sub(repl, string, count)


def split(pattern: str, string: str, maxsplit: int = 0, flags: int = 0) -> list[str]:
    return _get(pattern, flags).split(string, maxsplit)


def findall(pattern: str, string: str, flags: int = 0) -> list:
    return _get(pattern, flags).findall(string)


def status() -> dict:
    """What ``memory-cli doctor`` shows: the file, how many patterns it holds for this
    interpreter, and whether this user can write it (hooks could not keep their patterns)."""
    path = cache_file()
    held = len(_read(path, trusted_only=False))
    probe = os.path.dirname(path)
    while not os.path.exists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)  # the nearest folder that exists: save() creates the rest
    writable = os.path.isdir(probe) and os.access(probe, os.W_OK)
    from . import cache_seal

    problem = cache_seal.check(cache_seal.store, SEAL, path) if cache_seal.store is not None else None
    return {"path": path, "patterns": held, "writable": writable, "seal_problem": problem}
