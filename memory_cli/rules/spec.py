"""What makes a rule well-formed, and the analysis stored with it.

Everything a person can get wrong is refused here, when the rule is written, with a message
that says what is wrong (an invalid regex names the regex error). The analysis of the pattern
(regex risk and shortcuts, the parsed command pattern) is computed once here and stored, so
that a hook never parses or analyses a pattern.
"""

from __future__ import annotations

import json

from ..errors import InvalidInput

PATTERN_TYPES = ("regex", "command", "intent")
ACTIONS = ("block", "warn", "suggest", "ask")
SEVERITIES = ("critical", "high", "medium", "low")
PROVENANCES = ("manual", "promoted", "imported", "derived")
SEVERITY_UP = {"low": "medium", "medium": "high", "high": "critical", "critical": "critical"}

# Claude Code's tool names; lowercase spellings people type are accepted.
KNOWN_TOOLS = (
    "Bash",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Read",
    "Glob",
    "Grep",
    "WebFetch",
    "WebSearch",
    "Agent",
    "Task",
    "TodoWrite",
)
_TOOL_CASE = {t.lower(): t for t in KNOWN_TOOLS}
HOOK_EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop")


def _choice(value, choices, what: str) -> str:
    v = (value or "").strip().lower()
    if v == "suggest_alternative":  # the spelling of older configs and imports
        v = "suggest"
    if v not in choices:
        raise InvalidInput(f"unknown {what} {value!r}: use {', '.join(choices)}")
    return v


def check_pattern_type(value) -> str:
    return _choice(value, PATTERN_TYPES, "pattern type")


def check_action(value) -> str:
    return _choice(value, ACTIONS, "action")


def check_severity(value) -> str:
    return _choice(value, SEVERITIES, "severity")


def check_provenance(value) -> str:
    return _choice(value, PROVENANCES, "provenance")


def _split_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                raise InvalidInput(f"not a JSON list: {value!r}") from None
        else:
            value = [p for p in text.replace("|", ",").split(",")]
    if not isinstance(value, (list, tuple)):
        raise InvalidInput(f"expected a list, got {value!r}")
    return [str(v).strip() for v in value if str(v).strip()]


def normalize_tools(value) -> list[str]:
    """["Bash", "Write"]; [] means every tool. "*" and "all" also mean every tool."""
    out = []
    for t in _split_list(value):
        if t in ("*", "all", "any"):
            return []
        out.append(_TOOL_CASE.get(t.lower(), t))
    return list(dict.fromkeys(out))


def normalize_fields(value) -> list[str]:
    return list(dict.fromkeys(_split_list(value)))


def normalize_hook_events(value) -> list[str]:
    out = []
    for e in _split_list(value):
        match = next((h for h in HOOK_EVENTS if h.lower() == e.lower()), None)
        if match is None:
            raise InvalidInput(f"unknown hook event {e!r}: use {', '.join(HOOK_EVENTS)}")
        out.append(match)
    return list(dict.fromkeys(out))


def normalize_conditions(value) -> list[dict]:
    """[{field, operator, pattern}], validating operators and regexes."""
    from .conditions import OPERATORS, REGEX_OPERATORS
    from .safe_regex import InvalidRegex, compile_user_regex

    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except ValueError:
            raise InvalidInput(f"conditions are not valid JSON: {value!r}") from None
    out = []
    for c in value:
        if isinstance(c, str):  # FIELD:OPERATOR:PATTERN from the command line
            parts = c.split(":", 2)
            if len(parts) != 3:
                raise InvalidInput(f"condition {c!r}: write FIELD:OPERATOR:PATTERN, e.g. file_path:regex_match:\\.env$")
            c = {"field": parts[0], "operator": parts[1], "pattern": parts[2]}
        elif hasattr(c, "to_dict"):
            c = c.to_dict()
        if not isinstance(c, dict):
            raise InvalidInput(f"condition {c!r} is not a mapping")
        field = str(c.get("field") or "").strip()
        op = str(c.get("operator") or "regex_match").strip()
        pattern = c.get("pattern")
        if not field:
            raise InvalidInput(f"condition {c!r} has no field")
        if op not in OPERATORS:
            raise InvalidInput(f"condition on {field!r}: unknown operator {op!r} (use {', '.join(sorted(OPERATORS))})")
        if pattern is None:
            raise InvalidInput(f"condition on {field!r} has no pattern")
        pattern = str(pattern)
        if op in REGEX_OPERATORS:
            try:
                compile_user_regex(pattern)
            except InvalidRegex as e:
                raise InvalidInput(f"condition on {field!r}: {e}") from None
        out.append({"field": field, "operator": op, "pattern": pattern})
    return out


def check_pattern(pattern, pattern_type: str, *, case_sensitive: bool = False) -> str:
    """Validate a pattern for its type; returns it stripped. Raises InvalidInput."""
    if not isinstance(pattern, str) or not pattern.strip():
        raise InvalidInput("a rule needs a pattern (or content to derive one from)")
    if pattern_type == "regex":
        from .safe_regex import InvalidRegex, compile_user_regex

        try:
            compile_user_regex(pattern, case_sensitive=case_sensitive)
        except InvalidRegex as e:
            raise InvalidInput(str(e)) from None
        return pattern  # regexes keep their whitespace
    if pattern_type == "command":
        from .command_pattern import InvalidCommandPattern, parse_command_pattern

        try:
            parse_command_pattern(pattern)
        except InvalidCommandPattern as e:
            raise InvalidInput(f"invalid command pattern: {e}") from None
    return pattern.strip()


# Version of the stored analysis; an older one is recomputed when the rule set is built
# (2: nested and alternated bounded repeats are classified risky).
ANALYSIS_VERSION = 2


def analyze(
    pattern: str,
    pattern_type: str,
    *,
    case_sensitive: bool = False,
    conditions: list[dict] | None = None,
    vector: bytes | None = None,
) -> dict:
    """The plain-data analysis stored in ``enforcement_rules.analysis``."""
    from .safe_regex import analyze_regex

    out: dict = {"v": ANALYSIS_VERSION}
    if pattern_type == "regex":
        out["regex"] = analyze_regex(pattern, case_sensitive=case_sensitive).to_dict()
    elif pattern_type == "command":
        from .command_pattern import parse_command_pattern

        out["command"] = list(parse_command_pattern(pattern).to_tuple())
    elif pattern_type == "intent" and vector:
        import base64

        out["vector"] = base64.b64encode(vector).decode("ascii")
    conds: list[dict | None] = []
    for c in conditions or []:
        if c["operator"] in ("regex_match", "not_regex_match"):
            conds.append(analyze_regex(c["pattern"]).to_dict())
        else:
            conds.append(None)
    if conds:
        out["conditions"] = conds
    return out


def default_tools(pattern_type: str) -> list[str]:
    return ["Bash"] if pattern_type == "command" else []
