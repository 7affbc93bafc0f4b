"""The server plumbing the model stand-ins share: an HTTP server on 127.0.0.1 (a free port) in a
daemon thread that records every POST it receives and answers it from a script, one step per
request, until the script is used up (then ``default``).

A stand-in subclasses :class:`ScriptedServer` and says how one request is answered
(``respond``); the handler reads the body, records the request and writes the answer
(``Handler.send``). It stops on ``stop()`` / leaving the ``with`` block, or by itself after
``max_life_s`` when given, so a test that fails half-way leaves no server behind.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    """One request: read and record it, then let the stand-in answer it."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        record = {"path": self.path, "headers": dict(self.headers), "body": body, "raw": raw.decode("utf-8", "replace")}
        owner = self.server.owner
        with owner.lock:
            owner.requests.append(record)
        owner.respond(self, record)

    def send(self, status: int, data: bytes, ctype: str = "application/json", headers: dict | None = None) -> None:
        """Write one whole answer: status, content type and length, any further headers, body."""
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedServer


class ScriptedServer:
    """A recording, scripted HTTP server; subclasses implement :meth:`respond`."""

    def __init__(self, script: list[dict] | None, *, default: dict, max_life_s: float | None = None):
        self.script = list(script or [])
        self.default = default
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.owner = self
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._timer = threading.Timer(max_life_s, self.stop) if max_life_s is not None else None
        if self._timer:
            self._timer.daemon = True

    def respond(self, handler: Handler, record: dict) -> None:
        """Answer one recorded request through ``handler.send``."""
        raise NotImplementedError

    def _next(self) -> dict:
        """The script's next step, or ``default`` once it is used up."""
        with self.lock:
            return self.script.pop(0) if self.script else self.default

    def wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` (a slow answer); True when the server was stopped meanwhile."""
        return self._stop.wait(seconds)

    def start(self):
        self._thread.start()
        if self._timer:
            self._timer.start()
        return self

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        if self._timer:
            self._timer.cancel()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
