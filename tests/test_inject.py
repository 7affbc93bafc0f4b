"""Injection through the store: which memories a session, a prompt and a failure get."""

from __future__ import annotations

import json
import re

import pytest
from helpers.hooks import payload

from memory_cli import entries
from memory_cli import settings as settings_mod
from memory_cli.retrieval import inject as inj
from memory_cli.retrieval import per_failure, per_prompt, session_start
from memory_cli.retrieval.format import CLAUDE_OUTPUT_LIMIT

HEADER = re.compile(r"^## Operational Memory \((\d+)(?: of (\d+))? memor(?:y|ies), ~([\d,]+) tokens\)$", re.M)


def cfg(**injection):
    s = settings_mod.load()
    s["injection"].update(injection)
    return s


def add(store, content, type_="fact", scope="global", confidence=0.7, **kw):
    return entries.add(store, content, type_, scope=scope, confidence=confidence, **kw)


@pytest.fixture
def seeded(store):
    ids = {
        "pythonw": add(
            store, "Never use pythonw.exe; use python.exe so tracebacks are visible", "rule", confidence=1.0
        )["id"],
        "drag": add(
            store,
            "Window drag posts WM_APP_DRAGSTART from the JS mousedown handler",
            "fact",
            "project:whisperclick",
            0.8,
        )["id"],
        "tray": add(
            store, "Recreate the tray icon on the TaskbarCreated message", "pattern", "project:whisperclick", 0.8
        )["id"],
        "other": add(store, "Billing API stores invoices in cents", "fact", "project:billing-api", 0.9)["id"],
        "mainpy": add(store, "src/main.py must stay importable without a display", "rule", "file:src/main.py", 0.8)[
            "id"
        ],
        "weak": add(store, "Maybe the installer needs admin rights", "fact", confidence=0.2)["id"],
    }
    archived = add(store, "Old build used py2exe", "fact")["id"]
    entries.archive(store, archived)
    ids["archived"] = archived
    return ids


def test_scopes_global_always_project_in_its_project_file_when_in_play(store, seeded):
    r = session_start.inject(store, {"project": "WhisperClick V3", "file": "src/main.py"}, cfg(), record=False)
    got = set(r["ids"])
    assert {seeded["pythonw"], seeded["drag"], seeded["tray"], seeded["mainpy"]} <= got
    assert seeded["other"] not in got

    elsewhere = session_start.inject(store, {"project": "billing-api"}, cfg(), record=False)
    assert set(elsewhere["ids"]) == {seeded["pythonw"], seeded["other"]}
    assert "WM_APP_DRAGSTART" not in elsewhere["text"]
    assert "pythonw" in elsewhere["text"]


def test_low_confidence_and_archived_memories_are_not_injected(store, seeded):
    r = session_start.inject(store, {"project": "whisperclick"}, cfg(), record=False)
    assert seeded["weak"] not in r["ids"] and "installer" not in r["text"]
    assert seeded["archived"] not in r["ids"] and "py2exe" not in r["text"]
    assert r["eligible"] == 3  # pythonw, drag, tray


def test_header_counts_eligible_and_budget_comes_from_config_and_env(store, monkeypatch):
    for i in range(40):
        add(store, f"Host srv{i} runs job{i} in slot{i} with queue{i} and cache{i}; " + f"note{i} " * 10, "rule")
    r = session_start.inject(store, {"project": "x"}, cfg(), record=False)
    included, total, tokens = HEADER.search(r["memory_text"]).groups()
    assert (int(included), int(total)) == (15, 40)

    r = session_start.inject(store, {"project": "x"}, cfg(max_entries=5), record=False)
    assert r["included"] == 5

    monkeypatch.setenv("MEMORY_CLI_BUDGET", "300")
    r = session_start.inject(store, {"project": "x"}, cfg(), record=False)
    assert 0 < r["included"] < 15
    assert int(HEADER.search(r["memory_text"]).group(3)) <= 300


