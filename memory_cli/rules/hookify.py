"""Reading Anthropic hookify rule files (``.claude/hookify.<name>.local.md``).

People who already wrote hookify rules should not have to rewrite them. A rule file is
markdown with a YAML frontmatter::

    ---
    name: warn-env-edits
    enabled: true
    event: file            # bash | file | stop | prompt | all
    action: warn           # warn (default) | block
    conditions:            # all must match; or a single `pattern:` instead
      - field: file_path
        operator: regex_match
        pattern: \\.env$
    ---
    The markdown body is the message.

The frontmatter is read by a small parser for exactly this subset (scalars, quoted strings,
booleans, block scalars, lists of scalars or of mappings, hookify's inline ``- a: x, b: y``
items) so that importing never needs PyYAML. Unquoted values are kept verbatim (hookify
does not strip ``#`` comments from values, and regexes often contain ``#``); double-quoted
values get YAML escapes, so ``"\\\\.env$"`` means the regex ``\\.env$`` as its author wrote it.

A simple ``pattern`` becomes one ``regex_match`` condition on the field hookify uses for the
event: ``command`` (bash), ``new_text`` (file), ``prompt`` (prompt), ``content`` otherwise.
This module only reads; turning specs into stored rules is the importer's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .conditions import OPERATORS, REGEX_OPERATORS, Condition

__all__ = [
    "HookifyRule",
    "HookifyError",
    "parse_frontmatter",
    "parse_rule_text",
    "load_rule_file",
    "find_rule_files",
    "load_rules",
    "EVENT_TOOLS",
    "EVENT_HOOKS",
]

EVENTS = ("bash", "file", "stop", "prompt", "all")
EVENT_TOOLS: dict[str, list[str] | None] = {
    "bash": ["Bash"],
    "file": ["Edit", "Write", "MultiEdit"],
    "stop": [],
    "prompt": [],
    "all": None,  # every tool
}
EVENT_HOOKS: dict[str, list[str]] = {
    "bash": ["PreToolUse", "PostToolUse"],
    "file": ["PreToolUse", "PostToolUse"],
    "stop": ["Stop"],
    "prompt": ["UserPromptSubmit"],
    "all": ["PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit"],
}
_SIMPLE_PATTERN_FIELD = {"bash": "command", "file": "new_text", "prompt": "prompt"}


class HookifyError(ValueError):
    """A file that is not a readable hookify rule."""


@dataclass
class HookifyRule:
    name: str
    enabled: bool
    event: str
    action: str
    conditions: list[Condition]
    message: str
    tool_matcher: str | None = None
    source: str = ""
    warnings: list[str] = field(default_factory=list)

    @property
    def tools(self) -> list[str] | None:
        """Tool names the rule applies to; None means every tool, [] means no tool call."""
        if self.tool_matcher and self.tool_matcher.strip() not in ("", "*"):
            return [t.strip() for t in self.tool_matcher.split("|") if t.strip()]
        return EVENT_TOOLS.get(self.event)

    @property
    def hook_events(self) -> list[str]:
        return EVENT_HOOKS.get(self.event, EVENT_HOOKS["all"])

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "enabled": self.enabled,
            "event": self.event,
            "action": self.action,
            "conditions": [c.to_dict() for c in self.conditions],
            "message": self.message,
            "tool_matcher": self.tool_matcher,
            "tools": self.tools,
            "hook_events": self.hook_events,
            "source": self.source,
            "warnings": list(self.warnings),
        }


# ---------------------------------------------------------------------------------------------
# Frontmatter subset parser
# ---------------------------------------------------------------------------------------------

_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*)\s*:(?:\s+(?P<value>.*?))?\s*$")
_DQ_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "0": "\0",
    "\\": "\\",
    '"': '"',
    "/": "/",
    " ": " ",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "v": "\v",
}


def _unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        out = []
        i = 1
        body = v[1:-1]
        i = 0
        while i < len(body):
            c = body[i]
            if c == "\\" and i + 1 < len(body):
                e = body[i + 1]
                if e in _DQ_ESCAPES:
                    out.append(_DQ_ESCAPES[e])
                    i += 2
                    continue
                m = re.match(r"x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})", body[i + 1 :])
                if m:
                    out.append(chr(int(m.group(1) or m.group(2), 16)))
                    i += 1 + m.end()
                    continue
                out.append(c)  # unknown escape: keep it (lenient: it is probably a regex)
                i += 1
                continue
            out.append(c)
            i += 1
        return "".join(out)
    if len(v) >= 2 and v[0] == "'" and v[-1] == "'":
        return v[1:-1].replace("''", "'")
    return v


def _scalar(value: str):
    v = value.strip()
    if v[:1] in ("'", '"'):
        return _unquote(v)
    low = v.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("null", "~"):
        return None
    if v.startswith("[") and v.endswith("]"):
        inner = v[1:-1].strip()
        return [_scalar(p) for p in _split_flow(inner)] if inner else []
    return v


def _split_flow(inner: str) -> list[str]:
    parts, cur, quote = [], [], None
    for ch in inner:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
        elif ch in ("'", '"'):
            quote = ch
            cur.append(ch)
        elif ch == ",":
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur:
        parts.append("".join(cur).strip())
    return parts


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def parse_frontmatter(text: str) -> tuple[dict, str]:
    """(frontmatter, body). A text without a leading ``---`` block has an empty frontmatter."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    k = 0
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k >= len(lines) or lines[k].strip() != "---":
        return {}, text
    end = None
    for j in range(k + 1, len(lines)):
        if lines[j].strip() in ("---", "..."):
            end = j
            break
    if end is None:
        return {}, text
    fm_lines = lines[k + 1 : end]
    body = "\n".join(lines[end + 1 :]).strip()
    return _parse_block(fm_lines), body


