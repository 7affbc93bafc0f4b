"""The hook entry point: every event parsed, validated, audited; failures never block."""

import json

import pytest
from helpers.hooks import payload, run_hook

from memory_cli.store.db import Store

EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "Stop",
    "SessionEnd",
]


@pytest.mark.parametrize("event", EVENTS)
def test_every_event_is_accepted_and_audited(hook, db_path, event):
    r = hook(event, payload(event))
    assert r.returncode == 0, r
    assert "Traceback" not in r.stderr
    assert r.decision is None  # never an implicit allow/deny
    s = Store.open(db_path)
    row = s.row("SELECT * FROM memory_audit_log WHERE hook_event = ? ORDER BY timestamp DESC", (event,))
    s.close()
    assert row["action"] == "hook" and row["session_id"] == "abc123" and row["elapsed_ms"] > 0


@pytest.mark.parametrize(
    "body,needle",
    [
        ("{not json", "not valid JSON"),
        ("", "empty stdin"),
        ("[1, 2]", "must be an object"),
        (json.dumps({"session_id": "s", "tool_input": {"command": "ls"}}), "missing field 'tool_name'"),
        (json.dumps({"session_id": "s", "tool_name": "Bash", "tool_input": "ls"}), "wrong type"),
        (json.dumps({"tool_name": "Bash", "tool_input": {}}), "missing field 'session_id'"),
    ],
)
def test_malformed_gate_input_is_denied_and_audited(hook, db_path, body, needle):
    r = hook("PreToolUse", body)
    # A call the rules could not check is refused, never let through (the gate fails closed).
    assert r.returncode == 0 and r.decision == "deny" and "Traceback" not in r.stderr
    # The person hears of it in one line, and it names the problem.
    assert "memory-cli refused this tool call" in r.system_message and needle in r.system_message
    assert "\n" not in r.system_message
    s = Store.open(db_path)
    row = s.row("SELECT * FROM memory_audit_log WHERE action='hook_error'")
    s.close()
    assert needle in json.loads(row["details"])["error"]


def test_unknown_event_allows_and_is_audited(hook, db_path):
    r = hook("TeleportRequest", {"session_id": "s"})
    assert r.returncode == 0 and r.stdout == ""
    s = Store.open(db_path)
    assert "unknown hook event" in s.value("SELECT details FROM memory_audit_log WHERE action='hook_error'")
    s.close()


def test_unreadable_database_denies_the_gate_and_says_so(tmp_path, claude_dir):
    bad = tmp_path / "bad.db"
    bad.write_text("this is not sqlite")
    r = run_hook("PreToolUse", payload("PreToolUse"), db=bad)
    assert r.returncode == 0 and r.decision == "deny"
    assert "doctor" in r.reason and "not a SQLite database" in r.reason
    assert "doctor" in r.system_message
    assert bad.read_text() == "this is not sqlite"
    log = claude_dir / "memory" / "hook-errors.log"
    assert "not a SQLite database" in log.read_text()


