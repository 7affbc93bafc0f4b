"""[MEMORY:...] markers: only the assistant's own words, only known categories; and the
transcript reader that finds those words."""

from __future__ import annotations

import json
import re

import pytest

from memory_cli.capture import instructions
from memory_cli.capture.markers import (
    CATEGORIES,
    MARKER_REGEX,
    _reverse_records,
    assistant_text_since_last_stop,
    parse_markers,
    wrap_injected,
)

# ---------------------------------------------------------------- seed 000 regex scenarios


def test_seed_regex_verbatim_and_groups():
    assert (
        MARKER_REGEX == r"\[MEMORY:(timing|dependency|behavior|remediation|maintenance)(?::([a-zA-Z0-9_-]+))?\]\s*(.+)"
    )
    m = re.search(MARKER_REGEX, "[MEMORY:dependency:postgres] Dependents should wait 10s after postgres restart")
    assert m.groups() == ("dependency", "postgres", "Dependents should wait 10s after postgres restart")
    assert re.search(MARKER_REGEX, "[MEMORY:unknown] Some observation") is None


def test_general_marker_without_subject():
    parsed = parse_markers(
        "[MEMORY:remediation] DNS checks sometimes fail transiently during WireGuard "
        "reconnects -- retry once before escalating"
    )
    assert [(m.category, m.subject, m.observation) for m in parsed.markers] == [
        (
            "remediation",
            None,
            "DNS checks sometimes fail transiently during WireGuard reconnects -- retry once before escalating",
        )
    ]


def test_subject_marker_inside_prose():
    text = (
        "I restarted it and waited.\n\n[MEMORY:timing:jellyfin] Takes 45s to start after restart -- wait "
        "before checking health\n\nEverything is up now."
    )
    parsed = parse_markers(text)
    assert [(m.category, m.subject, m.observation) for m in parsed.markers] == [
        ("timing", "jellyfin", "Takes 45s to start after restart -- wait before checking health")
    ]
    assert parsed.unknown == []


def test_unknown_category_is_reported_not_accepted():
    parsed = parse_markers("[MEMORY:misc] Something odd\n[MEMORY:timing:web] Slow to boot")
    assert [m.category for m in parsed.markers] == ["timing"]
    assert len(parsed.unknown) == 1
    assert parsed.unknown[0].category == "misc"
    assert "unknown category" in parsed.unknown[0].problem


@pytest.mark.parametrize(
    "text,problem",
    [
        ("[MEMORY:Timing] capitalised category", "unknown category"),
        ("[memory:timing] lower-case tag", "unknown category"),
        ("[MEMORY:timing:jelly fin] space in subject", "malformed subject"),
        ("[MEMORY:timing]   ", "empty observation"),
    ],
)
def test_malformed_markers_are_reported(text, problem):
    parsed = parse_markers(text)
    assert parsed.markers == []
    assert problem in parsed.unknown[0].problem or (problem == "unknown category" and parsed.unknown)


def test_every_category_accepted():
    text = "\n".join(f"[MEMORY:{c}:svc] observation about {c}" for c in CATEGORIES)
    assert [m.category for m in parse_markers(text).markers] == list(CATEGORIES)


def test_two_markers_on_one_line_are_split():
    parsed = parse_markers("[MEMORY:timing:a] slow start [MEMORY:behavior:b] flaky health check")
    assert [(m.subject, m.observation) for m in parsed.markers] == [("a", "slow start"), ("b", "flaky health check")]


def test_markdown_emphasis_is_trimmed():
    parsed = parse_markers("- **[MEMORY:behavior:adguard]** Returns 302 when healthy **")
    assert parsed.markers[0].observation == "Returns 302 when healthy"


