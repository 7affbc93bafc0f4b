"""The daemon's wire format and file locations, shared by the server and the hook-side client.

Newline-delimited JSON over a Unix stream socket, one request object per line and one answer
line per request. Every message carries ``"v"`` (the protocol version) so that a hook from a
newer or older memory-cli talking to a daemon left running from another version gets a clean
``unsupported_version`` error it can fall back on, instead of a misread answer.

Requests: ``{"v": 1, "op": "ping" | "status" | "embed" | "index" | "shutdown", ...}``; ``embed``
takes ``"texts": [str, ...]``; ``index`` takes ``"db": "/abs/path"`` and asks the daemon to drain
that database's embedding queue in the background (answered at once). Answers:
``{"v": 1, "ok": true, ...}`` or ``{"v": 1, "ok": false, "error": CODE, "detail": "..."}``; the
error codes are below. Vectors travel as base64 of float32 little-endian bytes (the form
sqlite-vec stores). New ops may be added within version 1; an older daemon answers them with
``unknown_op``, which callers treat like any other refusal.

Standard library only: hooks import this through :mod:`.client` on every call.
"""

from __future__ import annotations

import os

VERSION = 1
SUPPORTED_VERSIONS = (1,)
OPS = ("ping", "status", "embed", "index", "shutdown")

# Error codes (the ``error`` field); ``detail`` says more for people.
E_COLD = "cold"  # model still loading: ask again later, use keywords now
E_MODEL_FAILED = "model_failed"  # model could not be loaded (see detail and the daemon log)
E_BAD_REQUEST = "bad_request"  # not JSON, not an object, wrong field types, too large
E_VERSION = "unsupported_version"
E_UNKNOWN_OP = "unknown_op"
E_BUSY = "busy"  # too many connections at once
E_INTERNAL = "internal"

MAX_LINE = 8 * 1024 * 1024  # one request or answer line, bytes
MAX_TEXTS = 512  # texts per embed request
MAX_TEXT_CHARS = 20_000  # longer texts are cut (the model reads ~256 tokens anyway)

SOCKET_NAME = "daemon.sock"
LOCK_NAME = "daemon.lock"
PID_NAME = "daemon.pid"
LOG_NAME = "daemon.log"
# AF_UNIX paths are limited to 108 bytes on Linux and 104 on macOS (including the NUL).
_MAX_SOCKET_PATH = 100


def run_dir() -> str:
    from .. import paths

    return paths.run_dir_str()  # no pathlib: hooks ask the daemon


def socket_path(rundir: str | None = None) -> str:
    """The socket inside the run directory, or a short private stand-in when that is too long.

    Deep ``CLAUDE_CONFIG_DIR`` locations (macOS temporary directories, test directories) can
    exceed the AF_UNIX limit; the stand-in is ``$TMPDIR/memory-cli-<uid>/<hash>.sock`` (``/tmp``
    without ``TMPDIR``), one per run directory, in a directory only this user owns. Its name is
    predictable, so another local user may have made it first: :func:`trusted_socket` checks it
    before a client sends anything there.
    """
    rd = rundir or run_dir()
    p = os.path.join(rd, SOCKET_NAME)
    if len(os.fsencode(p)) <= _MAX_SOCKET_PATH:
        return p
    import zlib

    short_dir = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"memory-cli-{os.getuid()}")
    tag = format(zlib.crc32(os.fsencode(os.path.abspath(rd))), "08x")
    return os.path.join(short_dir, f"{tag}.sock")


def trusted_socket(path: str) -> str | None:
    """Why the socket at ``path`` must not get our texts, or None when it is safe to use.

    The socket and its directory must be this user's, and the directory a real directory that
    no group or other user can write to (else anyone could put their own socket there)."""
    import stat

    uid = os.getuid()
    try:
        st = os.lstat(path)
        dst = os.lstat(os.path.dirname(path))
    except OSError:
        return "missing"
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != uid:
        return f"{path} is not a socket of this user"
    if not stat.S_ISDIR(dst.st_mode) or dst.st_uid != uid or dst.st_mode & 0o022:
        return f"{os.path.dirname(path)} is not a private directory of this user"
    return None


def lock_path(rundir: str | None = None) -> str:
    return os.path.join(rundir or run_dir(), LOCK_NAME)


def pid_path(rundir: str | None = None) -> str:
    return os.path.join(rundir or run_dir(), PID_NAME)


def log_path(rundir: str | None = None) -> str:
    return os.path.join(rundir or run_dir(), LOG_NAME)


def encode(msg: dict) -> bytes:
    # fastjson: json's own encoder and decoder without importing json, which costs a hook 2 ms
    from ..fastjson import dumps

    return dumps(msg, ensure_ascii=False, compact=True).encode("utf-8") + b"\n"


def decode(line: bytes) -> dict:
    """Parse one line; raises ValueError for anything that is not a JSON object."""
    from ..fastjson import loads

    obj = loads(line.decode("utf-8"))
    if not isinstance(obj, dict):
        raise ValueError("message is not a JSON object")
    return obj


def request(op: str, **fields) -> dict:
    msg = {"v": VERSION, "op": op}
    msg.update(fields)
    return msg


def ok(**fields) -> dict:
    msg = {"v": VERSION, "ok": True}
    msg.update(fields)
    return msg


def error(code: str, detail: str = "", **fields) -> dict:
    msg = {"v": VERSION, "ok": False, "error": code}
    if detail:
        msg["detail"] = detail
    msg.update(fields)
    return msg


def check_request(msg: dict) -> dict | None:
    """The error answer for a malformed request, or None when it can be served."""
    v = msg.get("v")
    if v not in SUPPORTED_VERSIONS or isinstance(v, bool):
        return error(
            E_VERSION,
            f"protocol version {v!r} is not supported; this daemon speaks {', '.join(map(str, SUPPORTED_VERSIONS))}",
            supported=list(SUPPORTED_VERSIONS),
        )
    op = msg.get("op")
    if op not in OPS:
        return error(E_UNKNOWN_OP, f"unknown op {op!r}; known: {', '.join(OPS)}")
    if op == "embed":
        texts = msg.get("texts")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return error(E_BAD_REQUEST, 'embed needs "texts": a list of strings')
        if len(texts) > MAX_TEXTS:
            return error(E_BAD_REQUEST, f"at most {MAX_TEXTS} texts per request")
    if op == "index":
        db = msg.get("db")
        if not isinstance(db, str) or not os.path.isabs(db):
            return error(E_BAD_REQUEST, 'index needs "db": an absolute database path')
    return None


def encode_vectors(vectors: list[bytes]) -> list[str]:
    import base64

    return [base64.b64encode(v).decode("ascii") for v in vectors]


def decode_vectors(items: list, dim: int) -> list[bytes]:
    """Decode base64 vectors, checking each is ``dim`` float32 values; raises ValueError."""
    import base64

    out = []
    size = 4 * dim
    for item in items:
        raw = base64.b64decode(item, validate=True)
        if len(raw) != size:
            raise ValueError(f"vector of {len(raw)} bytes, expected {size}")
        out.append(raw)
    return out
