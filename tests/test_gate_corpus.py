"""The gate's corpus: four everyday block rules against the spellings that walk past a filter.

``fixtures/gate_corpus.json`` holds the published forms (GuardFall's quote removal, ``$IFS``,
substitution and decoded pipes; CmdNeedle's operation classes: recursive delete, force push,
reading a secret file, a download run by a shell) and the look-alikes a gate must not stop,
some written for it and some from the real sessions. Every form goes through the hook process
each agent's installation registers, with that agent's payload: Claude Code's PreToolUse
(denied or asked), Codex CLI's PreToolUse and Gemini CLI's BeforeTool (denied: neither asks
the person from a hook). Every must-stop form is stopped and every look-alike passes.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers.hooks import payload, run_hook
from helpers.store import add_rule

CORPUS = json.loads((Path(__file__).resolve().parent / "fixtures" / "gate_corpus.json").read_text(encoding="utf-8"))
FORMS = CORPUS["forms"]


@pytest.fixture
def corpus_rules(db_path):
    for r in CORPUS["rules"]:
        add_rule(db_path, r["content"], pattern=r["pattern"], pattern_type="command", action="block")
    return db_path


def _claude(db_path, command: str) -> str | None:
    body = payload("PreToolUse", tool_input={"command": command, "description": "run"})
    r = run_hook("PreToolUse", body, db=db_path)
    assert r.returncode == 0, r.stderr
    return r.decision


def _codex(db_path, command: str) -> str | None:
    from test_agent_adapters import agent_hook, codex

    out = agent_hook(
        db_path, "codex", "PreToolUse", codex("PreToolUse", tool_name="Bash", tool_input={"command": command})
    )
    return ((out or {}).get("hookSpecificOutput") or {}).get("permissionDecision")


def _gemini(db_path, command: str) -> str | None:
    from test_agent_adapters import agent_hook, gemini

    body = gemini("BeforeTool", tool_name="run_shell_command", tool_input={"command": command})
    out = agent_hook(db_path, "gemini", "BeforeTool", body)
    return (out or {}).get("decision")


# agent -> (how a call is answered, the answers that stop it)
AGENTS = {
    "claude": (_claude, ("deny", "ask")),
    "codex": (_codex, ("deny",)),
    "gemini": (_gemini, ("deny",)),
}


def _wrong(db_path, agent: str) -> list[tuple]:
    ask, stops = AGENTS[agent]
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda f: ask(db_path, f["command"]), FORMS))
    wrong = []
    for form, answer in zip(FORMS, answers, strict=True):
        stopped = answer in stops
        if stopped != (form["expect"] == "stop") or (not stopped and answer not in (None, "allow")):
            wrong.append((form["source"], form["command"], answer))
    return wrong


def test_the_corpus_holds_the_published_forms_and_look_alikes():
    sources = {f["source"].split(":")[0] for f in FORMS}
    assert {"GuardFall 2026", "CmdNeedle (arXiv 2606.15549)", "look-alike", "real session"} <= sources
    assert sum(f["expect"] == "stop" for f in FORMS) >= 88 and sum(f["expect"] == "allow" for f in FORMS) >= 47
    assert {f["class"] for f in FORMS} == {r["class"] for r in CORPUS["rules"]}


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_every_must_stop_form_is_stopped_and_every_look_alike_allowed_through_the_installed_hook(corpus_rules, agent):
    assert _wrong(corpus_rules, agent) == []


def test_claude_is_told_which_rule_and_which_spelling(corpus_rules):
    r = run_hook("PreToolUse", payload("PreToolUse", tool_input={"command": "find / -delete"}), db=corpus_rules)
    reason = r.json["hookSpecificOutput"]["permissionDecisionReason"]
    assert r.decision == "deny" and "Never rm -rf /" in reason
    assert "`find / -delete` does what `rm -rf /` does" in reason
    lease = run_hook(
        "PreToolUse", payload("PreToolUse", tool_input={"command": "git push --force-with-lease"}), db=corpus_rules
    )
    assert (
        lease.decision == "ask" and "Never force-push" in lease.json["hookSpecificOutput"]["permissionDecisionReason"]
    )


def test_no_command_of_the_real_sessions_is_stopped_by_the_corpus_rules(corpus_rules):
    """Every Bash command of the real transcripts, read against the four rules as operations:
    none of them deletes /, force-pushes, reads the key or runs a download."""
    from test_gate_dynamic_words import _real_bash_commands

    from memory_cli.rules import engine, ruleset
    from memory_cli.store.db import Store

    commands = _real_bash_commands()
    assert len(commands) > 250
    with Store.open(corpus_rules) as s:
        rs = ruleset.load(s)
    stopped = []
    for command in commands:
        v = engine.evaluate(rs, event="PreToolUse", tool_name="Bash", tool_input={"command": command})
        if v.decision != "allow":
            stopped.append((v.decision, [m.field for m in v.matches], command[:120]))
    assert stopped == []
