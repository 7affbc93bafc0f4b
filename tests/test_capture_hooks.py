"""UserPromptSubmit through the real `memory-cli hook` process, as Claude Code calls it."""

from __future__ import annotations

import json

import pytest
from helpers.hooks import payload
from helpers.transcripts import agent_turn_transcript


@pytest.fixture(autouse=True)
def detector_speaks(claude_dir):
    """These tests read the line the hook tells the agent of its own detections, which it says
    only when the agent is not recording lessons itself (``capture.agent_lessons`` off)."""
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text('{"capture": {"agent_lessons": false}}')


def _transcript(tmp_path, command="npm install", text="Installing the dependencies."):
    t = tmp_path / "session.jsonl"
    records = [
        {"type": "user", "message": {"role": "user", "content": "set the project up"}},
        {
            "type": "assistant",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": text},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": command, "description": "deps"},
                    },
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "added 312 packages"}],
            },
        },
    ]
    t.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return str(t)


def _prompt(hook, text, session_id="s1", **fields):
    return hook("UserPromptSubmit", payload("UserPromptSubmit", prompt=text, session_id=session_id, **fields))


def test_correction_gets_one_factual_line_and_is_never_blocked(hook, store, tmp_path, project):
    r = _prompt(hook, "use pnpm, not npm", transcript_path=_transcript(tmp_path), cwd=str(project))
    assert r.returncode == 0
    assert "decision" not in (r.json or {}) and r.json.get("continue", True) is True
    assert r.context.splitlines()[0] == "Recorded correction: use pnpm, not npm."
    row = store.row("SELECT * FROM corrections")
    assert (row["what_was_wrong"], row["what_is_right"], row["session_id"]) == ("npm", "pnpm", "s1")
    assert row["context"] == "after Bash: npm install; project whisperclick"


def test_a_correction_only_the_learned_model_recognises_is_kept_quietly_with_low_confidence(hook, store, tmp_path):
    """The model says only whether a prompt corrects, and is wrong about real prompts half the
    time it fires: the correction waits for review, Claude is not told of it."""
    said = agent_turn_transcript(
        tmp_path / "turn.jsonl", "I've fixed the retry loop in the parser. All tests pass now."
    )
    r = _prompt(hook, "please quit sprinkling print calls everywhere", transcript_path=said)
    assert r.returncode == 0
    assert "Recorded correction" not in r.context
    row = store.row("SELECT * FROM corrections")
    assert (row["what_was_wrong"], row["what_is_right"], row["confidence"]) == ("", "", 0.3)
    assert row["detection_type"] == "inferred"


def test_ordinary_prompt_leaves_nothing(hook, store):
    r = _prompt(hook, "add a flag so it doesn't print colors")
    assert r.returncode == 0
    assert "Recorded correction" not in r.context
    assert store.value("SELECT count(*) FROM corrections") == 0


def test_third_time_in_second_session_proposes_rule_and_tells_the_person(hook, store):
    _prompt(hook, "never use pythonw.exe", session_id="s1")
    second = _prompt(hook, "No! Don't use pythonw.exe again", session_id="s1")
    assert "(said 2 times)" in second.context and second.system_message == ""
    third = _prompt(hook, "stop using pythonw.exe", session_id="s2")
    assert "proposed rule" in third.system_message and "memory-cli review" in third.system_message
    assert "Recorded correction: do not use pythonw.exe (said 3 times)." in third.context
    rule = store.row("SELECT * FROM enforcement_rules")
    assert (rule["action"], rule["confirmed"], rule["active"], rule["pattern"]) == ("warn", 0, 1, "pythonw.exe")


def test_broken_transcript_does_not_stop_capture(hook, store, tmp_path):
    bad = tmp_path / "broken.jsonl"
    bad.write_bytes(b'{"type": "assistant", "message": {"content": [{"type": "tool_use"\n\xff\xfe')
    r = _prompt(hook, "never use sudo", transcript_path=str(bad))
    assert r.returncode == 0 and "Recorded correction: do not use sudo." in r.context
    assert store.value("SELECT count(*) FROM corrections") == 1
    assert store.value("SELECT count(*) FROM memory_audit_log WHERE action = 'hook_error'") == 0


def test_capture_disabled_in_config(hook, store, claude_dir):
    cfg = claude_dir / "memory" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"capture": {"enabled": False}}))
    r = _prompt(hook, "never use sudo")
    assert "Recorded correction" not in r.context
    assert store.value("SELECT count(*) FROM corrections") == 0


def test_quoted_correction_in_prompt_is_ignored(hook, store):
    r = _prompt(hook, 'The style guide says "never use tabs". Is that still true?')
    assert "Recorded correction" not in r.context
    assert store.value("SELECT count(*) FROM corrections") == 0


def test_a_prompt_loads_neither_promotion_nor_review_nor_the_other_injections(tmp_path, db_path):
    """UserPromptSubmit runs on every prompt: capturing a correction and choosing the memories
    beside it must not pay for promoting, reviewing, session start or failure lookups."""
    import subprocess
    import sys

    body = json.dumps(payload("UserPromptSubmit", prompt="no, use pnpm not npm", cwd=str(tmp_path)))
    code = (
        "import sys, io; sys.stdin=io.TextIOWrapper(io.BytesIO(sys.argv[2].encode()));"
        "from memory_cli.__main__ import main; main(['--db', sys.argv[1], 'hook', 'UserPromptSubmit']);"
        "sys.stderr.write('LOADED:'+','.join(sorted(m for m in sys.modules if m.startswith('memory_cli'))))"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(db_path), body], capture_output=True, text=True, timeout=60)
    loaded = set(proc.stderr.split("LOADED:")[1].split(","))
    assert {"memory_cli.capture.corrections", "memory_cli.retrieval.per_prompt"} <= loaded, proc.stderr
    unwanted = {
        "memory_cli.capture.promotion",
        "memory_cli.review",
        "memory_cli.retrieval.session_start",
        "memory_cli.retrieval.per_failure",
    }
    assert not loaded & unwanted
