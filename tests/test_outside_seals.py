"""What the agent's shell can change without ``install --harden`` and no hook recognised is said.

From the person's side, each route of the battery the gate lets through: memory-cli's own code or
bytecode rewritten, a setting that decides enforcement rewritten, the store written over with an
empty database, and Claude Code's settings rewritten so none of memory-cli's hooks runs. Each is
said at the next session start (the line the person sees) or, where no hook of memory-cli runs
any more, through the MCP server's handshake and ``doctor``; and where memory-cli can still
decide, the gate refuses rather than letting calls through on an empty store.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from helpers.cli import run_cli
from helpers.hooks import payload, run_hook
from helpers.mcp_handshake import instructions as mcp_instructions
from helpers.waiting import wait_for_maintenance


def bash(command: str) -> dict:
    call = payload("PreToolUse")
    call["tool_input"] = {"command": command, "description": "run"}
    return call


def _session_start(db_path, cmd=None) -> str:
    if cmd is None:
        r = run_hook("SessionStart", payload("SessionStart", source="startup"), db=db_path)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r
        return r.system_message
    proc = subprocess.run(
        [*cmd, "--db", str(db_path), "hook", "SessionStart"],
        input=json.dumps(payload("SessionStart", source="startup")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc
    return (json.loads(proc.stdout) if proc.stdout.strip() else {}).get("systemMessage") or ""


# -- memory-cli's own code -------------------------------------------------------------------


SEAL_IT = (
    "import sys; sys.path.insert(0, sys.argv[1]); from memory_cli.seals import code; "
    "r = code.seal(); print(r['mode'], len(r['files']))"
)


@pytest.fixture
def installed_copy(tmp_path):
    """memory-cli installed outside any git checkout (as pip or uv installs it), sealed by the
    person's install, with the hook command that runs that copy."""
    import memory_cli

    site = tmp_path / "site-packages"
    site.mkdir()
    pkg = site / "memory_cli"
    shutil.copytree(
        memory_cli.__path__[0], pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "models", "*.onnx")
    )
    seal = subprocess.run(
        [sys.executable, "-I", "-S", "-c", SEAL_IT, str(site)],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert seal.returncode == 0, seal.stderr
    mode, count = seal.stdout.split()
    assert mode == "sealed" and int(count) > 400, seal.stdout  # sources and their bytecode
    cmd = [
        sys.executable,
        "-I",
        "-S",
        str(pkg / "fasthook.py"),
        "--path",
        os.path.dirname(os.path.dirname(apsw_path())),
    ]
    return pkg, cmd


def apsw_path() -> str:
    import apsw

    return apsw.__file__


def _session_end_job(db_path, pkg, cmd) -> None:
    """The detached job SessionEnd starts (its session-summary run), run by the installed copy."""
    job = (
        "import sys; sys.path[:0] = sys.argv[1:3]; from memory_cli.maintenance.detached import main; "
        "sys.exit(main(sys.argv[3:]))"
    )
    run_dir = db_path.parent / "run"
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", job, str(pkg.parent), cmd[-1], "--db", str(db_path), "--only", "summaries",
         "--run-dir", str(run_dir)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout, done.stderr)


