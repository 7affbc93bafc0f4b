"""``memory-cli mcp``: a stdio MCP server named ``memory-cli`` on the official SDK.

Only wiring lives here: each tool validates nothing itself and calls memory_cli.mcp.tools, whose
errors (``MemoryCliError``: bad arguments, unknown ids, a store refused) become MCP tool errors
with the same one-line message the CLI prints. The store is opened once per server process
(WAL; hooks in other processes write concurrently) and used under one lock. No model is
loaded here: ranking asks the embedding daemon for vectors, as the hooks do, and falls back to
keywords when it is cold.
"""

from __future__ import annotations

import threading
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from . import tools

NAME = "memory-cli"
TOOL_NAMES = ("query_memory", "remember", "record_incident", "search_incidents", "resolve_incident",
              "save_report", "get_previous_report", "record_metric", "check_baseline")

INSTRUCTIONS = (
    "memory-cli is this person's local memory for coding sessions. Before repeating a fix or "
    "guessing a convention, query_memory. When something breaks, search_incidents first (has this "
    "happened before?), record_incident once you know the cause, resolve_incident when fixed. Use "
    "check_baseline to tell whether a duration or count is unusual. At the end of a piece of work, "
    "save_report in a few lines so the next session starts from it (get_previous_report).")


class _StoreHolder:
    """One store per server process, opened on first use, used under one lock."""

    def __init__(self, db: str | None):
        self.db = db
        self.lock = threading.Lock()
        self._store = None

    def call(self, fn, *args, **kwargs) -> dict:
        from ..errors import MemoryCliError

        with self.lock:
            try:
                if self._store is None:
                    self._store = open_store(self.db)
                return fn(self._store, *args, **kwargs)
            except MemoryCliError as e:
                raise ToolError(str(e)) from None


def open_store(db: str | None):
    """The store the CLI would use: ``--db``, else ``MEMORY_CLI_DB``, else the config's."""
    from .. import settings as s
    from ..db import Store
    from ..errors import MemoryDisabled

    if s.memory_disabled(db):
        raise MemoryDisabled("memory is disabled (MEMORY_CLI_DB is set but empty)")
    return Store.open(s.database_path(db, s.load()))


def build(db: str | None = None) -> MCPServer:
    holder = _StoreHolder(db)
    app = MCPServer(NAME, instructions=INSTRUCTIONS, log_level="WARNING")
    call = holder.call

    @app.tool()
    def query_memory(query: str, scope: str | None = None, type: str | None = None,
                     limit: int | None = None) -> dict[str, Any]:
        """Search this person's memories (rules, corrections, preferences, facts, patterns,
        decisions), ranked by relevance. Without scope: memories that apply in the current
        project (global + project). type filters one kind; limit 1-50 (default 10)."""
        return call(tools.query_memory, query, scope, type, limit)

    @app.tool()
    def remember(content: str, type: str, scope: str | None = None, category: str | None = None,
                 subject: str | None = None) -> dict[str, Any]:
        """Store a memory for later sessions. type: rule, correction, preference, fact, pattern
        or decision. scope defaults to the current project (or "global", "project:<name>",
        "file:<path>"). Stored unconfirmed at low confidence; secrets are redacted."""
        return call(tools.remember, content, type, scope, category, subject)

    @app.tool()
    def record_incident(title: str, symptoms: str, service: str | None = None,
                        severity: str | None = None, cause: str | None = None,
                        resolution: str | None = None) -> dict[str, Any]:
        """Record something that broke: a one-line title, the symptoms (error text), and when
        known the service, severity (critical/high/medium/low), cause and resolution."""
        return call(tools.record_incident, title, symptoms, service, severity, cause, resolution)

    @app.tool()
    def search_incidents(query: str, status: str | None = None, limit: int | None = None) -> dict[str, Any]:
        """Has this happened before? Past incidents relevant to a symptom or error, best first,
        with cause and resolution. status: open, resolved or all (default all); limit 1-100."""
        return call(tools.search_incidents, query, status, limit)

    @app.tool()
    def resolve_incident(id: str, resolution: str) -> dict[str, Any]:
        """Mark an incident resolved with what fixed it (id or a unique id prefix)."""
        return call(tools.resolve_incident, id, resolution)

    @app.tool()
    def save_report(summary: str, details: str | None = None) -> dict[str, Any]:
        """Save what this session did (a few lines; details optional) for the current project,
        so the next session starts from it."""
        return call(tools.save_report, summary, details)

    @app.tool()
    def get_previous_report(scope: str | None = None) -> dict[str, Any]:
        """The newest session report for the current project (or the given scope); report is
        null when there is none."""
        return call(tools.get_previous_report, scope)

    @app.tool()
    def record_metric(name: str, value: float, unit: str | None = None,
                      scope: str | None = None) -> dict[str, Any]:
        """Record one sample of a metric (a duration, a count, a size) for its baseline."""
        return call(tools.record_metric, name, value, unit, scope)

    @app.tool()
    def check_baseline(name: str, value: float) -> dict[str, Any]:
        """Is this value normal for the metric? Returns normal, the baseline (n, avg, p95, min,
        max) and why. Nothing is called abnormal before enough samples exist."""
        return call(tools.check_baseline, name, value)

    return app


def main(db: str | None = None) -> int:
    build(db).run()
    return 0

