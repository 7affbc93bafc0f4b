"""Scripted stand-ins for the model APIs of Codex CLI and Gemini CLI, on 127.0.0.1.

Like :mod:`tests.e2e.standin` for Claude Code: the agent binary, its hook runner and
memory-cli's hooks are real; only the model's answers are scripted, and every request is
recorded so a test can read what the agent showed the model.

* :class:`CodexStandIn` speaks the OpenAI Responses API as Codex streams it (``POST
  /v1/responses``, server-sent events ``response.created``, ``response.output_item.done`` per
  item, ``response.completed``). Codex reaches it through a custom model provider
  (``[model_providers.standin] base_url = ".../v1"``, ``wire_api = "responses"``).
* :class:`GeminiStandIn` speaks the Gemini API (``POST /v1beta/models/M:streamGenerateContent
  ?alt=sse``, one ``data:`` chunk with the whole turn; ``:generateContent`` and
  ``:countTokens`` plainly). Gemini CLI reaches it through ``GOOGLE_GEMINI_BASE_URL``.

A script is a list of turns, each a list of output items (Codex) or parts (Gemini), made with
the helpers below. A request offering tools is the conversation and takes the next turn; once
the script is used up the stand-in answers "Done." so a session always ends. Anything else
(Gemini's next-speaker check and the like) gets a short harmless answer without using a turn.
"""

from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_ids = itertools.count(1)


# -- Codex (Responses API) ----------------------------------------------------------------------
def codex_exec(cmd: str) -> dict:
    """Codex's shell tool call (its hooks see it as ``Bash`` with ``tool_input.command``)."""
    n = next(_ids)
    return {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"call_{n}",
        "name": "exec_command",
        "arguments": json.dumps({"cmd": cmd}),
    }


def codex_patch(patch: str) -> dict:
    """Codex's ``apply_patch`` call with the patch as free text."""
    n = next(_ids)
    return {"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n}", "name": "apply_patch", "input": patch}


def codex_tool_search(query: str) -> dict:
    """Codex's ``tool_search`` call: how its model finds MCP tools, which Codex offers only as
    deferred namespaces (``mcp__<server>``) until a search returns them."""
    n = next(_ids)
    return {
        "type": "tool_search_call",
        "id": f"ts_{n}",
        "call_id": f"call_{n}",
        "execution": "client",
        "status": "completed",
        "arguments": {"query": query},
    }


def codex_call(name: str, args: dict, namespace: str | None = None) -> dict:
    """A function call; an MCP tool names its ``namespace`` (``mcp__memory_cli``)."""
    n = next(_ids)
    item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name}
    if namespace:
        item["namespace"] = namespace
    item["arguments"] = json.dumps(args)
    return item


def codex_text(text: str) -> dict:
    n = next(_ids)
    return {
        "type": "message",
        "role": "assistant",
        "id": f"msg_{n}",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


# -- Gemini (generateContent) -------------------------------------------------------------------
def gemini_call(name: str, args: dict) -> dict:
    """A Gemini function call part, e.g. ``gemini_call("run_shell_command", {"command": c})``."""
    return {"functionCall": {"name": name, "args": args}}


def gemini_text(text: str) -> dict:
    return {"text": text}


class WaitFor:
    """A turn that waits for an event the agent shows in its requests (an MCP server's tools
    listed, say): until ``seen(body)`` holds, each request is answered with ``filler`` (a short
    pause as a tool call) without using the script; after ``limit`` fillers the script goes on
    and the test's own assertions say what was missing."""

    def __init__(self, seen, filler: list, limit: int):
        self.seen, self.filler, self.limit, self.used = seen, filler, limit, 0


class _Recorder:
    """The shared server: binds a free port on 127.0.0.1, records each request body."""

    def __init__(self, script):
        self.script = [t if isinstance(t, (list, WaitFor)) else [t] for t in script]
        self.requests: list[dict] = []  # {"path", "body"}
        self._turn = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def main_requests(self) -> list[dict]:
        return [r["body"] for r in self.requests if self._is_main(r["body"])]

    def shown(self, request: dict | None = None) -> str:
        """Everything the agent sent the model in one request (the last conversation turn by
        default), as text, for ``in`` checks."""
        reqs = [request] if request is not None else self.main_requests[-1:]
        return "\n".join(json.dumps(r, ensure_ascii=False) for r in reqs)

    def _is_main(self, body) -> bool:
        return isinstance(body, dict) and bool(body.get("tools"))

    def _next(self, body=None) -> list:
        with self._lock:
            while True:
                turn = self.script[self._turn] if self._turn < len(self.script) else None
                if isinstance(turn, WaitFor):
                    if turn.used < turn.limit and not turn.seen(body):
                        turn.used += 1
                        return [
                            dict(item, id=f"{item['id']}_{turn.used}", call_id=f"{item['call_id']}_{turn.used}")
                            for item in turn.filler
                        ]
                    self._turn += 1  # seen (or waited long enough): the script goes on
                    continue
                self._turn += 1
                return turn

    def start(self):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.requests.append({"path": self.path, "body": None})
                self._send(404, b"{}", "application/json")

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"raw": raw[:500].decode(errors="replace")}
                outer.requests.append({"path": self.path, "body": body})
                outer._answer(self, body)

            def _send(self, code, data: bytes, ctype: str):
                self.send_response(code)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class CodexStandIn(_Recorder):
    def tool_outputs(self) -> list[str]:
        """The output Codex sent back for each tool call, in order."""
        out = []
        for body in self.main_requests:
            for item in body.get("input") or []:
                if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
                    text = item.get("output")
                    text = text if isinstance(text, str) else json.dumps(text)
                    if text not in out:
                        out.append(text)
        return out

    def _answer(self, handler, body) -> None:
        items = self._next(body) if self._is_main(body) else None
        items = items or [codex_text("Done.")]
        rid = f"resp_{next(_ids)}"
        chunks = [("response.created", {"response": {"id": rid}})]
        for i, item in enumerate(items):
            chunks.append(("response.output_item.done", {"output_index": i, "item": item}))
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        chunks.append(("response.completed", {"response": {"id": rid, "usage": usage}}))
        data = "".join(f"event: {name}\ndata: {json.dumps(dict(d, type=name))}\n\n" for name, d in chunks)
        handler._send(200, data.encode(), "text/event-stream")


class GeminiStandIn(_Recorder):
    def tool_outputs(self) -> list[str]:
        """The functionResponse Gemini CLI sent back for each tool call, in order, as JSON."""
        out = []
        for body in self.main_requests:
            for content in body.get("contents") or []:
                for part in content.get("parts") or []:
                    if isinstance(part, dict) and "functionResponse" in part:
                        text = json.dumps(part["functionResponse"], ensure_ascii=False)
                        if text not in out:
                            out.append(text)
        return out

    def _answer(self, handler, body) -> None:
        path = handler.path
        if ":countTokens" in path:
            handler._send(200, json.dumps({"totalTokens": 10}).encode(), "application/json")
            return
        if self._is_main(body):
            parts = self._next(body) or [gemini_text("Done.")]
        else:  # a side request (next speaker, a summary): a short JSON-shaped text
            parts = [gemini_text(json.dumps({"reasoning": "the turn is over", "next_speaker": "user"}))]
        chunk = {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "gemini-2.5-pro",
        }
        if "stream" in path.lower():
            handler._send(200, f"data: {json.dumps(chunk)}\r\n\r\n".encode(), "text/event-stream")
        else:
            handler._send(200, json.dumps(chunk).encode(), "application/json")
