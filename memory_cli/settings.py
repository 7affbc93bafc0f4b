"""Configuration: one table of every key, read cheaply on the hook path.

``FIELDS`` is the single source of truth and :func:`check_value` the one validator.
``config.example.json`` and the table in docs/configuration.md are generated from it. The CLI
validates a file strictly with :func:`validate` (an unknown key is an error, so a typo such as
``max_token`` is caught instead of ignored), and hooks use :func:`load`, which never raises: a
broken config must not block a tool call, so a bad key falls back to its default and the problem
is reported for the audit log and ``memory-cli doctor``.
"""

from __future__ import annotations

import os

from . import paths

# (section, key, type, default, constraint, help)
# constraint: None | ("range", lo, hi) | ("choices", (...)) | ("min", lo)
FIELDS: list[tuple] = [
    (
        None,
        "database_path",
        "path?",
        None,
        None,
        "SQLite file. null = <claude dir>/memory/memory.db. Overridden by --db and MEMORY_CLI_DB "
        "(set but empty disables memory).",
    ),
    (
        "embedding",
        "model",
        "str",
        "all-MiniLM-L6-v2",
        None,
        "Model name (the packaged all-MiniLM-L6-v2) or a local model directory.",
    ),
    (
        "embedding",
        "backend",
        "str",
        "auto",
        ("choices", ("auto", "numpy", "sentence-transformers")),
        "What runs the model: numpy (light, installed by default) or sentence-transformers "
        "(PyTorch: the [semantic] extra); auto picks numpy when it can run the model.",
    ),
    ("injection", "max_entries", "int", 15, ("range", 0, 200), "Most memories injected at session start."),
    (
        "injection",
        "max_tokens",
        "int",
        2000,
        ("range", 0, 20000),
        "Token budget (characters/4) of the session-start injection. Env MEMORY_CLI_BUDGET overrides.",
    ),
    (
        "injection",
        "similarity_threshold",
        "float",
        0.6,
        ("range", 0.0, 1.0),
        "Relevance (0-1 hybrid score) a memory needs to be injected beside a prompt or query.",
    ),
    (
        "injection",
        "always_include_scopes",
        "list[str]",
        ["global"],
        None,
        "Scopes whose memories apply in every session: their rules, corrections and preferences are always injected, other memories when relevant to the session. Project names are normalised as in every scope (`project:Tooling V2` is `project:tooling`).",
    ),
    (
        "injection",
        "min_confidence",
        "float",
        0.3,
        ("range", 0.0, 1.0),
        "Memories below this confidence are kept but never injected.",
    ),
    ("injection", "per_prompt_max_entries", "int", 3, ("range", 0, 50), "Most memories added beside a single prompt."),
    (
        "injection",
        "per_prompt_max_tokens",
        "int",
        300,
        ("range", 0, 5000),
        "Token budget for memories added beside a single prompt.",
    ),
    (
        "retrieval",
        "keyword_weight",
        "float",
        0.6,
        ("range", 0.0, 1.0),
        "Share of keyword (BM25) evidence in the hybrid score; the rest is vector similarity.",
    ),
    (
        "retrieval",
        "confidence_weight",
        "float",
        0.3,
        ("range", 0.0, 1.0),
        "How much confidence scales relevance (0 = ignored, 1 = score x confidence).",
    ),
    (
        "retrieval",
        "recency_weight",
        "float",
        0.1,
        ("range", 0.0, 1.0),
        "How much age lowers relevance (0 = ignored; half-life 90 days since last reinforcement).",
    ),
    ("enforcement", "enabled", "bool", True, None, "Check tool calls against rules before they run."),
    (
        "enforcement",
        "max_latency_ms",
        "int",
        100,
        ("range", 1, 60000),
        "Budget (from the start of the PreToolUse check) for work whose cost can be large: risky "
        "regexes, inputs past a size, intent rules. Cheap rules are always decided; what the budget "
        "skips is allowed and audited, except a block (ask) rule whose text is in the call: it "
        "denies (asks) and says why (see rules.md).",
    ),
    (
        "enforcement",
        "default_action",
        "str",
        "warn",
        ("choices", ("block", "warn", "suggest", "ask")),
        "Action of a rule added without --action.",
    ),
    (
        "enforcement",
        "rewrite_to_alternative",
        "bool",
        False,
        None,
        "Claude Code only: a block or ask rule whose alternative names a replacement for its own "
        "words (`use pnpm` on `npm`) rewrites a plain call to it (`updatedInput`) and asks, so you "
        "see the rewritten call before it runs; a rewritten call another rule would stop is denied.",
    ),
    (
        "enforcement",
        "hook_route",
        "str",
        "auto",
        ("choices", ("auto", "mcp_tool", "command")),
        "Claude Code: how `install` registers the per-call events (PreToolUse, PostToolUse, "
        "PostToolUseFailure, PermissionDenied). mcp_tool: answered by memory-cli's running MCP "
        "server, no process per call, and a gated call is blocked while the server cannot answer; "
        "command: a hook process per call; auto: mcp_tool when the MCP server is registered.",
    ),
    (
        "enforcement",
        "headless_ask",
        "str",
        "refuse",
        ("choices", ("refuse", "defer")),
        "An ask rule in a Claude Code session nobody attends (`claude -p`): refuse (the call is "
        "refused and the model reads the rule) or defer (the run stops with the call pending, "
        "`stop_reason: tool_deferred`, to be decided and resumed).",
    ),
    (
        "enforcement",
        "intent_threshold",
        "float",
        0.6,
        ("range", 0.0, 1.0),
        "Cosine similarity (all-MiniLM-L6-v2) between a call's description or command and an intent "
        "rule at which the rule warns. Intent rules never block.",
    ),
    ("capture", "enabled", "bool", True, None, "Detect corrections in prompts."),
    (
        "capture",
        "auto_promote_threshold",
        "int",
        3,
        ("range", 1, 100),
        "Occurrences after which a correction is proposed as a rule.",
    ),
    (
        "capture",
        "min_sessions",
        "int",
        2,
        ("range", 1, 100),
        "Distinct sessions a correction must appear in before promotion.",
    ),
    (
        "capture",
        "agent_lessons",
        "bool",
        True,
        None,
        "Teach the agent at session start to record the person's corrections itself (the "
        "record_correction tool or a [LESSON: ...] line), each checked against what the person "
        "typed; the hook then tells it nothing of its own detections.",
    ),
    (
        "pinning",
        "max_pinned",
        "int",
        20,
        ("range", 1, 200),
        "Most pinned entries; pinning one more unpins the least recently used.",
    ),
    ("pinning", "sync_target", "str", "CLAUDE.md", None, "File name the pinned block is written into."),
    (
        "protection",
        "enabled",
        "bool",
        True,
        None,
        "Ask before an agent's tool call changes memory-cli's own state (the store, its caches, this "
        "config, the spool, the agents' settings holding memory-cli's hooks, .claude/memory-cli.toml) "
        "or runs a memory-cli command that weakens enforcement; Codex and Gemini are denied (they cannot ask headless). "
        "Read from this file only, never from the environment (see trust.md).",
    ),
    ("verification", "enabled", "bool", True, None, "Check tool results against rules after they run."),
    (
        "verification",
        "max_latency_ms",
        "int",
        200,
        ("range", 1, 60000),
        "Budget (from the start of the PostToolUse check) for work whose cost can be large; cheap "
        "rules are always decided; what the budget skips is audited.",
    ),
    (
        "verification",
        "escalate_after",
        "int",
        3,
        ("range", 1, 1000),
        "A rule's severity rises one level after more than this many violations (and every N+1 after).",
    ),
    (
        "decay",
        "inactive_days",
        "int",
        30,
        ("range", 1, 3650),
        "Grace period: days without use or reinforcement before confidence starts to decay.",
    ),
    ("decay", "decay_rate", "float", 0.1, ("range", 0.0, 1.0), "Confidence lost per week past the grace period."),
    (
        "decay",
        "archive_threshold",
        "float",
        0.1,
        ("range", 0.0, 1.0),
        "Below this confidence a decayed entry is archived (never deleted).",
    ),
    ("backup", "enabled", "bool", True, None, "Make automatic backups."),
    ("backup", "max_backups", "int", 7, ("range", 1, 1000), "Backups kept; older ones are removed."),
    ("backup", "directory", "path?", None, None, "Backup folder. null = <claude dir>/memory/backups."),
    ("daemon", "autostart", "bool", True, None, "SessionStart starts the embedding daemon when it is not running."),
    ("daemon", "idle_timeout_s", "int", 900, ("range", 5, 86400), "The daemon exits after this many idle seconds."),
    (
        "daemon",
        "request_timeout_ms",
        "int",
        150,
        ("range", 1, 10000),
        "Hard limit for a hook's request to the daemon; past it the hook uses keyword search.",
    ),
    (
        "audit",
        "retention_days",
        "int",
        90,
        ("range", 1, 36500),
        "Audit-log rows older than this are removed by maintenance.",
    ),
    (
        "maintenance",
        "enabled",
        "bool",
        True,
        None,
        "SessionStart/SessionEnd start the daily maintenance run (decay, backup, audit retention) in a detached process.",
    ),
    (
        "maintenance",
        "time_limit_s",
        "int",
        120,
        ("range", 5, 3600),
        "The detached maintenance run stops after this many seconds.",
    ),
    (
        "llm",
        "provider",
        "str",
        "none",
        ("choices", ("none", "anthropic", "claude-cli", "openai-compatible")),
        "Who writes session memories and compacts: none (local extractive reader; nothing leaves the "
        "machine), anthropic (the API, ANTHROPIC_API_KEY), claude-cli (your own `claude -p`) or "
        "openai-compatible (any chat-completions server at llm.base_url: Ollama or llama.cpp on 127.0.0.1, "
        "or a hosted endpoint).",
    ),
    (
        "llm",
        "model",
        "str?",
        None,
        None,
        "Model name for the provider; null = claude-haiku-4-5 (anthropic), claude's own default (claude-cli) "
        "or the server's default (openai-compatible).",
    ),
    ("llm", "timeout_s", "int", 30, ("range", 1, 600), "Seconds one LLM request may take."),
    ("llm", "retries", "int", 1, ("range", 0, 5), "Retries after a timeout, a 429 or a 5xx answer (with backoff)."),
    (
        "llm",
        "max_calls_per_day",
        "int",
        50,
        ("range", 0, 100000),
        "Most LLM requests per UTC day (retries count); past it the local fallbacks run.",
    ),
    (
        "llm",
        "max_input_tokens",
        "int",
        16000,
        ("range", 2000, 1000000),
        "Largest request in all (system prompt, existing memories, transcript, answer schema), in "
        "estimated tokens; a longer session keeps the person's words, failures and what ended them, "
        "and the agent's conclusions first (see llm.md).",
    ),
    (
        "llm",
        "daily_token_cap",
        "int",
        150000,
        ("range", 0, 100000000),
        "Most tokens (sent and received) the model requests may spend per UTC day; a request that "
        "would pass it is not sent, the local reader writes that session's report with a note.",
    ),
    (
        "llm",
        "exclude_projects",
        "list[str]",
        [],
        None,
        "Projects (names, paths or globs) whose transcripts are never sent to a provider.",
    ),
    (
        "llm",
        "session_end",
        "bool",
        True,
        None,
        "SessionEnd queues the transcript and the detached job writes its memories.",
    ),
    ("llm", "claude_command", "str", "claude", None, "The Claude Code executable the claude-cli provider runs."),
    (
        "llm",
        "base_url",
        "str?",
        None,
        None,
        "The openai-compatible provider's server, up to /v1 (http://127.0.0.1:11434/v1 for Ollama); "
        "plain http only to 127.0.0.1.",
    ),
    (
        "llm",
        "api_key_env",
        "str",
        "OPENAI_API_KEY",
        None,
        "The environment variable holding the openai-compatible server's key (none sent when it is unset).",
    ),
    (
        "limits",
        "per_scope",
        "int",
        100,
        ("range", 1, 100000),
        "Most automatic memories (sources session and marker) per scope; past it compaction runs.",
    ),
    (
        "team",
        "auto_sync",
        "bool",
        True,
        None,
        "When this store has joined a team store, SessionStart and SessionEnd start a sync in a detached process.",
    ),
    (
        "team",
        "sync_interval_s",
        "int",
        300,
        ("range", 10, 86400),
        "SessionStart starts an automatic team sync at most this often (SessionEnd always does).",
    ),
]