def _parse_block(lines: list[str]) -> dict:
    data: dict = {}
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        m = _KEY.match(stripped)
        if not m or _indent(line) > 0 and data:
            i += 1
            continue
        key, value = m.group("key"), m.group("value")
        i += 1
        if value in ("|", "|-", "|+", ">", ">-", ">+"):
            block = []
            while i < n and (not lines[i].strip() or _indent(lines[i]) > _indent(line)):
                block.append(lines[i])
                i += 1
            data[key] = _block_scalar(block, value[0] == ">")
            continue
        if value is not None and value != "":
            data[key] = _scalar(value)
            continue
        # Empty value: a list (or nothing) follows on more-indented or dash lines.
        items: list = []
        while i < n:
            ln = lines[i]
            st = ln.strip()
            if not st or st.startswith("#"):
                i += 1
                continue
            if not st.startswith("-") and _indent(ln) <= _indent(line):
                break
            if st.startswith("-"):
                item_text = st[1:].strip()
                dash_indent = _indent(ln)
                i += 1
                km = _KEY.match(item_text)
                if km and item_text and item_text[0] not in ("'", '"'):
                    inline = _split_flow(item_text)
                    if len(inline) > 1 and all(_KEY.match(p) for p in inline):
                        item = {}
                        for p in inline:
                            pm = _KEY.match(p)
                            assert pm is not None  # every part matched in the all() above
                            item[pm.group("key")] = _scalar(pm.group("value") or "")
                        items.append(item)
                        continue
                    item = {km.group("key"): _scalar(km.group("value") or "")}
                    while i < n:
                        sub = lines[i]
                        sst = sub.strip()
                        if not sst or sst.startswith("#"):
                            i += 1
                            continue
                        if _indent(sub) <= dash_indent or sst.startswith("- "):
                            break
                        sm = _KEY.match(sst)
                        if sm:
                            item[sm.group("key")] = _scalar(sm.group("value") or "")
                        i += 1
                    items.append(item)
                else:
                    items.append(_scalar(item_text) if item_text else None)
                continue
            # an indented non-dash line under a key with no value: a nested mapping
            nested_lines = []
            while i < n and (not lines[i].strip() or _indent(lines[i]) > _indent(line)):
                nested_lines.append(lines[i][_indent(line) + 1 :] if lines[i].strip() else "")
                i += 1
            data[key] = _parse_block([ln2.strip() for ln2 in nested_lines])
            items = None  # type: ignore[assignment]
            break
        if items is not None:
            data[key] = items
    return data


