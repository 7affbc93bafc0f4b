"""Deciding calls against stored rules (library level; the hook tests go through the process)."""

from __future__ import annotations

import random
import string
import time

import pytest
from test_rules_shellparse import ONLY_MENTIONS_IT, RUNS_IT

from memory_cli.rules import api, engine, ruleset
from memory_cli.rules.safe_regex import fork_available
from memory_cli.rules.shellparse import simple_commands


def decide(store, tool="Bash", ti=None, event="PreToolUse", applies=None, budget_ms=1000, payload=None, **kw):
    rs = ruleset.load(store)
    return engine.evaluate(
        rs,
        event=event,
        tool_name=tool,
        tool_input=ti or {},
        payload=payload,
        applies=applies,
        deadline=time.perf_counter() + budget_ms / 1000,
        **kw,
    )


def bash(command):
    return {"command": command, "description": "x"}


@pytest.fixture(autouse=True)
def fresh_memo():
    ruleset.forget()
    yield
    ruleset.forget()


def test_decision_follows_the_strongest_rule(store):
    api.create_rule(store, "suggest pnpm", pattern="npm", pattern_type="command", action="suggest", alternative="pnpm")
    api.create_rule(
        store, "no global installs", pattern="npm install -g", pattern_type="command", action="block", severity="high"
    )
    v = decide(store, ti=bash("npm install -g typescript"))
    assert v.decision == "block"
    assert [m.action for m in v.matches] == ["block", "suggest"]
    assert decide(store, ti=bash("npm test")).decision == "suggest"
    assert decide(store, ti=bash("pnpm install -g x")).decision == "allow"


def test_verdict_json_shape(store):
    api.create_rule(
        store,
        "Never use pythonw.exe",
        pattern="pythonw.exe",
        pattern_type="command",
        action="block",
        alternative="use python.exe",
    )
    d = decide(store, ti=bash("pythonw.exe src/main.py")).to_dict()
    assert d["decision"] == "block" and isinstance(d["elapsed_ms"], float)
    [r] = d["rules"]
    assert {"id", "pattern", "action", "severity", "message", "alternative"} <= set(r)
    assert r["alternative"] == "use python.exe" and r["message"] == "Never use pythonw.exe"


def test_disabled_and_archived_rules_do_not_fire(store):
    from memory_cli import entries

    r1 = api.create_rule(store, "a", pattern="npm", pattern_type="command", action="block")
    r2 = api.create_rule(store, "b", pattern="yarn", pattern_type="command", action="block")
    api.set_enabled(store, r1["id"], False)
    entries.archive(store, r2["id"])
    assert decide(store, ti=bash("npm i && yarn")).decision == "allow"


def test_scopes(store, project):
    from memory_cli import scope as scopes

    api.create_rule(
        store, "web only", pattern="npm", pattern_type="command", action="block", scope="project:whisperclick"
    )
    api.create_rule(
        store,
        "that file",
        pattern=r"print\(",
        pattern_type="regex",
        action="warn",
        scope="file:src/main.py",
        tools="Write,Edit",
    )

    def applies_in(cwd, files=()):
        root = scopes.find_project_root(str(cwd))
        return lambda s: scopes.applies(s, scopes.project_name(root), list(files), root)

    assert decide(store, ti=bash("npm i"), applies=applies_in(project)).decision == "block"
    assert decide(store, ti=bash("npm i"), applies=applies_in("/tmp")).decision == "allow"
    target = str(project / "src" / "main.py")
    write = {"file_path": target, "content": "print(1)"}
    assert decide(store, "Write", write, applies=applies_in(project, [target])).decision == "warn"
    other = {"file_path": str(project / "src" / "x.py"), "content": "print(1)"}
    assert decide(store, "Write", other, applies=applies_in(project, [other["file_path"]])).decision == "allow"


def test_regex_fields_per_tool(store):
    api.create_rule(store, "no pythonw anywhere", pattern=r"pythonw\.exe", pattern_type="regex", action="warn")
    assert decide(store, ti=bash("echo pythonw.exe")).decision == "warn"  # regex: plain text
    assert decide(store, "Write", {"file_path": "/p/run.bat", "content": "pythonw.exe app"}).matches
    assert decide(store, "Edit", {"file_path": "/p/a", "old_string": "x", "new_string": "PYTHONW.EXE"}).matches
    assert not decide(
        store, "Edit", {"file_path": "/p/a", "old_string": "pythonw.exe", "new_string": "python.exe"}
    ).matches
    api.create_rule(
        store,
        "no env file paths",
        pattern=r"(^|/)\.env$",
        pattern_type="regex",
        action="block",
        fields="file_path",
        tools="Write,Edit",
    )
    assert decide(store, "Write", {"file_path": "/p/.env", "content": "A=1"}).decision == "block"
    assert decide(store, "Write", {"file_path": "/p/env.md", "content": ".env"}).decision == "allow"


