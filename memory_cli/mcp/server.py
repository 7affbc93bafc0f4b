"""The stdio MCP server ``memory-cli`` (Claude Code names its tools ``mcp__memory-cli__<tool>``).

Each call opens the store, calls one domain function and closes it, so the server holds no lock
between calls and sees every write a hook or the CLI made meanwhile. Results are JSON objects.
Bad arguments become tool errors with one clear line; nothing an agent writes is confirmed or
pinned, and no tool deletes anything. Semantic ranking goes through the embedding daemon, as in
the hooks: the server itself never imports the model, so it starts in well under a second.
"""

from __future__ import annotations

import functools
import os

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from .. import entries
from .. import scope as scopes
from ..baselines import api as baselines
from ..errors import MemoryCliError
from ..incidents import api as incidents
from ..reports import api as reports
from ..retrieval.search import look_up
from . import hook_tool

NAME = "memory-cli"
ENTRY_FIELDS = (
    "id",
    "content",
    "type",
    "scope",
    "category",
    "subject",
    "confidence",
    "source",
    "origin",
    "requested_scope",
    "score",
)
AGENT_CONFIDENCE = 0.5
# How long record_correction waits for the embedding daemon to rank the closest lessons by
# meaning; without an answer, words alone rank them.
LESSON_EMBED_MS = 1500.0


class _Server(MCPServer):
    """MCPServer whose argument-validation errors are one line naming each bad field
    ("value: Input should be a valid number"), like every other tool error here, instead of
    pydantic's multi-line report with documentation links."""

    async def call_tool(self, name, arguments, context=None):
        from pydantic import ValidationError

        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if not isinstance(e.__cause__, ValidationError):
                raise
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in e.__cause__.errors()
            )
            raise ToolError(f"Error executing tool {name}: invalid arguments: {problems}") from None


app = _Server(
    NAME,
    instructions=(
        "Local memory for this project: rules, corrections, preferences, facts, decisions; an incident "
        "journal; session reports; metric baselines. Ask before guessing: query_memory for how things are "
        "done here, search_incidents when something fails, get_previous_report at the start of work, "
        "check_baseline when a run seems slow."
    ),
)


_db_override: str | None = None  # the CLI's --db
_config_pin: str | None = None  # MEMORY_CLI_CONFIG as the server's registration set it


def _pins() -> tuple[str | None, str | None]:
    return _db_override, _config_pin


hook_tool.register(app, _pins)  # Claude Code's mcp_tool hooks (kept from the model)


def _db() -> str:
    from .. import settings

    if settings.memory_disabled(_db_override):
        raise ToolError("memory is disabled (MEMORY_CLI_DB is set but empty)")
    return settings.database_path(_db_override, settings.load())


def _call(fn):
    """Run ``fn(store)`` in one short-lived connection; domain errors become tool errors."""
    from ..store.db import Store

    try:
        with Store.open(_db()) as store:
            return fn(store)
    except MemoryCliError as e:
        raise ToolError(str(e)) from None


def _project_scope() -> str:
    name = scopes.project_name(scopes.find_project_root(os.getcwd()))
    return f"project:{name}" if name else "global"


def _checkout_scope() -> str:
    """Where what the agent writes here is kept: this checkout, not every folder of its name."""
    return scopes.checkout(scopes.find_project_root(os.getcwd())) or "global"


def _scope(value: str | None, default: str | None, here=None) -> str | None:
    if value is None or value == "":
        return default
    if value.strip().lower() == "project":
        return (here or _project_scope)()
    try:
        return scopes.parse(value)
    except MemoryCliError as e:
        raise ToolError(str(e)) from None


def _entry(e: dict) -> dict:
    return {k: e.get(k) for k in ENTRY_FIELDS if k in e}


@app.tool()
def query_memory(query: str, scope: str | None = None, type: str | None = None, limit: int = 5) -> dict:
    """Memories relevant to `query`, best first, each with a 0-1 relevance `score`. `scope`:
    global, project (this project, the default), project:<name> or file:<path>; `type`: rule,
    correction, preference, fact, pattern or decision."""
    if not query or not query.strip():
        raise ToolError("query is empty")
    if not isinstance(limit, int) or limit < 1 or limit > 50:
        raise ToolError(f"limit must be between 1 and 50, got {limit!r}")
    sc = _scope(scope, _project_scope())
    root = scopes.find_project_root(os.getcwd()) if sc == _project_scope() else None
    found = _call(lambda s: look_up(s, query, scope=sc, type=type, limit=limit, root=root))
    return {"memories": [_entry(e) for e in found], "scope": sc}


@app.tool()
def remember(
    content: str, type: str, scope: str | None = None, category: str | None = None, subject: str | None = None
) -> dict:
    """Store a memory (secrets are redacted). `type`: rule, correction, preference, fact, pattern
    or decision; `scope` defaults to this checkout (`repo:<its root>`). It is stored unconfirmed,
    at confidence 0.5, with source `agent`. It applies in this checkout only (not in another
    folder of the same name): a wider scope (global, a project) is kept as `requested_scope` and
    waits for the person in `memory-cli review`."""
    home = _checkout_scope()
    sc = _scope(scope, home, _checkout_scope)
    entry = _call(
        lambda s: entries.add(
            s,
            content,
            type,
            scope=sc,
            source="agent",
            confidence=AGENT_CONFIDENCE,
            category=category,
            subject=subject,
            agent="mcp",
            home_scope=None if home == "global" else home,
        )
    )
    return {"stored": _entry(entry)}


