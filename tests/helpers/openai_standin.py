"""A scripted stand-in for an OpenAI-compatible chat-completions server on 127.0.0.1 (what
Ollama, llama.cpp's server or a hosted endpoint speak), for the ``openai-compatible`` provider.

It answers ``POST /v1/chat/completions`` from a script, one step per request, and records every
request (path, headers, JSON body). Steps: ``content(obj)`` (the JSON object as the message's
text), ``tool_call(name, obj)`` (the object as a tool call's arguments), ``status(code, body)``
(an error answer), ``raw(bytes)`` (a 200 answer that is not JSON).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def content(obj) -> dict:
    return {"kind": "content", "text": obj if isinstance(obj, str) else json.dumps(obj)}


def tool_call(name: str, obj: dict) -> dict:
    return {"kind": "tool_call", "name": name, "arguments": json.dumps(obj)}


def status(code: int, body: str = '{"error": {"message": "scripted error"}}') -> dict:
    return {"kind": "status", "code": code, "body": body}


def raw(body: bytes) -> dict:
    return {"kind": "raw", "body": body}


class OpenAIStandIn:
    def __init__(self, script: list[dict], *, usage: dict | None = None):
        """``usage``: the token counts every answer reports (by default 123 in, 45 out)."""
        self.script = list(script)
        self.usage = usage or {"prompt_tokens": 123, "completion_tokens": 45, "total_tokens": 168}
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                with standin.lock:
                    standin.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    step = standin.script.pop(0) if standin.script else status(500, "script exhausted")
                if step["kind"] == "status":
                    self._send(step["code"], step["body"].encode())
                elif step["kind"] == "raw":
                    self._send(200, step["body"], "text/html")
                else:
                    message = {"role": "assistant", "content": None}
                    if step["kind"] == "content":
                        message["content"] = step["text"]
                    else:
                        message["tool_calls"] = [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": step["name"], "arguments": step["arguments"]},
                            }
                        ]
                    answer = {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "model": body.get("model") or "standin-model",
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                        "usage": standin.usage,
                    }
                    self._send(200, json.dumps(answer).encode())

            def _send(self, code: int, data: bytes, ctype: str = "application/json"):
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def all_text(self) -> str:
        return "\n".join(json.dumps(r) for r in self.requests)