# Keys earlier versions wrote into config files and nothing reads any more: accepted and ignored,
# so a config copied from an old example keeps validating.
RETIRED = {
    "embedding.provider",
    "embedding.dimensions",
    "embedding.fallback_provider",
    "embedding.fallback_model",
    "capture.detection_mode",
    "backup.frequency",
}

_TYPES: dict[str, type | tuple[type, ...]] = {"str": str, "int": int, "float": (int, float), "bool": bool}


def defaults() -> dict:
    out: dict = {}
    for section, key, _t, default, _c, _h in FIELDS:
        target = out if section is None else out.setdefault(section, {})
        target[key] = list(default) if isinstance(default, list) else default
    return out


_DEFAULT_BY_NAME: dict | None = None


def value(settings, name: str):
    """The configured value of ``name`` (``"section.key"``, or a top-level key), else the default
    the field table gives it.

    The one way to read a setting: callers name the key and never repeat its default, so a
    default changes in ``FIELDS`` alone. ``settings`` may be a :class:`Settings`, a plain dict of
    sections (tests, the CLI's validated files) or None (every default: so does anything else). An unknown name is a
    programming error and raises KeyError.
    """
    global _DEFAULT_BY_NAME
    if _DEFAULT_BY_NAME is None:
        _DEFAULT_BY_NAME = {
            (key if section is None else f"{section}.{key}"): d for section, key, _t, d, _c, _h in FIELDS
        }
    default = _DEFAULT_BY_NAME[name]
    section, _, key = name.rpartition(".")
    src = settings if isinstance(settings, dict) else {}
    if section:
        src = src.get(section) or {}
    if isinstance(src, dict) and key in src:
        return src[key]
    return list(default) if isinstance(default, list) else default