def test_disabled_memory_is_a_silent_noop(tmp_path):
    r = run_hook("PreToolUse", payload("PreToolUse"), env={"MEMORY_CLI_DB": ""})
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def test_hook_path_never_imports_the_rich_cli(tmp_path, db_path):
    import subprocess
    import sys

    code = (
        "import sys, io; sys.argv=['memory-cli','--db',sys.argv[1],'hook','PreToolUse'];"
        "sys.stdin=io.TextIOWrapper(io.BytesIO(sys.argv[2].encode()));"
        "from memory_cli.__main__ import main; main();"
        "bad=[m for m in ('typer','rich','pydantic','numpy','torch','sentence_transformers','click','fastapi','starlette','uvicorn','jinja2') if m in sys.modules];"
        "sys.stderr.write('HEAVY:'+','.join(bad))"
    )
    for event_payload in (
        payload("PreToolUse"),
        payload("PostToolUse"),
        payload("UserPromptSubmit"),
        payload("Stop"),
        payload("SessionEnd"),
    ):
        event = event_payload["hook_event_name"]
        code_e = code.replace("'PreToolUse'", repr(event))
        proc = subprocess.run(
            [sys.executable, "-c", code_e, str(db_path), json.dumps(event_payload)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "HEAVY:" in proc.stderr, proc.stderr
        assert proc.stderr.split("HEAVY:")[1].strip() == "", f"{event} imported {proc.stderr}"


def test_project_is_derived_from_hook_cwd_not_process_cwd(project, db_path):
    from memory_cli.hooks.context import HookContext

    ctx = HookContext("PreToolUse", payload("PreToolUse", cwd=str(project / "src")), None, {})
    assert ctx.project == "whisperclick"
    import os

    os.environ["CLAUDE_PROJECT_DIR"] = str(project)
    try:
        ctx = HookContext("PreToolUse", payload("PreToolUse", cwd="/tmp"), None, {})
        assert ctx.project == "whisperclick"
    finally:
        del os.environ["CLAUDE_PROJECT_DIR"]


def test_response_rendering_follows_the_protocol():
    from memory_cli.hooks.response import Response

    r = Response()
    assert r.render("PreToolUse") is None
    r.add_context("Rule: avoid X")
    r.notify("memory-cli warned")
    out = r.render("PreToolUse")
    assert out["hookSpecificOutput"] == {"hookEventName": "PreToolUse", "additionalContext": "Rule: avoid X"}
    assert out["systemMessage"] == "memory-cli warned"
    r.decide("ask", "check with you")
    r.decide("deny", "rule 1 forbids it")
    r.decide("ask", "another")
    assert r.render("PreToolUse")["hookSpecificOutput"]["permissionDecision"] == "deny"
    big = Response()
    big.add_context("x" * 50000)
    assert len(big.render("SessionStart")["hookSpecificOutput"]["additionalContext"]) < 10000
    end = Response()
    end.notify("ignored")
    assert end.render("SessionEnd") is None


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse", "Stop"])
def test_per_call_hooks_avoid_slow_stdlib_imports(tmp_path, event):
    """Each of these costs milliseconds per tool call (see README, Performance)."""
    import subprocess
    import sys

    body = json.dumps(payload(event, cwd=str(tmp_path)))
    Store.open(tmp_path / "m.db").close()  # as install leaves it (the gate refuses without a store)
    code = (
        "import sys, io; sys.stdin=io.TextIOWrapper(io.BytesIO(sys.argv[2].encode()));"
        "from memory_cli.__main__ import main; main(['--db', sys.argv[1], 'hook', sys.argv[3]]);"
        "slow=[m for m in ('pathlib','contextlib','datetime','typing','dataclasses','subprocess','threading')"
        " if m in sys.modules]; sys.stderr.write('SLOW:'+','.join(slow))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "m.db"), body, event], capture_output=True, text=True, timeout=60
    )
    assert proc.stderr.split("SLOW:")[1].strip() == "", proc.stderr


def test_an_edit_after_the_fact_loads_only_the_rule_check(tmp_path):
    """Most PostToolUse calls are edits and reads: the known fixes of failed commands and the
    command durations (both for shell calls only) are not even imported for them, while a shell
    call still gets them."""
    import subprocess
    import sys

    from memory_cli.hooks.registry import HANDLERS, ONLY_FOR_TOOLS

    assert set(ONLY_FOR_TOOLS) <= {spec for specs in HANDLERS.values() for spec in specs}
    Store.open(tmp_path / "m.db").close()
    code = (
        "import sys, io; sys.stdin=io.TextIOWrapper(io.BytesIO(sys.argv[2].encode()));"
        "from memory_cli.__main__ import main; main(['--db', sys.argv[1], 'hook', 'PostToolUse']);"
        "sys.stderr.write('LOADED:'+','.join(m for m in ('memory_cli.retrieval.hook', 'memory_cli.baselines.hook')"
        " if m in sys.modules))"
    )

    def loaded(tool, tool_input):
        body = json.dumps(payload("PostToolUse", cwd=str(tmp_path), tool_name=tool, tool_input=tool_input))
        proc = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "m.db"), body], capture_output=True, text=True, timeout=60
        )
        return proc.stderr.split("LOADED:")[1].strip()

    assert loaded("Write", {"file_path": str(tmp_path / "a.py"), "content": "x = 1\n"}) == ""
    assert loaded("Bash", {"command": "ls"}) == "memory_cli.retrieval.hook,memory_cli.baselines.hook"


TASK_NOTIFICATION = """<task-notification>
<task-id>ae6c1cb03226ba339</task-id>
<tool-use-id>toolu_01ABC</tool-use-id>
<status>completed</status>
<summary>Agent "install deps" finished</summary>
<result>Installed. No, never use yarn here, use pnpm instead: the yarn lockfile is stale.</result>
</task-notification>"""


def test_a_subagent_report_handed_over_as_a_prompt_is_not_the_persons_correction(hook, db_path, detector_speaks):
    """Claude Code delivers a background subagent's report through UserPromptSubmit; words in
    it are the subagent's, so nothing is captured, acknowledged or injected for it."""
    r = hook("UserPromptSubmit", payload("UserPromptSubmit", prompt=TASK_NOTIFICATION))
    assert r.returncode == 0 and r.stdout == "", r
    typed = hook("UserPromptSubmit", payload("UserPromptSubmit", prompt="No, never use yarn here, use pnpm instead."))
    assert "Recorded correction" in typed.context  # the same words typed by the person count
    s = Store.open(db_path)
    corrections = s.rows("SELECT * FROM corrections")
    s.close()
    assert len(corrections) == 1 and corrections[0]["occurrence_count"] == 1