@app.tool()
def record_correction(
    quote: str,
    lesson: str,
    wrong: str | None = None,
    right: str | None = None,
    kind: str | None = None,
    same_as: str | None = None,
) -> dict:
    """Record what the person just taught you, when they correct how you work, state a standing
    rule, or again give an instruction on how to work they gave before (not a new task, a
    question or praise). One call per instruction: a prompt that gives two is two calls, each
    quoting its own words. `quote`: the person's words, verbatim (leave
    words out with "..."); `lesson`: one line, what to do instead; optional `wrong` (what you did),
    `right` (what they want), `kind`: pushback or standing; `same_as`: the id of a lesson already
    recorded here when the person is saying that again (the answer lists the closest ones: if one
    of them is what they meant, call again with its id as `same_as`). A quote the person did not
    type in this project is refused. Taught again, it is proposed to the person in
    `memory-cli review`; nothing applies before they approve it."""
    from ..capture.lesson_answer import answer
    from ..review import LessonRefused, record_lesson

    project = scopes.project_name(scopes.find_project_root(os.getcwd()))

    def record(store):
        try:
            out = record_lesson(
                store,
                quote=quote,
                lesson=lesson,
                wrong=wrong,
                right=right,
                kind=kind,
                project=project,
                agent="mcp",
                via="mcp",
                settings=_settings(),
                same_as=same_as,
            )
        except LessonRefused as e:
            raise ToolError(str(e)) from None
        return answer(store, out, lesson=lesson, project=project, same_as=same_as, embed=_lesson_embedder())

    return _call(record)


@functools.cache
def _lesson_embedder():
    """The embedding daemon for ranking the closest lessons, remembering each lesson's vector
    for the life of this server: a lesson is embedded once, not at every call (a few hundred
    milliseconds for a few dozen waiting lessons)."""
    from ..capture.semantic import daemon_embedder, remembering

    return remembering(daemon_embedder(LESSON_EMBED_MS))


def _settings():
    from .. import settings

    try:
        return settings.load()
    except Exception:  # a broken config: the defaults (capture's thresholds)
        return None


@app.tool()
def record_incident(
    title: str,
    symptoms: str,
    service: str | None = None,
    severity: str | None = None,
    cause: str | None = None,
    resolution: str | None = None,
) -> dict:
    """Record what went wrong and how it showed (and, if known, why and what fixed it), so the
    next occurrence finds it. `severity`: critical, high, medium (default) or low; alerting
    words are mapped (fatal/P1 critical, error/major high, warning medium, info/minor low)."""
    sc = _project_scope()
    inc = _call(
        lambda s: incidents.record(
            s, title, symptoms, service=service, severity=severity, cause=cause, resolution=resolution, scope=sc
        )
    )
    return {"incident": inc}


@app.tool()
def search_incidents(
    query: str = "", status: str | None = None, limit: int = 5, service: str | None = None, alert: str | None = None
) -> dict:
    """Has this happened before? Incidents like `query` (symptoms, an error message), best first,
    with their cause and resolution. `status`: open or resolved. `service`: only that service's;
    `alert`: only those naming that alert (title or symptoms); with either, `query` may be empty
    (then newest first)."""
    found = _call(lambda s: incidents.search(s, query, status=status, limit=limit, service=service, alert=alert))
    return {"incidents": found}


@app.tool()
def resolve_incident(id: str, resolution: str) -> dict:
    """Mark incident `id` (or a unique prefix of at least 4 characters) resolved with what fixed it."""
    return {"incident": _call(lambda s: incidents.resolve(s, id, resolution))}


@app.tool()
def save_report(summary: str, details: str | None = None) -> dict:
    """Save a few lines on what this session did, so the next session here starts from it."""
    sc = _checkout_scope()
    return {"report": _call(lambda s: reports.save_report(s, summary, details=details, scope=sc))}


@app.tool()
def get_previous_report(scope: str | None = None) -> dict:
    """The latest session report of this checkout (or of `scope`), or null when there is none."""
    sc = _scope(scope, _checkout_scope(), _checkout_scope)
    return {"report": _call(lambda s: reports.previous_report(s, sc)), "scope": sc}


@app.tool()
def record_metric(name: str, value: float, unit: str | None = None, scope: str | None = None) -> dict:
    """Add a sample of metric `name` (a test run's seconds, a build's size) to its baseline."""
    sc = _scope(scope, "global")
    return {"recorded": _call(lambda s: baselines.record(s, name, value, unit=unit, scope=sc))}


@app.tool()
def check_baseline(name: str, value: float) -> dict:
    """Is `value` normal for metric `name`? Answers {"normal", "baseline": {"n", "median", "mad",
    "avg", "p95", "min", "max"}, "why"}, judged by median and MAD so one past hang does not hide
    a new one; with fewer than 5 samples nothing is called abnormal."""
    return _call(lambda s: baselines.check(s, name, value))


def main(db: str | None = None) -> int:
    """Check the store once (refused: the one-line error and exit code of any command, before
    Claude Code's handshake), then serve on stdin/stdout until the client closes them. With
    memory turned off (``MEMORY_CLI_DB=""``) serve no tools, touch no store, and exit 0."""
    global _db_override, _config_pin
    from .. import settings
    from ..store.db import Store

    _db_override = db
    _config_pin = hook_tool.config_pin()
    if settings.memory_disabled(db):
        # Turned off on purpose, not broken: a server that fails to start is shown to the
        # person as a failure, so serve one that offers no agent tools and says why. Its hook
        # tool stays: the rules a pinned hook enforces hold with memory off.
        off = _Server(NAME, instructions=OFF_INSTRUCTIONS)
        hook_tool.register(off, _pins)
        off.run("stdio")
        return 0
    Store.open(settings.database_path(db, settings.load())).close()
    app.run("stdio")
    return 0


OFF_INSTRUCTIONS = (
    "memory-cli's memory is turned off (MEMORY_CLI_DB is set but empty), so this server offers no "
    "tools; unset MEMORY_CLI_DB to turn it on."
)
