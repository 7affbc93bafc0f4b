"""Stop checks without the agent: a lesson's form at approval, the deterministic checks run by
the real Stop hook over a real transcript (one send-back per turn, pause), the reminder beside
the tools a lesson names, and the settings entries kept in step with exact removal and drift."""

from __future__ import annotations

import json

import pytest
from helpers.hooks import payload

from memory_cli.checks import compile as compiler
from memory_cli.checks import judge

COMMIT = "always commit before you finish a turn that edited files"
CONFIDENCE = "state your confidence when you ask me something"
MCP_SHELL = "run commands through the project's MCP shell tool, not Bash"


@pytest.fixture(autouse=True)
def outside_any_project(tmp_path, monkeypatch):
    """Capture from a folder that is no git project: a correction typed in a project stays in it."""
    monkeypatch.chdir(tmp_path)


def _approve(cli, said: str, *args) -> dict:
    cid = json.loads(cli("capture", "-m", f"no, {said}", "--json").stdout)["id"]
    out = cli("review", "--approve", cid, *args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _transcript(path, calls, said="Done.", feedback_after: int | None = None):
    """A Claude Code transcript: the person's prompt, one assistant record per call (each with
    its tool result), optionally a Stop hook's feedback after call ``feedback_after``, then the
    final words."""
    recs = [{"type": "user", "message": {"role": "user", "content": "write the notes"}}]
    for i, (name, tool_input) in enumerate(calls):
        recs.append(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": f"t{i}", "name": name, "input": tool_input}],
                },
            }
        )
        recs.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}],
                },
            }
        )
        if feedback_after == i:
            recs.append(
                {"type": "user", "message": {"role": "user", "content": "Stop hook feedback:\n[x]: commit now"}}
            )
    recs.append({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": said}]}})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return str(path)


def test_each_lesson_compiles_to_the_check_that_sees_its_evidence():
    assert compiler.check_kind(COMMIT) == compiler.COMMIT_AFTER_EDIT
    assert compiler.check_kind("commit and push after every change") == compiler.COMMIT_AFTER_EDIT
    assert compiler.check_kind("run the tests after every edit") == compiler.TESTS_AFTER_EDIT
    assert compiler.check_kind("Always run the tests before committing") == compiler.TESTS_AFTER_EDIT
    assert compiler.check_kind(CONFIDENCE) == compiler.JUDGE
    assert compiler.check_kind("never commit to main without asking") == compiler.JUDGE
    assert compiler.propose(MCP_SHELL, has_rule=False) == "reminder"
    assert compiler.tools_named(MCP_SHELL) == ["Bash"]
    assert compiler.propose(CONFIDENCE, has_rule=False) == "stop-check"
    assert compiler.propose("never run git push --force", has_rule=True) == "rule"


def test_the_judge_prompt_quotes_each_lesson_and_is_bounded():
    lessons = [(f"{i:08x}-id", f"lesson number {i} " + "x" * 400) for i in range(20)]
    groups = judge.chunks(lessons)
    assert sum(len(g) for g in groups) == 20 and all(len(g) <= judge.MAX_LESSONS for g in groups)
    for g in groups:
        text = judge.prompt(g)
        assert len(text) <= judge.MAX_PROMPT_CHARS + 50 and text.startswith(judge.MARKER)
        assert "$ARGUMENTS" in text and "ok true" in text
    assert judge.parse_verdict('sure: {"ok": false, "reason": "[abcd1234] say it"}') == {
        "ok": False,
        "reason": "[abcd1234] say it",
    }
    assert judge.parse_verdict("no idea") is None


def test_the_commit_lesson_sends_back_an_uncommitted_turn_once(cli, hook, db_path, tmp_path, project):
    out = _approve(cli, COMMIT)
    assert out["form"] == {**out["form"], "form": "stop-check", "check_kind": "commit_after_edit"}
    wrote = _transcript(tmp_path / "t1.jsonl", [("Write", {"file_path": str(project / "a.txt"), "content": "x"})])
    r = hook("Stop", payload("Stop", cwd=str(project), transcript_path=wrote))
    assert r.json["decision"] == "block" and "no `git commit`" in r.json["reason"], r
    # the second Stop of the same turn is never sent back again
    again = hook("Stop", payload("Stop", cwd=str(project), transcript_path=wrote, stop_hook_active=True))
    assert (again.json or {}).get("decision") is None
    committed = _transcript(
        tmp_path / "t2.jsonl",
        [("Write", {"file_path": "a.txt", "content": "x"}), ("Bash", {"command": "git -C . commit -qam notes"})],
    )
    ok = hook("Stop", payload("Stop", cwd=str(project), transcript_path=committed, session_id="s2"))
    assert (ok.json or {}).get("decision") is None
    read_only = _transcript(
        tmp_path / "t3.jsonl", [("Bash", {"command": "ls > /dev/null"}), ("Read", {"file_path": "a"})]
    )
    assert (hook("Stop", payload("Stop", cwd=str(project), transcript_path=read_only, session_id="s3")).json or {}).get(
        "decision"
    ) is None
    rows = json.loads(cli("audit", "--action", "stop_check", "--json").stdout)
    assert sorted(r["result"] for r in rows) == ["ended_unkept", "kept", "kept", "sent_back"]
    lessons = json.loads(cli("lessons", "--json").stdout)["lessons"]
    assert lessons[0]["verdicts"]["sent_back"] == 1 and lessons[0]["verdicts"]["kept_turns"] == 2

    cli("checks", "pause")
    paused = hook("Stop", payload("Stop", cwd=str(project), transcript_path=wrote, session_id="s4"))
    assert (paused.json or {}).get("decision") is None
    cli("checks", "resume")
    assert (
        hook("Stop", payload("Stop", cwd=str(project), transcript_path=wrote, session_id="s5")).json["decision"]
        == "block"
    )


def test_a_stop_hook_feedback_does_not_begin_a_new_turn(cli, hook, tmp_path, project):
    _approve(cli, COMMIT)
    path = _transcript(
        tmp_path / "t.jsonl",
        [("Edit", {"file_path": "a.py"}), ("Bash", {"command": "echo hi"})],
        feedback_after=0,
    )
    r = hook("Stop", payload("Stop", cwd=str(project), transcript_path=path))
    assert r.json["decision"] == "block"


def test_a_reminder_goes_beside_the_tools_it_names_only(cli, hook, project):
    out = _approve(cli, MCP_SHELL, "--form", "reminder")
    assert out["form"]["tools"] == ["Bash"]
    r = hook("PreToolUse", payload("PreToolUse", cwd=str(project)))
    assert "MCP shell tool" in r.context and r.decision is None
    other = hook("PreToolUse", payload("PreToolUse", cwd=str(project), tool_name="Read", tool_input={"file_path": "x"}))
    assert "MCP shell tool" not in other.context


def test_judged_lessons_live_in_the_settings_in_step_and_go_exactly(cli, claude_dir, project):
    settings = claude_dir / "settings.json"
    theirs = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}, "theme": "dark"}
    settings.write_text(json.dumps(theirs, indent=4) + "\n")
    cid = json.loads(cli("capture", "-m", f"no, {CONFIDENCE}", "--json").stdout)["id"]
    cli("review", "--approve", cid, "--form", "stop-check")
    data = json.loads(settings.read_text())
    prompts = [h for g in data["hooks"]["Stop"] for h in g["hooks"] if h["type"] == "prompt"]
    assert len(prompts) == 1 and CONFIDENCE in prompts[0]["prompt"].lower()
    assert {"type": "command", "command": "say done"} in [h for g in data["hooks"]["Stop"] for h in g["hooks"]]
    assert list(claude_dir.glob("settings.json.bak-*")), "the person's file was backed up first"

    status = json.loads(cli("checks", "status", "--json").stdout)
    assert status["drift"] == [] and status["settings_files"] == [str(settings)]
    data["hooks"]["Stop"] = [g for g in data["hooks"]["Stop"] if g["hooks"][0]["type"] != "prompt"]
    settings.write_text(json.dumps(data))
    drift = json.loads(cli("checks", "status", "--json").stdout)["drift"]
    assert drift and "edited by hand" in drift[0]
    cli("checks", "sync")
    assert json.loads(cli("checks", "status", "--json").stdout)["drift"] == []

    cli("checks", "pause")
    assert judge.MARKER not in settings.read_text()
    cli("checks", "resume")
    assert judge.MARKER in settings.read_text()
    cli("review", "--reject", cid)
    after = json.loads(settings.read_text())
    assert judge.MARKER not in settings.read_text() and after["theme"] == "dark"
    assert after["hooks"]["Stop"] == theirs["hooks"]["Stop"]


