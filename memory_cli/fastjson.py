"""``json.loads``/``json.dumps`` for the hook path, without importing the :mod:`json` package.

Importing :mod:`json` imports :mod:`re` (and through it ``enum``, ``functools``,
``collections``): about as much start-up time as everything else a PreToolUse hook does.
The parsing and serialising themselves are done by CPython's C accelerator ``_json``, the
same code :func:`json.loads` and :func:`json.dumps` run; this module only drives it the way
``json.decoder``/``json.encoder`` do, so results, accepted inputs and error messages are the
same (errors are raised as :class:`json.JSONDecodeError`, by :mod:`json` itself: only a
malformed input imports it). On an interpreter without the accelerator (or with a different one) every call
falls back to :mod:`json` itself.
"""

from __future__ import annotations

_WS = " \t\n\r"
_scan = None
_encoders: dict = {}


def _float_str(o, _repr=float.__repr__, _inf=float("inf")):
    # json.encoder's floatstr with allow_nan=True.
    if o != o:
        return "NaN"
    if o == _inf:
        return "Infinity"
    if o == -_inf:
        return "-Infinity"
    return _repr(o)


class _Context:
    """The attributes ``_json.make_scanner`` reads from a ``JSONDecoder``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__
    memo: dict = {}


def _scanner():
    global _scan
    if _scan is None:
        try:
            from _json import make_scanner

            _scan = make_scanner(_Context())
        except Exception:  # no C accelerator here: use json itself
            _scan = False
    return _scan


def _error(msg: str, doc: str, pos: int):
    from json import JSONDecodeError

    return JSONDecodeError(msg, doc, pos)


def loads(s: str):
    """Exactly ``json.loads(s)`` for a ``str``."""
    scan = _scanner()
    if not scan or not isinstance(s, str):
        import json

        return json.loads(s)
    if s.startswith("\ufeff"):
        raise _error("Unexpected UTF-8 BOM (decode using utf-8-sig)", s, 0)
    start = len(s) - len(s.lstrip(_WS))
    try:
        obj, end = scan(s, start)
    except StopIteration as err:
        raise _error("Expecting value", s, err.value) from None
    except SystemError:
        # The accelerator reports syntax errors through json.decoder, and only when that
        # module is already loaded; let json itself raise the error it would have raised.
        import json

        return json.loads(s)
    if end != len(s):
        rest = s[end:].lstrip(_WS)
        if rest:
            raise _error("Extra data", s, len(s) - len(rest))
    return obj


def list_of(text: str | None, kind: type) -> list:
    """The items of type ``kind`` in ``text``, a JSON list as a column holds it ([] for none,
    or for text that is not a JSON list)."""
    try:
        value = loads(text or "[]")
    except ValueError:
        return []
    return [v for v in value if isinstance(v, kind)] if isinstance(value, list) else []


def _encoder(ensure_ascii: bool, compact: bool, sort_keys: bool, default):
    key = (ensure_ascii, compact, sort_keys, default)
    enc = _encoders.get(key)
    if enc is None:
        try:
            import _json

            basestring = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
            item_sep, key_sep = (",", ":") if compact else (", ", ": ")
            make = _json.make_encoder
            enc = False
            # The accelerator's arguments as json.encoder passes them (without, then with the
            # float formatter some versions take); whichever this interpreter accepts.
            for args in (
                (default or _no_default, basestring, None, key_sep, item_sep, sort_keys, False, True),
                (default or _no_default, basestring, None, _float_str, key_sep, item_sep, sort_keys, False, True),
            ):
                try:
                    if make({}, *args)({"k": [1.5, "v"]}, 0) is not None:
                        enc = (basestring, make, args)
                        break
                except TypeError:
                    continue
        except Exception:
            enc = False
        _encoders[key] = enc
    return enc


def _no_default(o):
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def dumps(obj, *, ensure_ascii: bool = True, compact: bool = False, sort_keys: bool = False, default=None) -> str:
    """Exactly ``json.dumps(obj, ensure_ascii=..., sort_keys=..., default=...)``, with
    ``separators=(",", ":")`` when ``compact``."""
    enc = _encoder(ensure_ascii, compact, sort_keys, default)
    if not enc:
        import json

        return json.dumps(
            obj,
            ensure_ascii=ensure_ascii,
            sort_keys=sort_keys,
            default=default,
            separators=(",", ":") if compact else None,
        )
    basestring, make, args = enc
    if isinstance(obj, str):
        return basestring(obj)
    # A fresh encoder per call: its circular-reference markers must start empty.
    return "".join(make({}, *args)(obj, 0))
