"""A proposed rule's replay: where it would have fired among the calls the person corrected and
the calls the person let pass, and what to offer when it would fire on the second.

The corrected calls of a correction are the tool calls its session made in the turn the person
corrected: those after the prompt before the correcting one, up to it (the correcting prompt is
the one saying what capture stored, else the one recorded closest to when capture saw it), and
any call the person declined in the permission prompt or stopped with an interruption, and any
call the permission check refused (the PermissionDenied hook's ``permission_denied`` audit rows,
matched by call id): the agents' own "that was wrong" signals. Every other recorded call is one the person let pass.

A proposal that fires on let-pass calls is narrowed when a pattern with one more word of the
corrected calls (a flag or a plain word they all share) still catches every corrected call it
caught and none let pass; otherwise it is offered as a reminder (remembered and injected, no
gate). "never commit directly to main" is the common case: the corrected ``git commit -m ...``
and the accepted ones on a branch look alike, so no pattern can tell them apart.
"""

from __future__ import annotations

import re
from datetime import datetime

from . import run
from .calls import RecordedCall, Session

EXAMPLES = 5
# A correction is matched to the recorded prompt nearest to when capture saw it, within this.
PROMPT_WINDOW_S = 600


def _epoch(ts: str | None) -> float | None:
    if not ts:
        return None
    try:
        return datetime.fromisoformat(str(ts).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class History:
    """The sessions on this machine, read once for a whole review."""

    def __init__(self, home: str | None = None, agents=None, store=None):
        self.sessions: list[Session] = list(run.sessions(home, agents, cache=True))
        self.by_id = {s.session_id: s for s in self.sessions}
        from ..capture.denied import denied_call_ids

        # set on every call: the sessions may be the cached ones of an earlier History
        ids = denied_call_ids(store)
        for s in self.sessions:
            for c in s.calls:
                c.denied = bool(c.call_id) and c.call_id in ids

    def corrected(self, instances: list[tuple[str, str]], said: list[str] = ()) -> set[int]:
        """``id()`` of the calls corrected by ``instances`` ((session id, when seen) pairs);
        ``said``: what the person said (the correcting prompt is found by it first, by time
        otherwise)."""
        out: set[int] = set()
        for s in self.sessions:
            out.update(id(c) for c in s.calls if c.rejected or c.interrupted or c.denied)
        for sid, when in instances:
            s = self.by_id.get(sid)
            if s is None:
                continue
            t = _epoch(when)
            times = [_epoch(p) for p, _text in s.prompts]
            turn = _by_text(s, said)
            if turn is None and t is not None and times:
                near = (
                    min((abs(pt - t), n) for n, pt in enumerate(times) if pt is not None)
                    if any(pt is not None for pt in times)
                    else None
                )
                if near is not None and near[0] <= PROMPT_WINDOW_S:
                    turn = near[1]  # prompt n (0-based) closes turn n: calls with turn == n
                else:
                    before = [n for n, pt in enumerate(times) if pt is not None and pt <= t]
                    turn = before[-1] if before else None
            if turn is None:
                continue
            out.update(id(c) for c in s.calls if c.turn == turn)
        return out


def _by_text(s: Session, said) -> int | None:
    """The prompt of the session that says what the person said, if one does."""
    from ..capture.similar import similarity

    best = None
    for n, (_ts, text) in enumerate(s.prompts):
        for words in said:
            if not words or not text:
                continue
            score = 1.0 if words.strip().lower() in text.lower() else similarity(words, text)
            if score >= 0.5 and (best is None or score > best[0]):
                best = (score, n)
    return best[1] if best else None


def _row(rule: dict) -> dict:
    tools = rule.get("tools") or None
    return run.pattern_row(
        rule["pattern"],
        rule["pattern_type"],
        action="block",
        tools=tools,
        case_sensitive=bool(rule.get("case_sensitive")),
    )


def _fires(row: dict, calls: list[RecordedCall]) -> list[RecordedCall]:
    report = run.check_calls(run.rule_set(row), calls, keep=len(calls))
    return [h.call for h in report.hits]


def _words(rule: dict, call: RecordedCall) -> set[str] | None:
    """The words of the simple command a command rule matched in the call."""
    from ..rules.command_pattern import parse_command_pattern
    from ..rules.shellparse import simple_commands

    cp = parse_command_pattern(rule["pattern"])
    for sc in simple_commands(str(call.tool_input.get("command") or "")):
        if cp.matches(sc):
            return set(sc.args)
    return None


_WORD = re.compile(r"^(--?[A-Za-z0-9][\w-]*|[a-z][\w.-]{0,30})$")


def _candidates(rule: dict, caught: list[RecordedCall]) -> list[str]:
    """Narrower patterns: the rule's own with one word every caught call shares: a flag, or a
    plain word such as a subcommand (never free text such as a commit message, which would fit
    the corrected calls by accident). Two corrected calls at least: one says nothing general."""
    if len(caught) < 2:
        return []
    if rule["pattern_type"] == "command":
        shared = None
        for c in caught:
            words = _words(rule, c)
            if words is None:
                return []
            shared = words if shared is None else shared & words
        have = set(rule["pattern"].split())
        words = sorted(shared or (), key=lambda w: (w.startswith("-"), w))  # a subcommand before a flag
        return [f"{rule['pattern']} {w}" for w in words if w not in have and _WORD.match(w)]
    if rule["pattern_type"] == "regex":
        texts = [str(c.tool_input.get("command") or c.tool_input.get("file_path") or "") for c in caught]
        if not texts:
            return []
        shared = set(re.findall(r"[\w./-]{3,}", texts[0]))
        for t in texts[1:]:
            shared &= set(re.findall(r"[\w./-]{3,}", t))
        shared = {w for w in shared if _WORD.match(w)}
        return [f"(?=.*{re.escape(w)}){rule['pattern']}" for w in sorted(shared)][:40]
    return []


def _example(call: RecordedCall) -> dict:
    from ..privacy.redact import redact

    subject = call.tool_input.get("command") or call.tool_input.get("file_path") or ""
    return {
        "agent": call.agent,
        "session_id": call.session_id,
        "timestamp": call.timestamp,
        "tool": call.tool,
        "call": redact(str(subject)[:200])[0],
        "declined": call.rejected,
        "interrupted": call.interrupted,
        "denied": call.denied,
    }


def evidence(rule: dict, instances: list[tuple[str, str]], history: History, said=()) -> dict:
    """Where ``rule`` (``pattern``, ``pattern_type``, ``tools``) would have fired among the
    corrected and let-pass calls, and the offer: ``gate`` (fires only where corrected),
    ``narrowed`` (with ``pattern``), ``reminder`` (no pattern tells them apart) or ``unknown``
    (the corrected sessions are not on this machine and it fires nowhere)."""
    if rule.get("pattern_type") == "intent":
        return {"offer": "unknown", "why": "intent rules are not replayed", "calls_read": 0}
    calls = [c for s in history.sessions for c in s.calls]
    corrected_ids = history.corrected(instances, list(said))
    row = _row(rule)
    fired = _fires(row, calls)
    caught = [c for c in fired if id(c) in corrected_ids]
    passed = [c for c in fired if id(c) not in corrected_ids]
    out = {
        "pattern": rule["pattern"],
        "pattern_type": rule["pattern_type"],
        "calls_read": len(calls),
        "sessions_read": len(history.sessions),
        "corrected_calls": len(corrected_ids),
        "fires_on_corrected": len(caught),
        "fires_on_let_pass": len(passed),
        "let_pass_sessions": len({(c.agent, c.session_id) for c in passed}),
        "corrected": [_example(c) for c in caught[:EXAMPLES]],
        "let_pass": [_example(c) for c in passed[:EXAMPLES]],
    }
    if not passed:
        if caught:
            out.update(offer="gate", why=f"fires on the {len(caught)} corrected call(s) and on none you let pass")
        else:
            out.update(
                offer="unknown", why="fires on no recorded call (the corrected sessions are not on this machine)"
            )
        return out
    for pattern in _candidates(rule, caught):
        try:
            narrow = dict(rule, pattern=pattern)
            hits = _fires(_row(narrow), caught + passed)
        except Exception:  # a candidate the rules area refuses is just not offered
            continue
        ids = {id(c) for c in hits}
        if caught and all(id(c) in ids for c in caught) and not any(id(c) in ids for c in passed):
            out.update(
                offer="narrowed",
                narrowed_pattern=pattern,
                why=f"{rule['pattern']!r} also fires on {len(passed)} call(s) you let pass; {pattern!r} catches"
                f" the {len(caught)} corrected call(s) and none of them",
            )
            return out
    what = f"the {len(caught)} corrected call(s)" if caught else "no corrected call"
    out.update(
        offer="reminder",
        why=f"fires on {what} and on {len(passed)} call(s) you let pass, in {out['let_pass_sessions']} session(s),"
        " and no narrower pattern tells them apart: offered as a reminder, not a gate",
    )
    return out


def instances_of(item: dict) -> list[tuple[str, str]]:
    """(session id, when seen) of every time the person made the correction behind ``item``
    (a review item, :func:`memory_cli.capture.corrections.view`)."""
    out = []
    for i in item.get("instances") or []:
        if i.get("session_id"):
            out.append((i["session_id"], i.get("detected_at") or ""))
    for sid in item.get("session_ids") or []:
        if not any(s == sid for s, _ in out):
            out.append((sid, item.get("last_seen_at") or item.get("detected_at") or ""))
    return out


def said_in(item: dict) -> list[str]:
    """The person's words behind ``item``: the prompt and statement of each instance."""
    out = [item.get("user_message") or "", item.get("statement") or ""]
    out += [i.get("statement") or "" for i in item.get("instances") or []]
    return [t for t in dict.fromkeys(out) if t]


def rule_of(item: dict) -> dict | None:
    rule = item.get("rule") or item.get("suggested_rule")
    if not rule or not rule.get("pattern") or not rule.get("pattern_type"):
        return None
    return rule


def attach(items: list[dict], history: History | None = None, store=None) -> list[dict]:
    """Each review item with a rule gets its ``replay`` (see :func:`evidence`); ``store``: where
    the calls the permission check refused are recorded."""
    wanted = [i for i in items if rule_of(i) is not None and i.get("item") in ("proposal", "correction", None)]
    if not wanted:
        return items
    history = history or History(store=store)
    for item in wanted:
        try:
            item["replay"] = evidence(rule_of(item), instances_of(item), history, said_in(item))
        except Exception as e:  # evidence helps a decision; it never stops the review
            item["replay"] = {"offer": "unknown", "why": f"replay failed: {type(e).__name__}: {e}"[:200]}
    return items
