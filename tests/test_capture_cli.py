"""`memory-cli capture`, `review` and `instructions` as a person runs them; interactive review
through a real pseudo-terminal."""

from __future__ import annotations

import json

import pytest
from helpers.hooks import payload
from helpers.terminal import terminals

from memory_cli.capture.instructions import text as instructions_text


@pytest.fixture(autouse=True)
def outside_any_project(tmp_path, monkeypatch):
    """Run from a folder that is no git project: a correction typed in a project stays in it."""
    monkeypatch.chdir(tmp_path)


def _capture(cli, message, session="s1", *extra):
    r = cli("capture", "--user-message", message, "--session-id", session, "--json", *extra)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_capture_prints_correction_line_seed_smoke_test(cli):
    r = cli("capture", "--user-message", "No, never use pythonw.exe", "--context", "launching GUI")
    assert r.returncode == 0
    assert "correction" in r.stdout and "do not use pythonw.exe" in r.stdout


def test_capture_json_fields(cli):
    out = _capture(cli, "No, use python.exe not pythonw.exe")
    assert out["correction"] is True and out["kind"] == "explicit"
    assert (out["what_was_wrong"], out["what_is_right"]) == ("pythonw.exe", "python.exe")
    assert out["confidence"] == 0.9 and out["occurrences"] == 1 and out["promoted_rule_id"] is None
    none = _capture(cli, "please refactor the parser")
    assert none["correction"] is False and none["kind"] is None and none["occurrences"] is None


def test_capture_without_correction_prints_no_correction_word(cli):
    r = cli("capture", "--user-message", "thanks, looks good")
    assert r.returncode == 0 and "correction" not in r.stdout


def test_three_cli_captures_promote_and_report_rule_id(cli):
    # Without --session-id every call is its own session: a person typing the command three
    # times has said it three times.
    for message in ("never use pythonw.exe", "stop using pythonw.exe", "No! Don't use pythonw.exe again"):
        r = cli("capture", "--user-message", message, "--json")
    out = json.loads(r.stdout)
    assert out["occurrences"] == 3 and out["promoted_now"] is True and out["promoted_rule_id"]


def test_review_scripted_list_approve_reject(cli):
    for s in ("s1", "s2", "s3"):
        proposal = _capture(cli, "use pnpm, not npm", s)
    pending = _capture(cli, "never use sudo")
    listed = json.loads(cli("review", "--list", "--json").stdout)
    assert [i["item"] for i in listed] == ["proposal", "correction"]
    assert listed[0]["rule"]["pattern"] == "npm" and listed[0]["rule"]["confirmed"] is False

    r = cli("review", "--approve", proposal["id"][:8], "--action", "block", "--json")
    assert r.returncode == 0, r.stderr
    approved = json.loads(r.stdout)
    assert approved["status"] == "approved" and approved["rule"]["action"] == "block"
    assert approved["rule"]["confirmed"] is True

    r = cli("review", "--reject", pending["id"])
    assert r.returncode == 0 and r.stdout.startswith("rejected ")
    assert json.loads(cli("review", "--list", "--json").stdout) == []
    everything = json.loads(cli("review", "--list", "--all", "--json").stdout)
    assert {i["status"] for i in everything} == {"approved", "rejected"}


def test_review_errors_are_one_line_with_exit_codes(cli):
    r = cli("review", "--approve", "nope-not-an-id")
    assert r.returncode == 3 and r.stderr.startswith("memory-cli: error: no correction")
    _capture(cli, "never use sudo")
    r = cli("review", "--approve", _capture(cli, "never use sudo")["id"], "--action", "explode")
    assert r.returncode == 2 and "unknown action" in r.stderr
    r = cli("review", "--action", "block")
    assert r.returncode == 2


def test_review_without_terminal_lists_and_hints(cli):
    _capture(cli, "never use sudo")
    r = cli("review")
    assert r.returncode == 0 and "do not use sudo" in r.stdout
    assert "--approve" in r.stderr


