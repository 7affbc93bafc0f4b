"""PermissionDenied: a call auto mode's permission check refused is kept as a "that was wrong"
signal, through the real `memory-cli hook` process with payloads shaped as Claude Code 2.1.328
sends them (common fields + ``tool_name``, ``tool_input``, ``tool_use_id``, ``reason``).

It is read back where a person's correction is weighed: the next prompt's capture (the refused
call is the one corrected), a rule's proof (an ask followed by the refusal was declined) and a
proposal's replay (the refused call is a corrected one)."""

from __future__ import annotations

import json

import pytest
from helpers.hooks import payload
from helpers.store import add_rule

from memory_cli import install
from memory_cli.capture.agent_turn import read as read_turn
from memory_cli.capture.denied import mark_turn
from memory_cli.capture.learned import turn_flags
from memory_cli.rules import proof
from memory_cli.store.db import Store


@pytest.fixture(autouse=True)
def detector_speaks(claude_dir):
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text('{"capture": {"agent_lessons": false}}')


def _denied(session="s1", command="rm -rf build", call_id="toolu_01DEN", reason="Permission denied", **kw):
    return payload(
        "PermissionDenied",
        session_id=session,
        tool_input={"command": command, "description": "clean"},
        tool_use_id=call_id,
        reason=reason,
        **kw,
    )


def _turn_transcript(path, calls):
    """A Claude Code transcript: the person's request, then one agent turn of Bash ``calls``
    ((id, command, refused)); a refused call is answered by an error result, as auto mode does."""
    records = [{"type": "user", "message": {"role": "user", "content": "tidy the repo"}, "userType": "external"}]
    for cid, command, refused in calls:
        records.append(
            {
                "type": "assistant",
                "message": {
                    "id": "m" + cid,
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": command}}],
                },
            }
        )
        result = "Permission for this action was denied." if refused else "ok"
        records.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": cid, "content": result, "is_error": refused}],
                },
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_a_denied_call_is_recorded_redacted_and_claude_code_is_told_nothing(hook, db_path):
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    r = hook("PermissionDenied", _denied(command=f"curl -H 'Authorization: token {secret}' https://x.example"))
    assert r.returncode == 0 and r.stdout.strip() == ""  # no retry: Claude Code's own handling stands
    with Store.open(db_path) as s:
        row = s.row("SELECT * FROM memory_audit_log WHERE action = 'permission_denied'")
    assert (row["context"], row["session_id"], row["hook_event"], row["result"]) == (
        "Bash",
        "s1",
        "PermissionDenied",
        "denied",
    )
    details = json.loads(row["details"])
    assert details["tool_use_id"] == "toolu_01DEN" and details["reason"] == "Permission denied"
    assert details["permission_mode"] == "auto"
    assert "curl" in details["input"] and secret not in details["input"]


def test_a_payload_without_the_tool_is_a_protocol_error_never_a_crash(hook, db_path):
    body = _denied()
    del body["tool_name"]
    r = hook("PermissionDenied", body)
    assert r.returncode == 0
    with Store.open(db_path) as s:
        assert s.row("SELECT count(*) AS n FROM memory_audit_log WHERE action = 'permission_denied'")["n"] == 0
        assert s.row("SELECT context FROM memory_audit_log WHERE action = 'hook_error'")["context"] == "invalid_input"


def test_the_prompt_after_a_denied_call_is_stored_as_correcting_that_call(hook, db_path, tmp_path):
    t = _turn_transcript(
        tmp_path / "s.jsonl", [("toolu_A", "rm -rf build", True), ("toolu_B", "git status --short", False)]
    )
    hook("PermissionDenied", _denied(call_id="toolu_A", transcript_path=t))
    r = hook(
        "UserPromptSubmit",
        payload("UserPromptSubmit", session_id="s1", transcript_path=t, prompt="use make clean, not rm -rf"),
    )
    assert r.returncode == 0
    with Store.open(db_path) as s:
        row = s.row("SELECT context FROM corrections")
    # the correction names the refused call, not merely the turn's last one (git status)
    assert row["context"].startswith("after Bash: rm -rf build (refused by the permission check)")