def test_more_relevant_memory_ranks_first_at_equal_confidence(store):
    a = add(store, "Tray icon disappears after Explorer restarts", "fact", "project:whisperclick", 0.8)
    b = add(store, "Window drag uses WM_APP_DRAGSTART on HiDPI screens", "fact", "project:whisperclick", 0.8)
    r = session_start.inject(
        store, {"project": "whisperclick", "task": "fix window drag on HiDPI"}, cfg(), record=False
    )
    assert r["ids"].index(b["id"]) < r["ids"].index(a["id"])
    r = session_start.inject(store, {"project": "whisperclick", "task": "tray icon vanished"}, cfg(), record=False)
    assert r["ids"].index(a["id"]) < r["ids"].index(b["id"])


def test_injection_counts_as_use_and_is_audited(store, seeded):
    r = session_start.inject(store, {"project": "whisperclick"}, cfg(), session_id="sess-1")
    rows = {x["id"]: x for x in store.rows("SELECT id, use_count, last_used FROM memory_entries")}
    for eid in r["ids"]:
        assert rows[eid]["use_count"] == 1 and rows[eid]["last_used"]
    assert rows[seeded["other"]]["use_count"] == 0
    assert inj.already_injected(store, "sess-1") == set(r["ids"])
    audit = store.row("SELECT * FROM memory_audit_log WHERE action = 'inject'")
    assert audit["session_id"] == "sess-1" and audit["context"] == "session:startup"
    assert json.loads(audit["details"])["ids"] == r["ids"]


def test_dry_run_changes_nothing(store, seeded):
    session_start.inject(store, {"project": "whisperclick"}, cfg(), session_id="s", record=False)
    assert store.value("SELECT sum(use_count) FROM memory_entries") == 0
    assert store.value("SELECT count(*) FROM memory_audit_log WHERE action = 'inject'") == 0


def test_after_compaction_pinned_memories_come_back_first_whatever_the_limit(store):
    for i in range(10):
        add(store, f"Ordinary high-confidence fact {i}", confidence=0.95)
    pinned = [
        add(store, f"Pinned rule {i}: never deploy on Fridays variant {i}", "rule", confidence=0.5)["id"]
        for i in range(3)
    ]
    store.execute("UPDATE memory_entries SET pinned = 1 WHERE id IN (?,?,?)", pinned)
    store.execute("INSERT INTO session_injections VALUES ('s1', 'stale-entry', '2025-01-01T00:00:00Z')")
    r = session_start.inject(store, {"project": "p"}, cfg(max_entries=2), session_id="s1", source="compact")
    assert set(r["ids"][:3]) == set(pinned)  # first, and all three although max_entries is 2
    assert r["included"] == 3
    assert "stale-entry" not in inj.already_injected(store, "s1")  # compaction forgot old context


def test_marker_instructions_ride_along_with_the_memories(store, seeded):
    instructions = pytest.importorskip("memory_cli.capture.instructions")
    r = session_start.inject(store, {"project": "whisperclick"}, cfg(), record=False)
    assert instructions.text().strip() in r["text"]
    assert r["text"].startswith("## Operational Memory")
    bare = session_start.inject(store, {"project": "whisperclick"}, cfg(), record=False, include_instructions=False)
    assert bare["text"] == bare["memory_text"]


def test_session_context_parsing():
    sc = session_start.parse_session_context('{"project": "WhisperClick V3", "file": "src/main.py", "task": "drag"}')
    assert sc["project"] == "WhisperClick V3" and sc["files"] == ["src/main.py"] and sc["task"] == "drag"
    assert inj.project_aliases("WhisperClick V3") == ["whisperclick"]
    from memory_cli.errors import InvalidInput

    with pytest.raises(InvalidInput):
        session_start.parse_session_context("{not json")
    with pytest.raises(InvalidInput):
        session_start.parse_session_context("[1, 2]")


# -- per prompt --------------------------------------------------------------------------------


