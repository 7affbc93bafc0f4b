"""The lean launcher (`python -I -S memory_cli/fasthook.py`): same hook, started lean, still safe."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from helpers.cli import run_cli
from helpers.hooks import payload

from memory_cli.install import hook_launcher, launcher_script
from memory_cli.store.db import Store

SITE_PACKAGES_OF_THIS_ENV = os.path.join(
    sys.prefix, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}", "site-packages"
)


def _launcher(paths=None):
    words = shlex.split(hook_launcher())
    if paths is not None:  # replace the --path folders
        words = words[:4] + [w for p in paths for w in ("--path", p)]
    return words


def _run(words, *args, body=None, env=None):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(
        words + list(args),
        input=json.dumps(body) if body is not None else None,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=60,
    )


def test_probe_reports_apsw_found_without_site():
    info = json.loads(_run(_launcher(), "--probe").stdout)
    assert info["isolated"] and info["no_site"] and not info["site_fallback"]
    assert info["apsw"] and Path(info["package"]) == Path(launcher_script()).parent


def test_stale_paths_cost_speed_not_function(db_path):
    """A --path that no longer exists (a removed environment): the launcher runs `site` after
    all when apsw is not found, and the hook still decides."""
    run_cli(
        "rules",
        "add",
        "Never force-push",
        "--pattern",
        "git push --force",
        "--pattern-type",
        "command",
        "--action",
        "block",
        db=db_path,
    )
    stale = _launcher(paths=["/nonexistent/site-packages"])
    info = json.loads(_run(stale, "--probe").stdout)
    import apsw

    apsw_home = os.path.dirname(os.path.dirname(apsw.__file__))
    # Here apsw sits outside this environment's own site-packages only when reached by a .pth.
    assert info["site_fallback"] == (os.path.realpath(apsw_home) != os.path.realpath(SITE_PACKAGES_OF_THIS_ENV))
    assert info["apsw"]
    proc = _run(
        stale,
        "--db",
        str(db_path),
        "hook",
        "PreToolUse",
        body=payload("PreToolUse", tool_input={"command": "git push --force"}),
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_long_answer_reaches_claude_whole(db_path):
    """The launcher ends the process without interpreter teardown: output must be flushed."""
    message = "Use the release script instead. " * 280  # ~9 KB, near Claude Code's limit
    run_cli(
        "rules",
        "add",
        "Never tag by hand",
        "--pattern",
        r"git\s+tag",
        "--pattern-type",
        "regex",
        "--action",
        "warn",
        "--message",
        message,
        db=db_path,
    )
    proc = _run(
        _launcher(),
        "--db",
        str(db_path),
        "hook",
        "PreToolUse",
        body=payload("PreToolUse", tool_input={"command": "git tag v1.2"}),
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert len(proc.stdout) > 8000 and "release script" in out["hookSpecificOutput"]["additionalContext"]
    s = Store.open(db_path)
    assert s.value("SELECT count(*) FROM memory_audit_log WHERE action='enforce_warn'") == 1
    s.close()


def test_disabled_memory_and_broken_input_through_the_launcher(tmp_path, db_path):
    words = _launcher()
    proc = _run(words, "hook", "PreToolUse", body=payload("PreToolUse"), env={"MEMORY_CLI_DB": ""})
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    Store.open(db_path).close()  # as `memory-cli install` leaves it: the gate refuses without a store
    proc = subprocess.run(
        words + ["--db", str(db_path), "hook", "PreToolUse"],
        input="{broken",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    said = json.loads(proc.stdout)  # a call the rules cannot check is refused, with the reason
    assert said["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "not valid JSON" in said["systemMessage"]
    s = Store.open(db_path)
    details = s.value("SELECT details FROM memory_audit_log WHERE action='hook_error'")
    s.close()
    assert "not valid JSON" in json.loads(details)["error"]


def test_other_commands_through_the_launcher_run_the_cli(db_path):
    proc = _run(_launcher(), "--db", str(db_path), "add", "Prefer pnpm over npm", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["id"]
    assert _run(_launcher(), "--db", str(db_path), "rules", "bogus-subcommand").returncode == 2
