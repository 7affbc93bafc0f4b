"""Commands over enforcement rules: `rules ...`, `enforce`, `import-rules hookify`."""

from __future__ import annotations

import os
import sys
import time
from typing import Annotated

import typer

from ..errors import InvalidInput
from .common import (
    JsonOpt,
    clip,
    console,
    content_from,
    emit_json,
    flush_warnings,
    note_shared,
    open_store,
    parse_json_arg,
    rule_line,
    settings,
    short,
    want_json,
    warn_if_never_fires,
)

rules_app = typer.Typer(help="Enforcement rules: what hooks block, warn about or suggest.", no_args_is_help=True)
import_app = typer.Typer(help="Import rules written for other tools.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    from .native_cmds import register as register_export

    register_export(rules_app)
    app.add_typer(rules_app, name="rules")
    app.command("enforce")(enforce)
    app.add_typer(import_app, name="import-rules")


ToolsOpt = Annotated[
    str | None,
    typer.Option(
        "--tools",
        help="Comma-separated tool names (Bash,Write,Edit...). Default: Bash for command rules, every tool otherwise.",
    ),
]
FieldsOpt = Annotated[
    str | None,
    typer.Option(
        "--fields",
        help="Comma-separated tool_input fields to match (default: command; content and file_path; new_string...).",
    ),
]
ConditionOpt = Annotated[
    list[str] | None,
    typer.Option("--condition", help="Extra condition FIELD:OPERATOR:PATTERN (all must hold); repeatable."),
]


def _follow(store) -> None:
    """A rule changed: its native copies (where they were written) follow now."""
    from ..entry_effects import resync_native

    for line in resync_native(store):
        sys.stderr.write(f"warning: {line}\n")


# -- rules add/list/show ------------------------------------------------------------------


@rules_app.command("add")
def rules_add(
    content_arg: Annotated[
        str | None, typer.Argument(metavar="[CONTENT]", help="The rule in words (what gets injected).")
    ] = None,
    content: Annotated[str | None, typer.Option("--content", "-c")] = None,
    pattern: Annotated[
        str | None, typer.Option("--pattern", "-p", help="What to match; derived from the content if omitted.")
    ] = None,
    pattern_type: Annotated[str | None, typer.Option("--pattern-type", "-T", help="regex | command | intent")] = None,
    action: Annotated[str | None, typer.Option("--action", "-a", help="block | warn | suggest | ask")] = None,
    severity: Annotated[
        str | None, typer.Option("--severity", help="critical | high | medium | low (default: medium)")
    ] = None,
    alternative: Annotated[str | None, typer.Option("--alternative", help="What to do instead.")] = None,
    message: Annotated[str | None, typer.Option("--message", help="What to say when it fires.")] = None,
    tools: ToolsOpt = None,
    fields: FieldsOpt = None,
    condition: ConditionOpt = None,
    scope: Annotated[str, typer.Option("--scope", "-s", help="global | project:<name> | file:<path>")] = "global",
    case_sensitive: Annotated[bool, typer.Option("--case-sensitive", help="Regexes ignore case unless set.")] = False,
    name: Annotated[str | None, typer.Option("--name", help="A short label.")] = None,
    disabled: Annotated[bool, typer.Option("--disabled", help="Store it switched off.")] = False,
    spelling_only: Annotated[
        bool,
        typer.Option(
            "--spelling-only",
            help="A command rule matches the command as written only, not every spelling of the"
            " operation it is recognised as (rm -rf / also stops find / -delete).",
        ),
    ] = False,
    json_: JsonOpt = False,
):
    """Add a rule. Without --pattern it is derived from the content ("Never use pythonw.exe")."""
    from ..rules import api

    text = content_from(content_arg, content)
    if spelling_only and pattern_type is not None and pattern_type.strip().lower() != "command":
        raise InvalidInput("--spelling-only applies to command rules (--pattern-type command)")
    with open_store() as store:
        rule = api.add_rule(
            store,
            text,
            pattern=pattern,
            pattern_type=pattern_type,
            action=action,
            severity=severity,
            alternative=alternative,
            message=message,
            tools=tools,
            fields=fields,
            conditions=list(condition or []),
            scope=scope,
            case_sensitive=case_sensitive,
            name=name,
            enabled=not disabled,
        )
        if spelling_only:
            from ..rules.spelling_cli import keep_spelling_only

            rule = keep_spelling_only(store, rule)
        _follow(store)
        flush_warnings(store)
    if want_json(json_):
        emit_json(rule)
    elif rule.get("reinforced"):
        print(rule["id"])
        sys.stderr.write(
            f"rule already exists as {rule['id'][:8]} ({rule['pattern_type']} {rule['pattern']!r} -> "
            f"{rule['effective_action']}): reinforced it (confidence {rule['confidence']:g}); nothing added\n"
        )
        return
    else:
        print(rule["id"])
        sys.stderr.write(rule_line(rule) + "\n")
        from ..rules.spelling_cli import operation_line

        line = operation_line(rule)
        if line:
            sys.stderr.write(line + "\n")
    warn_if_never_fires(rule)


@rules_app.command("list")
def rules_list(
    all_: Annotated[bool, typer.Option("--all", help="Include disabled rules and archived entries.")] = False,
    disabled: Annotated[bool, typer.Option("--disabled", help="Only disabled rules.")] = False,
    unconfirmed: Annotated[bool, typer.Option("--unconfirmed", help="Only rules waiting for confirmation.")] = False,
    pattern_type: Annotated[str | None, typer.Option("--pattern-type", "-T")] = None,
    scope: Annotated[str | None, typer.Option("--scope", "-s")] = None,
    json_: JsonOpt = False,
):
    """List rules, blocking ones first."""
    from ..rules import api

    with open_store(reading=True) as store:
        note_shared(store)
        rows = api.list_rules(
            store,
            status="all" if all_ else "active",
            enabled=False if disabled else (None if all_ else True),
            confirmed=False if unconfirmed else None,
            pattern_type=pattern_type,
            scope=scope,
        )
        from ..rules import proof

        proofs = proof.collect(store, [r["id"] for r in rows])
    for r in rows:
        r["proof"] = proofs.get(r["id"]) or proof.empty()
    if want_json(json_):
        emit_json(rows)
        return
    if not rows:
        print("no rules")
        return
    from rich.table import Table

    t = Table(box=None, pad_edge=False, header_style="bold")
    for col in ("id", "action", "sev", "type", "pattern", "scope", "viol", "fired", "rule"):
        t.add_column(col)
    for r in rows:
        action = r["effective_action"] + ("" if r["confirmed"] else "?")
        if not r["enabled"]:
            action += " (off)"
        t.add_row(
            short(r["id"]),
            action,
            r["severity"],
            r["pattern_type"],
            clip(r["pattern"], 40),
            r["scope"],
            str(r.get("violation_count") or 0),
            _fired_cell(r["proof"]),
            clip(r["content"], 60),
        )
    console().print(t)


def _fired_cell(p: dict) -> str:
    """``3 (2 obeyed)``, ``-`` for a rule no hook fired."""
    if not p["fired"]:
        return "-"
    outcome = [f"{p[k]} {k}" for k in ("obeyed", "repeated", "overridden") if p[k]]
    return f"{p['fired']}" + (f" ({', '.join(outcome)})" if outcome else "")


@rules_app.command("show")
def rules_show(rule_id: Annotated[str, typer.Argument(metavar="ID")], json_: JsonOpt = False):
    """Everything about one rule, with its recent audit history."""
    from .. import audit
    from ..rules import api

    with open_store(reading=True) as store:
        rule = api.get_rule(store, rule_id)
        history = audit.query(store, entry_id=rule["id"], limit=20)
        from ..rules import proof

        rule_proof = proof.collect(store, [rule["id"]]).get(rule["id"]) or proof.empty()
    if want_json(json_):
        emit_json(dict(rule, proof=rule_proof, history=history))
        return
    for key in (
        "id",
        "content",
        "pattern",
        "pattern_type",
        "action",
        "effective_action",
        "severity",
        "alternative",
        "message",
        "tools",
        "fields",
        "conditions",
        "case_sensitive",
        "scope",
        "enabled",
        "confirmed",
        "provenance",
        "name",
        "hook_events",
        "source_ref",
        "violation_count",
        "last_violation_at",
        "created_at",
        "updated_at",
    ):
        value = rule.get(key)
        if value in (None, [], "") and key not in ("tools",):
            continue
        if key == "tools" and not value:
            value = "(every tool)"
        print(f"{key:>17}  {value}")
    print(f"{'proof':>17}  {proof.line(rule_proof)}")
    if rule_proof["first_fired"]:
        print(f"{'first fired':>17}  {rule_proof['first_fired'][:19]}")
    if history:
        print(f"{'history':>17}")
        for h in history:
            print(f"{'':>17}  {h['timestamp'][:19]}  {h['action']}  {h.get('result') or ''}")


# -- rules edit/enable/disable/confirm/delete -----------------------------------------------


@rules_app.command("edit")
def rules_edit(
    rule_id: Annotated[str, typer.Argument(metavar="ID")],
    content: Annotated[str | None, typer.Option("--content", "-c")] = None,
    pattern: Annotated[str | None, typer.Option("--pattern", "-p")] = None,
    pattern_type: Annotated[str | None, typer.Option("--pattern-type", "-T")] = None,
    action: Annotated[str | None, typer.Option("--action", "-a")] = None,
    severity: Annotated[str | None, typer.Option("--severity")] = None,
    alternative: Annotated[str | None, typer.Option("--alternative", help="'' clears it.")] = None,
    message: Annotated[str | None, typer.Option("--message", help="'' clears it.")] = None,
    tools: ToolsOpt = None,
    fields: FieldsOpt = None,
    condition: ConditionOpt = None,
    clear_conditions: Annotated[bool, typer.Option("--clear-conditions")] = False,
    scope: Annotated[str | None, typer.Option("--scope", "-s")] = None,
    case_sensitive: Annotated[bool | None, typer.Option("--case-sensitive/--ignore-case")] = None,
    name: Annotated[str | None, typer.Option("--name")] = None,
    json_: JsonOpt = False,
):
    """Change a rule; a new pattern is validated before anything is stored."""
    from ..rules import api

    conditions = [] if clear_conditions else (list(condition) if condition else None)
    with open_store() as store:
        rule = api.edit_rule(
            store,
            rule_id,
            content=content,
            pattern=pattern,
            pattern_type=pattern_type,
            action=action,
            severity=severity,
            alternative=alternative,
            message=message,
            tools=tools,
            fields=fields,
            conditions=conditions,
            scope=scope,
            case_sensitive=case_sensitive,
            name=name,
        )
        _follow(store)
        flush_warnings(store)
    _done(rule, "updated", json_)
    if tools is not None:
        warn_if_never_fires(rule)


def _done(rule: dict, verb: str, json_: bool) -> None:
    if want_json(json_):
        emit_json(rule)
    else:
        state = "enabled" if rule["enabled"] else "disabled"
        print(
            f"{verb} {short(rule['id'])}: {rule['pattern_type']} {rule['pattern']!r} -> "
            f"{rule['effective_action']} ({state}, {'confirmed' if rule['confirmed'] else 'unconfirmed'})"
        )


@rules_app.command("enable")
def rules_enable(rule_id: Annotated[str, typer.Argument(metavar="ID")], json_: JsonOpt = False):
    """Switch a rule on."""
    from ..rules import api

    with open_store() as store:
        rule = api.set_enabled(store, rule_id, True)
        _follow(store)
    _done(rule, "enabled", json_)


@rules_app.command("disable")
def rules_disable(rule_id: Annotated[str, typer.Argument(metavar="ID")], json_: JsonOpt = False):
    """Switch a rule off without deleting it."""
    from ..rules import api

    with open_store() as store:
        rule = api.set_enabled(store, rule_id, False)
        _follow(store)
    _done(rule, "disabled", json_)


@rules_app.command("confirm")
def rules_confirm(
    rule_id: Annotated[str, typer.Argument(metavar="ID")],
    action: Annotated[
        str | None,
        typer.Option("--action", "-a", help="Action after confirming (a promoted warn rule becomes block by default)."),
    ] = None,
    json_: JsonOpt = False,
):
    """Vouch for a rule (promoted rules only warn until confirmed)."""
    from ..rules import api

    with open_store() as store:
        rule = api.confirm_rule(store, rule_id, action=action)
        _follow(store)
    _done(rule, "confirmed", json_)


@rules_app.command("delete")
def rules_delete(
    rule_id: Annotated[str, typer.Argument(metavar="ID")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    json_: JsonOpt = False,
):
    """Delete a rule and its memory (the audit log keeps the last state)."""
    from ..rules import api

    with open_store() as store:
        rule = api.get_rule(store, rule_id)
        if not yes:
            if not sys.stdin.isatty():
                raise InvalidInput("refusing to delete without confirmation: pass --yes")
            if not typer.confirm(f"Delete rule {short(rule['id'])} ({clip(rule['content'], 60)})?", default=False):
                print("kept")
                return
        api.delete_rule(store, rule["id"])
        _follow(store)
    if want_json(json_):
        emit_json({"deleted": rule["id"]})
    else:
        print(f"deleted {rule['id']}")


@rules_app.command("accept-changes")
def rules_accept_changes(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    json_: JsonOpt = False,
):
    """Accept the rules as they stand after a change made outside memory-cli (until then the
    gate keeps enforcing the rules as you last confirmed them)."""
    from ..rules import confirmed

    with open_store() as store:
        changed = confirmed.changes(store)
        if changed is not None and not yes:
            if not sys.stdin.isatty():
                raise InvalidInput(
                    "refusing to accept changes made outside memory-cli without confirmation: pass --yes"
                )
            print(changed.line())
            if not typer.confirm("Accept the rules as they stand now?", default=False):
                print("kept: the gate still enforces the rules as you last confirmed them")
                return
        out = confirmed.accept(store)
        _follow(store)
    if want_json(json_):
        emit_json(out)
    elif out["accepted"]:
        print(
            f"accepted: {out['turned_off']} turned off, {out['rewritten']} rewritten, {out['added']} added; "
            "the gate enforces the rules as they stand now"
        )
    else:
        print("nothing to accept: every rule change came through memory-cli")


# -- checking calls -------------------------------------------------------------------------


def _tool_input(tool: str, text: str | None, input_json: str | None, file: str | None) -> dict:
    if input_json is not None:
        ti = parse_json_arg(input_json, "--input-json")
        if not isinstance(ti, dict):
            raise InvalidInput("--input-json must be a JSON object (a tool_input)")
        return ti
    if text is None:
        raise InvalidInput("give --input TEXT or --input-json JSON")
    if tool == "Bash":
        return {"command": text}
    if tool == "Write":
        return {"file_path": file or "", "content": text}
    if tool == "Edit":
        return {"file_path": file or "", "old_string": "", "new_string": text}
    if tool == "MultiEdit":
        return {"file_path": file or "", "edits": [{"old_string": "", "new_string": text}]}
    if tool == "NotebookEdit":
        return {"notebook_path": file or "", "new_source": text}
    if tool == "Read":
        return {"file_path": text}
    if tool in ("Grep", "Glob"):
        return {"pattern": text}
    if tool == "WebFetch":
        return {"url": text}
    if tool == "WebSearch":
        return {"query": text}
    return {"input": text}


def _check(tool: str, ti: dict, *, phase: str, cwd: str | None, only=None, rs=None, audit_it: bool = True):
    from .. import scope as scopes
    from ..rules import engine, ruleset
    from ..rules.spec import KNOWN_TOOLS
    from ..settings import value as setting

    tool = next((t for t in KNOWN_TOOLS if t.lower() == tool.lower()), tool)
    s = settings()
    event = "PostToolUse" if phase == "post" else "PreToolUse"
    budget = int(setting(s, ("verification" if phase == "post" else "enforcement") + ".max_latency_ms"))
    root = scopes.find_project_root(os.path.abspath(cwd or os.getcwd()))
    project = scopes.project_name(root)
    files = [v for k, v in ti.items() if k in ("file_path", "notebook_path", "path") and isinstance(v, str) and v]
    with open_store() as store:
        t0 = time.perf_counter()
        rules = rs if rs is not None else ruleset.load(store)
        verdict = engine.evaluate(
            rules,
            event=event,
            tool_name=tool,
            tool_input=ti,
            payload={"tool_name": tool, "tool_input": ti, "cwd": cwd or os.getcwd()},
            applies=lambda sc: scopes.applies(sc, project, files, root),
            deadline=t0 + budget / 1000.0,
            only=only,
            intent_threshold=float(setting(s, "enforcement.intent_threshold")),
            intent_timeout_ms=float(setting(s, "daemon.request_timeout_ms")),
        )
        verdict.elapsed_ms = (time.perf_counter() - t0) * 1000.0
        considered = _considered(rules, event, tool, lambda sc: scopes.applies(sc, project, files, root))
        verdict.checked = max(verdict.checked, considered)
        if audit_it:
            _audit_cli(store, verdict, tool, ti, event)
    return verdict, tool


def _considered(rules, event: str, tool: str, applies) -> int:
    """How many stored rules apply to this call: the engine's ``checked`` counts only the rules
    it had to compare, and a command rule whose program the call does not name is decided by
    its index without a comparison, yet it was considered."""
    from ..rules import ruleset as R

    return sum(
        1
        for r in rules.all_rules()
        if (not r[R.EVENTS] or event in r[R.EVENTS])
        and (not r[R.TOOLS] or tool in r[R.TOOLS])
        and (r[R.SCOPE] == "global" or applies(r[R.SCOPE]))
    )


def _audit_cli(store, verdict, tool, ti, event) -> None:
    """A check run from the command line is a dry run: audited as ``dry_run`` (the rule's
    action is the result), so it is never counted as a block, a warning or a rule firing."""
    from .. import audit
    from ..privacy.redact import redact

    subject = ti.get("command") or ti.get("file_path")
    for m in verdict.matches:
        audit.record_safely(
            store,
            "dry_run",
            entry_id=m.id,
            context=f"cli {tool}",
            result=m.action,
            details={
                "matched": redact((m.snippet or "")[:300])[0],
                "subject": redact(str(subject or "")[:300])[0],
                "phase": event,
                "decision": verdict.decision,
            },
            elapsed_ms=verdict.elapsed_ms,
        )
    if verdict.skipped:
        audit.record_safely(
            store,
            "dry_run",
            context=f"cli {tool}",
            result="undecided",
            details={
                "skipped": verdict.skipped[:50],
                "unchecked_rules": verdict.unchecked[:50],
                "intent_skipped": verdict.intent_skipped[:50],
                "reason": verdict.intent_reason,
                "decision": verdict.decision,
            },
            elapsed_ms=verdict.elapsed_ms,
        )


def _rules_word(n: int) -> str:
    return f"{n} rule" if n == 1 else f"{n} rules"


_VERB = {"block": "blocked", "ask": "asked", "warn": "warned", "suggest": "suggested", "allow": "allowed"}


def _print_verdict(verdict, tool: str, phase: str = "pre") -> None:
    if not verdict.matches:
        extra = ""
        if verdict.unchecked:
            extra = f"; {len(verdict.unchecked)} rule(s) not decided within the budget"
        if verdict.intent_skipped:
            extra += f"; {len(verdict.intent_skipped)} intent rule(s) skipped ({verdict.intent_reason})"
        print(
            f"allowed: no rule matched this {tool} call "
            f"({_rules_word(verdict.checked)} checked, "
            f"{verdict.elapsed_ms:.1f} ms){extra}"
        )
        return
    for m in verdict.matches:
        d = m.to_dict()
        verb = _VERB[m.action]
        if phase == "post":  # the call already ran: block and warn rules were violated
            verb = "violated" if m.action in ("block", "warn") else verb
        line = (
            f"{verb}: {tool} call matches rule {short(m.id)} ({d['severity']}, "
            f"{d['pattern_type']} {d['pattern']!r}): {clip(d['message'], 120)}"
        )
        if d["alternative"]:
            line += f" -- instead: {d['alternative']}"
        print(line)


def enforce(
    tool: Annotated[str, typer.Option("--tool", help="Tool name: Bash, Write, Edit, ...")],
    input_: Annotated[
        str | None, typer.Option("--input", "-i", help="The Bash command, the content for Write/Edit, ...")
    ] = None,
    input_json: Annotated[str | None, typer.Option("--input-json", help="A whole tool_input as JSON.")] = None,
    file: Annotated[str | None, typer.Option("--file", help="file_path for Write/Edit with --input.")] = None,
    cwd: Annotated[str | None, typer.Option("--cwd", help="Directory of the call (decides project scopes).")] = None,
    phase: Annotated[str, typer.Option("--phase", help="pre (enforcement) | post (verification)")] = "pre",
    json_: JsonOpt = False,
):
    """Check a proposed tool call against the rules: prints blocked / warned / suggested /
    asked / allowed with the rule and the alternative."""
    if phase not in ("pre", "post"):
        raise InvalidInput("--phase is pre or post")
    ti = _tool_input(tool, input_, input_json, file)
    verdict, tool = _check(tool, ti, phase=phase, cwd=cwd)
    if want_json(json_):
        emit_json(verdict.to_dict())
    else:
        _print_verdict(verdict, tool, phase)


@rules_app.command("test")
def rules_test(
    rule_id: Annotated[str | None, typer.Argument(metavar="[ID]", help="A stored rule (any state).")] = None,
    pattern: Annotated[str | None, typer.Option("--pattern", "-p", help="Try a pattern without storing it.")] = None,
    pattern_type: Annotated[
        str | None,
        typer.Option(
            "--pattern-type", "-T", help="With --pattern: command | regex | intent (default: guessed from the pattern)."
        ),
    ] = None,
    case_sensitive: Annotated[
        bool, typer.Option("--case-sensitive", help="With --pattern: match letter case exactly.")
    ] = False,
    tool: Annotated[str, typer.Option("--tool", help="Tool name: Bash, Write, Edit, ...")] = "Bash",
    input_: Annotated[
        str | None, typer.Option("--input", "-i", help="The Bash command, the content for Write/Edit, ...")
    ] = None,
    input_json: Annotated[str | None, typer.Option("--input-json", help="A whole tool_input as JSON.")] = None,
    file: Annotated[str | None, typer.Option("--file", help="file_path for Write/Edit with --input.")] = None,
    spelling_only: Annotated[
        bool, typer.Option("--spelling-only", help="With --pattern: match the command as written only.")
    ] = False,
    json_: JsonOpt = False,
):
    """Would this call match: every enabled rule as the gate sees it from this directory, or one
    rule (ID, any state, scope ignored) or an unstored --pattern. A dry run: nothing is stored."""
    from ..rules import api, ruleset, spec

    if rule_id is not None and pattern is not None:
        raise InvalidInput("give a rule ID or --pattern, not both (neither: every stored rule)")
    ti = _tool_input(tool, input_, input_json, file)
    if rule_id is None and pattern is None:
        verdict, tool = _check(tool, ti, phase="pre", cwd=None, audit_it=False)
        if want_json(json_):
            emit_json(verdict.to_dict())
        else:
            _print_verdict(verdict, tool)
        return
    with open_store() as store:
        if rule_id is not None:
            rule = api.get_rule(store, rule_id)
            row = ruleset.row_for(store, rule["id"])
        else:
            ptype = spec.check_pattern_type(pattern_type or api.guess_pattern_type(pattern))
            pat = spec.check_pattern(pattern, ptype, case_sensitive=case_sensitive)
            rule = None
            row = {
                "id": "(pattern)",
                "pattern": pat,
                "pattern_type": ptype,
                "action": "block",
                "severity": "medium",
                "alternative": None,
                "message": None,
                "tools": "[]" if ptype != "command" else '["Bash"]',
                "fields": "[]",
                "case_sensitive": case_sensitive,
                "provenance": "manual",
                "confirmed": 1,
                "conditions": "[]",
                "name": None,
                "hook_events": "[]",
                "analysis": None,
                "content": pat,
                "scope": "global",
                "spelling_only": 1 if spelling_only else 0,
            }
    one = ruleset.single(row)  # scope and enabled state are ignored on purpose
    verdict, tool = _check(tool, ti, phase="pre", cwd=None, rs=one, audit_it=False)
    matched = bool(verdict.matches)
    if want_json(json_):
        emit_json(
            {
                "matches": matched,
                "rule": rule or {"pattern": row["pattern"], "pattern_type": row["pattern_type"]},
                "match": verdict.matches[0].to_dict() if matched else None,
                "undecided": bool(verdict.unchecked),
                "elapsed_ms": round(verdict.elapsed_ms, 3),
                "operation": _stands_for(row),
            }
        )
        return
    from ..rules.spelling_cli import operation_line

    line = operation_line({"pattern_type": row["pattern_type"], "operation": _stands_for(row)})
    if line:
        print(line)
    if matched:
        m = verdict.matches[0]
        print(f"matches ({m.field}): {m.snippet!r}" + (f" ({m.action})" if m.action != "block" else ""))
    elif verdict.unchecked:
        print("undecided: the pattern could not be checked within the budget")
    else:
        print("no match")
    if rule is not None and not rule["enabled"]:
        print("note: this rule is disabled")


def _stands_for(row: dict) -> dict | None:
    if row["pattern_type"] != "command":
        return None
    from ..rules.operations import stands_for

    return stands_for(row["pattern"], bool(row.get("spelling_only")))


@rules_app.command("replay")
def rules_replay(
    rule_id: Annotated[str | None, typer.Argument(metavar="[ID]", help="A stored rule (any state).")] = None,
    pattern: Annotated[str | None, typer.Option("--pattern", "-p", help="Replay a pattern without storing it.")] = None,
    pattern_type: Annotated[str | None, typer.Option("--pattern-type", "--type", "-T")] = None,
    action: Annotated[
        str, typer.Option("--action", "-a", help="With --pattern: block | ask | warn | suggest.")
    ] = "block",
    tools: ToolsOpt = None,
    case_sensitive: Annotated[bool, typer.Option("--case-sensitive")] = False,
    since: Annotated[str | None, typer.Option("--since", help="Sessions written since: 2026-11-01 or 30d.")] = None,
    agent: Annotated[
        list[str] | None, typer.Option("--agent", help="claude | codex | gemini (repeatable; default all).")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", help="Calls listed (counts cover all).")] = 20,
    json_: JsonOpt = False,
):
    """What a rule would have done in the sessions Claude Code, Codex and Gemini CLI keep on this
    machine: every recorded tool call through the hook's engine. A dry run: nothing is audited."""
    from ..replay import run
    from ..rules import api, ruleset

    if rule_id is not None and pattern is not None:
        raise InvalidInput("give a rule ID or --pattern, not both")
    if rule_id is None and pattern is None:
        raise InvalidInput(
            "which rule? give its ID (`memory-cli rules list` shows them) or try one unstored: "
            "memory-cli rules replay --pattern 'git push --force'"
        )
    agents = _replay_agents(agent)
    since_epoch = _since_epoch(since)
    if rule_id is not None:
        with open_store(reading=True) as store:
            rule = api.get_rule(store, rule_id)
            row = ruleset.row_for(store, rule["id"])
    else:
        if action not in ("block", "ask", "warn", "suggest"):
            raise InvalidInput(f"unknown action {action!r}: use block, ask, warn or suggest")
        ptype = pattern_type or api.guess_pattern_type(pattern)
        tool_list = [t.strip() for t in tools.split(",") if t.strip()] if tools else None
        row = run.pattern_row(pattern, ptype, action=action, tools=tool_list, case_sensitive=case_sensitive)
    report = run.replay(row, agents=agents, since_epoch=since_epoch)
    out = report.to_dict()
    out["rule"] = {"id": row["id"], "pattern": row["pattern"], "pattern_type": row["pattern_type"]}
    if want_json(json_):
        emit_json(out)
        return
    print(_replay_summary(out))
    for h in out["calls"][: max(0, limit)]:
        mark = " (the person declined it)" if h["rejected"] else ""
        print(
            f"  {h['action']:<7} {h['agent']:<6} {h['session_id'][:8]}  {h['timestamp'][:19]}  {h['tool']}: {clip(h['call'], 90)}{mark}"
        )
    if out["fired"] > limit:
        print(f"  ... {out['fired'] - limit} more (--limit, --json)")


def _replay_agents(agent) -> list[str] | None:
    from ..replay.run import AGENTS

    if not agent:
        return None
    names = [a.strip().lower() for a in agent for a in a.split(",") if a.strip()]
    bad = [a for a in names if a not in AGENTS]
    if bad:
        raise InvalidInput(f"unknown agent {bad[0]!r}: use one of {', '.join(AGENTS)}")
    return names


def _since_epoch(since: str | None) -> float | None:
    """``30d`` / ``12h`` ago, or an ISO date or time (UTC)."""
    if not since:
        return None
    from datetime import datetime, timezone

    text = since.strip()
    if text[:-1].isdigit() and text[-1:] in ("d", "h"):
        return time.time() - int(text[:-1]) * (86400 if text.endswith("d") else 3600)
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"--since {since!r}: give a date (2026-11-01), a time, or 30d / 12h") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()


def _replay_summary(out: dict) -> str:
    rule = out["rule"]
    head = f"{rule['pattern_type']} {rule['pattern']!r}"
    if out.get("not_replayed"):
        return f"{head}: {out['not_replayed']}"
    read = (
        f"{out['calls_read']} recorded tool calls in {out['sessions_read']} sessions"
        f" ({', '.join(f'{a} {n}' for a, n in sorted(out['calls_by_agent'].items())) or 'none found'})"
    )
    if not out["fired"]:
        return f"{head}: would not have fired on {read}"
    counts = ", ".join(f"{_VERB.get(a, a)} {n}" for a, n in sorted(out["counts"].items()))
    return f"{head}: would have {counts} of {read}, in {len(out['sessions'])} session(s)"


# -- import ----------------------------------------------------------------------------------


@import_app.command("hookify")
def import_hookify_cmd(
    directory: Annotated[
        str, typer.Argument(metavar="DIR", help="A project (its .claude/), a .claude directory, or a rule file.")
    ],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be imported.")] = False,
    json_: JsonOpt = False,
):
    """Import Anthropic hookify rules (.claude/hookify.*.local.md), keeping their meaning."""
    from ..rules.hookify import find_rule_files
    from ..rules.importers import import_hookify

    path = os.path.abspath(os.path.expanduser(directory))
    if not os.path.exists(path):
        raise InvalidInput(f"no such file or directory: {directory}")
    if not find_rule_files(path):
        raise InvalidInput(f"no hookify rule files under {directory} (looked for .claude/hookify.*.local.md)")
    with open_store() as store:
        report = import_hookify(store, path, dry_run=dry_run)
        if not dry_run:
            _follow(store)
        flush_warnings(store)
    if want_json(json_):
        emit_json(report)
        return
    verb = "would import" if dry_run else "imported"
    print(
        f"{verb} {len(report['created'])} new, {len(report['updated'])} updated, {len(report['unchanged'])} unchanged"
    )
    for item in report["created"]:
        print(
            f"  + {short(item['id']) if item['id'] else '(new)'}  {item['name']}  "
            f"{item['action']}  {clip(item['pattern'], 50)}"
        )
    for item in report["updated"]:
        print(f"  ~ {short(item['id'])}  {item['name']}  ({', '.join(item['changed'])})")
    for w in report["warnings"]:
        sys.stderr.write(f"warning: {w}\n")
    for e in report["errors"]:
        sys.stderr.write(f"skipped: {e}\n")