def test_prompt_gets_relevant_memories_once_per_session(store, seeded):
    s = cfg()
    first = per_prompt.for_prompt(
        store, "how does the window drag work with WM_APP_DRAGSTART?", s, project="whisperclick", session_id="p1"
    )
    assert seeded["drag"] in first["ids"]
    assert first["text"].startswith("## Memory related to this prompt")
    again = per_prompt.for_prompt(
        store, "remind me how window drag works with WM_APP_DRAGSTART", s, project="whisperclick", session_id="p1"
    )
    assert seeded["drag"] not in again["ids"]
    other_session = per_prompt.for_prompt(
        store, "how does the window drag work with WM_APP_DRAGSTART?", s, project="whisperclick", session_id="p2"
    )
    assert seeded["drag"] in other_session["ids"]


def test_prompt_does_not_repeat_what_session_start_injected(store, seeded):
    start = session_start.inject(store, {"project": "whisperclick"}, cfg(), session_id="p3")
    assert seeded["drag"] in start["ids"]
    r = per_prompt.for_prompt(
        store, "window drag WM_APP_DRAGSTART mousedown handler", cfg(), project="whisperclick", session_id="p3"
    )
    assert seeded["drag"] not in r["ids"]


def test_trivial_or_unrelated_prompts_get_nothing(store, seeded):
    for prompt in ("ok", "yes", "/compact", "continue", "quantum chromodynamics lattice gauge"):
        assert per_prompt.for_prompt(store, prompt, cfg(), project="whisperclick", session_id="p4")["text"] == ""


def test_prompt_memories_respect_scope_and_budget(store, seeded):
    r = per_prompt.for_prompt(store, "invoices stored in cents billing", cfg(), project="whisperclick", session_id="p5")
    assert seeded["other"] not in r["ids"]
    for i in range(10):
        add(store, f"Deploy checklist item {i}: deploy only from the release branch")
    r = per_prompt.for_prompt(store, "deploy release branch checklist", cfg(), project="x", session_id="p6")
    assert 0 < r["included"] <= 3 and r["tokens"] <= 300


def test_what_did_we_decide_not_to_do_surfaces_rejected_alternatives(store):
    d = add(store, "Use an in-process LRU cache for transcripts", "decision", tags=["caching", "rejected:redis"])
    add(store, "Cache directory is ~/.cache/whisperclick", "fact")
    assert per_prompt.is_negative_question("What did we decide not to do about caching?")
    r = per_prompt.for_prompt(store, "What did we decide not to do about caching?", cfg(), project="x", session_id="n1")
    assert r["ids"][0] == d["id"]
    assert "rejected: redis" in r["text"]


# -- failures ----------------------------------------------------------------------------------


def test_failure_query_keeps_the_salient_error_lines():
    q = per_failure.failure_query(
        'Traceback (most recent call last):\n  File "/home/u/app/audio.py", line 12, in open\n'
        "sounddevice.PortAudioError: Error querying device -9996\n",
        "python -m app",
    )
    assert "PortAudioError" in q and "-9996" in q and "/home/u" not in q
    assert q.startswith("python")
    assert per_failure.bash_failed({"stdout": "ok", "stderr": "", "interrupted": False}) is None
    assert per_failure.bash_failed({"stdout": "", "stderr": "bash: foo: command not found", "interrupted": False})
    assert per_failure.bash_failed({"stdout": "", "stderr": "Cloning into 'x'...", "interrupted": False}) is None
    assert per_failure.bash_failed({"stdout": "", "stderr": "boom", "exit_code": 2})


def test_failure_offers_past_solutions_once(store):
    fix = add(store, "PortAudioError -9996 means the device index changed: re-query devices by name", "pattern")
    add(store, "Invoices are stored in cents", "fact")
    err = "sounddevice.PortAudioError: Error querying device -9996"
    r = per_failure.for_failure(store, err, cfg(), tool_name="Bash", command="python app.py", session_id="f1")
    assert r["ids"] == [fix["id"]]
    assert "failed Bash call" in r["text"]
    assert per_failure.for_failure(store, err, cfg(), tool_name="Bash", session_id="f1")["ids"] == []


