"""What the model reads at session start, per prompt and after a failure (seed 000's format)."""

from __future__ import annotations

import re

from memory_cli.retrieval.format import (
    CLAUDE_OUTPUT_LIMIT,
    estimate_tokens,
    join_blocks,
    render_prompt,
    render_session,
    render_solutions,
)

HEADER = re.compile(r"^## Operational Memory \((\d+)(?: of (\d+))? memor(?:y|ies), ~([\d,]+) tokens\)$")


def mem(content, type_="fact", scope="global", confidence=0.7, **extra):
    return {"content": content, "type": type_, "scope": scope, "confidence": confidence, **extra}


def header_numbers(text):
    m = HEADER.match(text.splitlines()[0])
    assert m, text.splitlines()[0]
    included, total, tokens = m.groups()
    return int(included), int(total or included), int(tokens.replace(",", ""))


def bullets(text):
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_seed_example_groups_by_scope_with_general_last():
    entries = [
        mem("DNS checks sometimes fail transiently during WireGuard reconnects", "remediation", "global", 0.6),
        mem("Takes 60s to start after restart", "timing", "project:jellyfin", 0.9),
        mem("First restart always fails due to DB lock", "behavior", "project:jellyfin", 0.8),
    ]
    out = render_session(entries)
    lines = out.text.splitlines()
    assert lines[0].startswith("## Operational Memory (3 memories, ~")
    jelly = lines.index("### project: jellyfin")
    general = lines.index("### general")
    assert jelly < general
    assert lines[jelly + 1] == "- [timing] Takes 60s to start after restart (confidence: 0.9)"
    assert lines[jelly + 2] == "- [behavior] First restart always fails due to DB lock (confidence: 0.8)"
    assert lines[general + 1] == (
        "- [remediation] DNS checks sometimes fail transiently during WireGuard reconnects (confidence: 0.6)"
    )
    assert out.count == 3 and out.total == 3


def test_rule_bullet_matches_the_documented_shape():
    out = render_session([mem("Never use pythonw.exe", "rule", confidence=1.0)])
    assert "- [rule] Never use pythonw.exe (confidence: 1.0)" in out.text
    assert header_numbers(out.text)[:2] == (1, 1)
    assert "(1 memory," in out.text.splitlines()[0]


def test_budget_keeps_the_best_ranked_within_2000_tokens_and_says_how_many_were_left_out():
    entries = [mem(f"Memory number {i}: " + "details " * 45, confidence=0.9) for i in range(50)]
    out = render_session(entries, max_entries=50, max_tokens=2000)
    included, total, tokens = header_numbers(out.text)
    assert total == 50
    assert 0 < included < 50
    assert included == len(bullets(out.text)) == out.count
    assert tokens == estimate_tokens(out.text) == out.tokens
    assert tokens <= 2000
    # Best first: the included ones are exactly the top of the ranking.
    assert [b.split(":")[0] for b in bullets(out.text)] == [f"- [fact] Memory number {i}" for i in range(included)]


def test_all_fit_header_reports_actual_count_and_tokens():
    entries = [mem("Short fact one"), mem("Short fact two"), mem("Short fact three")]
    out = render_session(entries)
    included, total, tokens = header_numbers(out.text)
    assert (included, total) == (3, 3)
    assert tokens == estimate_tokens(out.text)
    assert " of " not in out.text.splitlines()[0]


def test_total_eligible_can_exceed_the_entries_offered():
    out = render_session([mem("Only this one was ranked")], total=18)
    assert out.text.splitlines()[0].startswith("## Operational Memory (1 of 18 memories, ~")


def test_max_entries_defaults_to_fifteen():
    out = render_session([mem(f"Fact {i} about the build") for i in range(40)])
    assert len(bullets(out.text)) == 15
    assert header_numbers(out.text)[:2] == (15, 40)


def test_an_entry_too_long_for_the_budget_is_skipped_and_shorter_ones_still_fit():
    entries = [mem("First short memory"), mem("x " * 900), mem("Third short memory")]
    out = render_session(entries, max_tokens=120)
    assert "First short memory" in out.text
    assert "Third short memory" in out.text
    assert "x x x" not in out.text
    assert header_numbers(out.text)[:2] == (2, 3)
    assert out.included == [entries[0], entries[2]]


def test_no_budget_setting_can_push_output_past_claude_codes_replacement_limit():
    entries = [mem(f"Fact {i}: " + "word " * 100) for i in range(500)]
    out = render_session(entries, max_entries=10_000, max_tokens=1_000_000)
    assert 0 < len(out.text) < CLAUDE_OUTPUT_LIMIT
    assert header_numbers(out.text)[0] == len(bullets(out.text))


def test_a_pasted_essay_is_one_shortened_line():
    out = render_session([mem("line one\nline two\n\n" + "long " * 1000, "fact")])
    (line,) = bullets(out.text)
    assert "\n" not in line and len(line) < 700
    assert "…" in line


def test_nothing_eligible_or_nothing_fitting_renders_nothing():
    assert render_session([]).text == ""
    assert render_session([mem("Something useful to know")], max_tokens=5).text == ""


def test_wording_states_facts_rather_than_issuing_system_commands():
    out = render_session([mem("Never use pythonw.exe", "rule", confidence=1.0)])
    for forbidden in ("SYSTEM", "IMPORTANT:", "You must", "Ignore", "MUST"):
        assert forbidden not in out.text


def test_rejected_alternatives_kept_in_tags_are_spelled_out():
    out = render_session(
        [mem("Use an in-process LRU cache for transcripts", "decision", tags=["caching", "rejected:redis"])]
    )
    assert "rejected: redis" in out.text
    already = render_session([mem("Chose SQLite over PostgreSQL", "decision", tags=["rejected:postgresql"])])
    assert "rejected:" not in bullets(already.text)[0]


def test_per_prompt_block_is_small_and_ungrouped():
    entries = [mem(f"Relevant thing {i}", scope="project:x" if i % 2 else "global") for i in range(10)]
    out = render_prompt(entries)
    assert out.text.startswith("## Memory related to this prompt (3 of 10 memories, ~")
    assert len(bullets(out.text)) == 3
    assert "###" not in out.text
    assert out.tokens <= 300


def test_past_solutions_block_names_the_failed_tool():
    out = render_solutions(
        [mem("PortAudioError -9996: re-query devices by name", "pattern", confidence=0.8)], tool_name="Bash"
    )
    assert out.text.startswith("## Past solutions to similar errors (1 memory, ~")
    assert "failed Bash call" in out.text
    assert "- [pattern] PortAudioError -9996: re-query devices by name (confidence: 0.8)" in out.text


def test_entries_may_be_objects_and_tags_json():
    class Row:
        content = "Takes 60s to start after restart"
        type = "fact"
        scope = "project:jellyfin"
        confidence = 0.85
        tags = '["timing", "rejected:polling"]'

    out = render_session([Row()])
    assert "- [fact] Takes 60s to start after restart (confidence: 0.85; rejected: polling)" in out.text


def test_join_blocks_drops_a_block_that_would_overflow():
    big = "y" * 6000
    assert join_blocks("a", big, big, limit=9000) == "a\n\n" + big
    assert join_blocks("", "b") == "b"