def check_value(type_: str, constraint, value):
    """Return an error message for ``value`` or None: the one value check that hooks
    (lenient) and the CLI (strict) both use."""
    optional = type_.endswith("?")
    base = type_.rstrip("?")
    if value is None:
        return None if optional else "must not be null"
    if base == "path":
        base = "str"
    if base == "list[str]":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return "must be a list of strings"
        return None
    expected = _TYPES[base]
    if isinstance(value, bool) and base != "bool":
        return f"must be {base}, not a boolean"
    if not isinstance(value, expected):
        return f"must be {base}, got {type(value).__name__}"
    if constraint:
        kind = constraint[0]
        if kind == "range" and not (constraint[1] <= value <= constraint[2]):
            return f"must be between {constraint[1]} and {constraint[2]}, got {value}"
        if kind == "choices" and value not in constraint[1]:
            return f"must be one of {', '.join(map(str, constraint[1]))}, got {value!r}"
    return None


class Settings(dict):
    """The merged configuration (a dict of sections) plus the problems met while loading."""

    path: str | None = None
    problems: list[str]

    def section(self, name: str) -> dict:
        return self.get(name, {})


def load(path=None) -> Settings:
    """Lenient load for hooks: never raises, bad keys keep their default and are reported."""
    s = Settings(defaults())
    s.problems = []
    p = os.fspath(path) if path is not None else paths.config_file()
    s.path = p
    try:
        with open(p, encoding="utf-8") as f:
            raw = f.read()
    except FileNotFoundError:
        return s
    except OSError as e:
        s.problems.append(f"config {p}: cannot read ({e.strerror})")
        return s
    try:
        from .fastjson import loads

        data = loads(raw)
    except ValueError as e:
        s.problems.append(f"config {p}: not valid JSON ({e})")
        return s
    if not isinstance(data, dict):
        s.problems.append(f"config {p}: top level must be an object")
        return s
    for section, key, type_, _d, constraint, _h in FIELDS:
        src = data if section is None else data.get(section)
        if not isinstance(src, dict) or key not in src:
            continue
        name = key if section is None else f"{section}.{key}"
        err = check_value(type_, constraint, src[key])
        if err:
            s.problems.append(f"config key {name} {err}; using the default")
            continue
        target = s if section is None else s[section]
        target[key] = src[key]
    return s


