"""Which rules a native format can hold, and the prefix each one becomes.

Every native format here matches a shell command by its leading words: Claude Code's
``Bash(git push --force:*)`` (word boundary after the prefix; compound commands are split),
Codex's ``prefix_rule(pattern=["git", "push", "--force"])`` (argv tokens) and Gemini CLI's
``commandPrefix = "git push --force"`` (followed by a space or the end). A memory-cli
``command`` rule matches more: flags anywhere, documented aliases (``-f`` for ``--force``), a
program path or ``.exe``. So the native copy is the rule's own words as a prefix (and the same
words with a flag in a documented alias spelling: ``git push -f``), which is never wider than
the rule (each example is checked against the hook's own matcher before export) and
usually narrower; the listing says what stays with the hook alone.

Anything a prefix cannot state exactly stays hook-only and is listed with the reason: a regex
(over a command or written content), an intent rule (similarity), a rule with conditions or on
other fields or tools, a rule that only warns, an unconfirmed rule, a rule scoped to a project
or file. Only a confirmed, enabled rule that blocks or asks goes native.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..rules.command_pattern import InvalidCommandPattern, parse_command_pattern

# Words a prefix can hold verbatim in every format: no quoting, globbing or ":*" to misread.
_SAFE_WORD = re.compile(r"^[A-Za-z0-9_./@%+=,-]+$")
DECISIONS = {"block": "deny", "ask": "ask"}


@dataclass(frozen=True)
class NativeRule:
    """One rule as a command prefix, with examples checked against the hook's matcher."""

    id: str
    tokens: tuple[str, ...]
    decision: str  # "deny" or "ask"
    message: str
    match: tuple[tuple[str, ...], ...]
    not_match: tuple[tuple[str, ...], ...]

    @property
    def prefix(self) -> str:
        return " ".join(self.tokens)

    @property
    def note(self) -> str:
        return (
            f"native: commands beginning `{self.prefix}`; other spellings and argument orders "
            "the rule matches stay with the hook"
        )


@dataclass(frozen=True)
class HookOnly:
    id: str
    summary: str
    why: str


def _one_line(text: object) -> str:
    return " ".join(str(text or "").split())


def message_of(rule: dict) -> str:
    text = _one_line(rule.get("message") or rule.get("content"))
    alt = _one_line(rule.get("alternative"))
    if alt and alt.lower() not in text.lower():
        text = f"{text} (instead: {alt})"
    return f"{text} [memory-cli rule {rule['id'][:8]}]"


def _hook_matches(pattern, tokens) -> bool:
    return bool(pattern.find(" ".join(tokens)))


def classify(rule: dict, seen: list[str] | None = None) -> list[NativeRule] | HookOnly:
    """The native forms of one rule (as :func:`memory_cli.rules.api.public_rule` gives it): its
    own words first, then other spellings of its flags; or why it stays with the hook. ``seen``:
    commands the hook stopped under this rule (the audit log), kept as further ``match``
    examples where they begin with the prefix."""
    summary = f"{rule.get('pattern_type')} {rule.get('pattern')!r} -> {rule.get('effective_action')}"

    def hook_only(why: str) -> HookOnly:
        return HookOnly(rule["id"], summary, why)

    if not rule.get("confirmed"):
        return hook_only("unconfirmed: it only warns until you confirm it")
    ptype = rule.get("pattern_type")
    if ptype == "regex":
        return hook_only("a regex: native rules match a command's leading words only")
    if ptype == "intent":
        return hook_only("an intent rule: matched by meaning, which no native format can state")
    if ptype != "command":
        return hook_only(f"pattern type {ptype!r}")
    action = rule.get("effective_action") or rule.get("action")
    if action not in DECISIONS:
        return hook_only(f"it {action}s: a native rule can only deny or ask")
    if rule.get("scope") != "global":
        return hook_only(f"scoped to {rule.get('scope')}: native copies hold global rules only")
    tools = rule.get("tools") or []
    if tools and "Bash" not in tools:
        return hook_only(f"it is about {', '.join(tools)}, not shell commands")
    if tools and tools != ["Bash"]:
        return hook_only(f"it also covers {', '.join(t for t in tools if t != 'Bash')}")
    if (rule.get("fields") or []) not in ([], ["command"]):
        return hook_only("it matches other fields than the command")
    if rule.get("conditions"):
        return hook_only("it has conditions a prefix cannot carry (the native rule would be wider)")
    events = rule.get("hook_events") or []
    if events and "PreToolUse" not in events:
        return hook_only(f"it runs at {', '.join(events)}, not before a tool call")
    text = rule.get("pattern") or ""
    tokens = tuple(text.split())
    if not tokens or not all(_SAFE_WORD.match(t) for t in tokens):
        return hook_only("its words need quoting, which a native prefix cannot hold exactly")
    try:
        pattern = parse_command_pattern(text)
    except InvalidCommandPattern as err:
        return hook_only(f"not a command pattern: {err}")
    out = []
    for words in _spellings(pattern, tokens):
        match = tuple(m for m in (words, words + ("--help",)) if _hook_matches(pattern, m))
        if words not in match:
            continue
        match += _replayed(pattern, words, seen or [])
        not_match = (words[:-1],) if len(words) > 1 and not _hook_matches(pattern, words[:-1]) else ()
        out.append(NativeRule(rule["id"], words, DECISIONS[action], message_of(rule), match, not_match))
    if not out or out[0].tokens != tokens:
        return hook_only("the rule does not match its own words as a command; a prefix would differ")
    return out


