"""Commands for corrections and markers: capture, review, instructions."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from ..errors import InvalidInput
from .common import JsonOpt, clip, emit_json, flush_warnings, open_store, settings, short, want_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..review import Queue


def register(app: typer.Typer) -> None:
    app.command("capture")(capture)
    app.command("review")(review)
    app.command("instructions")(instructions)


def _embedder(timeout_ms: float = 1000.0):
    from ..capture.semantic import daemon_embedder

    return daemon_embedder(timeout_ms)


def capture(
    user_message: Annotated[str, typer.Option("--user-message", "-m", help="What the person typed.")],
    session_id: Annotated[
        str | None,
        typer.Option(
            "--session-id", help="Session it belongs to (default: $CLAUDE_CODE_SESSION_ID, else a new one per call)."
        ),
    ] = None,
    context: Annotated[str | None, typer.Option("--context", help="What was being worked on.")] = None,
    json_: JsonOpt = False,
):
    """Detect a correction in a message and store it as the UserPromptSubmit hook does."""
    from .. import scope as scopes
    from ..capture.corrections import capture as do_capture
    from ..util import new_id

    sid = session_id or os.environ.get("CLAUDE_CODE_SESSION_ID") or f"cli-{new_id()}"
    root = scopes.find_project_root(os.getcwd())
    project = scopes.project_name(root) if root else None
    with open_store() as store:
        result = do_capture(
            store,
            user_message,
            session_id=sid,
            context=context,
            project=project,
            agent="cli",
            settings=settings(),
            embed=_embedder(),
        )
        flush_warnings(store)
    if want_json(json_):
        keys = (
            "correction",
            "kind",
            "what_was_wrong",
            "what_is_right",
            "confidence",
            "occurrences",
            "promoted_rule_id",
            "promoted_entry_id",
            "id",
            "statement",
            "status",
            "sessions",
            "matched_by",
            "promoted_now",
        )
        emit_json({k: result.get(k) for k in keys})
        return
    if not result["correction"]:
        print("nothing detected")  # no "correction" here: scripts grep for that word
        return
    n, s = result["occurrences"], result["sessions"]
    print(
        f"correction ({result['kind']}, confidence {result['confidence']:g}): {result['statement']}"
        f"  [id {short(result['id'])}, said {n} time{'s' if n != 1 else ''} in {s} session{'s' if s != 1 else ''}]"
    )
    if result["promoted_now"]:
        from ..capture.wording import promotion_notice

        print(promotion_notice(result).replace("memory-cli: ", "", 1))


def review(
    list_: Annotated[bool, typer.Option("--list", "-l", help="Print the queue and exit.")] = False,
    all_: Annotated[bool, typer.Option("--all", help="With --list: every correction, reviewed ones too.")] = False,
    approve: Annotated[
        str | None, typer.Option("--approve", metavar="ID", help="Approve this correction or proposal.")
    ] = None,
    reject: Annotated[
        str | None, typer.Option("--reject", metavar="ID", help="Reject it (never proposed again).")
    ] = None,
    action: Annotated[str | None, typer.Option("--action", help="With --approve: warn|block|suggest|ask.")] = None,
    pattern: Annotated[str | None, typer.Option("--pattern", help="With --approve: the pattern to enforce.")] = None,
    pattern_type: Annotated[str | None, typer.Option("--pattern-type", help="With --pattern: command|regex.")] = None,
    message: Annotated[str | None, typer.Option("--message", help="With --approve: what Claude is told.")] = None,
    scope: Annotated[str | None, typer.Option("--scope", help="With --approve: global | project:<name>.")] = None,
    form: Annotated[
        str | None, typer.Option("--form", help="With --approve: rule | reminder | ask | stop-check | advice.")
    ] = None,
    json_: JsonOpt = False,
):
    """Go through pending corrections and proposed rules, and memories an agent or a model
    asked to apply more widely than their project: approve, reject, edit or skip.

    Interactive on a terminal; scriptable with --list, --approve ID and --reject ID."""
    from .. import review as rv

    if approve and reject:
        raise InvalidInput("give either --approve or --reject, not both")
    if not approve and any(v is not None for v in (action, pattern, pattern_type, message, scope, form)):
        raise InvalidInput("--action, --pattern, --pattern-type, --message, --scope and --form go with --approve")
    with open_store() as store:
        if (approve or reject) and rv.is_scope_request(store, approve or reject):
            if any(v is not None for v in (action, pattern, pattern_type, message, scope, form)):
                raise InvalidInput("a memory's wider scope is approved or rejected as asked; no other options")
            entry = rv.approve_scope(store, approve) if approve else rv.reject_scope(store, reject)
            if want_json(json_):
                emit_json(entry)
            elif approve:
                print(f"approved {short(entry['id'])}: it now applies in {entry['scope']}")
            else:
                print(f"rejected {short(entry['id'])}: it stays in {entry['scope']} ({entry['status']})")
            return
        if approve or reject:
            offer = rv.replay_offer(store, approve) if approve and pattern is None else None
            typed = _replay_typed(store, approve, pattern, pattern_type) if approve and pattern is not None else None
            no_rule = False
            if offer and offer["offer"] == "narrowed":
                pattern, pattern_type = offer["narrowed_pattern"], offer["pattern_type"]
            elif offer and offer["offer"] == "reminder":
                no_rule = True
            result = (
                rv.approve(
                    store,
                    approve,
                    action=action,
                    pattern=pattern,
                    pattern_type=pattern_type,
                    message=message,
                    scope=scope,
                    no_rule=no_rule,
                    form=form,
                )
                if approve
                else rv.reject(store, reject)
            )
            if offer and offer["offer"] in ("narrowed", "reminder"):
                result["replay"] = offer
                sys.stderr.write(f"replay: {offer['why']}\n")
            elif typed and typed.get("fires_on_let_pass"):
                # The person chose this pattern: it is kept, and what it will also fire on is said.
                result["replay"] = typed
                sys.stderr.write(
                    f"replay: {pattern!r} fires on {typed['fires_on_corrected']} of {typed['corrected_calls']}"
                    f" corrected call(s) and on {typed['fires_on_let_pass']} you let pass"
                    f" ({typed['let_pass_sessions']} session(s)), so it will fire on those too;"
                    " `memory-cli rules disable ID` turns it off\n"
                )
            flush_warnings(store)
            if want_json(json_):
                emit_json(_public(result))
            else:
                verb = "approved" if approve else "rejected"
                print(f"{verb} {short(result['id'])}: {result['statement']}{_rule_text(result)}")
                if result.get("form"):
                    f = result["form"]
                    print(f"  enforced as: {f['form']}" + (f" ({f['check_kind']})" if f.get("check_kind") else ""))
                for w in result.get("checks_sync") or []:
                    print(f"  Stop checks: {w['action']} {w['path']}")
            return
        queue = None if all_ else rv.queue(store)
        items = rv.with_replay(rv.pending(store, every_correction=True) if queue is None else queue.items, store)
        requests = [rv.scope_item(r) for r in rv.scope_requests(store)]
        interactive = not list_ and not want_json(json_) and sys.stdin.isatty() and sys.stdout.isatty()
        if not interactive:
            if want_json(json_):
                emit_json([_public(i) for i in items] + requests)
            else:
                _print_list(items, requests, queue)
                if not list_ and (items or requests):
                    sys.stderr.write("review: not a terminal; use --approve ID or --reject ID\n")
            return
        _interactive(store, items)
        _interactive_requests(store, requests)
        flush_warnings(store)


def _print_replay(replay: dict | None, indent: str = "  ") -> None:
    """Where the proposed rule would have fired in the person's recorded sessions."""
    if not replay:
        return
    if "fires_on_corrected" not in replay:
        print(f"{indent}replay: {replay['why']}")
        return
    print(
        f"{indent}replay on {replay['calls_read']} recorded calls ({replay['sessions_read']} sessions): fires on"
        f" {replay['fires_on_corrected']} of {replay['corrected_calls']} corrected call(s),"
        f" {replay['fires_on_let_pass']} you let pass"
    )
    for key, label in (("corrected", "corrected"), ("let_pass", "let pass")):
        for c in replay[key][:3]:
            print(f"{indent}  {label:<9} {c['agent']:<6} {c['session_id'][:8]}  {clip(c['call'], 80)}")
    offer = {"gate": "as a gate", "narrowed": "narrowed", "reminder": "as a reminder", "unknown": "(no evidence)"}
    print(f"{indent}offered {offer.get(replay['offer'], replay['offer'])}: {replay['why']}")