def validate(data, where: str = "config") -> tuple[dict, list[str]]:
    """Strict check of a parsed config: returns (settings, notes) or raises InvalidInput naming
    every bad or unknown key. ``notes`` lists retired keys that are ignored."""
    from .errors import InvalidInput

    if not isinstance(data, dict):
        raise InvalidInput(f"{where}: the top level must be a JSON object")
    known = {(sec, key): (t, c) for sec, key, t, _d, c, _h in FIELDS}
    sections = {sec for sec, *_ in FIELDS if sec}
    out, problems, notes = defaults(), [], []

    def check(section, key, value):
        name = key if section is None else f"{section}.{key}"
        if key.startswith("_"):
            return
        if name in RETIRED:
            notes.append(f"{name} is no longer used and is ignored")
            return
        if (section, key) not in known:
            problems.append(f"{name}: unknown key")
            return
        err = check_value(*known[(section, key)], value)
        if err:
            problems.append(f"{name}: {err}")
        elif section is None:
            out[key] = value
        else:
            out[section][key] = value

    for key, value in data.items():
        if key in sections:
            if not isinstance(value, dict):
                problems.append(f"{key}: must be an object")
                continue
            for sub, sub_value in value.items():
                check(key, sub, sub_value)
        else:
            check(None, key, value)
    if problems:
        raise InvalidInput(f"{where}: " + "; ".join(problems))
    return out, notes