def test_untouched_settings_come_back_byte_for_byte(cli, claude_dir):
    settings = claude_dir / "settings.json"
    settings.write_text('{ "theme" : "dark" }\n')
    cid = json.loads(cli("capture", "-m", f"no, {CONFIDENCE}", "--json").stdout)["id"]
    cli("review", "--approve", cid, "--form", "stop-check")
    assert judge.MARKER in settings.read_text()
    cli("review", "--reject", cid)
    assert settings.read_bytes() == b'{ "theme" : "dark" }\n'


def test_a_bad_form_is_a_one_line_error_and_nothing_is_approved(cli):
    cid = json.loads(cli("capture", "-m", f"no, {CONFIDENCE}", "--json").stdout)["id"]
    r = cli("review", "--approve", cid, "--form", "nagging")
    assert r.returncode != 0 and "unknown form 'nagging'" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert json.loads(cli("review", "--list", "--json").stdout)[0]["status"] == "pending"


def test_the_rest_api_takes_the_form_and_refuses_an_unknown_one(db_path, store, claude_dir):
    import pytest

    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from memory_cli.capture.corrections import capture
    from memory_cli.web.app import ServerConfig, create_app

    cid = capture(store, f"no, {CONFIDENCE}", session_id="s1")["id"]
    app = create_app(ServerConfig(db_path=str(db_path), token="t" * 32, extra_hosts=("testserver",)))
    with TestClient(app, headers={"Authorization": "Bearer " + "t" * 32}) as api:
        bad = api.post(f"/api/corrections/{cid}/approve", json={"form": "nagging"})
        assert bad.status_code == 422 and bad.json()["field"] == "form"
        ok = api.post(f"/api/corrections/{cid}/approve", json={"form": "stop-check"}).json()
        listed = api.get("/api/lessons").json()
        page = api.get("/review").text
    assert ok["form"]["form"] == "stop-check" and ok["form"]["check_kind"] == "judge"
    assert listed["paused"] is False and listed["lessons"][0]["check"] == "model judge"
    assert "Approved lessons and how each is enforced" in page and "stop-check" in page
    assert judge.MARKER in (claude_dir / "settings.json").read_text()