def test_code_edited_outside_memory_cli_is_said_at_session_start_and_writes_to_it_are_asked(
    installed_copy, db_path, claude_dir
):
    pkg, cmd = installed_copy
    assert "not memory-cli" not in _session_start(db_path, cmd)
    # the daily maintenance that start began checks the copy the hooks run, not another
    # memory-cli of the same environment (this checkout, installed editable in the venv)
    wait_for_maintenance(db_path)
    assert "own code" not in _session_start(db_path, cmd)
    wait_for_maintenance(db_path)
    # a `touch` (times moved, content the same) is not a change
    os.utime(pkg / "authority.py")
    _session_end_job(db_path, pkg, cmd)
    assert "own code" not in _session_start(db_path, cmd)

    # the agent's routes: a line appended to a module, bytecode Python would load instead
    with open(pkg / "authority.py", "a") as f:
        f.write("\nraise SystemExit(0)\n")
    tag = sys.implementation.cache_tag
    (pkg / "__pycache__" / f"harden_probe.{tag}.pyc").write_bytes(b"x")

    _session_end_job(db_path, pkg, cmd)  # checked off the hook's clock, by the job SessionEnd starts
    said = _session_start(db_path, cmd)
    assert "its own code was changed by a process that was not memory-cli" in said, said
    assert "authority.py (changed)" in said and f"harden_probe.{tag}.pyc (added)" in said
    assert "memory-cli install" in said
    # still said at the next session: nothing was accepted
    assert "own code" in _session_start(db_path, cmd)

    # the hook that runs this installed copy asks before a write into it, by a tool or a shell
    write = payload("PreToolUse", tool_name="Write")
    write["tool_input"] = {"file_path": str(pkg / "rules" / "hook.py"), "content": "x = 1\n"}
    append = payload("PreToolUse")
    append["tool_input"] = {"command": f"printf '\\nraise SystemExit(0)\\n' >> {pkg}/authority.py"}
    pyc = payload("PreToolUse")
    pyc["tool_input"] = {"command": f"printf x > {pkg}/__pycache__/probe.{tag}.pyc"}
    for call in (write, append, pyc):
        proc = subprocess.run(
            [*cmd, "--db", str(db_path), "hook", "PreToolUse"],
            input=json.dumps(call),
            capture_output=True,
            text=True,
            timeout=60,
        )
        answer = json.loads(proc.stdout)["hookSpecificOutput"]
        assert answer["permissionDecision"] == "ask", (call["tool_input"], answer)
        assert "memory-cli's code" in answer["permissionDecisionReason"]


def test_a_development_checkout_is_not_sealed(tmp_path, claude_dir):
    from memory_cli.seals import code

    record = code.seal(path=str(tmp_path / "seal.json"))  # this repository: a git checkout
    assert record["mode"] == code.CHECKOUT
    assert code.changes(path=str(tmp_path / "seal.json")) is None
    # a copy installed into a virtualenv that lives inside a git project is an installed copy
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    venv_copy = tmp_path / "proj" / ".venv" / "lib" / "python3.11" / "site-packages" / "memory_cli"
    assert not code.in_checkout(str(venv_copy))
    assert code.in_checkout(str(tmp_path / "proj" / "memory_cli"))  # an editable install beside .git
    assert code.in_checkout(str(tmp_path / "proj" / "src" / "memory_cli"))


# -- the settings that decide enforcement ----------------------------------------------------


def _config(claude_dir):
    return claude_dir / "memory" / "config.json"


def test_enforcement_switched_off_in_the_config_outside_memory_cli_is_said_until_confirmed(db_path, claude_dir):
    r = run_cli(
        "--json", "rules", "add", "No force-push", "-p", "git push --force", "-T", "command", "-a", "block", db=db_path
    )
    assert r.returncode == 0, r.stderr
    assert run_cli("config", "set", "injection.max_tokens", "900", db=db_path).returncode == 0
    assert "config" not in _session_start(db_path)

    # the agent's `sort -o config.json off.json`
    _config(claude_dir).write_text(json.dumps({"injection": {"max_tokens": 900}, "enforcement": {"enabled": False}}))
    said = _session_start(db_path)
    assert "was changed outside memory-cli (enforcement.enabled: (not set) -> false)" in said, said
    assert "memory-cli config unset enforcement.enabled" in said  # the way back

    # the person's unrelated change through memory-cli does not confirm it
    assert run_cli("config", "set", "injection.max_tokens", "1200", db=db_path).returncode == 0
    assert "enforcement.enabled" in _session_start(db_path)
    doctor = json.loads(run_cli("doctor", "--json", "--no-timing", db=db_path).stdout)
    [check] = [c for c in doctor["checks"] if c["name"] == "outside changes" and "config" in c["detail"]]
    assert check["status"] == "fail"

    # putting it back ends the notice, and the rule holds again
    assert run_cli("config", "unset", "enforcement.enabled", db=db_path).returncode == 0
    assert "config" not in _session_start(db_path)
    assert run_hook("PreToolUse", bash("git push --force"), db=db_path).decision == "deny"