def test_a_denial_in_another_session_or_of_another_call_marks_nothing(db_path, tmp_path, hook):
    t = _turn_transcript(tmp_path / "s.jsonl", [("toolu_A", "rm -rf build", True)])
    hook("PermissionDenied", _denied(session="other", call_id="toolu_A"))
    hook("PermissionDenied", _denied(session="s1", call_id="toolu_Z"))
    with Store.open(db_path) as s:
        turn = mark_turn(s, "s1", read_turn(t, "next"))
    assert not turn.denied and not turn.rejected and "REJ" not in turn_flags(turn)
    with Store.open(db_path) as s:
        turn = mark_turn(s, "other", read_turn(t, "next"))
    assert turn.denied == "Bash: rm -rf build" and "REJ" in turn_flags(turn)  # read as a rejected call


def test_an_ask_the_permission_check_then_refused_counts_as_declined(hook, db_path):
    rule = add_rule(db_path, "ask before rm -rf", pattern="rm -rf", pattern_type="command", action="ask")
    pre = payload("PreToolUse", session_id="d1", tool_input={"command": "rm -rf build", "description": "clean"})
    assert hook("PreToolUse", pre).decision == "ask"
    hook("PermissionDenied", _denied(session="d1"))  # the session's last event: nothing ran after it
    with Store.open(db_path) as s:
        p = proof.collect(s)[rule["id"]]
    assert (p["fired"], p["declined"], p["overridden"]) == (1, 1, 0)


def test_install_registers_the_event_and_uninstall_removes_exactly_its_entry(tmp_path):
    theirs = {"type": "command", "command": "/usr/local/bin/notify-denied"}
    before = {"hooks": {"PermissionDenied": [{"hooks": [theirs]}]}, "model": "opus"}
    after = install.with_ours(before, "/venv/bin/python -I -S /pkg/memory_cli/fasthook.py")
    ours = [h for g in after["hooks"]["PermissionDenied"] for h in g["hooks"] if install.is_ours(h)]
    assert len(ours) == 1 and ours[0]["command"].endswith("hook PermissionDenied") and ours[0]["timeout"] == 5
    assert install.without_ours(after) == before


def test_replay_counts_a_refused_call_as_corrected(hook, db_path, isolated_env):
    from memory_cli.replay.proposals import History

    home = isolated_env.parent
    folder = home / ".claude" / "projects" / "-work-app"
    folder.mkdir(parents=True)
    _turn_transcript(folder / "r1.jsonl", [("toolu_A", "rm -rf build", True), ("toolu_B", "make clean", False)])
    hook("PermissionDenied", _denied(session="r1", call_id="toolu_A"))
    with Store.open(db_path) as s:
        history = History(str(home), ["claude"], store=s)
    [session] = history.sessions
    corrected = history.corrected([])
    assert [c.tool_input["command"] for c in session.calls if id(c) in corrected] == ["rm -rf build"]
    # without the store's record the transcript alone does not say the call was refused
    assert History(str(home), ["claude"]).corrected([]) == set()


def test_doctor_reports_an_install_from_before_the_event_and_uninstall_leaves_theirs(claude_dir, db_path):
    from helpers.cli import run_cli

    settings = claude_dir / "settings.json"
    theirs = {"hooks": {"PermissionDenied": [{"hooks": [{"type": "command", "command": "notify-send denied"}]}]}}
    settings.write_text(json.dumps(theirs))
    assert run_cli("install").returncode == 0
    data = json.loads(settings.read_text())
    old = dict(data, hooks={k: v for k, v in data["hooks"].items() if k != "PermissionDenied"})
    settings.write_text(json.dumps(old))  # as an install made before the event was registered
    checks = json.loads(run_cli("doctor", "--json", "--no-timing", db=db_path).stdout)["checks"]
    [hooks] = [c for c in checks if c["name"] == "hooks (user)"]
    assert hooks["status"] == "warn" and "missing PermissionDenied" in hooks["detail"]
    settings.write_text(json.dumps(theirs))
    assert run_cli("install").returncode == 0 and run_cli("uninstall").returncode == 0
    assert json.loads(settings.read_text()) == theirs