def test_instructions_command(cli):
    r = cli("instructions")
    assert r.returncode == 0 and r.stdout.strip() == instructions_text().strip()
    assert json.loads(cli("instructions", "--json").stdout)["text"] == instructions_text()


# ---------------------------------------------------------------- interactive, through a pty


@pytest.fixture
def terminal(db_path):
    yield from terminals(db_path)


def test_interactive_review_approve_block_edit_reject_skip(cli, terminal, store):
    for s in ("s1", "s2", "s3"):
        _capture(cli, "never use pythonw.exe", s)
    _capture(cli, "use pnpm, not npm")
    _capture(cli, "It's pnpm, not npm")
    _capture(cli, "never use sudo")

    t = terminal("review")
    screen = t.expect("(q)uit? ")
    assert "[1/3] Proposed rule" in screen and "do not use pythonw.exe" in screen
    assert "command 'pythonw.exe' -> warn, unconfirmed" in screen
    t.type("a")
    t.answer("Action warn/block [warn]: ", "block")
    t.answer("Pattern ('-' for no rule) [pythonw.exe]: ", "")
    t.answer("]: ", "Use python.exe; pythonw.exe hides errors.")  # message, default offered
    t.answer("Scope [global]: ", "project:whisperclick")
    t.answer("Enforced as rule/reminder/ask/stop-check/advice [", "")
    screen = t.expect("(q)uit? ")
    assert "Approved. (rule: command 'pythonw.exe' -> block, confirmed, enabled)" in screen
    assert "[2/3] Correction" in screen

    # [2/3] the pnpm correction (said twice): edit it, then reject it
    t.type("e")
    t.answer("What was wrong [npm]: ", "")
    t.answer("What is right [pnpm]: ", "pnpm install")
    t.answer("]: ", "")  # statement
    screen = t.expect("(q)uit? ")
    assert "Edited." in screen and "pnpm install, not npm" in screen
    t.type("r")
    screen = t.expect("(q)uit? ")
    assert "Rejected; it will not be proposed again." in screen and "do not use sudo" in screen
    t.type("s")
    done = t.expect("skipped")
    assert "Done: 1 approved, 1 rejected" in done
    assert t.close() == 0

    rule = store.row("SELECT * FROM enforcement_rules")
    assert (rule["action"], rule["confirmed"], rule["message"]) == (
        "block",
        1,
        "Use python.exe; pythonw.exe hides errors.",
    )
    assert store.value("SELECT scope FROM memory_entries WHERE id = ?", (rule["id"],)) == "project:whisperclick"
    statuses = {r["what_was_wrong"]: (r["status"], r["what_is_right"]) for r in store.rows("SELECT * FROM corrections")}
    assert statuses == {"pythonw.exe": ("approved", ""), "npm": ("rejected", "pnpm install"), "sudo": ("pending", "")}


def test_interactive_review_approve_pending_with_typed_pattern_and_quit(cli, terminal, store):
    _capture(cli, "Always run the tests before committing")
    _capture(cli, "never use sudo")  # seen last: first in the queue among equals
    t = terminal("review")
    screen = t.expect("(q)uit? ")
    assert "[1/2] Correction" in screen and "do not use sudo" in screen
    assert "approving creates: command 'sudo' -> warn" in screen
    t.type("a")
    t.answer("Action warn/block [warn]: ", "")
    t.answer("Pattern ('-' for no rule) [sudo]: ", "sudo rm")
    t.answer("Pattern type command/regex [command]: ", "")
    t.answer("]: ", "")
    t.answer("Scope [global]: ", "")
    t.answer("Enforced as rule/reminder/ask/stop-check/advice [", "")
    screen = t.expect("(q)uit? ")
    assert "Approved." in screen and "[2/2] Correction" in screen
    assert "approving remembers it (nothing concrete to enforce)" in screen
    t.type("a")
    t.answer("Action warn/block [warn]: ", "")
    t.answer("Pattern (empty: no rule): ", "")
    t.answer("]: ", "")
    t.answer("Scope [global]: ", "")
    t.answer("Enforced as rule/reminder/ask/stop-check/advice [", "")
    assert "Done: 2 approved, 0 rejected, 0 " in t.expect("skipped.")
    assert t.close() == 0
    rule = store.row("SELECT * FROM enforcement_rules")
    assert (rule["pattern"], rule["action"], rule["confirmed"]) == ("sudo rm", "warn", 1)
    assert store.value("SELECT count(*) FROM enforcement_rules") == 1
    pref = store.row("SELECT * FROM memory_entries WHERE type = 'preference'")
    assert pref["content"] == "Run the tests before committing."
    assert {r["status"] for r in store.rows("SELECT status FROM corrections")} == {"approved"}


