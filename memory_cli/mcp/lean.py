"""``memory-cli mcp``: the stdio MCP server, with what a session needs at once answered without
the MCP SDK.

Claude Code starts the server when a session starts and waits for its handshake before the first
model request; with the ``mcp_tool`` hook route (:mod:`memory_cli.hook_routes`) every gated tool
call waits for it too. Importing the SDK (pydantic models of every protocol type) takes 0.6 s on
an idle machine and seconds on a busy one, all of it on the session's clock. So this loop speaks
the stdio transport (one JSON-RPC message per line) with the standard library:

- ``initialize``, ``ping`` and the lists are answered from ``handshake.json``, the SDK server's own
  answers recorded by ``scripts/gen_hooks_json.py`` (a test holds the two equal);
- ``tools/call`` of the ``hook`` tool runs :func:`memory_cli.hooks.mcp_route.answer` (stdlib and
  apsw, as a hook process);
- any other tool call is handed to the SDK server (:mod:`memory_cli.mcp.server`), imported on the
  first such call: the agent tools behave exactly as before, the first one paying the import.

A hook call is answered at once by the reading loop (hook calls run one at a time anyway);
each agent tool call runs in a thread of its own, so a slow one never holds up a hook. Answers
are written whole, one line each, under a lock.
"""

from __future__ import annotations

import os
import sys
import threading

from ..fastjson import dumps, loads  # the json module without re and enum: a faster start

HANDSHAKE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "handshake.json")
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
EMPTY_LISTS = {
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}


def load_handshake() -> dict:
    with open(HANDSHAKE_FILE, encoding="utf-8") as f:
        return loads(f.read())


class Server:
    """One stdio session: ``mode`` is ``on`` (every tool) or ``off`` (memory turned off: the
    hook tool alone)."""

    def __init__(self, db: str | None, mode: str, out=None) -> None:
        self.db = db
        self.mode = mode
        self.config = os.environ.get("MEMORY_CLI_CONFIG") or None  # as the registration pinned it
        self.handshake = load_handshake()
        self.out = out if out is not None else sys.stdout
        self.write_lock = threading.Lock()
        self.sdk_lock = threading.Lock()
        self.threads: list[threading.Thread] = []

    def send(self, message: dict) -> None:
        line = dumps(message, ensure_ascii=False, compact=True) + "\n"
        with self.write_lock:
            try:
                self.out.write(line)
                self.out.flush()
            except (BrokenPipeError, ValueError):  # the client is gone: nobody to answer
                pass

    def reply(self, rid, result: dict) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def error(self, rid, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def handle(self, message: dict) -> None:
        method = message.get("method")
        rid = message.get("id")
        if "id" not in message or not isinstance(method, str):
            return  # a notification (initialized, cancelled) or a response: nothing to answer
        params = message.get("params") or {}
        side = self.handshake[self.mode]
        if method == "initialize":
            asked = params.get("protocolVersion") if isinstance(params, dict) else None
            versions = self.handshake["versions"]
            version = asked if asked in versions else self.handshake["latest"]
            result = {"protocolVersion": version, **side["initialize"]}
            if self.mode == "on" and isinstance(result.get("instructions"), str):
                from .hooks_gone import instructions

                result["instructions"] = instructions(result["instructions"])
            self.reply(rid, result)
        elif method == "ping":
            self.reply(rid, {})
        elif method == "tools/list":
            self.reply(rid, {"tools": side["tools"]})
        elif method in EMPTY_LISTS:
            self.reply(rid, {EMPTY_LISTS[method]: []})
        elif method == "tools/call" and isinstance(params, dict) and params.get("name") == "hook":
            self.call(rid, params)  # at once: hook calls run one at a time anyway (hooks.mcp_route)
        elif method == "tools/call" and isinstance(params, dict):
            t = threading.Thread(target=self.call, args=(rid, params), daemon=True)
            self.threads.append(t)
            t.start()
        else:
            self.error(rid, METHOD_NOT_FOUND, f"Method not found: {method}")

    def call(self, rid, params: dict) -> None:
        name = params.get("name")
        arguments = params.get("arguments") or {}
        try:
            if name == "hook":
                result = self.hook(arguments)
            elif self.mode == "on" and any(t["name"] == name for t in self.handshake["on"]["tools"]):
                result = self.agent_tool(str(name), arguments)
            else:
                result = _text(f"Unknown tool: {name}", error=True)
        except Exception as e:  # noqa: BLE001 - one bad call is its own error, the server goes on
            result = _text(f"Error executing tool {name}: {type(e).__name__}: {e}", error=True)
        self.reply(rid, result)

    def hook(self, arguments: dict) -> dict:
        from ..hook_routes import ALL_FIELDS
        from ..hooks.mcp_route import answer

        event = arguments.get("event")
        if not isinstance(event, str):
            return _text("Error executing tool hook: invalid arguments: event: Field required", error=True)
        fields = {k: arguments[k] for k in ALL_FIELDS if isinstance(arguments.get(k), str)}
        return _text(answer(event, fields, db=self.db, config=self.config))

    def agent_tool(self, name: str, arguments: dict) -> dict:
        """The SDK server's own answer (imported on the first agent tool call)."""
        import asyncio

        with self.sdk_lock:
            from . import server

            server._db_override = self.db
            server._config_pin = self.config

        async def run() -> dict:
            try:
                result = await server.app.call_tool(name, arguments)
            except Exception as exc:  # noqa: BLE001 - what the SDK's handler turns into a tool error
                return _text(str(exc), error=True)
            return result.model_dump(by_alias=True, mode="json", exclude_none=True)

        return asyncio.run(run())

    def serve(self, stdin=None) -> None:
        stdin = stdin if stdin is not None else sys.stdin
        for line in stdin:
            line = line.strip()
            if not line:
                continue
            try:
                message = loads(line)
            except ValueError:
                self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
                continue
            for m in message if isinstance(message, list) else [message]:
                if isinstance(m, dict):
                    self.handle(m)
        for t in self.threads:  # the client closed its end: finish what was asked, then exit
            t.join(timeout=10)


def _text(text: str, error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def main(db: str | None = None) -> int:
    """Check the store once (refused: the one-line error and exit code of any command, before
    the handshake), then serve until the client closes stdin. With memory turned off
    (``MEMORY_CLI_DB=""``) touch no store and offer only the hook tool."""
    from .. import settings

    mode = "off" if settings.memory_disabled(db) else "on"
    if mode == "on":
        from ..errors import StoreRefused
        from ..store.db import Store

        try:
            Store.open(settings.database_path(db, settings.load()), busy_timeout_ms=250).close()
        except StoreRefused as e:
            if "locked" not in str(e).lower() and type(e).__name__ != "StoreReplaced":
                raise
            # Held by another process, or written over: serve anyway. The session's gate is this
            # server's hook tool, and each call it answers then says why it is refused (and runs
            # once the lock is gone); a server that never started would block every call with
            # no reason.
            pass
    try:
        Server(db, mode).serve()
    except KeyboardInterrupt:  # Claude Code ends its servers with SIGINT at the session's end
        pass
    return 0
