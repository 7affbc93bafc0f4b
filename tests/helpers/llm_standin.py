"""A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for the real SDK and the
real ``claude -p``.

It answers ``POST /v1/messages`` from a script (one step per request that carries memory-cli's
prompt), records every request it receives (headers and JSON body), and stops by itself: on
``stop()``/leaving the ``with`` block, or after ``max_life_s`` whatever happens.

Steps: ``tool(name, input)`` (a forced tool call), ``text(s)`` (a text answer, what ``claude -p``
gets), ``error(status)`` (an API error with the standard error body), ``html()`` (a 200
answer that is an HTML page, as a captive portal gives), ``slow(seconds, step)``
(answers ``step`` after a delay, to provoke client timeouts). Non-streaming requests (the SDK)
get one JSON message; streaming ones (``claude -p``) get the standard server-sent events.
Requests that do not carry memory-cli's prompt (``claude -p``'s own side requests) get a short
text answer and do not consume a step.
"""

from __future__ import annotations

import json

from helpers.scripted_server import Handler, ScriptedServer

MARKERS = ("<transcript>", "Memories (one JSON object per line)")


def tool(name: str, input: dict) -> dict:
    return {"kind": "tool", "name": name, "input": input}


def text(s: str) -> dict:
    return {"kind": "text", "text": s}


def error(status: int, message: str = "scripted error") -> dict:
    return {"kind": "error", "status": status, "message": message}


def html(body: str = "<html><body><h1>Sign in to continue</h1></body></html>") -> dict:
    """A 200 answer that is an HTML page (a captive portal, a proxy's login page)."""
    return {"kind": "html", "body": body}


def slow(seconds: float, step: dict) -> dict:
    return {"kind": "slow", "seconds": seconds, "step": step}


class StandIn(ScriptedServer):
    def __init__(self, script: list[dict] | None = None, *, default: dict | None = None, max_life_s: float = 300):
        super().__init__(script, default=default or error(500, "script exhausted"), max_life_s=max_life_s)

    def respond(self, handler: Handler, record: dict) -> None:
        if "count_tokens" in record["path"]:
            return _json(handler, 200, {"input_tokens": 100})
        if not record["path"].startswith("/v1/messages"):
            return _json(handler, 404, {"type": "error", "error": {"type": "not_found_error", "message": "no"}})
        ours = any(m in record["raw"] for m in MARKERS)
        step = self._next() if ours else text("ok")
        record["ours"] = ours
        self._answer(handler, step, record["body"])

    def _answer(self, handler: Handler, step: dict, body: dict) -> None:
        if step["kind"] == "slow":
            if self.wait(step["seconds"]):
                return
            return self._answer(handler, step["step"], body)
        if step["kind"] == "html":
            return handler.send(200, step["body"].encode(), "text/html; charset=utf-8")
        if step["kind"] == "error":
            kind = {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}.get(
                step["status"], "invalid_request_error"
            )
            return _json(
                handler,
                step["status"],
                {"type": "error", "error": {"type": kind, "message": step["message"]}},
                extra={"retry-after": "0"} if step["status"] == 429 else None,
            )
        model = body.get("model") or "claude-haiku-4-5"
        if step["kind"] == "tool":
            block = {"type": "tool_use", "id": "toolu_standin01", "name": step["name"], "input": step["input"]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": step["text"]}
            stop = "end_turn"
        usage = {"input_tokens": max(1, len(json.dumps(body)) // 4), "output_tokens": 42}
        if body.get("stream"):
            return handler.send(200, _events(model, block, stop, usage), "text/event-stream")
        _json(
            handler,
            200,
            {
                "id": "msg_standin01",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [block],
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": usage,
            },
        )

    @property
    def ours(self) -> list[dict]:
        """The requests that carried memory-cli's prompt."""
        return [r for r in self.requests if r.get("ours")]

    def all_text(self) -> str:
        """Everything the stand-in received, headers and bodies, as one string."""
        return "\n".join(json.dumps(r["headers"]) + "\n" + r["raw"] for r in self.requests)


def _json(handler: Handler, status: int, obj: dict, extra: dict | None = None) -> None:
    handler.send(status, json.dumps(obj).encode(), headers={"request-id": "req_standin", **(extra or {})})


def _events(model: str, block: dict, stop: str, usage: dict) -> bytes:
    """The server-sent events of a streamed answer carrying ``block``."""
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_standin01",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1},
                },
            },
        )
    ]
    if block["type"] == "text":
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": block["text"]},
                },
            ),
        ]
    else:
        events += [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {
                        "type": "tool_use",
                        "id": block["id"],
                        "name": block["name"],
                        "input": {},
                    },
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                },
            ),
        ]
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()


def serve_sdk(monkeypatch):
    """The body of a pytest fixture: yields ``start(script, **kw)``, which starts a stand-in
    and points the real SDK at it (``ANTHROPIC_BASE_URL``, a throwaway key), with the
    provider's retry backoff shortened; every stand-in started is stopped afterwards."""
    from memory_cli.llm import providers

    started = []
    monkeypatch.setattr(providers, "BACKOFF_S", 0.05)

    def start(script, **kw):
        si = StandIn(script, **kw).start()
        started.append(si)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", si.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
        return si

    yield start
    for si in started:
        si.stop()