def test_a_tuning_key_edited_by_hand_is_not_said(db_path, claude_dir):
    assert run_cli("config", "set", "injection.max_tokens", "900", db=db_path).returncode == 0
    _config(claude_dir).write_text(json.dumps({"injection": {"max_tokens": 400}}))
    assert "config" not in _session_start(db_path)


# -- the store written over ------------------------------------------------------------------


@pytest.mark.parametrize("how", ["empty file", "empty database"])
def test_a_store_written_over_with_an_empty_one_refuses_calls_and_is_said(db_path, claude_dir, tmp_path, how):
    r = run_cli(
        "--json", "rules", "add", "No force-push", "-p", "git push --force", "-T", "command", "-a", "block", db=db_path
    )
    assert r.returncode == 0, r.stderr
    assert run_hook("PreToolUse", bash("git push --force"), db=db_path).decision == "deny"  # the cache exists now
    backup = tmp_path / "kept.db"
    assert run_cli("backup", "--to", str(backup), db=db_path).returncode == 0

    if how == "empty file":  # `curl -o <store> file:///dev/null`
        db_path.write_bytes(b"")
    else:  # `sqlite3 empty.db ".backup '<store>'"`
        empty = tmp_path / "empty.db"
        subprocess.run(["sqlite3", str(empty), "CREATE TABLE t(x); DROP TABLE t;"], check=True, timeout=30)
        subprocess.run(["sqlite3", str(empty), f".backup '{db_path}'"], check=True, timeout=30)

    # the gate refuses with the reason instead of reading no rules
    r = run_hook("PreToolUse", bash("ls"), db=db_path)
    assert r.decision == "deny" and "was replaced by an empty database" in r.reason, r
    assert "was replaced by an empty database" in _session_start(db_path)
    version = subprocess.run(
        ["sqlite3", str(db_path), "PRAGMA user_version"], capture_output=True, text=True, timeout=30
    )
    assert version.stdout.strip() == "0"  # nothing migrated it into an empty store

    # the way back the message names
    r = run_cli("restore", str(backup), "--yes", db=db_path)
    assert r.returncode == 0, r.stderr
    assert run_hook("PreToolUse", bash("ls"), db=db_path).decision is None
    assert run_hook("PreToolUse", bash("git push --force"), db=db_path).decision == "deny"


# -- Claude Code's settings rewritten: no hook of memory-cli runs ---------------------------


def test_settings_rewritten_without_memory_clis_hooks_is_said_through_the_mcp_server(claude_dir, tmp_path):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    assert run_cli("install", "--no-model", cwd=project).returncode == 0
    assert not mcp_instructions(project).startswith("IMPORTANT")

    settings = claude_dir / "settings.json"
    kept = settings.read_text()
    settings.write_text("{}\n")  # the agent's `cp settings.json ~/.claude/`
    said = mcp_instructions(project)
    assert said.startswith("IMPORTANT") and "its hooks are gone from" in said and "memory-cli install" in said
    doctor = json.loads(run_cli("doctor", "--json", "--no-timing", cwd=project).stdout)
    assert any(c["name"] == "hooks switched off" and c["status"] == "fail" for c in doctor["checks"])

    settings.write_text(kept)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text('{"disableAllHooks": true}\n')
    said = mcp_instructions(project)
    assert "disableAllHooks: true" in said and "settings.local.json" in said

    # after the person's uninstall, nothing is missing
    (project / ".claude" / "settings.local.json").unlink()
    assert run_cli("uninstall", cwd=project).returncode == 0
    settings.write_text("{}\n")
    assert not mcp_instructions(project).startswith("IMPORTANT")