def test_codex_judges_with_the_session_provider_and_a_failed_judge_lets_the_turn_end(cli, db_path, claude_dir, project):
    import subprocess

    from helpers.hooks import hook_cmd
    from helpers.openai_standin import OpenAIStandIn, content
    from test_llm_cli import write_config

    out = _approve(cli, CONFIDENCE, "--form", "stop-check")
    tag = judge.tag(out["promoted_entry_id"])
    verdicts = [content({"ok": False, "reason": f"[{tag}] say how confident you are"}), content("no verdict here")]
    with OpenAIStandIn(verdicts) as si:
        write_config(
            claude_dir, llm={"provider": "openai-compatible", "base_url": si.url, "timeout_s": 5, "retries": 0}
        )

        def stop(session: str) -> dict:
            body = payload("Stop", cwd=str(project), session_id=session, last_assistant_message="Delete the branch?")
            p = subprocess.run(
                [*hook_cmd(), "--db", str(db_path), "hook", "--agent", "codex", "Stop"],
                input=json.dumps(body),
                capture_output=True,
                text=True,
                env={**__import__("os").environ, "OPENAI_API_KEY": "sk-local-test"},
                timeout=60,
            )
            return json.loads(p.stdout) if p.stdout.strip() else {}

        sent = stop("c1")
        failed = stop("c2")
    assert sent.get("decision") == "block" and "say how confident you are" in sent.get("reason", ""), sent
    asked = si.requests[0]["body"]["messages"][1]["content"]
    assert CONFIDENCE in asked.lower() and "Delete the branch?" in asked
    assert failed.get("decision") is None
    rows = json.loads(cli("audit", "--action", "stop_check", "--json").stdout)
    assert sorted(r["result"] for r in rows) == ["judge_failed", "sent_back"]


