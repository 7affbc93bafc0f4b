"""Deciding one call (a tool call, a prompt, a stop) against the compiled rule set.

Order of work is chosen so that the common case costs almost nothing: a Bash command is
parsed once and command rules are looked up by program name; regex rules are mostly decided
by substring checks on the case-folded text (literal patterns, required substrings); only the
rest run as regexes, through :func:`safe_regex.search_many`. Intent rules are last and only
run when the embedding daemon answers within what is left of the budget.

Two clocks (absolute ``time.perf_counter()`` values):
- ``deadline`` (the budget) bounds only work whose cost can be large: regexes classified risky
  (run in a forked child killed at the deadline), texts past the in-process size of their
  pattern's risk class, substring scans once the call's texts add up past
  ``CHEAP_SCAN_CHARS`` per rule set, and intent similarity through the daemon.
- ``ceiling`` is a ``time.process_time()`` value: the CPU time this process may spend on the
  check before even cheap work stops, far past what any realistic rule set needs. It counts
  CPU, not wall time, so a busy machine (which stretches wall time, not the work) never
  reaches it; only thousands of candidate rules on large inputs could.
Command rules, literal and required-substring checks, regexes classified linear or
polynomial on texts within their in-process size, string conditions and scope checks are
decided whatever the budget says.

What could not be decided is listed in ``Verdict.unchecked`` with the reason in
``Verdict.skipped``, and the caller audits it. Before a tool runs, a block or ask rule left
undecided whose required text is known to be in the call (a command rule's program, a regex's
literals) is added to the matches with the field ``unchecked``: padding a call until its check
runs out must not walk past a block. Every other undecided rule is allowed. A rule that was
decided keeps its decision: a deliberate block found is not dropped.
Standard library only; heavy parts are imported when a call needs them.
"""

from __future__ import annotations

import time

from . import ruleset as R
from .conditions import (
    REGEX_OPERATORS,
    WRITE_TOOLS,
    check_string_operator,
    field_value,
    tool_texts,
    windows_path_as_posix,
)
from .program_names import versionless
from .ruleset import effective_action

ACTION_RANK = {"block": 0, "ask": 1, "warn": 2, "suggest": 3}
SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
# Natural field of a rule without fields on a non-tool event.
EVENT_DEFAULT_FIELD = {"UserPromptSubmit": "prompt", "Stop": "last_assistant_message"}


class Match:
    """One rule a call matched. ``read_only``: a command rule on a whole program matched a call
    that only looks (``pip list``, ``git status``; see :mod:`read_only`), which verification
    does not count as a violation."""

    __slots__ = ("rule", "action", "field", "snippet", "read_only")

    def __init__(self, rule: tuple, field: str, snippet: str):
        self.rule = rule
        self.action = effective_action(rule)
        self.field = field
        self.snippet = snippet
        self.read_only = False

    @property
    def id(self) -> str:
        return self.rule[R.ID]

    @property
    def message(self) -> str:
        r = self.rule
        return (r[R.MSG] or r[R.CONTENT] or r[R.NAME] or r[R.PATTERN] or "").strip()

    def to_dict(self) -> dict:
        r = self.rule
        return {
            "id": r[R.ID],
            "pattern": r[R.PATTERN],
            "pattern_type": r[R.PTYPE],
            "action": self.action,
            "severity": r[R.SEVERITY],
            "message": self.message,
            "alternative": r[R.ALT],
            "name": r[R.NAME],
            "scope": r[R.SCOPE],
            "confirmed": r[R.CONFIRMED],
            "field": self.field,
            "matched": self.snippet,
        }


# Why a rule was left undecided (``Verdict.skipped``), in words for the audit log.
SKIP_REASONS = {
    "budget": "risky regex or large input not decided within the budget",
    "ceiling": "the check passed its safety ceiling",
    "no_fork": "risky regex and no os.fork to run it under a deadline",
    "error": "the pattern could not be run",
    "large_scan": "input too large to scan within the budget",
    "intent": "intent rule: embedding daemon not answering within the budget",
    "commands": "more simple commands in the line than are read",
    "nul": "the command holds a NUL byte, where the shell and the gate would read different commands",
}
# ``Match.field`` of a block or ask rule that applies because it could not be checked.
UNVERIFIED_FIELD = "unchecked"


