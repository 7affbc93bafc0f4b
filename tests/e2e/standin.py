"""A scripted stand-in for the Anthropic Messages API, for driving the real Claude Code binary.

No model service can run on a test machine, so the tests put this small server where the model
would be (``ANTHROPIC_BASE_URL=http://127.0.0.1:PORT``) and script the model's side of the
conversation turn by turn. Claude Code itself, its hook runner and memory-cli's hooks are all
real; only the model's answers are scripted. The stand-in records every request it receives, so
a test can read exactly what Claude Code showed the model: the tool results (a PreToolUse deny
arrives as an ``is_error`` tool_result), and the hook context blocks (``SessionStart hook
additional context: ...``).

What it answers:

* ``POST /v1/messages`` whose body has a non-empty ``tools`` list (the main conversation): the
  next turn of the script, streamed as server-sent events (``message_start``,
  ``content_block_start`` / ``content_block_delta`` / ``content_block_stop`` per block,
  ``message_delta`` with the stop reason, ``message_stop``). Once the script is used up it
  answers a short text and ends the turn, so a session always finishes.
* a compaction request (``/compact``; it offers tools too, but asks for an ``<analysis>`` and a
  ``<summary>`` block): a fixed summary, without using up a turn of the script.
* any other ``POST /v1/messages`` (title generation, summaries): a short harmless text, streamed
  or not as asked.
* ``POST /v1/messages/count_tokens``: a token estimate.
* anything else: 404 (recorded too).

The server binds 127.0.0.1 on a free port, serves from a daemon thread, and stops when the
``with`` block ends, or by itself after ``max_lifetime_s`` if a test forgot to stop it.

A subagent started with the Task tool sends conversation requests of its own; ``subagents=
{task_prompt: turns}`` scripts it separately (its requests begin with that prompt).

A script is a list of turns; each turn is one assistant message: a string (a text reply), one
block made by :func:`text`, :func:`tool_use` or :func:`bash`, or a list of such blocks. A turn
with a ``tool_use`` block ends with ``stop_reason: tool_use``; Claude Code runs the tool (and
its hooks) and sends the next request, which gets the next turn.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "claude-sonnet-4-5"
_ids = itertools.count(1)


# -- script building blocks ---------------------------------------------------------------------
def text(s: str) -> dict:
    """An assistant text block."""
    return {"type": "text", "text": s}


def tool_use(name: str, input: dict, id: str | None = None) -> dict:
    """An assistant tool call, e.g. ``tool_use("Write", {"file_path": p, "content": c})``."""
    return {"type": "tool_use", "id": id or f"toolu_e2e{next(_ids):05d}", "name": name, "input": input}


def bash(command: str, description: str = "run a command") -> dict:
    """A Bash tool call (the most common scripted turn)."""
    return tool_use("Bash", {"command": command, "description": description})


def _blocks(turn) -> list[dict]:
    if isinstance(turn, str):
        return [text(turn)]
    if isinstance(turn, dict):
        return [turn]
    return list(turn)


# -- SSE rendering ------------------------------------------------------------------------------
def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def render_stream(blocks: list[dict], model: str = MODEL) -> bytes:
    """One assistant message as the Messages API streams it."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    msg_id = f"msg_e2e{next(_ids):05d}"
    out = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 50, "output_tokens": 1},
                },
            },
        )
    ]
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            out.append(
                _sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                )
            )
            out.append(
                _sse(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}},
                )
            )
        elif block["type"] == "tool_use":
            out.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                    },
                )
            )
            out.append(
                _sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                    },
                )
            )
        else:
            raise ValueError(f"unsupported block type {block['type']!r}")
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
    )
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def render_message(blocks: list[dict], model: str = MODEL) -> dict:
    """The same message as a non-streamed JSON body."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {
        "id": f"msg_e2e{next(_ids):05d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 20},
    }


# -- recorded requests --------------------------------------------------------------------------
@dataclass
class Request:
    """One request Claude Code sent, as received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it was not JSON
    answered: list[dict] = field(default_factory=list)  # the blocks the stand-in answered with

    @property
    def is_main(self) -> bool:
        """A main-conversation turn: a messages request that offers tools (and is not a
        compaction, which offers them too)."""
        return (
            self.path.split("?")[0] == "/v1/messages"
            and isinstance(self.body, dict)
            and bool(self.body.get("tools"))
            and not self.is_compaction
        )

    @property
    def is_compaction(self) -> bool:
        """Claude Code asking for the conversation's summary (``/compact`` or auto-compaction):
        its last message asks for text only, as an ``<analysis>`` and a ``<summary>`` block."""
        if self.path.split("?")[0] != "/v1/messages" or not isinstance(self.body, dict):
            return False
        msgs = self.body.get("messages") or []
        if not msgs or msgs[-1].get("role") != "user":
            return False
        last = _text_of(msgs[-1].get("content"))
        # The wording varies between Claude Code's compaction prompts ("Respond with TEXT ONLY",
        # "Respond with plain text only"); both ask for text only and a <summary> block.
        return "text only" in last.lower() and "<summary>" in last

    @property
    def messages(self) -> list[dict]:
        return list(self.body.get("messages") or []) if isinstance(self.body, dict) else []

    def tool_results(self) -> list[dict]:
        """Every tool_result block in the conversation so far, oldest first, as
        ``{"tool_use_id", "is_error", "text"}`` (the text of all its parts joined)."""
        out = []
        for m in self.messages:
            content = m.get("content")
            if m.get("role") != "user" or not isinstance(content, list):
                continue
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    out.append(
                        {
                            "tool_use_id": b.get("tool_use_id"),
                            "is_error": bool(b.get("is_error")),
                            "text": _text_of(b.get("content")),
                        }
                    )
        return out

    def user_texts(self) -> list[str]:
        """Every text the model was shown outside its own turns (prompts, hook context, system
        reminders, text beside tool results), oldest first. Claude Code sends some context as
        ``role: system`` messages; those are included. Tool result bodies: :meth:`tool_results`."""
        out = []
        for m in self.messages:
            if m.get("role") == "assistant":
                continue
            content = m.get("content")
            if isinstance(content, str):
                out.append(content)
            elif isinstance(content, list):
                out.extend(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
        return out

    def hook_outputs(self) -> list[tuple[str, str, str]]:
        """What hooks told the model, as Claude Code framed it, oldest first: ``(label, kind,
        text)`` where label is ``"SessionStart"``, ``"PreToolUse:Bash"``, ... and kind is
        ``"context"`` (``<label> hook additional context: ...``) or ``"feedback"`` (``<label>
        hook blocking error from command: "...": ...``, e.g. PostToolUse ``decision: block``).

        Claude Code joins several hooks' outputs and its own notes in one message, so each text
        is cut where the next hook's begins, after memory-cli's ``</memory-cli-context>`` when
        it holds one, and otherwise at its first blank line."""
        out = []
        for t in self.user_texts():
            found = list(_HOOK_FRAME.finditer(t))
            for i, m in enumerate(found):
                body = t[m.end() : found[i + 1].start() if i + 1 < len(found) else len(t)]
                close = body.rfind("</memory-cli-context>")
                if close != -1:
                    body = body[: close + len("</memory-cli-context>")]
                elif "\n\n" in body:
                    body = body[: body.index("\n\n")]
                kind = "context" if m.group(2) == "additional context" else "feedback"
                out.append((m.group(1), kind, body.strip()))
        return out

    def hook_contexts(self, event: str) -> list[str]:
        """Additional context from hooks of ``event`` (``"SessionStart"``, ``"PreToolUse"``,
        or with the tool: ``"PreToolUse:Bash"``), oldest first."""
        return [
            text
            for label, kind, text in self.hook_outputs()
            if kind == "context" and event in (label, label.split(":")[0])
        ]

    def hook_feedback(self, event: str) -> list[str]:
        """Blocking feedback from hooks of ``event`` (PostToolUse ``decision: block`` reasons)."""
        return [
            text
            for label, kind, text in self.hook_outputs()
            if kind == "feedback" and event in (label, label.split(":")[0])
        ]

    def shown_text(self) -> str:
        """Everything the model could read in this request (system prompt, all messages, tool
        results) as one string: for "the model was shown X" assertions."""
        if not isinstance(self.body, dict):
            return str(self.body)
        parts = [_text_of(self.body.get("system"))]
        for m in self.messages:
            parts.append(_text_of(m.get("content")))
        return "\n".join(p for p in parts if p)


_HOOK_FRAME = re.compile(
    r'\b([A-Z][A-Za-z]+(?::[^\s:]+)?) hook (additional context|blocking error from command: "[^"\n]*"):\s'
)


def _text_of(content) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        if content.get("type") == "tool_result":
            return _text_of(content.get("content"))
        if content.get("type") == "tool_use":
            return json.dumps(content.get("input"))
        return str(content.get("text", ""))
    if isinstance(content, list):
        return "\n".join(_text_of(c) for c in content)
    return str(content)


# -- the server ---------------------------------------------------------------------------------
class StandIn:
    """The scripted model service. Use as a context manager::

    with StandIn([bash("touch x"), "done"]) as api:
        env["ANTHROPIC_BASE_URL"] = api.url
        ...  # run claude -p
    api.main_requests()[1].tool_results()
    """

    def __init__(
        self,
        script: Iterable = (),
        *,
        subagents: dict[str, Iterable] | None = None,
        side_text: str = "e2e session",
        final_text: str = "Done.",
        max_lifetime_s: float = 600.0,
        summary_text: str = (
            "<analysis>Scripted conversation.</analysis>\n<summary>1. Primary "
            "Request and Intent: a scripted end-to-end test session.</summary>"
        ),
        evaluator=None,
    ):
        self.script = [_blocks(t) for t in script]
        # Subagents (the Task tool) send conversation requests of their own, with their task's
        # prompt as the first user message: those get the turns scripted under that prompt.
        self.subagents = {p: [_blocks(t) for t in turns] for p, turns in (subagents or {}).items()}
        self._sub_turns = {p: 0 for p in self.subagents}
        self.summary_text = summary_text
        # Answers a prompt hook's evaluator (a messages request offering no tools): a callable
        # given the Request, returning the text to answer with, or None for the side text.
        self.evaluator = evaluator
        self.side_text = side_text
        self.final_text = final_text
        self.max_lifetime_s = max_lifetime_s
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._turn = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    # recorded traffic
    def main_requests(self) -> list[Request]:
        return [r for r in self.requests if r.is_main]

    @property
    def turns_used(self) -> int:
        return self._turn

    @property
    def url(self) -> str:
        assert self._server is not None, "the stand-in is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def _subagent_of(self, req: Request) -> str | None:
        msgs = req.messages
        if not self.subagents or not msgs:
            return None
        first = msgs[0].get("content")
        texts = (
            [first]
            if isinstance(first, str)
            else [b.get("text", "") for b in first or [] if isinstance(b, dict) and b.get("type") == "text"]
        )
        for prompt in self.subagents:
            if any(t.strip() == prompt for t in texts):
                return prompt
        return None

    def next_turn(self, req: Request | None = None) -> list[dict]:
        agent = self._subagent_of(req) if req is not None else None
        with self._lock:
            if agent is not None:
                turns, n = self.subagents[agent], self._sub_turns[agent]
                self._sub_turns[agent] = n + 1
                return turns[n] if n < len(turns) else [text(self.final_text)]
            if self._turn < len(self.script):
                blocks = self.script[self._turn]
            else:
                blocks = [text(self.final_text)]
            self._turn += 1
            return blocks

    def start(self) -> StandIn:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep pytest output clean
                pass

            def _record(self) -> Request:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                req = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with standin._lock:
                    standin.requests.append(req)
                return req

            def _send(self, status: int, ctype: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", f"req_e2e{next(_ids):05d}")
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

            def do_POST(self):
                req = self._record()
                path = self.path.split("?")[0]
                body = req.body if isinstance(req.body, dict) else {}
                if path == "/v1/messages/count_tokens":
                    n = max(1, len(json.dumps(body)) // 4)
                    self._send(200, "application/json", json.dumps({"input_tokens": n}).encode())
                    return
                if path != "/v1/messages":
                    self._send(
                        404,
                        "application/json",
                        b'{"type":"error","error":{"type":"not_found_error","message":"not scripted"}}',
                    )
                    return
                if req.is_main:
                    blocks = standin.next_turn(req)
                elif req.is_compaction:
                    blocks = [text(standin.summary_text)]
                elif standin.evaluator is not None and (judged := standin.evaluator(req)) is not None:
                    blocks = [text(judged)]
                else:
                    blocks = [text(standin.side_text)]
                req.answered = blocks
                model = body.get("model") or MODEL
                if body.get("stream"):
                    self._send(200, "text/event-stream", render_stream(blocks, model))
                else:
                    self._send(200, "application/json", json.dumps(render_message(blocks, model)).encode())

            def do_GET(self):
                self._record()
                self._send(
                    404,
                    "application/json",
                    b'{"type":"error","error":{"type":"not_found_error","message":"not scripted"}}',
                )

            do_HEAD = do_GET

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="anthropic-standin", daemon=True
        )
        self._thread.start()
        self._timer = threading.Timer(self.max_lifetime_s, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        server = self._server
        if self._timer is not None:
            self._timer.cancel()
        if server is not None and self._thread is not None and self._thread.is_alive():
            server.shutdown()
            server.server_close()

    def __enter__(self) -> StandIn:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