def test_markers_in_code_quotes_and_injected_context_are_ignored():
    text = "\n".join(
        [
            "Here is how the format looks:",
            "```",
            "[MEMORY:timing:x] inside a fence",
            "```",
            "Inline: `[MEMORY:timing:y] inside backticks`",
            "> [MEMORY:timing:z] quoted line",
            wrap_injected("[MEMORY:timing:w] injected by memory-cli"),
            "<system-reminder>[MEMORY:timing:v] hook context</system-reminder>",
            "[MEMORY:timing:real] the only real one",
        ]
    )
    parsed = parse_markers(text)
    assert [m.subject for m in parsed.markers] == ["real"]


def test_echoed_instruction_examples_are_not_stored():
    parsed = parse_markers("Sure, the instructions say:\n" + instructions.text())
    assert parsed.markers == []


def test_duplicate_markers_in_one_text_count_once():
    parsed = parse_markers("[MEMORY:timing:a] slow start\nlater...\n[MEMORY:timing:a] slow start")
    assert len(parsed.markers) == 1


def test_no_markers_and_junk():
    assert not parse_markers("")
    assert not parse_markers("plain text [with brackets]")
    assert not parse_markers(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- instructions


def test_instructions_teach_format_categories_and_an_example_in_a_few_lines():
    t = instructions.text()
    assert "[MEMORY:<category>] <observation>" in t and "[MEMORY:<category>:<subject>] <observation>" in t
    for c in CATEGORIES:
        assert c in t
    examples = [m for m in re.finditer(MARKER_REGEX, t)]
    assert len(examples) == 1 and examples[0].group(2)  # one example, with a subject
    memory = instructions.text(lessons=False)
    assert len(memory.splitlines()) <= 5 and len(memory) < 700  # paid for in context every session
    lessons = instructions.lessons_text()  # and the lessons the agent records, as few lines again
    assert t == memory + "\n\n" + lessons and len(lessons.splitlines()) <= 3 and len(lessons) < 600


# ---------------------------------------------------------------- transcripts


def _user(text, **extra):
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/u/proj",
        "sessionId": "s1",
        "version": "2.1.3",
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": f"u-{abs(hash(text))}",
        **extra,
    }


def _assistant(blocks, msg_id="msg_01", **extra):
    return {
        "parentUuid": "x",
        "isSidechain": False,
        "type": "assistant",
        "sessionId": "s1",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": blocks,
            "stop_reason": None,
        },
        "requestId": "req_1",
        "uuid": f"a-{msg_id}",
        **extra,
    }


def _tool_result(text, tool_use_id="toolu_1"):
    return {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"tool_use_id": tool_use_id, "type": "tool_result", "content": text, "is_error": False}],
        },
        "toolUseResult": {"stdout": text, "stderr": "", "interrupted": False, "isImage": False},
    }


def _write(path, records, junk=True):
    lines = [json.dumps(r) for r in records]
    if junk:
        lines.insert(1, "{not json")
        lines.insert(2, json.dumps(["a", "list"]))
        lines.insert(3, json.dumps({"type": "file-history-snapshot", "snapshot": {}}))
    path.write_text("\n".join(lines) + "\n")
    return path


def _session(tmp_path):
    return _write(
        tmp_path / "s1.jsonl",
        [
            {"type": "summary", "summary": "Earlier work", "leafUuid": "z"},
            _user("restart jellyfin please"),
            _assistant([{"type": "text", "text": "[MEMORY:timing:old] from the previous turn"}], "msg_00"),
            _user("now check caddy"),
            _assistant(
                [{"type": "thinking", "thinking": "[MEMORY:timing:t] thinking is not text", "signature": "x"}], "msg_01"
            ),
            _assistant([{"type": "text", "text": "Checking caddy."}], "msg_01"),
            _assistant(
                [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Bash",
                        "input": {"command": "cat /etc/caddy/NOTES.md", "description": "read notes"},
                    }
                ],
                "msg_01",
            ),
            _tool_result("[MEMORY:dependency:caddy] written in a file the agent read"),
            _user("<system-reminder>[MEMORY:timing:sr] injected</system-reminder>", isMeta=True),
            {
                "type": "system",
                "subtype": "informational",
                "content": "[MEMORY:timing:sys] system text",
                "level": "info",
            },
            _assistant(
                [{"type": "text", "text": "[MEMORY:dependency:caddy] Must be started after WireGuard"}], "msg_02"
            ),
            _assistant([{"type": "text", "text": "[MEMORY:dependency:side] subagent"}], "msg_side", isSidechain=True),
            _assistant(
                [{"type": "text", "text": "API Error: [MEMORY:timing:err] overloaded"}],
                "msg_err",
                isApiErrorMessage=True,
            ),
        ],
    )


