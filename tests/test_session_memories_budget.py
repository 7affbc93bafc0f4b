"""Session memories through a model within a budget: one request per session end that fits
``llm.max_input_tokens`` on the longest real sessions and keeps what memories come from, the
per-day token cap, the tokens shown per day and per session, one memory instead of repeats, and
`config get|set|unset|list` that turns a model on and refuses a bad key or value."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from helpers.openai_standin import OpenAIStandIn, content
from test_llm_cli import listed, write_config

REAL = Path(__file__).parent / "fixtures" / "real"
LONGEST = REAL / "heldout2" / "hannibal8856-1.jsonl"  # 1,002 turns, about 121k tokens whole
ANSWER = {
    "memories": [
        {
            "content": "The buildroot SNMP build for mds4xgl3 must finish before flashing; flash only after the person confirms.",
            "type": "preference",
            "scope": "project",
        }
    ],
    "report": "Built the opt-in SNMP change.",
}


def _excerpt(path: Path):
    from memory_cli.llm import transcript

    ex = transcript.read(str(path), 0)
    transcript.redact_all(ex)
    return ex


# ------------------------------------------------------------------------------ the budget
def test_the_longest_real_session_fits_the_budget_with_every_prompt_and_its_failures():
    from memory_cli.llm import prompts, transcript
    from memory_cli.llm.condense import estimate_tokens
    from memory_cli.llm.summarize import budgeted_prompt

    ex = _excerpt(LONGEST)
    whole = estimate_tokens(transcript.render(ex))
    prompt, shown = budgeted_prompt(ex, project="project:dl", existing=[], max_tokens=16000)
    request = prompts.SAVE_SYSTEM + prompt + prompts.json_only_instruction(prompts.SAVE_TOOL)
    assert whole > 100000 and estimate_tokens(request) <= 16000
    typed = [t.text for t in ex.turns if t.role == "person"]
    assert all(p[:100] in prompt for p in typed)  # every prompt the person typed, in order
    assert typed[-1] in prompt and shown["last_prompt_sent"]
    errors = [t.text for t in ex.turns if t.role == "result" and t.is_error]
    assert sum(e[:80] in prompt for e in errors) == len(errors)
    # The head-and-tail cut it replaces lost the person's words from the middle of the session.
    cut, _ = transcript.fit(transcript.render(ex), 16000 * 4 - 6000)
    assert sum(p[:100] in cut for p in typed) < len(typed)


def test_a_short_session_is_sent_whole():
    from memory_cli.llm.condense import condense

    ex = _excerpt(Path(__file__).parent / "fixtures" / "llm" / "session_whisperclick.jsonl")
    text, kept = condense(ex, 16000)
    assert kept["dropped"] == 0 and kept["clipped"] == 0
    assert all(t.text[:100] in text for t in ex.turns if t.role in ("person", "assistant"))


# ------------------------------------------------------------------- tokens, the daily cap
@pytest.fixture
def long_transcript(tmp_path) -> Path:
    p = tmp_path / "long.jsonl"
    shutil.copy(LONGEST, p)
    return p


def _summarize(cli, path, si_url, **llm):
    return cli("summarize", str(path), "--json", env={"OPENAI_API_KEY": "sk-local-test"})


def test_the_daily_token_cap_stops_the_next_request_with_a_note(cli, claude_dir, long_transcript, tmp_path):
    usage = {"prompt_tokens": 15000, "completion_tokens": 600, "total_tokens": 15600}
    with OpenAIStandIn([content(ANSWER), content(ANSWER)], usage=usage) as si:
        write_config(
            claude_dir,
            llm={"provider": "openai-compatible", "base_url": si.url, "retries": 0, "daily_token_cap": 30000},
        )
        first = json.loads(_summarize(cli, long_transcript, si.url).stdout)
        other = tmp_path / "other.jsonl"
        shutil.copy(REAL / "heldout2" / "yakschuss-4.jsonl", other)
        r = _summarize(cli, other, si.url)
    assert first["provider"] == "openai-compatible" and first["stored"] == 1
    assert first["request"]["estimated_tokens"] <= 16000
    second = json.loads(r.stdout)
    assert len(si.requests) == 1  # the second session's request was never sent
    assert second["provider"] == "extractive" and "daily token cap" in second["fallback"]
    assert second["report"].startswith("Note: the model was not asked")
    stats = json.loads(cli("stats", "--json").stdout)["llm_tokens"]
    assert stats["today"] == 15600 and stats["daily_cap"] == 30000
    [day] = stats["per_day"]
    assert day["tokens"] == 15600 and day["requests"] == 1
    assert [s["tokens"] for s in stats["per_session"]] == [15600]
    assert stats["per_purpose"] == [{"purpose": "summarize", "requests": 1, "tokens": 15600}]
    assert "spent on: summarize 15600 (1 requests)" in cli("stats").stdout
    doctor = cli("doctor").stdout
    assert "15600 of 30000" in doctor and "written by extractive because" in doctor


def test_a_second_session_end_for_the_same_transcript_sends_nothing_new(cli, claude_dir, long_transcript):
    with OpenAIStandIn([content(ANSWER), content({"memories": [], "report": "Answered."})]) as si:
        write_config(claude_dir, llm={"provider": "openai-compatible", "base_url": si.url, "retries": 0})
        first = json.loads(_summarize(cli, long_transcript, si.url).stdout)
        again = json.loads(_summarize(cli, long_transcript, si.url).stdout)
        assert len(si.requests) == 1 and again.get("nothing_new") is True and first["stored"] == 1
        # The session resumed: one more exchange. Only that part is sent.
        with long_transcript.open("a", encoding="utf-8") as f:
            for rec in (
                {
                    "type": "user",
                    "sessionId": "s",
                    "message": {"role": "user", "content": "ship it when the build is green"},
                },
                {
                    "type": "assistant",
                    "sessionId": "s",
                    "message": {"role": "assistant", "content": [{"type": "text", "text": "Will do."}]},
                },
            ):
                f.write(json.dumps(rec) + "\n")
        third = json.loads(_summarize(cli, long_transcript, si.url).stdout)
    assert len(si.requests) == 2 and third["provider"] == "openai-compatible"
    sent = si.requests[1]["body"]["messages"][1]["content"]
    assert "ship it when the build is green" in sent and "handoff-snmp-plan" not in sent


# ------------------------------------------------------------------------- one memory, not three
def test_a_model_memory_that_repeats_a_marker_of_the_checkout_is_not_stored_again(cli, claude_dir, tmp_path):
    src = Path(__file__).parent / "fixtures" / "llm" / "session_whisperclick.jsonl"
    path = tmp_path / "s.jsonl"
    shutil.copy(src, path)
    said = "The whisperclick audio tests need the fake input device from tests/conftest.py."
    # What the agent recorded with a marker during the session: stored in the session's checkout.
    r = cli("add", said, "--type", "fact", "--scope", "repo:/home/u/work/whisperclick", "--source", "marker")
    assert r.returncode == 0, r.stderr
    answer = {
        "memories": [
            {"content": said, "type": "fact", "scope": "project"},
            {
                "content": "Run whisperclick's audio tests with -p no:randomly.",
                "type": "preference",
                "scope": "project",
            },
        ],
        "report": "Fixed the audio tests.",
    }
    with OpenAIStandIn([content(answer)]) as si:
        write_config(claude_dir, llm={"provider": "openai-compatible", "base_url": si.url, "retries": 0})
        out = json.loads(_summarize(cli, path, si.url).stdout)
    assert out["stored"] == 1
    assert [m.get("duplicate_of") is not None for m in out["memories"]] == [True, False]
    contents = [e["content"] for e in listed(cli)]
    assert contents.count(said) == 1


# ------------------------------------------------------------------------------- config
def _config(claude_dir: Path) -> Path:
    return claude_dir / "memory" / "config.json"


def test_config_set_turns_a_model_on_privately_and_list_says_where_values_come_from(cli, claude_dir):
    r = cli("config", "set", "llm.provider", "claude-cli")
    assert r.returncode == 0, r.stderr
    assert "llm.provider = claude-cli" in r.stdout and "turn it off" in r.stdout
    cfg = _config(claude_dir)
    assert json.loads(cfg.read_text()) == {"llm": {"provider": "claude-cli"}}
    assert stat.S_IMODE(os.stat(cfg).st_mode) == 0o600
    assert cli("config", "get", "llm.provider").stdout.strip() == "claude-cli"
    cli("config", "set", "llm.daily_token_cap", "50000")
    rows = {r["key"]: r for r in json.loads(cli("config", "list", "--json").stdout)}
    assert rows["llm.daily_token_cap"]["value"] == 50000 and rows["llm.daily_token_cap"]["source"].startswith("config")
    assert rows["llm.timeout_s"]["source"] == "default"
    from memory_cli import settings

    assert settings.value(settings.load(str(cfg)), "llm.provider") == "claude-cli"  # what hooks read
    assert cli("config", "unset", "llm.provider").returncode == 0
    assert json.loads(cfg.read_text()) == {"llm": {"daily_token_cap": 50000}}
    assert cli("config", "get", "llm.provider").stdout.strip() == "none"


@pytest.mark.parametrize(
    "args,words",
    [
        (("set", "llm.provder", "claude-cli"), "unknown config key 'llm.provder'"),
        (("set", "llm.provider", "gpt"), "llm.provider must be one of"),
        (("set", "llm.timeout_s", "soon"), "llm.timeout_s must be a whole number"),
        (("set", "llm.daily_token_cap", "1000000001"), "must be between 0 and"),
        (("set", "llm.max_input_tokens", "--", "-5"), "must be between 2000 and"),
        (("set", "enforcement.enabled", "maybe"), "enforcement.enabled must be true or false"),
        (("set", "llm.base_url", "http://models.example.com/v1"), "plain http to another host"),
        (("get", "nope"), "unknown config key 'nope'"),
        (("unset", "llm.nothing"), "unknown config key"),
    ],
)
def test_config_refuses_a_bad_key_or_value_and_writes_nothing(cli, claude_dir, args, words):
    cfg = _config(claude_dir)
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text('{"llm": {"timeout_s": 60}}')
    before = cfg.read_bytes()
    r = cli("config", *args)
    assert r.returncode == 2
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert cfg.read_bytes() == before


def test_config_set_refuses_to_build_on_a_broken_file(cli, claude_dir):
    cfg = _config(claude_dir)
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text('{"llm": {"provider": ')
    r = cli("config", "set", "llm.provider", "claude-cli")
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    assert cfg.read_text() == '{"llm": {"provider": '


def test_config_show_without_a_subcommand_still_works(cli):
    info = json.loads(cli("config", "--json").stdout)
    assert info["valid"] is True and info["settings"]["llm"]["provider"] == "none"


# ------------------------------------------------------------------------------- the offer
def test_install_offer_sets_the_chosen_model_and_no_means_nothing(claude_dir, monkeypatch):
    from memory_cli import settings
    from memory_cli.llm import offer

    shown: list[str] = []
    assert offer.ask_at_terminal(read=lambda _q: "", write=shown.append, env={"PATH": ""}) is None
    assert not _config(claude_dir).exists()
    assert any("tokens" in line for line in shown)  # what it costs, before the question
    bin_dir = claude_dir / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text("#!/bin/sh\n")
    (bin_dir / "claude").chmod(0o755)
    chosen = offer.ask_at_terminal(read=lambda _q: "1", write=shown.append, env={"PATH": str(bin_dir)})
    assert chosen["provider"] == "claude-cli"
    assert settings.value(settings.load(), "llm.provider") == "claude-cli"


def test_the_plugin_first_session_offers_once_and_changes_nothing(hook, claude_dir, project, monkeypatch):
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(claude_dir / "plugin"))
    from helpers.hooks import payload

    first = hook("SessionStart", payload("SessionStart", cwd=str(project), source="startup"))
    second = hook("SessionStart", payload("SessionStart", cwd=str(project), source="startup"))
    assert "memory-cli config set llm.provider claude-cli" in (first.json or {}).get("systemMessage", "")
    assert "llm.provider" not in ((second.json or {}).get("systemMessage") or "")
    assert not _config(claude_dir).exists()


# ------------------------------------------------------------------- the report without a model
def test_the_local_report_says_what_changed_and_what_was_left_open_on_real_sessions():
    from memory_cli.llm import session_report

    ex = _excerpt(REAL / "heldout2" / "patleeman-1.jsonl")
    lines = session_report.report(ex, project="project:familiar").splitlines()
    assert "First request: Run the tests `make test` and fix any issues that arise." in lines
    assert 'Commits (1): "Fix test failures and update documentation references"' in lines
    assert "Last request (not finished): keep going we got more" in lines
    assert "Left open: the session ended while the agent was still working" in lines
    # A session that ended on an answer leaves nothing open and says no more than it knows.
    done = session_report.report(_excerpt(REAL / "heldout2" / "mikeswain-4.jsonl"), project=None)
    assert "Last request: push it" in done and "Left open" not in done


def test_the_dashboard_overview_shows_tokens_per_day_and_per_session(db_path, store):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from memory_cli import audit
    from memory_cli.llm import spend
    from memory_cli.web.app import ServerConfig, create_app

    with store.transaction():
        for session, tokens, purpose in (
            ("sess-aaaa1111", 15600, "summarize"),
            ("sess-bbbb2222", 4200, "summarize"),
            ("sess-bbbb2222", 900, "stop_check"),
        ):
            audit.record(
                store,
                "llm_call",
                context=purpose,
                result="ok",
                details={
                    "provider": "claude-cli",
                    "purpose": purpose,
                    "input_tokens": tokens - 600,
                    "output_tokens": 600,
                },
                session_id=session,
            )
    spend.spend(store, 20700)
    app = create_app(ServerConfig(db_path=str(db_path), token="t" * 24, extra_hosts=("testserver",)))
    with TestClient(app, headers={"Authorization": "Bearer " + "t" * 24}) as c:
        page = c.get("/").text
        data = c.get("/api/overview").json()["llm_tokens"]
    assert data["today"] == 20700 and [d["tokens"] for d in data["per_day"]] == [20700]
    assert "Model tokens" in page and "today 20700 of 150000" in page
    assert "sess-aaa" in page and "15600" in page and "5100" in page  # the second session, both purposes
    assert [(u["purpose"], u["requests"], u["tokens"]) for u in data["per_purpose"]] == [
        ("summarize", 2, 19800),
        ("stop_check", 1, 900),
    ]
    assert "<td>stop_check</td>" in page


def _install_at_a_terminal(db_path: Path, answer: str, path_dir: Path) -> str:
    """`memory-cli install` in a pseudo-terminal, as a person runs it; returns what they saw."""
    import pty
    import select
    import subprocess
    import time

    from helpers.cli import _cmd

    env = dict(os.environ, PATH=f"{path_dir}{os.pathsep}{os.environ['PATH']}")
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        _cmd() + ["--db", str(db_path), "install", "--no-model", "--no-mcp"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        close_fds=True,
    )
    os.close(follower)
    seen, answered, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if not answered and b"[1-" in seen:
            os.write(leader, answer.encode() + b"\n")
            answered = True
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=30)
    os.close(leader)
    return seen.decode("utf-8", "replace")


def test_install_at_a_terminal_offers_the_model_with_its_cost_and_no_changes_nothing(claude_dir, db_path, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text("#!/bin/sh\n")
    (bin_dir / "claude").chmod(0o755)
    seen = _install_at_a_terminal(db_path, "n", bin_dir)
    assert "your own Claude Code" in seen and "tokens" in seen and "[default]" in seen, seen
    assert "the local reader" in seen
    cfg = _config(claude_dir)
    assert not cfg.exists() or "provider" not in cfg.read_text()
    seen = _install_at_a_terminal(db_path, "1", bin_dir)
    assert "session memories: written by claude-cli" in seen, seen
    assert json.loads(cfg.read_text())["llm"]["provider"] == "claude-cli"
    # Installed again with a model already chosen: not asked again.
    assert "Use a model for session memories?" not in _install_at_a_terminal(db_path, "", bin_dir)


def test_an_agents_shell_cannot_turn_a_model_on(cli, claude_dir):
    """Sending sessions to a model (or switching the gate off) is the person's decision: from a
    coding agent's shell, with no terminal to confirm at, `config set` is refused."""
    r = cli("config", "set", "llm.provider", "claude-cli", env={"CLAUDECODE": "1"}, process=True)
    assert r.returncode == 7 and "the person's word" in r.stderr, r.stderr
    assert not _config(claude_dir).exists()
    assert cli("config", "get", "llm.provider", env={"CLAUDECODE": "1"}).stdout.strip() == "none"
