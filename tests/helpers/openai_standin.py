"""A scripted stand-in for an OpenAI-compatible chat-completions server on 127.0.0.1 (what
Ollama, llama.cpp's server or a hosted endpoint speak), for the ``openai-compatible`` provider.

It answers ``POST /v1/chat/completions`` from a script, one step per request, and records every
request (path, headers, JSON body). Steps: ``content(obj)`` (the JSON object as the message's
text), ``tool_call(name, obj)`` (the object as a tool call's arguments), ``status(code, body)``
(an error answer), ``raw(bytes)`` (a 200 answer that is not JSON).
"""

from __future__ import annotations

import json

from helpers.scripted_server import Handler, ScriptedServer


def content(obj) -> dict:
    return {"kind": "content", "text": obj if isinstance(obj, str) else json.dumps(obj)}


def tool_call(name: str, obj: dict) -> dict:
    return {"kind": "tool_call", "name": name, "arguments": json.dumps(obj)}


def status(code: int, body: str = '{"error": {"message": "scripted error"}}') -> dict:
    return {"kind": "status", "code": code, "body": body}


def raw(body: bytes) -> dict:
    return {"kind": "raw", "body": body}


class OpenAIStandIn(ScriptedServer):
    def __init__(self, script: list[dict], *, usage: dict | None = None):
        """``usage``: the token counts every answer reports (by default 123 in, 45 out)."""
        super().__init__(script, default=status(500, "script exhausted"))
        self.usage = usage or {"prompt_tokens": 123, "completion_tokens": 45, "total_tokens": 168}
        self.url += "/v1"

    def respond(self, handler: Handler, record: dict) -> None:
        step = self._next()
        if step["kind"] == "status":
            return handler.send(step["code"], step["body"].encode())
        if step["kind"] == "raw":
            return handler.send(200, step["body"], "text/html")
        message: dict = {"role": "assistant", "content": None}
        if step["kind"] == "content":
            message["content"] = step["text"]
        else:
            message["tool_calls"] = [
                {"id": "call_1", "type": "function", "function": {"name": step["name"], "arguments": step["arguments"]}}
            ]
        answer = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": record["body"].get("model") or "standin-model",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": self.usage,
        }
        handler.send(200, json.dumps(answer).encode())

    def all_text(self) -> str:
        return "\n".join(json.dumps({k: r[k] for k in ("path", "headers", "body")}) for r in self.requests)