def test_failure_offers_a_solution_even_if_session_start_injected_it(store):
    fix = add(
        store,
        "ModuleNotFoundError: No module named 'webview' means the venv is not active: run .venv/bin/python",
        "pattern",
    )
    session_start.inject(
        store, {"task": "webview import fails: venv not active?"}, cfg(), session_id="s2", source="startup"
    )
    assert fix["id"] in inj.already_injected(store, "s2")
    err = (
        "Traceback (most recent call last):\n  File \"app.py\", line 3\nModuleNotFoundError: No module named 'webview'"
    )
    assert "Traceback" not in per_failure.failure_query(err)
    assert per_failure.for_failure(store, err, cfg(), tool_name="Bash", session_id="s2")["ids"] == [fix["id"]]


# -- through the real hook and CLI ---------------------------------------------------------------


def test_session_start_hook_injects_for_the_project_in_cwd(store, seeded, hook, project, db_path):
    store.close()
    r = hook("SessionStart", payload("SessionStart", cwd=str(project / "src"), session_id="h1"))
    assert r.returncode == 0, r
    assert "## Operational Memory" in r.context
    assert "WM_APP_DRAGSTART" in r.context and "pythonw" in r.context
    assert "invoices" not in r.context
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        row = s.row("SELECT * FROM memory_audit_log WHERE action = 'inject'")
        assert row["hook_event"] == "SessionStart" and row["session_id"] == "h1"


def test_session_start_output_stays_under_claude_codes_limit(store, hook, project, monkeypatch):
    for i in range(300):
        add(store, f"Long memory {i}: " + "lorem ipsum dolor sit amet " * 30, scope="project:whisperclick")
    store.close()
    r = hook("SessionStart", payload("SessionStart", cwd=str(project)), env={"MEMORY_CLI_BUDGET": "50000"})
    assert r.returncode == 0
    assert 0 < len(r.context) < CLAUDE_OUTPUT_LIMIT
    assert len(r.stdout) < CLAUDE_OUTPUT_LIMIT + 500


def test_prompt_hook_and_failure_hooks(store, seeded, hook, project):
    add(store, "PortAudioError -9996 means the device index changed: re-query devices by name", "pattern")
    store.close()
    p = hook(
        "UserPromptSubmit",
        payload(
            "UserPromptSubmit",
            cwd=str(project),
            session_id="h2",
            prompt="the window drag with WM_APP_DRAGSTART is broken",
        ),
    )
    assert "WM_APP_DRAGSTART" in p.context
    err = "Error: Exit code 1\nsounddevice.PortAudioError: Error querying device -9996"
    f = hook(
        "PostToolUseFailure",
        payload(
            "PostToolUseFailure",
            cwd=str(project),
            session_id="h2",
            error=err,
            tool_input={"command": "python -m whisperclick"},
        ),
    )
    assert "re-query devices by name" in f.context
    interrupted = hook(
        "PostToolUseFailure",
        payload("PostToolUseFailure", cwd=str(project), session_id="h3", error=err, is_interrupt=True),
    )
    assert interrupted.context == ""
    bash = hook(
        "PostToolUse",
        payload(
            "PostToolUse",
            cwd=str(project),
            session_id="h4",
            tool_response={"stdout": "", "stderr": err, "interrupted": False, "isImage": False},
        ),
    )
    assert "re-query devices by name" in bash.context
    ok = hook("PostToolUse", payload("PostToolUse", cwd=str(project), session_id="h5"))
    assert ok.context == ""


