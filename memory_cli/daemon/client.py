"""Ask the embedding daemon, from a hook, without ever waiting past a hard limit.

Hooks run on every tool call, so this module imports only the socket C module, os, time and
the protocol module (json, base64), and every call is bounded end to end: connect, send and receive share
one deadline. Anything short of a good answer (no socket, nobody listening, model still
loading, a slow or wrong answer) returns None at once, and the caller uses keyword search.
The client never starts the daemon and never loads the model.

``last_failure`` holds why the most recent call returned None (``no_daemon``, ``refused``,
``timeout``, ``cold``, ``unsupported_version``, ...) so a hook can audit its fallback.
"""

from __future__ import annotations

import os
import time

try:  # the C module directly: socket.py pulls in selectors and enum (~3 ms per hook call)
    import _socket as socket
except ImportError:  # pragma: no cover - every CPython has it
    import socket  # type: ignore[no-redef]  # the Python face of the same module, for mypy one name

from ..settings import value as _setting
from . import protocol

# A caller that names no timeout waits what a configured hook would by default.
DEFAULT_TIMEOUT_MS = _setting(None, "daemon.request_timeout_ms")

last_failure: str | None = None


def _fail(reason: str):
    global last_failure
    last_failure = reason
    return None


def request(msg: dict, timeout_ms: float = DEFAULT_TIMEOUT_MS, socket_path: str | None = None) -> dict | None:
    """Send one request and return the daemon's answer (``ok`` true or false), or None.

    None means no answer within ``timeout_ms``: no daemon, refused, timed out, garbled.
    """
    global last_failure
    last_failure = None
    deadline = time.monotonic() + max(timeout_ms, 0) / 1000.0
    try:
        path = socket_path or protocol.socket_path()
    except Exception:
        return _fail("no_run_dir")
    if not os.path.exists(path):
        return _fail("no_daemon")
    if protocol.trusted_socket(path) is not None:
        return _fail("untrusted_socket")
    try:
        data = protocol.encode(msg)
    except (TypeError, ValueError):
        return _fail("bad_request")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return _fail("timeout")
        sock.settimeout(remaining)
        try:
            sock.connect(path)
        except (ConnectionRefusedError, FileNotFoundError):
            return _fail("refused")  # stale socket: the daemon died; the next start cleans it
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return _fail("timeout")
        sock.settimeout(remaining)
        sock.sendall(data)  # the timeout bounds the whole sendall, not each chunk
        buf = bytearray()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return _fail("timeout")
            sock.settimeout(remaining)
            chunk = sock.recv(262144)
            if not chunk:
                return _fail("closed")
            buf += chunk
            end = buf.find(b"\n")
            if end >= 0:
                return protocol.decode(bytes(buf[:end]))
            if len(buf) > protocol.MAX_LINE:
                return _fail("too_large")
    except TimeoutError:
        return _fail("timeout")
    except (OSError, ValueError):
        return _fail("io_error")
    finally:
        sock.close()


def _ok(answer: dict | None) -> dict | None:
    if answer is None:
        return None
    if answer.get("ok") is not True:
        return _fail(str(answer.get("error") or "error"))
    return answer


def embed(
    texts: list[str], timeout_ms: float = DEFAULT_TIMEOUT_MS, socket_path: str | None = None, model: str | None = None
) -> list[bytes] | None:
    """Vectors (float32 little-endian bytes, normalised) for ``texts``, or None to fall back.

    ``model``: the model the caller's stored vectors come from. A daemon running another model
    answers None (``last_failure`` = ``model_mismatch``): mixing two models' vectors in one
    index would rank by noise, so keyword search is the honest fallback until ``reindex``.
    """
    if not texts:
        return []
    answer = _ok(request(protocol.request("embed", texts=list(texts)), timeout_ms, socket_path))
    if answer is None:
        return None
    if model and answer.get("model") and answer.get("model") != model:
        return _fail("model_mismatch")
    try:
        vectors = protocol.decode_vectors(answer.get("vectors") or [], int(answer.get("dim") or 0))
    except (ValueError, TypeError):
        return _fail("bad_answer")
    if len(vectors) != len(texts):
        return _fail("bad_answer")
    return vectors


def status(timeout_ms: float = 500, socket_path: str | None = None) -> dict | None:
    """The daemon's status answer (pid, uptime, model, state, memory, requests), or None."""
    return _ok(request(protocol.request("status"), timeout_ms, socket_path))


def ping(timeout_ms: float = DEFAULT_TIMEOUT_MS, socket_path: str | None = None) -> bool:
    """Whether a daemon answers (warm or still loading)."""
    return _ok(request(protocol.request("ping"), timeout_ms, socket_path)) is not None


def shutdown(timeout_ms: float = 1000, socket_path: str | None = None) -> bool:
    """Ask the daemon to exit; True when it acknowledged."""
    return _ok(request(protocol.request("shutdown"), timeout_ms, socket_path)) is not None
