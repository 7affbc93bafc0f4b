"""The layout of a compiled rule set, in memory and in its cache file: read only what a call needs.

A hook process checks one call against the rule set and exits. Unmarshalling a whole set of
10,000 rules and its indexes (tens of thousands of small objects) would cost more than the
rest of the hook, so everything stays in one ``bytes`` object and is decoded piece by piece:

    MAGIC | header length (8 bytes, little-endian) | header | padding | sections

- the header (:mod:`marshal`): the rule-set key, the rule count, and where every section is;
- ``offsets``: one native unsigned 32-bit integer per rule boundary, read in place through a
  ``memoryview`` (the header records byte order and item size; another machine's file is
  simply rebuilt);
- ``blob``: each rule tuple marshalled on its own, decoded when a call reaches that rule;
- each index (str -> list of rule positions) split into buckets by a hash that does not
  depend on the process (``hash(str)`` does), each bucket a marshalled dict decoded on first
  lookup: a lookup costs one small bucket, not the whole index;
- ``meta`` values and ``broken`` marshalled one by one.

Standard library only (marshal, sys): this is on the PreToolUse path.
"""

from __future__ import annotations

import marshal
import sys

MAGIC = b"MCRULES\x02"
_BUCKET_KEYS = 32  # about this many keys per bucket in large indexes
_MIN_BUCKETS = 67  # a prime: 256 is not 1 modulo it, so every byte of a key moves its bucket


def bucket_of(key, nb: int) -> int:
    """The bucket of ``key`` among ``nb``: the key's UTF-8 bytes read as one little-endian
    integer, modulo ``nb`` (a prime). Deterministic across processes and platforms."""
    if nb == 1 or not isinstance(key, str):
        return 0
    return int.from_bytes(key.encode("utf-8", "surrogatepass"), "little") % nb


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    k = 2
    while k * k <= n:
        if n % k == 0:
            return False
        k += 1
    return True


def bucket_count(keys: int) -> int:
    if keys <= 2 * _BUCKET_KEYS:
        return 1
    nb = max(_MIN_BUCKETS, keys // _BUCKET_KEYS)
    while not _is_prime(nb):
        nb += 1
    return nb


class Index:
    """A read-only mapping of str -> list[int], decoded bucket by bucket.

    Supports what the engine asks of an index: ``get``, ``[key]``, ``in``, truth and
    ``len`` without decoding anything, and iteration (decodes every bucket)."""

    __slots__ = ("_view", "_spans", "_nb", "_count", "_buckets")

    def __init__(self, view, nb: int, count: int, spans: tuple):
        self._view = view
        self._nb = nb
        self._count = count
        self._spans = spans
        self._buckets: list = [None] * nb

    def _bucket(self, b: int) -> dict:
        d = self._buckets[b]
        if d is None:
            d = marshal.loads(self._view[self._spans[2 * b] : self._spans[2 * b + 1]])
            self._buckets[b] = d
        return d

    def get(self, key, default=None):
        if not self._count:
            return default
        return self._bucket(bucket_of(key, self._nb)).get(key, default)

    def __getitem__(self, key):
        d = self._bucket(bucket_of(key, self._nb)) if self._count else {}
        return d[key]

    def __contains__(self, key) -> bool:
        return bool(self._count) and key in self._bucket(bucket_of(key, self._nb))

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def items(self):
        for b in range(self._nb):
            yield from self._bucket(b).items()

    def keys(self):
        for k, _v in self.items():
            yield k

    __iter__ = keys

    def values(self):
        for _k, v in self.items():
            yield v

    def to_dict(self) -> dict:
        return dict(self.items())


class Meta:
    """Read-only mapping of small named values, each decoded on first ``get``."""

    __slots__ = ("_view", "_spans", "_values")

    def __init__(self, view, spans: dict):
        self._view = view
        self._spans = spans
        self._values: dict = {}

    def get(self, name: str, default=None):
        if name in self._values:
            return self._values[name]
        span = self._spans.get(name)
        if span is None:
            return default
        value = marshal.loads(self._view[span[0] : span[1]])
        self._values[name] = value
        return value

    def __getitem__(self, name: str):
        if name not in self._spans:
            raise KeyError(name)
        return self.get(name)

    def __contains__(self, name) -> bool:
        return name in self._spans

    def keys(self):
        return self._spans.keys()


class _Writer:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, data: bytes) -> tuple[int, int]:
        pad = -self.size % 8
        if pad:
            self.parts.append(b"\0" * pad)
            self.size += pad
        start = self.size
        self.parts.append(data)
        self.size += len(data)
        return start, self.size


def pack(key: tuple, rules: list[bytes], indexes: dict[str, dict], meta: dict, broken: list) -> bytes:
    """Lay out marshalled rules, their indexes, meta values and broken rules in one buffer."""
    from array import array

    w = _Writer()
    offsets = array("I", [0])
    total = 0
    for b in rules:
        total += len(b)
        offsets.append(total)
    off_span = w.add(offsets.tobytes())
    blob_span = w.add(b"".join(rules))
    index_specs = {}
    for name, d in indexes.items():
        nb = bucket_count(len(d))
        buckets: list[dict] = [{} for _ in range(nb)]
        for k, v in d.items():
            buckets[bucket_of(k, nb)][k] = v
        spans: list[int] = []
        for bucket in buckets:
            spans.extend(w.add(marshal.dumps(bucket)))
        index_specs[name] = (nb, len(d), tuple(spans))
    meta_spans = {name: w.add(marshal.dumps(v)) for name, v in meta.items()}
    broken_span = w.add(marshal.dumps(broken))
    header = marshal.dumps(
        (key, len(rules), sys.byteorder, offsets.itemsize, off_span, blob_span, index_specs, meta_spans, broken_span)
    )
    head = len(MAGIC) + 8 + len(header)
    return b"".join([MAGIC, len(header).to_bytes(8, "little"), header, b"\0" * (-head % 8), *w.parts])


class Packed:
    """A packed rule set opened for reading (no copy of ``data`` is made)."""

    __slots__ = ("data", "view", "key", "n", "offsets", "blob_start", "indexes", "meta", "broken_span")

    def __init__(self, data: bytes):
        if data[: len(MAGIC)] != MAGIC:
            raise ValueError("not a packed rule set")
        start = len(MAGIC) + 8
        head = start + int.from_bytes(data[len(MAGIC) : start], "little")
        (key, n, byteorder, itemsize, off_span, blob_span, index_specs, meta_spans, broken_span) = marshal.loads(
            memoryview(data)[start:head]
        )
        view = memoryview(data)[head + (-head % 8) :]  # sections: spans are relative to it
        offsets = view[off_span[0] : off_span[1]].cast("I")
        if byteorder != sys.byteorder or itemsize != offsets.itemsize or len(offsets) != n + 1:
            raise ValueError("rule set packed on another kind of machine")
        self.data = data
        self.view = view
        self.key = key
        self.n = n
        self.offsets = offsets
        self.blob_start = blob_span[0]
        self.indexes = {name: Index(view, nb, count, spans) for name, (nb, count, spans) in index_specs.items()}
        self.meta = Meta(view, meta_spans)
        self.broken_span = broken_span

    def rule_bytes(self, i: int):
        b = self.blob_start
        return self.view[b + self.offsets[i] : b + self.offsets[i + 1]]

    def broken(self) -> list:
        a, b = self.broken_span
        return marshal.loads(self.view[a:b])