def _interactive_requests(store, requests: list[dict]) -> None:
    from .. import review as rv

    for n, r in enumerate(requests, 1):
        where = r["scope"] if r["status"] == "active" else "nowhere yet (no project)"
        print()
        print(f"[{n}/{len(requests)}] {r['written_by'].capitalize()} wrote {short(r['id'])} ({r['type']}):")
        print(f"  {r['content']}")
        print(f"  applies in {where}; asks for {r['requested_scope']}")
        try:
            choice = input("(a)pprove the wider scope, (r)eject, (s)kip, (q)uit? ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            print()
            return
        if choice in ("a", "approve"):
            rv.approve_scope(store, r["id"])
            print(f"Approved: it now applies in {r['requested_scope']}.")
        elif choice in ("r", "reject"):
            rv.reject_scope(store, r["id"])
            print("Rejected; it stays where it was written.")
        elif choice in ("q", "quit"):
            return


def instructions(json_: JsonOpt = False):
    """Print the text that teaches the agent the [MEMORY:...] marker format."""
    from ..capture.instructions import text

    if want_json(json_):
        emit_json({"text": text()})
    else:
        print(text())


# --------------------------------------------------------------------------- presentation


def _public(item: dict) -> dict:
    out = dict(item)
    out.pop("correction", None)
    return out


def _rule_text(item: dict) -> str:
    rule = item.get("rule")
    if not rule:
        entry = item.get("entry")
        return f" (remembered as a {entry['type']})" if entry else ""
    state = "enabled" if rule["enabled"] else "disabled"
    conf = "confirmed" if rule["confirmed"] else "unconfirmed"
    return f" (rule: {rule['pattern_type']} {rule['pattern']!r} -> {rule['action']}, {conf}, {state})"


def _print_list(items: list[dict], requests: list[dict] = (), queue: Queue | None = None) -> None:
    if not items and not requests:
        kept = queue.kept_as_evidence if queue else 0
        if kept:
            readings = f"{kept} reading{'s' if kept != 1 else ''} of the hook's words kept as evidence"
            print(f"Nothing to review ({readings}: `review --list --all` shows them).")
        else:
            print("Nothing to review.")
        return
    if queue:
        print(queue.summary)
    from memory_cli.capture.queue import LABELS

    for item in items:
        n, s = item["occurrences"], item["sessions"]
        shown = LABELS.get(item.get("item") or "") or item["status"]
        print(f"{short(item['id'])}  {shown:<20}  x{n}/{s}s  {clip(item['statement'], 70)}{_rule_text(item)}")
        _print_quote(item)
        _print_instances(item)
        _print_replay(item.get("replay"), "      ")
    for r in requests:
        print(
            f"{short(r['id'])}  {'scope':<20}  {r['origin']}: {clip(r['content'], 60)}"
            f" (asks for {r['requested_scope']}, applies in {r['scope'] if r['status'] == 'active' else 'nowhere'})"
        )


def _print_quote(item: dict) -> None:
    """A lesson the agent recorded: the person's words it quoted (checked against the prompts)."""
    if item.get("origin") == "agent":
        print(f'      recorded by the agent, quoting you: "{clip(item.get("user_message") or "", 90)}"')


def _print_instances(item: dict) -> None:
    """Every time a recurring instruction was said: its session, date and the person's words;
    then the word model's guesses that read like it (evidence, not items)."""
    for i in item.get("instances") or []:
        said = clip(i.get("quote") or i["statement"] or "", 80)
        print(f"      said in session {(i['session_id'] or '-')[:8]} on {(i.get('detected_at') or '')[:10]}: {said}")
    for e in item.get("evidence") or []:
        print(f"      also read as a correction by the word model: {clip(e['quote'] or '', 70)}")


def _item_scope(item: dict) -> str:
    """Where an item applies if approved as it stands: its memory's scope once proposed, else
    the correction's (the project it was typed in, unless the person said "always")."""
    return (item.get("entry") or {}).get("scope") or item.get("scope") or "global"


def _describe(item: dict, index: int, total: int) -> None:
    n, s = item["occurrences"], item["sessions"]
    from memory_cli.capture.queue import label

    kind = label(item).capitalize()
    print()
    print(
        f"[{index}/{total}] {kind} {short(item['id'])}: said {n} time{'s' if n != 1 else ''} "
        f"in {s} session{'s' if s != 1 else ''} ({'the agent' if item.get('origin') == 'agent' else item['kind']}, confidence {item['confidence']:g})"
    )
    print(f"  {item['statement']}")
    print(f"  wrong: {item['what_was_wrong'] or '-'}   right: {item['what_is_right'] or '-'}")
    if item.get("origin") == "agent":
        print(f'  recorded by the agent, quoting you: "{clip(item.get("user_message") or "", 200)}"')
        print("  (nothing of it applies before you approve it)")
    scope = _item_scope(item)
    print(f"  scope: {scope}" + (" (every project)" if scope == "global" else ""))
    if item.get("rule"):
        print(f"  rule:{_rule_text(item)[len(' (rule:') : -1]}")
    elif item.get("suggested_rule"):
        sr = item["suggested_rule"]
        print(f"  approving creates: {sr['pattern_type']} {sr['pattern']!r} -> warn")
    else:
        print("  approving remembers it (nothing concrete to enforce)")
    if item.get("context"):
        print(f"  context: {clip(item['context'], 100)}")
    _print_instances(item)
    _print_replay(item.get("replay"))


def _replay_typed(store, ref: str, pattern: str, ptype: str | None) -> dict | None:
    """The replay of a pattern given with ``--approve``; None where there is nothing to replay."""
    from .. import review as rv

    try:
        replay = rv.replay_pattern(rv.show(store, ref, suggest=True), pattern, ptype)
    except Exception:  # an unknown id or a refused pattern is refused by approve, saying why
        return None
    return replay if replay.get("calls_read") else None


def _replay_edited(item: dict, pattern: str, ptype: str | None) -> str | None:
    """Replay a pattern the person typed and let them keep it (returned) or drop the gate (None)."""
    from .. import review as rv

    try:
        replay = rv.replay_pattern(item, pattern, ptype)
    except Exception as e:  # a pattern the rules area refuses is refused by approve, saying why
        print(f"  replay: not run ({e})")
        return pattern
    if not replay.get("calls_read"):
        return pattern  # no recorded sessions on this machine: nothing to show
    _print_replay(replay)
    keep = _ask("Keep this pattern? y/n", "y" if replay.get("offer") != "reminder" else "n")
    return pattern if keep.lower().startswith("y") else None


def _ask(prompt: str, default: str | None = None) -> str:
    shown = f"{prompt} [{default}]: " if default else f"{prompt}: "
    answer = input(shown).strip()
    return answer if answer else (default or "")


def _interactive(store, items: list[dict]) -> None:
    from .. import review as rv
    from ..errors import MemoryCliError

    if not items:
        print("Nothing to review.")
        return
    counts = {"approved": 0, "rejected": 0, "skipped": 0, "edited": 0}
    i = 0
    try:
        while i < len(items):
            item = items[i]
            _describe(item, i + 1, len(items))
            choice = input("(a)pprove, (r)eject, (e)dit, (s)kip, (q)uit? ").strip().lower()
            try:
                if choice in ("a", "approve"):
                    rule = item.get("rule") or item.get("suggested_rule") or {}
                    offer = item.get("replay") or {}
                    default = rule.get("pattern")
                    if offer.get("offer") == "narrowed":
                        default = offer["narrowed_pattern"]
                    elif offer.get("offer") == "reminder":
                        default = "-"
                    action = _ask("Action warn/block", rule.get("action") or "warn")
                    pattern = _ask(
                        "Pattern ('-' for no rule)" if rule.get("pattern") else "Pattern (empty: no rule)",
                        default,
                    )
                    no_rule = pattern in ("-", "")
                    pattern = None if no_rule else pattern
                    ptype = None
                    if pattern and pattern != rule.get("pattern"):
                        ptype = _ask("Pattern type command/regex", rule.get("pattern_type") or "command")
                    if pattern and pattern != default:
                        pattern = _replay_edited(item, pattern, ptype)
                        no_rule = pattern is None
                    message = _ask(
                        "Message",
                        (rule.get("message") if item.get("rule") else None) or rv.rule_message(item["statement"]),
                    )
                    scope = _ask("Scope", _item_scope(item))
                    form = _ask(
                        "Enforced as rule/reminder/ask/stop-check/advice",
                        rv.proposed_form(item["statement"], has_rule=not no_rule),
                    )
                    result = rv.approve(
                        store,
                        item["id"],
                        action=action,
                        pattern=pattern,
                        pattern_type=ptype,
                        message=message,
                        scope=scope,
                        no_rule=no_rule,
                        content=rv.rule_message(item["statement"]) if item.get("edited") else None,
                        form=form,
                    )
                    print(f"Approved.{_rule_text(result)}")
                    if result.get("form"):
                        print(f"  enforced as: {result['form']['form']}")
                    counts["approved"] += 1
                    i += 1
                elif choice in ("r", "reject"):
                    rv.reject(store, item["id"])
                    print("Rejected; it will not be proposed again.")
                    counts["rejected"] += 1
                    i += 1
                elif choice in ("e", "edit"):
                    wrong = _ask("What was wrong", item["what_was_wrong"] or None)
                    right = _ask("What is right", item["what_is_right"] or None)
                    statement = _ask(
                        "Statement",
                        rv.compose_statement(wrong, right)
                        if (wrong, right) != (item["what_was_wrong"], item["what_is_right"])
                        else item["statement"],
                    )
                    edited = rv.edit(store, item["id"], what_was_wrong=wrong, what_is_right=right, statement=statement)
                    edited["item"] = item.get("item")
                    edited["edited"] = True  # approving keeps the edited words as the memory's text
                    if not edited.get("rule"):  # what the edited words now name is offered
                        edited["suggested_rule"] = rv.show(store, item["id"], suggest=True).get("suggested_rule")
                    items[i] = edited
                    counts["edited"] += 1
                    print("Edited.")
                elif choice in ("s", "skip", ""):
                    counts["skipped"] += 1
                    i += 1
                elif choice in ("q", "quit"):
                    break
                else:
                    print("Please answer a, r, e, s or q.")
            except MemoryCliError as e:
                print(f"Not done: {e}")
            except EOFError:
                if choice:  # the input ended inside this item's questions: nothing of it was stored
                    print(f"\nEnd of input: {short(item['id'])} was not changed and stays {item['status']}.")
                    break
                raise
    except (EOFError, KeyboardInterrupt):
        print()
    print(
        f"Done: {counts['approved']} approved, {counts['rejected']} rejected, {counts['skipped']} skipped"
        + (f", {counts['edited']} edited." if counts["edited"] else ".")
    )
