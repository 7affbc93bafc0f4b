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