def test_a_failed_platform_judge_is_counted_once_at_the_next_stop(cli, hook, tmp_path, project):
    out = _approve(cli, CONFIDENCE, "--form", "stop-check")
    prompt = judge.prompt([(out["promoted_entry_id"], "No, state your confidence when you ask me something.")])
    path = tmp_path / "t.jsonl"
    _transcript(path, [])
    failure = {
        "type": "attachment",
        "attachment": {
            "type": "hook_non_blocking_error",
            "hookEvent": "Stop",
            "toolUseID": "f00d-1",
            "stderr": "JSON validation failed",
            "command": prompt,
        },
    }
    with path.open("a") as f:
        f.write(json.dumps(failure) + "\n")
    for session in ("j1", "j1"):
        hook("Stop", payload("Stop", cwd=str(project), transcript_path=str(path), session_id=session))
    rows = json.loads(cli("audit", "--action", "stop_check", "--json").stdout)
    assert sorted(r["result"] for r in rows) == ["judge_failed", "judged", "judged"]
    assert json.loads(cli("lessons", "--json").stdout)["lessons"][0]["verdicts"]["judge_failed"] == 1


def test_editing_or_archiving_a_lesson_rewrites_its_judge(cli, claude_dir):
    settings = claude_dir / "settings.json"
    out = _approve(cli, CONFIDENCE, "--form", "stop-check")
    eid = out["promoted_entry_id"]
    r = cli("update", eid, "--content", "State how confident you are, in percent, whenever you ask me something.")
    assert r.returncode == 0, r.stderr
    assert "in percent" in settings.read_text()
    cli("archive", eid)
    assert not settings.exists()  # memory-cli created the file for this judge: it goes with it


def test_an_ask_lesson_asks_the_person_before_the_tools_it_names(cli, hook, project):
    out = _approve(cli, MCP_SHELL, "--form", "ask")
    assert out["form"]["form"] == "ask" and out["form"]["tools"] == ["Bash"]
    r = hook("PreToolUse", payload("PreToolUse", cwd=str(project)))
    assert r.decision == "ask" and "MCP shell tool" in r.json["hookSpecificOutput"]["permissionDecisionReason"]
    other = hook("PreToolUse", payload("PreToolUse", cwd=str(project), tool_name="Read", tool_input={"file_path": "x"}))
    assert other.decision is None


def test_a_scope_change_moves_the_judge_between_the_settings_files(cli, claude_dir, project, monkeypatch):
    monkeypatch.chdir(project)
    out = _approve(cli, CONFIDENCE, "--form", "stop-check", "--scope", "global")
    user, here = claude_dir / "settings.json", project / ".claude" / "settings.json"
    assert judge.MARKER in user.read_text() and not here.exists()
    r = cli("update", out["promoted_entry_id"], "--scope", "project:whisperclick", cwd=project)
    assert r.returncode == 0, r.stderr
    assert judge.MARKER in here.read_text() and not user.exists()
    r = cli("update", out["promoted_entry_id"], "--scope", "global", cwd=project)
    assert judge.MARKER in user.read_text() and not (project / ".claude").exists()