class Verdict:
    __slots__ = (
        "decision",
        "matches",
        "unchecked",
        "skipped",
        "intent_skipped",
        "intent_reason",
        "elapsed_ms",
        "checked",
        "forked",
        "timed_out",
    )

    def __init__(self) -> None:
        self.decision = "allow"
        self.matches: list[Match] = []
        self.unchecked: list[str] = []  # rule ids not decided (regex/command/condition rules)
        # every rule left undecided, intent rules included: {"id", "name", "reason"}
        self.skipped: list[dict] = []
        self.intent_skipped: list[str] = []
        self.intent_reason: str | None = None
        self.elapsed_ms = 0.0
        self.checked = 0  # rules considered for this call
        self.forked = False
        self.timed_out = False

    def by_action(self, action: str) -> list[Match]:
        return [m for m in self.matches if m.action == action]

    def to_dict(self) -> dict:
        out = {
            "decision": self.decision,
            "rules": [m.to_dict() for m in self.matches],
            "elapsed_ms": round(self.elapsed_ms, 3),
            "checked": self.checked,
        }
        if self.unchecked:
            out["unchecked"] = list(self.unchecked)
        if self.skipped:
            out["skipped"] = list(self.skipped)
        if self.intent_skipped:
            out["intent_skipped"] = list(self.intent_skipped)
            out["intent_reason"] = self.intent_reason
        return out


# Texts up to this size are cut into 3-grams to find candidate regex rules; larger ones (big
# writes) go through every rule of the tool, where the per-text work dominates anyway.
GRAM_TEXT_CHARS = 32 * 1024
# Substring checks of regex rules are always made until the texts scanned add up to this many
# characters (about 10-20 ms of ``str.find`` on this machine); past it, large inputs (a 10 MB
# write against hundreds of rules) are scanned within the budget only.
CHEAP_SCAN_CHARS = 32 * 1024 * 1024
# Default safety ceiling of cheap work: CPU seconds after the start of the check.
CHEAP_CEILING_S = 1.0