def test_cli_inject_seed_smoke_test(store, seeded, cli):
    store.close()
    r = cli("inject", "--session-context", '{"project": "WhisperClick V3", "file": "src/main.py"}')
    assert r.returncode == 0, r.stderr
    assert "pythonw" in r.stdout and "WM_APP_DRAGSTART" in r.stdout
    assert r.stdout.startswith("## Operational Memory (")
    j = cli("inject", "--session-context", '{"project": "whisperclick"}', "--dry-run", "--json")
    data = json.loads(j.stdout)
    assert data["included"] == len(data["ids"]) > 0
    bad = cli("inject", "--session-context", "{oops")
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr


def test_the_same_rule_from_several_imported_files_is_injected_once(store):
    a = add(store, "Never use pythonw.exe - use python.exe so errors are visible", "rule", confidence=0.9)
    b = add(store, "never use pythonw.exe; use python.exe so errors are visible.", "rule", confidence=0.7)
    c = add(store, "Never use npm in this repository; use pnpm", "rule", confidence=0.7)
    r = session_start.inject(store, {"project": "p"}, cfg(), record=False)
    assert a["id"] in r["ids"] and c["id"] in r["ids"]
    assert b["id"] not in r["ids"]
    assert HEADER.search(r["memory_text"]).groups()[:2] == ("2", "3")


def test_stale_memory_is_left_out_before_the_daily_decay_pass_has_run(store):
    """44 days idle at 0.4 decays to 0.2 (seed 000): below the floor even if decay has not run."""
    fresh = add(store, "Deploys go through the release branch", "fact", confidence=0.4)
    stale = add(store, "Deploys go through the staging branch", "fact", confidence=0.4)
    import datetime as dt

    now_minus_44 = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=44)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    store.execute(
        "UPDATE memory_entries SET created_at = ?, reinforced_at = ? WHERE id = ?",
        (now_minus_44, now_minus_44, stale["id"]),
    )
    ids = session_start.inject(
        store, {"task": "which branch do deploys go through"}, cfg(), session_id="d1", source="startup"
    )["ids"]
    assert fresh["id"] in ids and stale["id"] not in ids
    assert entries.get(store, stale["id"])["confidence"] == 0.4  # nothing written: decay's job
    hits = per_prompt.for_prompt(store, "which branch do deploys go through", cfg(), session_id="d2")["ids"]
    assert stale["id"] not in hits


def test_an_injected_line_shows_the_confidence_decay_has_already_taken(store):
    """0.8, 44 days idle (2 weeks past the grace period): effectively 0.6, and 0.6 is what is shown."""
    import datetime as dt

    stale = add(store, "Deploys go through the staging branch", "fact", confidence=0.8)
    old = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=44)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    store.execute("UPDATE memory_entries SET created_at = ?, reinforced_at = ? WHERE id = ?", (old, old, stale["id"]))
    session = session_start.inject(store, {"task": "which branch do deploys go through"}, cfg(), record=False)
    prompt = per_prompt.for_prompt(store, "which branch do deploys go through", cfg(), session_id="d2")
    for r in (session, prompt):
        assert stale["id"] in r["ids"]
        line = next(x for x in r["text"].splitlines() if "staging branch" in x)
        assert "(confidence: 0.6" in line, line
    assert entries.get(store, stale["id"])["confidence"] == 0.8  # nothing written: decay's job


def test_a_young_store_without_vectors_matches_no_memory_on_common_words(db_path, hook, project):
    """Before any daemon runs, a new user's one rule about pythonw is not put beside a prompt
    about npm that shares only "use" with it; a prompt about pythonw still gets it."""
    from helpers.cli import run_cli

    assert run_cli("add", "Never use pythonw.exe on Windows; use python.exe instead", "--type", "rule", db=db_path)
    npm = hook(
        "UserPromptSubmit",
        payload("UserPromptSubmit", cwd=str(project), session_id="y1", prompt="no, don't use npm here, use pnpm"),
    )
    assert npm.returncode == 0 and "pythonw" not in npm.context, npm.context
    asked = hook(
        "UserPromptSubmit",
        payload("UserPromptSubmit", cwd=str(project), session_id="y2", prompt="should the launcher start pythonw.exe?"),
    )
    assert "pythonw" in asked.context, asked.context
