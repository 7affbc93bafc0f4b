"""Seals that keep memory-cli's cache files honest: a cache is used only when the store says so.

The rule cache (``<store>.rules-cache``) and the compiled-regex cache (``<memory dir>/cache``)
are files any process of the same user can rewrite. A label inside the file (the rule-set
generation, the store's salt) can be copied by whoever rewrites it, so a file that matches its
own label proves nothing. Instead, whoever builds a cache records the digest of the exact bytes
it wrote in the store (table ``kv``, key ``seal:<name>``), and a reader trusts the file only
when its bytes have that digest. Rewriting a cache without the matching write to the store
(which memory-cli's protection asks the person about) makes the file a stranger: it is rebuilt,
never trusted. ``memory-cli doctor`` compares both seals (:func:`check`).

BLAKE2b from ``_blake2`` (a fraction of a millisecond to import; ``hashlib`` costs ~3 ms):
this runs on the hook path. Standard library only, besides :mod:`memory_cli.store.kvstate` (which
holds the ``kv`` table's SQL).

Hashing a 1,000-rule cache costs a hook about 3.5 million instructions, more than the rest of an
allowed call's rule check. So once a file's bytes have been checked against the seal, the store
also records the file's identity as the filesystem keeps it (inode, size, modification and
change times, to the nanosecond: ``seal-stat:<name>``, tied to the seal it was checked
against), and a reader whose file shows that same identity trusts it without hashing. Any
write to the file, a ``touch`` or a file renamed into its place gives it a new change time,
which no process can set back, so the identity cannot be kept by a rewritten file. On a
filesystem that keeps whole seconds only, the identity is never used: the bytes are hashed.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b as _blake2b

# The store of the running hook (set by the hook runner) for caches that are not tied to one
# store (the compiled-regex cache); None outside a hook until a command binds one.
store = None


def digest(data: bytes) -> str:
    return _blake2b(data, digest_size=20).hexdigest()


def key(name: str) -> str:
    return "seal:" + name


def _stat_key(name: str) -> str:
    return "seal-stat:" + name


def identity(st) -> str | None:
    """A file's identity from its ``os.stat`` result, or None where the change time has no
    sub-second part (a filesystem that keeps whole seconds: a rewrite within the second could
    keep it)."""
    if not st.st_ctime_ns % 1_000_000_000:
        return None
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def read(path: str) -> tuple[bytes, str | None]:
    """A file's bytes and its identity, taken before and after the read (None when the two
    differ, a write during the read, or cannot be told). Raises OSError as ``open`` does."""
    import os

    with open(path, "rb") as f:
        before = identity(os.fstat(f.fileno()))
        data = f.read()
        after = identity(os.fstat(f.fileno()))
    return data, (after if after == before else None)


def _matches(want: str, data: bytes) -> bool:
    """Whether ``data`` has the digest the seal ``want`` (``label + digest``) ends with."""
    return want.endswith(digest(data))


def trusted(st, name: str, want: str, data: bytes, ident: str | None) -> bool:
    """Whether ``data`` (read by :func:`read`, with its identity ``ident``) is what the seal
    ``want`` was recorded for: by the identity recorded with that seal, or else by its digest.
    A file that passes by its digest has its identity recorded (the write lock free at once,
    else nothing), so a cache written by an earlier version, or copied back, is hashed once,
    not on every call. ``want`` is ``label + digest`` as :func:`record` stored it."""
    if ident is not None and st is not None:
        try:
            from memory_cli.store import kvstate

            if kvstate.raw(st, _stat_key(name)) == want + "|" + ident:
                return True
        except Exception:
            pass
    if not _matches(want, data):
        return False
    if ident is not None and st is not None:
        try:
            from memory_cli.store import kvstate

            with st.transaction(wait=False):
                kvstate.put_raw(st, _stat_key(name), want + "|" + ident, gate=False)
        except Exception:
            pass  # not recorded: the next reader hashes
    return True


def record_identity(st, name: str, path: str) -> bool:
    """After memory-cli wrote the file at ``path``: read it back and, when its bytes have the
    seal the store holds, record its identity beside the seal (see :func:`trusted`)."""
    want = expected(st, name)
    if want is None:
        return False
    try:
        data, ident = read(path)
    except OSError:
        return False
    return ident is not None and trusted(st, name, want, data, ident)


def expected(st, name: str) -> str | None:
    """The seal the store holds for ``name`` (None: none, or the store cannot say)."""
    if st is None:
        return None
    try:
        from memory_cli.store import kvstate

        return kvstate.raw(st, key(name))
    except Exception:
        return None


def record(st, name: str, seal: str) -> bool:
    """Record ``seal`` for ``name`` if the write lock is free at once; False otherwise (the
    cache file is then simply not trusted by the next reader, which rebuilds it)."""
    if st is None:
        return False
    try:
        from memory_cli.store import kvstate

        with st.transaction(wait=False):  # a digest, not text: no redaction pass (and no import)
            kvstate.put_raw(st, key(name), seal, gate=False)
        return True
    except Exception:
        return False


def check(st, name: str, path: str, label: str = "") -> str | None:
    """Why the file at ``path`` would not be trusted (None: it matches its seal, or is absent)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"cannot read {path}: {e.strerror or e}"
    want = expected(st, name)
    if want is None:
        return f"{path} has no seal in the store"
    if want != (label + digest(data) if label else digest(data)):
        return f"{path} does not match the seal the store holds (rewritten outside memory-cli)"
    return None