def test_interactive_review_quit_keeps_the_rest(cli, terminal, store):
    _capture(cli, "never use sudo")
    _capture(cli, "never use pythonw.exe")
    t = terminal("review")
    t.answer("(q)uit? ", "x")
    assert "Please answer a, r, e, s or q." in t.answer("(q)uit? ", "q")
    assert "Done: 0 approved, 0 rejected, 0 " in t.expect("skipped.")
    assert t.close() == 0
    assert {r["status"] for r in store.rows("SELECT status FROM corrections")} == {"pending"}


def test_interactive_review_empty_queue_and_ctrl_d(cli, terminal):
    t = terminal("review")
    t.expect("Nothing to review.")
    assert t.close() == 0
    _capture(cli, "never use sudo")
    t = terminal("review")
    t.expect("(q)uit? ")
    t.end_input()
    t.expect("Done: 0 approved")
    assert t.close() == 0


def test_interactive_review_shows_a_lesson_as_the_agents_with_the_persons_words(terminal, store):
    from memory_cli.capture import lessons

    lessons.remember_prompt(store, "we're a pnpm shop", session_id="s1", project="whisperclick")
    lessons.record_lesson(
        store, quote="we're a pnpm shop", lesson="Use pnpm, not npm", wrong="npm", right="pnpm", project="whisperclick"
    )
    t = terminal("review")
    shown = t.expect("(q)uit? ")
    assert "(the agent, confidence 0.7)" in shown and "Use pnpm, not npm" in shown, shown
    assert 'recorded by the agent, quoting you: "we\'re a pnpm shop"' in shown, shown
    t.type("q")
    t.expect("skipped.")
    assert t.close() == 0


def test_a_proposed_rule_speaks_the_persons_words(cli, hook):
    """The alternative keeps the person's verb ("open a pull request", never "use open a pull
    request"), the statement keeps it too, and the message a blocked agent reads is the lesson
    rather than "Recorded correction (said 3 times): ..."; review shows where it will apply."""
    for s in ("s1", "s2", "s3"):
        _capture(cli, "don't push to main, open a pull request instead", s)
    [item] = json.loads(cli("review", "--list", "--json").stdout)
    assert item["statement"] == "open a pull request, not push to main"
    assert item["rule"]["alternative"] == "open a pull request"
    assert item["rule"]["message"] == "Open a pull request, not push to main. (corrected 3 times)"
    cli("review", "--approve", item["id"], "--action", "block")
    body = hook(
        "PreToolUse",
        payload("PreToolUse", tool_name="Bash", tool_input={"command": "git push origin main"}),
    )
    reason = json.loads(body.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "Recorded correction" not in reason and "use open" not in reason
    assert "open a pull request" in reason


def test_review_shows_each_items_scope_and_offers_it(cli, terminal):
    _capture(cli, "never use sudo")
    t = terminal("review")
    screen = t.expect("(q)uit? ")
    assert "scope: global (every project)" in screen
    t.type("q")
    t.close()