def _call_texts(ti: dict, payload: dict | None) -> list[str]:
    """Every text of the call a regex rule on a tool event can look at."""
    out = []

    def add(v) -> None:
        if isinstance(v, str):
            if v:
                out.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                add(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                add(x)
        elif v is not None and not isinstance(v, bool):
            out.append(str(v))

    add(ti)
    command = ti.get("command")
    if isinstance(command, str) and "\\\n" in command:
        out.append(command.replace("\\\n", ""))  # a line continuation is no character to bash
    for key in ("file_path", "notebook_path", "path"):
        v = ti.get(key)
        if isinstance(v, str) and "\\" in v:
            out.append(v.replace("\\", "/"))  # looked at with forward slashes too (tool_texts)
    if payload and "tool_response" in payload:
        add(payload.get("tool_response"))
    return out


def _candidates(rs: R.RuleSet, tool: str, ti: dict, payload: dict | None) -> list[int]:
    """Regex/intent rules that can match this tool call, in decision order.

    A regex rule indexed under a 3-gram only matches text containing that 3-gram
    (case-folded), so the rules under the 3-grams of the call's texts, plus the rules with no
    such 3-gram, are all the candidates there are."""
    star_all = rs.by_tool.get("*", ())
    tool_all = rs.by_tool.get(tool, ())
    if not star_all and not tool_all:
        return []
    texts = _call_texts(ti, payload)
    total = sum(len(t) for t in texts)
    if not rs.gram or total > GRAM_TEXT_CHARS:
        return sorted(set(tool_all).union(star_all)) if tool_all and star_all else list(tool_all or star_all)
    cand = set(rs.always.get(tool, ()))
    cand.update(rs.always.get("*", ()))
    gram = rs.gram
    for text in texts:
        f = text.casefold()
        for g in {f[k : k + 3] for k in range(len(f) - 2)}:
            hit = gram.get(g)
            if hit:
                cand.update(hit)
    return sorted(cand)


def _snippet_of(sc) -> str:
    return " ".join([sc.program, *sc.args])[:200]


class _Texts:
    """Field texts and their case-folded copies, computed once per call."""

    def __init__(self, event: str, tool: str, tool_input: dict, payload: dict | None):
        self.event = event
        self.tool = tool
        self.ti = tool_input
        self.payload = payload
        self._by_fields: dict[tuple, list] = {}
        self._folded: dict[int, str] = {}

    def texts(self, fields: tuple) -> list[tuple[str, str]]:
        got = self._by_fields.get(fields)
        if got is None:
            if self.event in TOOL_EVENTS:
                got = tool_texts(list(fields) if fields else None, self.tool, self.ti, self.payload)
            else:
                names = fields or (EVENT_DEFAULT_FIELD.get(self.event, "prompt"),)
                got = []
                for f in names:
                    v = field_value(f, self.tool, self.ti, self.payload)
                    if v:
                        got.append((f, v))
            self._by_fields[fields] = got
        return got

    def folded(self, text: str) -> str:
        f = self._folded.get(id(text))
        if f is None:
            f = text.casefold()
            self._folded[id(text)] = f
        return f


def _literal_snippet(text: str, hay: str, pos: int, length: int) -> str:
    src = text if len(hay) == len(text) else hay
    return src[pos : pos + min(length, 200)]


def evaluate(
    rs: R.RuleSet,
    *,
    event: str,
    tool_name: str | None = None,
    tool_input: dict | None = None,
    payload: dict | None = None,
    applies=None,
    deadline: float | None = None,
    only: set[str] | None = None,
    intent_threshold: float = 0.6,
    intent_timeout_ms: float | None = None,
    use_intent: bool = True,
    ceiling: float | None = None,
    intent_deadline: float | None = None,
) -> Verdict:
    """Which rules this call matches, and the decision they add up to.

    ``applies(scope) -> bool`` says whether a project/file scope applies to the call (global
    always does); ``deadline`` (the budget of expensive work), ``ceiling`` (the safety stop of
    cheap work) and ``intent_deadline`` (the daemon's answer; default ``deadline``) are
    absolute ``time.perf_counter()`` values; ``only`` restricts the check to some rule ids
    (``rules test``)."""
    t0 = time.perf_counter()
    if deadline is None:
        deadline = t0 + 1.0
    if ceiling is None:
        ceiling = time.process_time() + CHEAP_CEILING_S
    v = Verdict()
    rule = rs.rule
    tool = tool_name or ""
    ti = tool_input if isinstance(tool_input, dict) else {}
    tool_event = event in TOOL_EVENTS
    texts = _Texts(event, tool, ti, payload)
    matched: dict[int, Match] = {}
    unchecked: dict[int, str] = {}  # rule index -> reason (a key of SKIP_REASONS)
    # Undecided rules whose required text (a command rule's program, a regex's literals, the
    # pattern of a rule whose conditions were left) is known to be in the call.
    present: set[int] = set()

    def usable(i: int) -> bool:
        r = rule(i)
        if only is not None and r[R.ID] not in only:
            return False
        ev = r[R.EVENTS]
        if ev and event not in ev:
            return False
        scope = r[R.SCOPE]
        return scope == "global" or (applies is not None and applies(scope))

    if tool_event and rs.cmd:
        _command_rules(rs, v, event, tool, ti, usable, matched, unchecked, deadline, present)

    # Regex and intent rules, in decision order.
    if tool_event:
        cand = _candidates(rs, tool, ti, payload)
    else:
        cand = rs.by_event.get(event, [])
    jobs, owners, intents = [], [], []
    regex_info = None
    if tool_event:
        per_rule = sum(len(t) for t in _call_texts(ti, payload)) if cand else 0
    else:
        per_rule = sum(len(t) for t in (payload or {}).values() if isinstance(t, str))
    scanned = 0
    every = 0 if per_rule >= 1 << 20 else 63  # large texts: look at the clocks every rule
    for n, i in enumerate(cand):
        if n & every == every:
            over = (
                "large_scan"
                if scanned > CHEAP_SCAN_CHARS and time.perf_counter() >= deadline
                else "ceiling"
                if time.process_time() >= ceiling
                else None
            )
            if over:
                for j in cand[n:]:
                    rj = rule(j)
                    if j in matched or not usable(j) or (tool_event and rj[R.TOOLS] and tool not in rj[R.TOOLS]):
                        continue
                    if rj[R.PTYPE] == "regex":
                        unchecked[j] = over
                    elif rj[R.PTYPE] == "intent":
                        intents.append(j)
                v.timed_out = True
                break
        scanned += per_rule
        if i in matched or not usable(i):
            continue
        r = rule(i)
        if tool_event and r[R.TOOLS] and tool not in r[R.TOOLS]:
            continue
        ptype = r[R.PTYPE]
        if ptype == "intent":
            intents.append(i)
            continue
        if ptype != "regex":
            continue
        v.checked += 1
        lit, req = r[R.COMPILED][0], r[R.COMPILED][1]
        case = r[R.CASE]
        for field, text in texts.texts(r[R.FIELDS]):
            hay = text if case else texts.folded(text)
            if lit is not None:
                pos = hay.find(lit)
                if pos >= 0:
                    matched[i] = Match(r, field, _literal_snippet(text, hay, pos, len(lit)))
                    break
                continue
            if req and not all(q in hay for q in req):
                continue
            if regex_info is None:
                from .safe_regex import RegexInfo, SafeRegex

                regex_info = (RegexInfo, SafeRegex)
            jobs.append((regex_info[1](r[R.PATTERN], case_sensitive=case, info=regex_info[0](*r[R.COMPILED])), text))
            owners.append((i, field))
    if jobs:
        from .safe_regex import search_many

        out = search_many(jobs, deadline=deadline, ceiling=ceiling)
        v.forked = v.forked or out.forked
        v.timed_out = v.timed_out or out.timed_out
        for k, hit in sorted(out.matches.items()):
            i, field = owners[k]
            if i not in matched:
                matched[i] = Match(rule(i), field, hit)
        for k in out.unchecked:
            # a job is made only once the regex's required substrings are all in its text
            unchecked.setdefault(owners[k][0], out.reasons.get(k, "budget"))
            present.add(owners[k][0])

    if tool == "Bash" and matched and isinstance(ti.get("command"), str):
        from .inert_text import drop_written_text_matches

        drop_written_text_matches(rule, matched, ti["command"], R.PTYPE, R.PATTERN, R.CASE, R.COMPILED)
    _check_conditions(rs, matched, unchecked, tool, ti, payload, deadline, ceiling, v)
    present.update(i for i in unchecked if rule(i)[R.CONDS] and i not in matched)

    if intents and use_intent:
        _intent_rules(
            rs,
            intents,
            matched,
            v,
            tool,
            ti,
            payload,
            event,
            intent_deadline if intent_deadline is not None else deadline,
            intent_threshold,
            intent_timeout_ms if intent_timeout_ms is not None else _default_intent_timeout_ms(),
        )

    v.matches = sorted(
        matched.values(),
        key=lambda m: (ACTION_RANK.get(m.action, 9), SEVERITY_RANK.get(m.rule[R.SEVERITY], 9), m.rule[R.ID]),
    )
    left = sorted((rule(i)[R.ID], i) for i in unchecked if i not in matched)
    v.unchecked = [rid for rid, _i in left]
    v.skipped = [_skip_entry(rule(i), unchecked[i]) for _rid, i in left]
    if event == "PreToolUse":
        # A block or ask rule whose required text is in the call but whose check could not
        # be finished is not passed over: the call is refused (or asked), saying why.
        unverified = [
            Match(rule(i), UNVERIFIED_FIELD, SKIP_REASONS.get(unchecked[i], unchecked[i]))
            for _rid, i in left
            if i in present and effective_action(rule(i)) in ("block", "ask")
        ]
        if unverified:
            v.matches = sorted(
                v.matches + unverified,
                key=lambda m: (ACTION_RANK.get(m.action, 9), SEVERITY_RANK.get(m.rule[R.SEVERITY], 9), m.rule[R.ID]),
            )
    if v.intent_skipped:
        by_id = {rule(i)[R.ID]: rule(i) for i in intents}
        v.skipped += [_skip_entry(by_id[rid], "intent", v.intent_reason) for rid in v.intent_skipped if rid in by_id]
    if v.matches:
        v.decision = v.matches[0].action
    v.elapsed_ms = (time.perf_counter() - t0) * 1000.0
    if time.perf_counter() > deadline:
        v.timed_out = True
    return v


def _skip_entry(r: tuple, reason: str, detail: str | None = None) -> dict:
    name = r[R.NAME] or (r[R.CONTENT] or r[R.PATTERN] or "")[:80]
    return {
        "id": r[R.ID],
        "name": name,
        "kind": r[R.PTYPE],
        "action": effective_action(r),
        "reason": detail or SKIP_REASONS.get(reason, reason),
    }


# Each byte that cannot be part of a program key (ruleset._WORD_CHARS) -> a space.
_NOT_WORD = bytes(c if chr(c) in R._WORD_CHARS else 32 for c in range(256))
_EXE_SUFFIXES = (".exe", ".com", ".bat", ".cmd")


def words_of(text: str) -> list[str]:
    """The runs of key characters in ``text``, as ``re.findall(r"[a-z0-9_.+\\-@%~^]+", text)``
    gives them, without importing ``re`` on the hook path (non-ASCII characters never belong to
    a run, so they are replaced before the byte-wise translation)."""
    return text.encode("ascii", "replace").translate(_NOT_WORD).decode("ascii").split()


def _variants(unquoted: str) -> tuple:
    """The line read with backslashes as path separators, as escapes, and as the ``\\n`` and
    ``\\t`` of printf and ``echo -e`` (``printf 'all:\\n\\tgit push'`` runs git)."""
    if "\\" not in unquoted:
        return (unquoted,)
    return unquoted, unquoted.replace("\\", ""), unquoted.replace("\\n", " ").replace("\\t", " ")


def might_run_any(command: str, keys) -> bool:
    """False only when no program key can be the program of any simple command in the line.

    A program name is a word of the line once quotes are dropped (``py''thonw``) and
    backslashes read either as path separators (``C:\\Python\\pythonw.exe``) or as escapes
    (``p\\ythonw``). ANSI-C strings and encoded PowerShell hide words: those lines are parsed.
    Keeping the shell parser out of calls that cannot match saves its import and its work."""
    low = command.lower()
    if "$'" in low or ("enc" in low and ("powershell" in low or "pwsh" in low)):
        return True
    if ("base64" in low or "xxd" in low) and "|" in low:
        return True  # a script decoded into a shell: its words are read once decoded
    unquoted = low.replace("'", "").replace('"', "")
    variants = _variants(unquoted)
    for text in variants:
        for w in words_of(text):
            if w in keys or (w.endswith(_EXE_SUFFIXES) and w[:-4] in keys) or versionless(w) in keys:
                return True
    return _program_built(unquoted)


_LEADERS = frozenset({"then", "do", "else", "sudo", "exec", "command", "env", "nohup", "time", "xargs", "!", "{"})


def _program_built(unquoted: str) -> bool:
    """Whether a simple command of the line starts with a word the shell builds when it runs
    (``$(printf 'r%s' m) -rf /``, ``$X$Y -rf /``): its program may be any, so the line is read."""
    if "$" not in unquoted and "`" not in unquoted:
        return False
    for ch in ";&|(\n":
        unquoted = unquoted.replace(ch, "\n")
    for part in unquoted.split("\n"):
        words = part.split()
        while words and (words[0] in _LEADERS or ("=" in words[0] and words[0][:1] not in "$`=")):
            words.pop(0)
        if words and words[0].lstrip("{").startswith(("$", "`")):
            return True
    return False


def programs_named(command: str, keys) -> set:
    """The program keys that occur as words of the line (read as :func:`might_run_any` reads
    it): the only ones whose rules a part of the line left unread could match."""
    low = command.lower()
    unquoted = low.replace("'", "").replace('"', "")
    variants = _variants(unquoted)
    out = set()
    for text in variants:
        for w in set(words_of(text)):
            for k in (w, w[:-4] if w.endswith(_EXE_SUFFIXES) else None, versionless(w)):
                if k and k in keys:
                    out.add(k)
    if "$'" in low or ("enc" in low and ("powershell" in low or "pwsh" in low)):
        out.update(k for k in keys if k in unquoted)
    return out


# Bash commands up to this size are always parsed for command rules (the shell parser is pure
# Python: ~1 s for a few MB). Larger ones are first searched for the rules' program names
# (C-speed substring search) within the budget; only a command that names one is parsed, and
# one that cannot be decided so is left unchecked and audited.
CMD_PARSE_CHARS = 256 * 1024


def _large_command_keys(command: str, keys, deadline: float) -> set | None:
    """The program keys that occur anywhere in the command (quotes and backslashes dropped):
    only their rules can match. None: not decided within the budget, or a form that hides
    program names (ANSI-C strings, encoded PowerShell)."""
    low = command.lower()
    if "$'" in low or ("enc" in low and ("powershell" in low or "pwsh" in low)):
        return None
    flat = low.replace("'", "").replace('"', "").replace("\\", "")
    found = set()
    for n, key in enumerate(keys):
        if n & 15 == 15 and time.perf_counter() >= deadline:
            return None
        if key in flat:
            found.add(key)
    return found


def _command_rules(
    rs, v, event, tool, ti, usable, matched, unchecked, deadline: float | None = None, present: set | None = None
) -> None:
    rule = rs.rule
    cmds = None
    written = False
    command = ""
    if tool == "Bash":
        command = ti.get("command")
        if isinstance(command, str) and command.strip():
            keyed = bool(rs.meta.get("cmd_words"))
            if len(command) > CMD_PARSE_CHARS:
                # Only the rules whose program is named somewhere can match; the line is read
                # for them within the budget (padding in a comment or a quoted string costs
                # nothing to read, thousands of words do).
                found = _large_command_keys(command, rs.cmd, deadline or 0.0) if keyed else None
                if found is not None and not found:
                    return
                cmds, complete = _read_within(command, deadline)
            else:
                if "\x00" in command:
                    _nul_byte(rs, command, usable, unchecked, present)
                    return
                if keyed and not might_run_any(command, rs.cmd) and not _operation_possible(rs, command):
                    return
                from .shellparse import read_commands

                cmds, complete = read_commands(command)
                found = None
            if not complete:
                # Not every simple command of the line was read: a rule whose program the
                # line names may be in the unread part. It stays undecided, with its program
                # known to be present, so that a block is not passed over in silence.
                if keyed and len(command) <= _NAMED_WORDS_CHARS:
                    # as words, not substrings: "rm" in "format" is not the program rm
                    found = programs_named(command, rs.cmd)
                reason = "large_scan" if len(command) > CMD_PARSE_CHARS else "commands"
                for k in rs.cmd if found is None else found:
                    for i in rs.cmd[k]:
                        if usable(i):
                            unchecked[i] = reason
                            if found is not None and present is not None:
                                present.add(i)
    elif tool in WRITE_TOOLS:
        # Verification reads written files for the programs they run; before the call, only
        # rules that name the tool explicitly look at what is about to be written.
        keys = set(rs.meta.get("tool_keys", {}).get(tool, ()))
        if event == "PostToolUse":
            keys.update(rs.meta.get("written_keys", ()))
        if keys:
            content = field_value("content", tool, ti)
            if content:
                from .written import commands_in

                cmds = commands_in(field_value("file_path", tool, ti), content, keys)
                written = True
                if cmds is None:  # too large to scan within the budget
                    for k in keys:
                        unchecked.update((i, "large_scan") for i in rs.cmd[k] if usable(i))
                    return
    if not cmds:
        return
    from .command_pattern import CommandPattern, module_invocation, normalize_program

    if not isinstance(command, str):
        command = ""

    run_modules = [m for m in map(module_invocation, cmds) if m is not None]
    for sc in (cmds + run_modules) if run_modules else cmds:
        for i in rs.cmd.get(normalize_program(sc.name), ()):
            if i in matched or not usable(i):
                continue
            r = rule(i)
            tools = r[R.TOOLS]
            if tools and tool not in tools and not (written and "Bash" in tools):
                continue
            v.checked += 1
            cp = CommandPattern.from_tuple(r[R.COMPILED])
            if cp.matches(sc):
                m = matched[i] = Match(r, "content" if written else "command", _snippet_of(sc))
                unchecked.pop(i, None)
                if event == "PostToolUse" and not written and not cp.flags and not cp.positionals:
                    from .read_only import is_read_only

                    m.read_only = is_read_only(cp.program, sc.args)
    if command and not written and ("ops" in rs.meta or "pipes" in rs.meta):
        from .operations import match_rules

        match_rules(rs, v, cmds, command, tool, usable, matched, Match)
    if event == "PreToolUse" and not written and len(command) <= CMD_PARSE_CHARS:
        _runtime_rules(rs, cmds, command, tool, usable, matched)


def _operation_possible(rs, command: str) -> bool:
    """Whether a rule standing for an operation (see :mod:`operations`) may concern the line:
    it names a program that performs one, or redirects a file into a program."""
    words = rs.meta.get("op_words")
    if not words:
        return False
    return might_run_any(command, frozenset(words)) or ("<" in command and "read-file" in rs.meta.get("ops", {}))


def _nul_byte(rs, command: str, usable, unchecked, present) -> None:
    """A NUL byte ends the command where the shell receives it and not where the gate reads it:
    the line is not read, and the block and ask rules whose program it names are left
    undecided, so the call is refused or asked, saying why."""
    flat = command.replace("\x00", " ")
    named = programs_named(flat, rs.cmd) if rs.meta.get("cmd_words") else set(rs.cmd)
    for k in named:
        for i in rs.cmd[k]:
            if usable(i):
                unchecked[i] = "nul"
                present.add(i)


def _runtime_rules(rs, cmds, command: str, tool: str, usable, matched) -> None:
    """Block and ask rules whose words the line builds at run time (a variable, a
    substitution, an interpreter's code; see :mod:`dynamic`) are asked, not passed over."""
    from .shellparse import runtime_of

    runtime = runtime_of(command)
    if not runtime.carriers and not any(sc.dynamic for sc in cmds):
        return
    from .dynamic import DYNAMIC_FIELD, runtime_matches

    for i, how in runtime_matches(rs, cmds, runtime, tool, usable, matched):
        m = matched[i] = Match(rs.rule(i), DYNAMIC_FIELD, how)
        m.action = "ask"


# Up to this size an unread part of a command line is searched for the rules' programs as words
# (tens of ms at the limit); past it, as substrings.
_NAMED_WORDS_CHARS = 1024 * 1024


def _read_within(command: str, deadline: float | None):
    """(simple commands, complete) of a large command line, read until the deadline."""
    from .shellparse import read_commands

    if deadline is None or time.perf_counter() >= deadline:
        return [], False
    return read_commands(command, deadline)


def _check_conditions(rs, matched, unchecked, tool, ti, payload, deadline, ceiling, v) -> None:
    """Drop matches whose extra conditions (all must hold) do not."""
    pending = [i for i, m in matched.items() if m.rule[R.CONDS]]
    if not pending:
        return
    jobs, owners = [], []
    verdicts: dict[int, list] = {}
    reasons: dict[int, str] = {}
    for i in pending:
        results = []
        for c_idx, (field, op, pattern, info) in enumerate(matched[i].rule[R.CONDS]):
            value = field_value(field, tool, ti, payload)
            if op in REGEX_OPERATORS:
                value = windows_path_as_posix(field, pattern, value)
                if value is None:
                    results.append(False)
                    continue
                from .safe_regex import RegexInfo, SafeRegex

                sr = SafeRegex(pattern, info=RegexInfo(*info) if info else None)
                results.append(None)  # decided below
                jobs.append((sr, value))
                owners.append((i, c_idx, op))
            else:
                results.append(check_string_operator(op, pattern, value))
        verdicts[i] = results
    if jobs:
        from .safe_regex import search_many

        out = search_many(jobs, deadline=deadline, ceiling=ceiling)
        v.forked = v.forked or out.forked
        undecided = set(out.unchecked)
        for k, (i, c_idx, op) in enumerate(owners):
            if k in undecided:
                verdicts[i][c_idx] = "?"
                reasons[i] = out.reasons.get(k, "budget")
                continue
            hit = k in out.matches
            verdicts[i][c_idx] = hit if op == "regex_match" else not hit
    for i, results in verdicts.items():
        if "?" in results and all(r is not False for r in results):
            unchecked[i] = reasons.get(i, "budget")
            del matched[i]
        elif not all(r is True for r in results):
            del matched[i]


def action_text(tool: str, ti: dict, payload: dict | None = None) -> str:
    """What the call is about to do, in words an embedding can compare with a rule."""
    if tool == "Bash":
        desc = ti.get("description")
        cmd = str(ti.get("command") or "")
        return f"run {cmd[:400]}" + (f" ({str(desc)[:200]})" if desc else "")
    if tool in WRITE_TOOLS:
        body = field_value("content", tool, ti) or ""
        return f"{tool.lower()} {ti.get('file_path') or ''}: {body[:400]}"
    if not tool and payload:
        return str(payload.get("prompt") or payload.get("last_assistant_message") or "")[:600]
    import json

    return f"{tool} {json.dumps(ti, ensure_ascii=False)[:500]}"


def action_texts(tool: str, ti: dict, payload: dict | None = None) -> list[str]:
    """The call in words, each compared on its own: Claude's plain-language description of a
    Bash call is the strongest signal of what it means to do, and mixing it with the command
    line dilutes both."""
    if tool == "Bash":
        out = []
        desc = ti.get("description")
        if isinstance(desc, str) and desc.strip():
            out.append(desc.strip()[:300])
        cmd = str(ti.get("command") or "").strip()
        if cmd:
            out.append(cmd[:400])
        return out or [action_text(tool, ti, payload)]
    return [action_text(tool, ti, payload)]


def _intent_rules(rs, intents, matched, v, tool, ti, payload, event, deadline, threshold, timeout_ms) -> None:
    try:
        from ..daemon import client
    except Exception as e:  # the daemon is optional; never let it break a decision
        client, v.intent_reason = None, f"embedding failed: {type(e).__name__}"
    rules = {i: rs.rule(i) for i in intents}
    remaining_ms = (deadline - time.perf_counter()) * 1000.0
    ids = [rules[i][R.ID] for i in intents]
    if remaining_ms < 5:
        v.intent_skipped, v.intent_reason = ids, "no time left in the budget"
        return
    missing = [i for i in intents if not rules[i][R.COMPILED]]
    actions = action_texts(tool, ti, payload)
    texts = actions + [rules[i][R.PATTERN] for i in missing]
    try:
        vectors = client.embed(texts, timeout_ms=min(remaining_ms - 2, timeout_ms)) if client is not None else None
    except Exception as e:  # the daemon is optional; never let it break a decision
        vectors = None
        v.intent_reason = f"embedding failed: {type(e).__name__}"
    if not vectors:
        v.intent_skipped = ids
        v.intent_reason = v.intent_reason or "embedding daemon not answering within the budget"
        return
    from ..embeddings.vectors import cosine

    action_vecs = vectors[: len(actions)]
    fresh = dict(zip(missing, vectors[len(actions) :]))
    for i in intents:
        vec = rules[i][R.COMPILED] or fresh.get(i)
        if not vec:
            continue
        v.checked += 1
        sim, text = max((cosine(a, vec), t) for a, t in zip(action_vecs, actions))
        if sim >= threshold:
            matched[i] = Match(rules[i], "intent", f"similarity {sim:.2f} to {text[:80]!r}")


def _default_intent_timeout_ms() -> float:
    """The daemon's time limit for a hook's request, as the field table gives it."""
    from ..settings import value as setting

    return float(setting(None, "daemon.request_timeout_ms"))