MAX_SPELLINGS = 4
MAX_REPLAYED = 2


def _replayed(pattern, words: tuple[str, ...], seen: list[str]) -> tuple[tuple[str, ...], ...]:
    """Calls the hook stopped under the rule that begin with ``words``, as argv examples."""
    import shlex

    out: list[tuple[str, ...]] = []
    for command in seen:
        if re.search(r"[;&|<>`\n]|\$\(", command):
            continue  # one plain command only: an argv example cannot hold shell syntax
        try:
            argv = tuple(shlex.split(command))
        except ValueError:
            continue
        if (
            argv[: len(words)] == words
            and len(argv) > len(words) + 1
            and argv not in out
            and _hook_matches(pattern, argv)
            and pattern.find(command)
        ):
            out.append(argv)
        if len(out) >= MAX_REPLAYED:
            break
    return tuple(out)


def replay(store) -> dict[str, list[str]]:
    """Rule id -> the shell commands its hook denied or asked about, newest first."""
    import json

    out: dict[str, list[str]] = {}
    rows = store.rows(
        "SELECT entry_id, details FROM memory_audit_log WHERE action IN ('enforce_block', 'enforce_ask')"
        " AND context = 'Bash' AND entry_id IS NOT NULL ORDER BY timestamp DESC LIMIT 500"
    )
    for r in rows:
        try:
            subject = (json.loads(r["details"] or "{}") or {}).get("subject")
        except (TypeError, ValueError, AttributeError):
            continue
        if isinstance(subject, str) and subject and "\n" not in subject:
            out.setdefault(r["entry_id"], []).append(subject)
    return out


def _spellings(pattern, tokens: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The rule's words, then the same words with a flag in another spelling the hook treats as
    the same flag (``git push -f`` for ``git push --force``): each is a prefix of its own."""
    import itertools

    from ..rules.command_pattern import _FLAG_ALIASES

    aliases = _FLAG_ALIASES.get(pattern.program, {})
    options = []
    for t in tokens:
        canon = aliases.get(t, t) if t.startswith("-") else t
        same = sorted({s for s, c in aliases.items() if c == canon} | ({canon} if t.startswith("-") else set()))
        options.append([t] + [s for s in same if s != t and _SAFE_WORD.match(s)])
    return [tuple(w) for w in itertools.islice(itertools.product(*options), MAX_SPELLINGS)]


def candidate_rules(store) -> list[dict]:
    """Enabled rules of active memories, in the order ``rules list`` shows them."""
    from ..rules.listing import list_rules

    return list_rules(store, enabled=True)


def plan(store) -> tuple[list[NativeRule], list[HookOnly]]:
    native, hook = [], []
    seen = replay(store)
    for rule in candidate_rules(store):
        out = classify(rule, seen.get(rule["id"]))
        if isinstance(out, HookOnly):
            hook.append(out)
        else:
            native.extend(out)
    native.sort(key=lambda r: r.decision != "deny")  # stable: each rule's own words first
    return native, hook
