"""`memory-cli summarize` and `memory-cli compact` as a person runs them, and the SessionEnd
hook handing the transcript to the detached job (real processes throughout)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from helpers.hooks import payload
from helpers.llm_standin import StandIn, tool

FIXTURE = Path(__file__).parent / "fixtures" / "llm" / "session_whisperclick.jsonl"
SECRETS = ("sk-ant-api03-Qm7vX2pL9wK4tR8nB3cF6hJ1yD5sG0aZ", "ghp_R4nd0mT0k3nV4lu3Xq9Zt7Lm2Wp5Ks8Jd1Hy6")


@pytest.fixture
def transcript(tmp_path) -> Path:
    p = tmp_path / "session.jsonl"
    shutil.copy(FIXTURE, p)
    return p


def write_config(claude_dir: Path, **sections) -> None:
    d = claude_dir / "memory"
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(sections))


def listed(cli, *extra):
    r = cli("list", "--status", "all", "--json", *extra)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_summarize_json_offline(cli, transcript):
    r = cli("summarize", str(transcript), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"memories", "report", "provider", "stored"} <= set(out)
    assert out["provider"] == "extractive" and out["stored"] >= 1
    assert out["session_id"] == "7d1e4c2a-93b5-4f0e-a8d6-2c51b9e07f13"
    stored = [e for e in listed(cli) if e["source"] == "session"]
    assert len(stored) == out["stored"] and {e["scope"] for e in stored} == {"repo:/home/u/work/whisperclick"}
    assert not any(s in r.stdout for s in SECRETS)


def test_summarize_dry_run_and_session_id(cli, transcript):
    r = cli("summarize", str(transcript), "--dry-run", "--session-id", "by-hand", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["stored"] == 0 and out["memories"] and out["session_id"] == "by-hand"
    assert listed(cli) == []
    r = cli("summarize", str(transcript), "--session-id", "by-hand")
    assert r.returncode == 0 and "stored" in r.stdout
    assert {e["session_id"] for e in listed(cli)} == {"by-hand"}


def test_summarize_through_the_sdk_in_a_real_process(cli, transcript, claude_dir):
    write_config(claude_dir, llm={"provider": "anthropic", "timeout_s": 5, "retries": 0})
    answer = {
        "memories": [
            {"content": "The whisperclick audio tests need the fake input device.", "type": "fact", "scope": "project"}
        ],
        "report": "Fixed the audio tests.",
    }
    with StandIn([tool("save_memories", answer)]) as si:
        r = cli(
            "summarize",
            str(transcript),
            "--json",
            env={"ANTHROPIC_BASE_URL": si.url, "ANTHROPIC_API_KEY": "sk-test-not-real"},
        )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["provider"] == "anthropic" and out["stored"] == 1 and out["report"] == "Fixed the audio tests."
    assert len(si.ours) == 1 and not any(s in si.all_text() for s in SECRETS)
    audit = json.loads(cli("audit", "--action", "llm_call", "--json").stdout)
    assert audit and audit[0]["result"] == "ok"


@pytest.mark.parametrize(
    "args, code, needle",
    [
        (["summarize", "/nonexistent/t.jsonl"], 3, "no transcript"),
        (["summarize", "{tmp}"], 2, "directory"),
        (["summarize", "{garbage}"], 2, "not a Claude Code transcript"),
        (["summarize", "{transcript}", "--session-id", " "], 2, "--session-id"),
        (["summarize", "{transcript}", "--project", "file:x.py"], 2, "--project"),
        (["summarize"], 2, "TRANSCRIPT"),
        (["compact", "--scope", "team:x"], 2, "unknown scope"),
        (["compact", "--scope", "project:"], 2, "needs a name"),
    ],
)
def test_bad_input_one_line_exit_code_nothing_lost(cli, db_path, tmp_path, transcript, args, code, needle):
    from memory_cli import entries
    from memory_cli.store.db import Store

    with Store.open(db_path) as store:
        keep = entries.add(store, "Deploys go through make release", "fact")["id"]
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("this is not json\nneither is this\n")
    args = [a.format(tmp=tmp_path, garbage=garbage, transcript=transcript) for a in args]
    r = cli(*args)
    assert r.returncode == code, (r.stdout, r.stderr)
    assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    rj = cli(*args, "--json")
    assert rj.returncode == code and json.loads(rj.stdout)["exit_code"] == code
    assert [e["id"] for e in listed(cli)] == [keep]


def test_compact_json(cli, claude_dir):
    write_config(claude_dir, limits={"per_scope": 2})
    r = cli("compact", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["scopes"] == []
    for i in range(4):
        cli(
            "add",
            f"marker fact number {i} about the alpha build",
            "--type",
            "fact",
            "--scope",
            "project:alpha",
            "--source",
            "marker",
        )
    cli("add", "A person wrote this", "--type", "fact", "--scope", "project:alpha")
    dry = json.loads(cli("compact", "--scope", "project:alpha", "--dry-run", "--json").stdout)
    assert dry["scopes"][0]["after"] == 2 and len([e for e in listed(cli) if e["status"] == "active"]) == 5
    out = json.loads(cli("compact", "--json").stdout)
    [s] = out["scopes"]
    assert s["method"] == "fifo" and s["before"] == 4 and s["after"] == 2
    active = [e for e in listed(cli) if e["status"] == "active"]
    assert len(active) == 3 and any(e["content"] == "A person wrote this" for e in active)
    human = cli("compact", "--scope", "project:alpha")
    assert human.returncode == 0 and "2 -> 2" in human.stdout


def _wait_for(fn, timeout=90.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = fn()
        if value:
            return value
        time.sleep(0.3)
    return fn()


def test_session_end_hands_the_transcript_to_the_detached_job(hook, cli, transcript, tmp_path, claude_dir):
    write_config(
        claude_dir,
        llm={"provider": "anthropic", "timeout_s": 5, "retries": 0},
        backup={"directory": str(tmp_path / "backups")},
    )
    answer = {
        "memories": [
            {"content": "whisperclick's audio tests need the fake input device.", "type": "fact", "scope": "project"}
        ],
        "report": "Fixed the audio tests.",
    }
    second = {
        "memories": [
            {"content": "whisperclick release notes live in docs/CHANGES.md.", "type": "fact", "scope": "project"}
        ],
        "report": "Wrote release notes.",
    }
    project = tmp_path / "work" / "whisperclick"
    (project / ".git").mkdir(parents=True)
    with StandIn([tool("save_memories", answer), tool("save_memories", second)]) as si:
        env = {"ANTHROPIC_BASE_URL": si.url, "ANTHROPIC_API_KEY": "sk-test-not-real"}
        body = payload(
            "SessionEnd",
            cwd=str(project),
            session_id="sess-1",
            transcript_path=str(transcript),
            reason="prompt_input_exit",
        )
        r = hook("SessionEnd", body, env=env)
        assert r.returncode == 0 and r.stdout.strip() in ("", "{}")
        got = _wait_for(lambda: [e for e in listed(cli) if e["source"] == "session"])
        assert [e["content"] for e in got] == [answer["memories"][0]["content"]]
        assert got[0]["scope"] == f"repo:{project}" and got[0]["session_id"] == "sess-1"
        # Later the same day: the daily part already ran, the summary step still runs.
        _wait_for(
            lambda: any(
                a["result"] == "done" for a in json.loads(cli("audit", "--action", "maintenance", "--json").stdout)
            )
        )
        t2 = tmp_path / "session2.jsonl"
        t2.write_text(
            json.dumps(
                {
                    "type": "user",
                    "sessionId": "sess-2",
                    "cwd": str(project),
                    "message": {"role": "user", "content": "write the release notes into docs/CHANGES.md"},
                }
            )
            + "\n"
        )
        r = hook("SessionEnd", dict(body, session_id="sess-2", transcript_path=str(t2)), env=env)
        assert r.returncode == 0
        got = _wait_for(lambda: len([e for e in listed(cli) if e["source"] == "session"]) == 2)
        assert got
        assert len(si.ours) == 2 and not any(s in si.all_text() for s in SECRETS)
    started = json.loads(cli("audit", "--action", "maintenance", "--json").stdout)
    assert any(a["result"] == "started: session summaries" for a in started)


def test_session_end_queues_nothing_when_turned_off(hook, cli, transcript, claude_dir, tmp_path):
    write_config(claude_dir, llm={"session_end": False}, maintenance={"enabled": False})
    r = hook("SessionEnd", payload("SessionEnd", session_id="s-off", transcript_path=str(transcript)))
    assert r.returncode == 0
    time.sleep(1.0)
    assert listed(cli) == []
    from memory_cli.store.db import Store

    with Store.open(tmp_path / "memory.db") as store:
        assert not store.rows("SELECT key FROM kv WHERE key LIKE 'llm.pending:%'")


def test_session_end_hook_queues_without_heavy_imports(db_path, transcript):
    import subprocess
    import sys

    body = json.dumps(payload("SessionEnd", session_id="s-diet", transcript_path=str(transcript)))
    code = (
        "import sys, io; sys.stdin=io.TextIOWrapper(io.BytesIO(sys.argv[2].encode()));"
        "from memory_cli.__main__ import main; main(['--db', sys.argv[1], 'hook', 'SessionEnd']);"
        "bad=[m for m in ('anthropic','httpx','typer','rich','pydantic','memory_cli.llm.summarize',"
        "'memory_cli.llm.providers','memory_cli.llm.transcript') if m in sys.modules];"
        "sys.stderr.write('HEAVY:'+','.join(bad))"
    )
    env = dict(__import__("os").environ, MEMORY_CLI_CONFIG="/nonexistent/config.json")
    proc = subprocess.run(
        [sys.executable, "-c", code, str(db_path), body], capture_output=True, text=True, timeout=60, env=env
    )
    assert proc.stderr.split("HEAVY:")[1].strip() == "", proc.stderr
    from memory_cli.store.db import Store

    def summarised():
        with Store.open(db_path) as store:
            return store.rows(
                "SELECT result FROM memory_audit_log WHERE action = 'summarize' AND session_id = 's-diet'"
            )

    # Queued by the hook, then written by the detached job (extractive: the default provider).
    assert _wait_for(summarised)


def test_session_summaries_run_when_daily_maintenance_is_off(hook, cli, transcript, claude_dir, tmp_path):
    write_config(claude_dir, maintenance={"enabled": False}, backup={"directory": str(tmp_path / "backups")})
    r = hook("SessionEnd", payload("SessionEnd", session_id="s-nomaint", transcript_path=str(transcript)))
    assert r.returncode == 0
    assert _wait_for(lambda: [e for e in listed(cli) if e["session_id"] == "s-nomaint"])
    started = json.loads(cli("audit", "--action", "maintenance", "--json").stdout)
    assert [a["result"] for a in started] == ["started: session summaries"]
    assert not (tmp_path / "backups").exists()  # the daily part (backup first) did not run