def validate_file(path) -> tuple[dict, list[str]]:
    """:func:`validate` on a file; a missing file is the defaults."""
    import json  # the CLI's path: hooks read the config through load()

    from .errors import InvalidInput

    p = os.fspath(path)
    try:
        with open(p, encoding="utf-8") as f:
            raw = f.read()
    except FileNotFoundError:
        return defaults(), []
    except OSError as e:
        raise InvalidInput(f"cannot read config {p}: {e.strerror}") from None
    try:
        data = json.loads(raw)
    except ValueError as e:
        raise InvalidInput(f"config {p} is not valid JSON: {e}") from None
    return validate(data, p)


def token_budget(settings: dict) -> int:
    """Session-start budget: ``MEMORY_CLI_BUDGET`` beats the config (a per-shell override)."""
    env = os.environ.get("MEMORY_CLI_BUDGET")
    if env:
        try:
            budget = int(env)
            if budget >= 0:
                return budget
        except ValueError:
            pass
    return int(value(settings, "injection.max_tokens"))


def memory_disabled(cli_db: str | None = None) -> bool:
    """``MEMORY_CLI_DB`` set but empty switches memory off (unless ``--db`` names a file)."""
    return cli_db is None and os.environ.get("MEMORY_CLI_DB") == ""


def database_path(cli_db: str | None = None, settings: dict | None = None) -> str:
    """``--db`` beats ``MEMORY_CLI_DB`` beats config ``database_path`` beats the default."""
    if cli_db:
        return paths.expand_str(cli_db)
    env = os.environ.get("MEMORY_CLI_DB")
    if env:
        return paths.expand_str(env)
    configured = (settings or {}).get("database_path")
    if configured:
        return paths.expand_str(configured)
    return paths.default_db_file()