def test_other_tools_are_checked_only_on_named_fields(store):
    api.create_rule(store, "no pythonw", pattern=r"pythonw\.exe", pattern_type="regex", action="block")
    assert decide(store, "Grep", {"pattern": "pythonw.exe", "path": "/p"}).decision == "allow"
    assert decide(store, "Read", {"file_path": "/p/pythonw.exe.md"}).decision == "allow"
    api.create_rule(
        store,
        "no internal urls",
        pattern=r"intranet\.example",
        pattern_type="regex",
        action="block",
        tools="WebFetch",
        fields="url",
    )
    assert decide(store, "WebFetch", {"url": "https://intranet.example/x", "prompt": "x"}).decision == "block"


def test_case_sensitive_rules(store):
    api.create_rule(
        store, "TODO marker", pattern="TODO", pattern_type="regex", action="warn", case_sensitive=True, tools="Write"
    )
    assert decide(store, "Write", {"file_path": "/a", "content": "# TODO: x"}).matches
    assert not decide(store, "Write", {"file_path": "/a", "content": "# todo: x"}).matches


def test_conditions_must_all_hold(store):
    api.create_rule(
        store,
        "console.log in src",
        pattern=r"\bconsole\.log\b",
        pattern_type="regex",
        action="warn",
        tools="Write,Edit",
        fields="content,new_string",
        conditions=[
            {"field": "file_path", "operator": "regex_match", "pattern": "(^|/)src/"},
            {"field": "file_path", "operator": "not_contains", "pattern": ".test."},
        ],
    )
    hit = {"file_path": "/p/src/app.js", "content": "console.log(1)"}
    assert decide(store, "Write", hit).decision == "warn"
    assert not decide(store, "Write", dict(hit, file_path="/p/scripts/app.js")).matches
    assert not decide(store, "Write", dict(hit, file_path="/p/src/app.test.js")).matches


def test_derived_rule_from_words_works_end_to_end(store):
    from memory_cli import entries

    with store.transaction():
        e = entries.add(store, "never write console.log in src", "rule")
        api.attach_rule(store, e)
    assert decide(store, "Write", {"file_path": "/p/src/a.ts", "content": "console.log(1)"}).matches
    assert not decide(store, "Write", {"file_path": "/p/test/a.ts", "content": "console.log(1)"}).matches


@pytest.mark.parametrize("command", RUNS_IT + ONLY_MENTIONS_IT)
def test_no_parse_shortcut_never_hides_a_program(command):
    """The engine skips shell parsing when no program key is a word of the line; that must
    never hide a program the parser would find."""
    found = {c.name.lower().removesuffix(".exe") for c in simple_commands(command)}
    for name in found:
        if name and set(name) <= set(string.ascii_lowercase + string.digits + "_.+-@%~^"):
            assert engine.might_run_any(command, {name: [0]}), (command, name)


def test_trigram_candidates_find_everything_a_full_scan_finds(store):
    rng = random.Random(7)
    words = ["alpha", "bravo", "charlie", "delta", "echo_x", "fox-trot", "golf.py", "Hotel"]
    for i in range(300):
        w = rng.choice(words) + str(i)
        kind = i % 4
        pattern = {0: w, 1: rf"\b{w}\b", 2: rf"{w}\s+--force", 3: rf"(?:{w}|zz{i})"}[kind]
        api.create_rule(
            store, f"rule {i}", pattern=pattern, pattern_type="regex", action="warn", case_sensitive=(i % 7 == 0)
        )
    rs = ruleset.load(store)
    assert rs.gram and rs.always  # both paths exercised
    for trial in range(60):
        text = " ".join(
            rng.choice(words) + str(rng.randrange(320)) + rng.choice(["", " --force"])
            for _ in range(rng.randrange(1, 6))
        )
        if trial % 3 == 0:
            text = text.upper()
        ti = bash(text)
        fast = engine.evaluate(rs, event="PreToolUse", tool_name="Bash", tool_input=ti)
        big_text = engine.GRAM_TEXT_CHARS
        try:
            engine.GRAM_TEXT_CHARS = -1  # force the every-rule path
            slow = engine.evaluate(rs, event="PreToolUse", tool_name="Bash", tool_input=ti)
        finally:
            engine.GRAM_TEXT_CHARS = big_text
        assert sorted(m.id for m in fast.matches) == sorted(m.id for m in slow.matches), text