def _block_scalar(block: list[str], folded: bool) -> str:
    content = [ln for ln in block]
    indents = [_indent(ln) for ln in content if ln.strip()]
    cut = min(indents) if indents else 0
    texts = [ln[cut:] if ln.strip() else "" for ln in content]
    if folded:
        return " ".join(t for t in texts if t).strip()
    return "\n".join(texts).rstrip() + "\n"


# ---------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------


def _bool(v, default: bool = True) -> bool:
    if isinstance(v, bool):
        return v
    if v is None:
        return default
    return str(v).strip().lower() in ("true", "yes", "on", "1")


def parse_rule_text(text: str, source: str = "") -> HookifyRule:
    """A rule spec from a rule file's text; raises HookifyError when it has no frontmatter."""
    fm, body = parse_frontmatter(text)
    if not fm:
        raise HookifyError(f"{source or 'rule'}: no YAML frontmatter (the file must start with a line '---')")
    warnings: list[str] = []
    name = str(
        fm.get("name")
        or (Path(source).name.removeprefix("hookify.").removesuffix(".local.md") if source else "unnamed")
    )
    event = str(fm.get("event") or "all").strip().lower()
    if event not in EVENTS:
        warnings.append(f"unknown event {event!r}; treated as 'all'")
        event = "all"
    action = str(fm.get("action") or "warn").strip().lower()
    if action not in ("warn", "block", "ask"):
        warnings.append(f"unknown action {action!r}; treated as 'warn'")
        action = "warn"
    conditions: list[Condition] = []
    raw_conditions = fm.get("conditions")
    if isinstance(raw_conditions, list):
        for c in raw_conditions:
            if not isinstance(c, dict):
                warnings.append(f"ignored condition {c!r}: not a mapping")
                continue
            cond = Condition.from_dict(c)
            if cond.operator not in OPERATORS:
                warnings.append(
                    f"condition on {cond.field!r} has unknown operator "
                    f"{cond.operator!r}: it never matches (as in hookify)"
                )
            conditions.append(cond)
    pattern = fm.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        pattern = str(pattern)
    if pattern and not conditions:
        conditions = [Condition(_SIMPLE_PATTERN_FIELD.get(event, "content"), "regex_match", pattern)]
    if not conditions:
        warnings.append("no pattern and no conditions: the rule can never match")
    tool_matcher = fm.get("tool_matcher")
    return HookifyRule(
        name=name,
        enabled=_bool(fm.get("enabled"), True),
        event=event,
        action=action,
        conditions=conditions,
        message=body.strip(),
        tool_matcher=str(tool_matcher) if tool_matcher else None,
        source=source,
        warnings=warnings,
    )


def validate(rule: HookifyRule) -> list[str]:
    """Errors that make a rule unusable (invalid regexes), as messages."""
    from .safe_regex import InvalidRegex, compile_user_regex

    errors = []
    for c in rule.conditions:
        if c.operator in REGEX_OPERATORS:
            try:
                compile_user_regex(c.pattern)
            except InvalidRegex as e:
                errors.append(f"condition on {c.field!r}: {e}")
    return errors


def load_rule_file(path: str | Path) -> HookifyRule:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise HookifyError(f"{p}: cannot read: {e}") from None
    return parse_rule_text(text, str(p))


def find_rule_files(directory: str | Path) -> list[Path]:
    """Rule files for a project root, its ``.claude`` directory, or a directory of rules."""
    d = Path(directory).expanduser()
    if d.is_file():
        return [d]
    candidates = []
    for base in (d / ".claude", d):
        if base.is_dir():
            candidates.extend(sorted(base.glob("hookify.*.local.md")))
    seen, out = set(), []
    for c in candidates:
        key = c.resolve()
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def load_rules(directory: str | Path) -> tuple[list[HookifyRule], list[str]]:
    """(rules, errors) for every rule file under ``directory``; never raises for one bad file."""
    rules, errors = [], []
    for f in find_rule_files(directory):
        try:
            rule = load_rule_file(f)
        except HookifyError as e:
            errors.append(str(e))
            continue
        problems = validate(rule)
        if problems:
            errors.extend(f"{f}: {p}" for p in problems)
            continue
        rules.append(rule)
    return rules, errors
