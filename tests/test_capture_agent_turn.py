"""Reading the agent's last turn from the transcript (memory_cli/capture/agent_turn.py): what
correction detection knows of the moment a prompt answers."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from helpers.transcripts import agent_turn_transcript
from test_capture_markers import _assistant, _tool_result, _user, _write

from memory_cli.capture import agent_turn, learned
from memory_cli.capture.agent_turn import AgentTurn

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import real_prompts as rp  # noqa: E402


def _append(path: str, *records: dict) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r) + "\n")


def test_a_turn_that_edited_ran_tools_and_claimed_success(tmp_path):
    path = agent_turn_transcript(tmp_path / "s.jsonl", "Fixed the redirect. All tests pass now.")
    turn = agent_turn.read(path, "still failing")
    assert turn.found and turn.tools == ["Edit", "Bash"] and turn.edited
    assert (turn.errors, turn.rejected, turn.interrupted) == (0, False, False)
    assert turn.text == "Fixed the redirect. All tests pass now."
    assert {"EDIT", "DONE"} <= set(learned.turn_flags(turn))


def test_the_prompt_being_answered_is_passed_over_when_already_written(tmp_path):
    path = agent_turn_transcript(tmp_path / "s.jsonl", "Should I delete the branch?", tools=("Bash",))
    _append(path, {"type": "user", "message": {"role": "user", "content": "no"}})
    turn = agent_turn.read(path, "no")
    assert turn.found and turn.text == "Should I delete the branch?" and "ASK" in learned.turn_flags(turn)


def test_a_failing_call_a_rejected_call_and_an_interruption_are_seen(tmp_path):
    path = agent_turn_transcript(tmp_path / "s.jsonl", "Running the build.", tools=("Bash",), error=True)
    assert agent_turn.read(path).errors == 1
    _append(
        path,
        {
            "type": "assistant",
            "message": {
                "id": "m9",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t9", "name": "Bash", "input": {"command": "rm -rf build"}}],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t9",
                        "is_error": True,
                        "content": "The user doesn't want to proceed with this tool use. The tool use was rejected.",
                    }
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
            },
        },
    )
    turn = agent_turn.read(path)
    assert turn.rejected and turn.interrupted and turn.errors == 2
    assert {"ERR", "REJ", "INT"} <= set(learned.turn_flags(turn))


def test_only_the_last_turn_is_read(tmp_path):
    path = agent_turn_transcript(tmp_path / "s.jsonl", "Done, I edited app.py.")
    _append(
        path,
        {"type": "user", "message": {"role": "user", "content": "now explain the config loader"}},
        {
            "type": "assistant",
            "message": {
                "id": "m7",
                "role": "assistant",
                "content": [{"type": "text", "text": "The loader reads config.json first."}],
            },
        },
    )
    turn = agent_turn.read(path, "thanks")
    assert turn.text == "The loader reads config.json first." and turn.tools == [] and not turn.edited


def test_the_first_prompt_of_a_session_has_no_turn_and_no_transcript_is_unknown(tmp_path):
    """At the first prompt Claude Code names a transcript it has not written yet (its folder
    exists): there was no turn. No path, or a path whose folder is missing, is unknown."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    turn = agent_turn.read(str(empty), "hello")
    assert turn is not None and not turn.found and learned.turn_flags(turn) == ["NONE"]
    first = agent_turn.read(str(tmp_path / "not-yet-written.jsonl"), "hello")
    assert first is not None and learned.turn_flags(first) == ["NONE"]
    assert agent_turn.read(str(tmp_path / "no-such-folder" / "s.jsonl")) is None
    assert agent_turn.read(None) is None and learned.turn_flags(None) == ["UNK"]
    assert agent_turn.read(str(tmp_path)) is None  # a directory


def test_a_fifo_or_broken_lines_never_hold_or_break_it(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    turn = agent_turn.read(str(fifo))
    assert turn is None or not turn.found
    path = agent_turn_transcript(tmp_path / "s.jsonl", "All set.")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"type": "assistant", "message": {broken\n[1, 2]\n\n')
    assert agent_turn.read(path).text == "All set."


def test_a_huge_transcript_is_read_from_its_end_only(tmp_path):
    path = tmp_path / "big.jsonl"
    big = json.dumps(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "x", "content": "y" * 100_000}],
            },
        }
    )
    with open(path, "w", encoding="utf-8") as fh:
        for _ in range(60):  # 6 MB of tool output
            fh.write(big + "\n")
    _append(
        str(path),
        {
            "type": "assistant",
            "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Tests pass."}]},
        },
    )
    turn = agent_turn.read(str(path), "ok")
    assert turn.found and turn.text == "Tests pass." and turn.errors == 0


def test_the_labelled_real_prompts_carry_the_turn_the_hook_would_read():
    """context.jsonl is aligned line for line with prompts.jsonl; most real prompts follow an
    agent turn, and a session's first prompt has none."""
    rows, turns = rp.load_prompts(), rp.load_turns()
    assert len(rows) == len(turns)
    with rp.CONTEXT.open(encoding="utf-8") as fh:
        keys = [(d["repo"], d["file"], d["line"]) for d in map(json.loads, fh)]
    assert keys == [(r["repo"], r["file"], r["line"]) for r in rows]
    assert sum(t.found for t in turns) > 0.7 * len(turns)
    first = {}
    for r, t in zip(rows, turns):
        first.setdefault((r["repo"], r["file"]), t)
    assert sum(not t.found for t in first.values()) > 0.5 * len(first)


def test_the_context_line_gives_the_last_tool_call_else_the_last_words(tmp_path):
    path = _write(
        tmp_path / "c.jsonl",
        [
            _user("launch the app"),
            _assistant(
                [
                    {"type": "text", "text": "Launching the GUI."},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": "pythonw.exe src/main.py", "description": "run"},
                    },
                ],
                "m1",
            ),
            _tool_result("ok", "t1"),
            _assistant([{"type": "text", "text": "Started it with pythonw.exe."}], "m2"),
            _user("No, use python.exe not pythonw.exe"),
        ],
    )
    turn = agent_turn.read(path, "No, use python.exe not pythonw.exe")
    assert turn.tools == ["Bash"] and turn.last_input == "pythonw.exe src/main.py"
    assert turn.text == "Started it with pythonw.exe."
    assert turn.context_line() == "after Bash: pythonw.exe src/main.py"


def test_the_context_line_of_an_edit_and_of_words_only(tmp_path):
    path = _write(
        tmp_path / "e.jsonl",
        [
            _user("fix it"),
            _assistant(
                [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Edit",
                        "input": {"file_path": "/p/src/app.py", "old_string": "a", "new_string": "b"},
                    }
                ],
                "m1",
            ),
        ],
    )
    assert agent_turn.read(path).context_line() == "after Edit: /p/src/app.py"
    path2 = _write(tmp_path / "f.jsonl", [_user("hi"), _assistant([{"type": "text", "text": "Hello  there\nfriend"}])])
    assert agent_turn.read(path2).context_line() == "after the reply: Hello there friend"
    assert AgentTurn().context_line() == ""
