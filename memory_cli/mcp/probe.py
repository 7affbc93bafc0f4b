"""Start a registered MCP server as an agent would and ask it for its tools, with the standard
library: doctor's check then costs what the server's start costs (tens of milliseconds with
:mod:`memory_cli.mcp.lean`), not the second or more that importing the MCP SDK's client takes.

The stdio transport is one JSON-RPC message per line: ``initialize``, the ``initialized``
notification, ``tools/list``; then stdin is closed, which ends the server.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time

PROTOCOL_VERSION = "2025-06-18"


def probe(entry: dict, timeout_s: float = 20.0) -> tuple[list[str] | None, float, str | None]:
    """(tool names, seconds to start and list them, None) or (None, seconds, why it failed)."""
    env = {**os.environ, **(entry.get("env") or {})}  # the agent's environment, the entry's over it
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(
            [entry["command"], *(entry.get("args") or [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError as e:
        return None, time.monotonic() - t0, f"{type(e).__name__}: {e}"
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            lines.put(raw)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    deadline = t0 + timeout_s
    try:
        _send(proc, {"id": 1, "method": "initialize", "params": _init_params()})
        _answer(proc, lines, 1, deadline)
        _send(proc, {"method": "notifications/initialized"})
        _send(proc, {"id": 2, "method": "tools/list", "params": {}})
        tools = _answer(proc, lines, 2, deadline).get("tools") or []
        names = [t.get("name") for t in tools if isinstance(t, dict)]
    except BrokenPipeError:
        code = proc.wait(timeout=3) if proc.poll() is None else proc.poll()
        return None, time.monotonic() - t0, f"the server ended (exit code {code}) before answering"
    except (_Failed, OSError) as e:
        return None, time.monotonic() - t0, str(e) or type(e).__name__
    finally:
        _end(proc)
    return [n for n in names if isinstance(n, str)], time.monotonic() - t0, None


class _Failed(Exception):
    pass


def _init_params() -> dict:
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "memory-cli-doctor", "version": "1"},
    }


def _send(proc: subprocess.Popen, message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
    proc.stdin.flush()


def _answer(proc: subprocess.Popen, lines: queue.Queue, rid: int, deadline: float) -> dict:
    """The result of request ``rid``; other messages (logs, notifications) are passed over."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Failed("no answer in time")
        try:
            raw = lines.get(timeout=left)
        except queue.Empty:
            raise _Failed("no answer in time") from None
        if raw is None:  # its stdout closed: the exit status follows at once, or it did not exit
            try:
                code = proc.wait(timeout=max(0.1, min(3.0, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                raise _Failed("the server closed its output without answering") from None
            raise _Failed(f"the server ended (exit code {code}) before answering")
        try:
            message = json.loads(raw)
        except ValueError:
            raise _Failed(f"not a JSON-RPC line on stdout: {raw[:80]!r}") from None
        if not isinstance(message, dict) or message.get("id") != rid or "method" in message:
            continue
        if "error" in message:
            raise _Failed(f"error {message['error']}")
        result = message.get("result")
        return result if isinstance(result, dict) else {}


def _end(proc: subprocess.Popen) -> None:
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