def test_unconfirmed_block_only_warns(store):
    api.create_rule(store, "x", pattern="npm", pattern_type="command", action="block", confirmed=False)
    assert decide(store, ti=bash("npm i")).decision == "warn"


@pytest.mark.skipif(not fork_available(), reason="needs os.fork")
def test_catastrophic_regex_is_unchecked_and_refuses_while_others_still_decide(store):
    evil = api.create_rule(store, "evil", pattern=r"(a+)+$", pattern_type="regex", action="block")
    api.create_rule(store, "fine", pattern="pythonw.exe", pattern_type="command", action="block")
    v = decide(store, ti=bash("pythonw.exe " + "a" * 40 + "!"), budget_ms=150)
    assert v.decision == "block"
    assert {(m.rule[ruleset.PATTERN], m.field) for m in v.matches} == {
        ("pythonw.exe", "command"),
        (r"(a+)+$", "unchecked"),
    }
    assert v.unchecked == [evil["id"]]
    # without its required text the risky rule is never run, so it decides nothing
    assert decide(store, ti=bash("ls -l"), budget_ms=150).decision == "allow"


def test_a_10mb_write_with_a_forbidden_string_at_the_end_is_caught(store):
    api.create_rule(store, "no pythonw", pattern=r"pythonw\.exe", pattern_type="regex", action="block", tools="Write")
    content = ("x = 1\n" * 1_700_000) + "subprocess.run(['pythonw.exe'])\n"
    v = decide(store, "Write", {"file_path": "/p/big.py", "content": content}, budget_ms=2000)
    assert v.decision == "block"


def test_command_rules_verify_written_files_by_what_they_run(store):
    api.create_rule(store, "Never use pythonw.exe", pattern="pythonw.exe", pattern_type="command", action="block")

    def post(path, content):
        return decide(
            store, "Write", {"file_path": path, "content": content}, event="PostToolUse", payload={"tool_response": {}}
        ).decision

    assert post("/p/run.py", 'import subprocess\nsubprocess.run(["pythonw.exe", "app.py"])\n') == "block"
    assert post("/p/start.bat", "@echo off\r\npythonw.exe app.py\r\n") == "block"
    assert post("/p/Makefile", "run:\n\tpythonw.exe app.py\n") == "block"
    assert post("/p/package.json", '{"scripts": {"start": "pythonw.exe app.py"}}') == "block"
    assert post("/p/README.md", "Never use `pythonw.exe`; run python.exe app.py\n") == "allow"
    assert post("/p/notes.py", "# pythonw.exe hides errors, so we never use it\n") == "allow"
    assert post("/p/check.sh", "pgrep pythonw.exe && echo running\n") == "allow"
    # Before the call, command rules look at Bash only (unless they name the tool).
    assert decide(store, "Write", {"file_path": "/p/start.bat", "content": "pythonw.exe x"}).decision == "allow"


def test_stop_and_prompt_rules_only_fire_on_their_events(store):
    api.create_rule(
        store,
        "run tests before stopping",
        pattern=r"\A",
        pattern_type="regex",
        action="block",
        fields="last_assistant_message",
        hook_events="Stop",
        conditions=[{"field": "last_assistant_message", "operator": "not_contains", "pattern": "pytest"}],
    )
    stop = {"last_assistant_message": "All done."}
    assert decide(store, tool=None, event="Stop", payload=stop).decision == "block"
    assert (
        decide(store, tool=None, event="Stop", payload={"last_assistant_message": "ran pytest: ok"}).decision == "allow"
    )
    assert decide(store, ti=bash("echo All done.")).decision == "allow"


def test_intent_rules_are_skipped_when_the_daemon_does_not_answer(store, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "nodaemon"))
    rule = api.create_rule(
        store,
        "do not delete the production database",
        pattern="drop or delete the production database",
        pattern_type="intent",
        action="block",
    )
    v = decide(store, ti=bash("psql prod -c 'DROP DATABASE app'"), intent_timeout_ms=50)
    assert v.decision == "allow"
    assert v.intent_skipped == [rule["id"]] and v.intent_reason