# -- the lean launcher `memory-cli install` registers ------------------------------------------
HEAVY = {"typer", "rich", "pydantic", "click", "numpy", "torch", "sentence_transformers", "sqlite_vec"}
# Each of these costs milliseconds per tool call; an allowed tool call needs none of them.
SLOW_STDLIB = {
    "site",
    "re",
    "json",
    "enum",
    "pathlib",
    "typing",
    "dataclasses",
    "datetime",
    "subprocess",
    "threading",
    "contextlib",
    "importlib.util",
    "uuid",
    "socket",
    "warnings",
    "importlib",
}


def _launcher_imports(db_path, event, body):
    import shlex
    import subprocess

    from memory_cli.install import hook_launcher

    words = shlex.split(hook_launcher())
    cmd = [words[0], "-X", "importtime", *words[1:], "--db", str(db_path), "hook", event]
    proc = subprocess.run(cmd, input=json.dumps(body), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules = {
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return modules, proc.stdout


def _seed_rules(db_path, n=60):
    from memory_cli.rules import api as rules_api

    s = Store.open(db_path)
    with s.transaction():
        for i in range(n):
            if i % 2:
                rules_api.create_rule(
                    s, f"Never run legacytool{i}", pattern=f"legacytool{i}", pattern_type="command", action="block"
                )
            else:
                rules_api.create_rule(
                    s, f"Never write token_{i}", pattern=rf"forbidden_token_{i}\b", pattern_type="regex", action="warn"
                )
    s.close()


WRITE = {"file_path": "/home/u/proj/src/app.py", "content": "def main():\n    print('hello')\n" * 40}


@pytest.mark.parametrize(
    "event,fields",
    [
        ("PreToolUse", {}),
        ("PreToolUse", {"tool_name": "Write", "tool_input": WRITE}),
        ("PostToolUse", {"tool_name": "Write", "tool_input": WRITE, "tool_response": {"success": True}}),
        ("PostToolUse", {}),
    ],
)
def test_lean_launcher_checks_every_rule_without_slow_imports(db_path, event, fields):
    """Through the registered command, an allowed tool call is checked against command and
    regex rules (the engine runs) without site, re, json or any heavy package (once the rule
    cache is built: the first call after a rule change compiles the set)."""
    _seed_rules(db_path)
    _launcher_imports(db_path, event, payload(event, **fields))  # builds the rule cache once
    modules, out = _launcher_imports(db_path, event, payload(event, **fields))
    assert "memory_cli.rules.engine" in modules and "apsw" in modules
    assert not modules & HEAVY, modules & HEAVY
    assert not modules & SLOW_STDLIB, modules & SLOW_STDLIB
    assert out == ""  # allowed: no decision, nothing to say


def test_lean_launcher_denies_with_the_same_answer_and_audit(db_path):
    _seed_rules(db_path)
    body = payload("PreToolUse", tool_input={"command": "cd src && legacytool7 --all"})
    modules, out = _launcher_imports(db_path, "PreToolUse", body)
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny" and "legacytool7" in answer["permissionDecisionReason"]
    assert not modules & HEAVY
    console = run_hook("PreToolUse", body, db=db_path, env={"MEMORY_CLI_TEST_HOOK_ENTRY": "console"})
    assert console.json["hookSpecificOutput"] == answer
    s = Store.open(db_path)
    rows = s.rows("SELECT action, result FROM memory_audit_log WHERE hook_event='PreToolUse' ORDER BY timestamp")
    s.close()
    assert [(r["action"], r["result"]) for r in rows] == [("enforce_block", "denied"), ("hook", "deny")] * 2


@pytest.mark.parametrize(
    "event", ["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "PreCompact", "Stop"]
)
def test_every_event_tells_the_person_of_a_malformed_payload_in_one_line(hook, event):
    r = hook(event, "{not json")
    assert r.returncode == 0 and r.decision is None and "Traceback" not in r.stderr
    assert r.system_message.startswith(f"memory-cli: the {event} hook got a malformed payload")
    assert "\n" not in r.system_message


def test_session_end_stays_silent_on_a_malformed_payload_but_records_it(hook, db_path):
    r = hook("SessionEnd", "{not json")  # Claude Code shows nothing of SessionEnd's output
    assert r.returncode == 0 and r.stdout == ""
    s = Store.open(db_path)
    assert s.value("SELECT count(*) FROM memory_audit_log WHERE action='hook_error' AND hook_event='SessionEnd'")
    s.close()