def test_assistant_text_of_current_turn_only(tmp_path):
    text = assistant_text_since_last_stop(_session(tmp_path))
    assert text == "Checking caddy.\n\n[MEMORY:dependency:caddy] Must be started after WireGuard"
    parsed = parse_markers(text)
    assert [(m.subject, m.observation) for m in parsed.markers] == [("caddy", "Must be started after WireGuard")]


def test_tool_results_user_text_and_previous_turns_never_produce_markers(tmp_path):
    text = assistant_text_since_last_stop(_session(tmp_path))
    for never in (
        "written in a file",
        "from the previous turn",
        "thinking is not text",
        "injected",
        "system text",
        "subagent",
        "overloaded",
        "now check caddy",
    ):
        assert never not in text


def test_missing_unreadable_and_empty_transcripts(tmp_path):
    assert assistant_text_since_last_stop(None) == ""
    assert assistant_text_since_last_stop(tmp_path / "missing.jsonl") == ""
    assert assistant_text_since_last_stop(tmp_path) == ""  # a directory
    (tmp_path / "empty.jsonl").write_text("")
    assert assistant_text_since_last_stop(tmp_path / "empty.jsonl") == ""
    (tmp_path / "bin.jsonl").write_bytes(b'\xff\xfe\x00garbage\n{"type": "assistant", "message": 5}\n')
    assert assistant_text_since_last_stop(tmp_path / "bin.jsonl") == ""


def test_huge_transcript_is_read_from_the_end(tmp_path):
    filler = _assistant([{"type": "text", "text": "x" * 5000}], "old")
    records = (
        [_user("first")]
        + [filler] * 400
        + [_user("latest question"), _assistant([{"type": "text", "text": "[MEMORY:timing:big] at the end"}], "new")]
    )
    path = _write(tmp_path / "big.jsonl", records, junk=False)
    assert path.stat().st_size > 1_000_000
    text = assistant_text_since_last_stop(path, max_bytes=64 * 1024)
    assert text == "[MEMORY:timing:big] at the end"


def test_turn_without_a_person_prompt_in_the_window(tmp_path):
    # The boundary fell outside the bytes read: everything read belongs to the turn.
    path = _write(
        tmp_path / "t.jsonl",
        [_assistant([{"type": "text", "text": "a"}], "m1"), _assistant([{"type": "text", "text": "b"}], "m2")],
        junk=False,
    )
    assert assistant_text_since_last_stop(path) == "a\n\nb"


@pytest.mark.parametrize("chunk", [1, 7, 64, 65536])
def test_reverse_reader_reassembles_lines_across_chunks(tmp_path, chunk):
    records = [{"n": i, "text": "é" * (i % 5) + "x" * (i * 13 % 200)} for i in range(60)]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8")
    got = list(_reverse_records(path, max_bytes=10_000_000, chunk=chunk))
    assert [r["n"] for r in got] == list(range(59, -1, -1))
    # a byte limit that cuts a line in half drops that fragment, never mangles it
    size = path.stat().st_size
    partial = list(_reverse_records(path, max_bytes=size // 2, chunk=chunk))
    assert partial and all(r in records for r in partial)
    assert [r["n"] for r in partial] == list(range(59, 59 - len(partial), -1))
