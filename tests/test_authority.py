"""The person's authority is not the agent's: judged by the real process tree, not by the
environment. A stand-in agent here is a real process whose executable is named ``claude`` (a
link to bash), so ``/proc`` shows exactly the shapes the pinned Claude Code makes: its hook
runner's ``/bin/sh -c HOOK`` and its Bash tool's ``bash -c 'source <snapshot> && eval ...'``
(both seen in Claude Code 2.1.328, see tests/e2e/test_e2e_harden.py)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.cli import _cmd
from helpers.hooks import hook_cmd, payload
from helpers.store import add_rule

from memory_cli import authority
from memory_cli.store.db import Store

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process ancestry is read from /proc"),
    pytest.mark.skipif(
        authority.agent_ancestor() is not None,
        reason="these tests run inside a coding agent's process tree, where the person's commands are refused by design",
    ),
]


@pytest.fixture
def agent_bin(tmp_path):
    """A folder with ``claude``: a process of that name, as Claude Code's own."""
    d = tmp_path / "agentbin"
    d.mkdir()
    (d / "claude").symlink_to("/bin/bash")
    return d / "claude"


def as_agent(agent: os.PathLike, script: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``script`` in the stand-in agent; ``; true`` keeps the agent a parent (no exec)."""
    full = dict(os.environ)
    for var in ("CLAUDECODE", "CODEX_THREAD_ID", "GEMINI_CLI"):
        full.pop(var, None)  # the environment says nothing: the tree must
    full.update(env or {})
    return subprocess.run(
        [str(agent), "-c", script + "; true"], capture_output=True, text=True, env=full, timeout=120, check=False
    )


def bash_tool(command: str) -> str:
    """``command`` as Claude Code's Bash tool runs it: a shell script around the command."""
    wrapped = f"source /dev/null && eval {shlex.quote(command)} && pwd -P >| /dev/null"
    return f"bash -c {shlex.quote(wrapped)}"


@pytest.fixture
def guarded(db_path):
    return add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")


def _active(db_path, rule_id) -> int:
    with Store.open(db_path) as s:
        return s.value("SELECT active FROM enforcement_rules WHERE id = ?", (rule_id,))


def test_disable_from_the_agents_shell_is_refused_with_its_marker_cleared(agent_bin, db_path, guarded):
    """`env -u CLAUDECODE memory-c''li rules disable ID`: no marker, a quoted name, still refused."""
    cli = shlex.join(_cmd())
    command = f"env -u CLAUDECODE {cli} --db {shlex.quote(str(db_path))} rules disable {guarded['id']}"
    r = as_agent(agent_bin, bash_tool(command))
    assert "inside Claude Code" in r.stderr and "run it in your own terminal" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert _active(db_path, guarded["id"]) == 1
    # the same command outside any agent is the person's
    r = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert _active(db_path, guarded["id"]) == 0


@pytest.mark.parametrize(
    "args",
    [
        ["review", "--approve", "deadbeef"],
        ["serve", "--port", "0"],
        ["uninstall", "--dry-run"],
        ["rules", "delete", "RULE"],
        ["rules", "edit", "RULE", "--pattern", "git push --force-with-lease"],
        ["config", "set", "protection.enabled", "false"],
    ],
)
def test_approving_and_weakening_commands_refuse_inside_the_agent(agent_bin, db_path, guarded, args):
    args = [guarded["id"] if a == "RULE" else a for a in args]
    command = shlex.join([*_cmd(), "--db", str(db_path), *args])
    r = as_agent(agent_bin, bash_tool(f"{command}; echo rc=$?"))
    assert "rc=7" in r.stdout, (r.stdout, r.stderr)
    assert "needs the person's word" in r.stderr
    with Store.open(db_path) as s:
        row = s.row("SELECT active, pattern FROM enforcement_rules WHERE id = ?", (guarded["id"],))
    assert row["active"] == 1 and row["pattern"] == "git push --force"
    config = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "memory" / "config.json"
    assert not config.exists() or "protection" not in config.read_text()


def test_reading_inside_the_agent_is_free(agent_bin, db_path, guarded):
    command = shlex.join([*_cmd(), "--db", str(db_path), "rules", "list"])
    r = as_agent(agent_bin, bash_tool(f"{command}; echo rc=$?"))
    assert "rc=0" in r.stdout and "Never force-push" in r.stdout, r.stderr


def test_a_terminal_the_agent_made_cannot_confirm(agent_bin, db_path, guarded):
    """The agent runs on the person's terminal, its shell call in a session of its own (as
    Claude Code starts it); `script` gives the command a terminal the agent types `yes` into:
    not the person's, so it is refused."""
    if shutil.which("script") is None or shutil.which("setsid") is None:
        pytest.skip("util-linux `script` and `setsid` are needed")
    inner = shlex.join([*_cmd(), "--db", str(db_path), "rules", "disable", guarded["id"]])
    tool_call = f"setsid sh -c {shlex.quote(f'echo yes | script -qec {shlex.quote(inner)} /dev/null')}"
    seen = _on_terminal(agent_bin, tool_call, answer=None)
    assert b"needs the person's word" in seen, seen
    assert _active(db_path, guarded["id"]) == 1


def _on_terminal(agent, script: str, answer: bytes | None) -> bytes:
    """Run the stand-in agent on a terminal of its own (the person's): everything it printed,
    after typing ``answer`` when asked."""
    import pty
    import time

    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "CODEX_THREAD_ID", "GEMINI_CLI")}
    pid, fd = pty.fork()  # the child leads a session whose terminal is this pty
    if pid == 0:
        os.execve(str(agent), [str(agent), "-c", script + "; true"], env)
    seen = b""
    deadline = time.monotonic() + 60
    answered = answer is None
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 1024)
        except OSError:  # the terminal closed: everything ended
            break
        if not chunk:
            break
        seen += chunk
        if not answered and b"Type 'yes'" in seen:
            os.write(fd, answer)
            answered = True
    os.waitpid(pid, 0)
    os.close(fd)
    return seen


def test_the_tree_is_read_as_claude_code_builds_it(agent_bin, tmp_path):
    probe = tmp_path / "probe.py"
    out = tmp_path / "out.json"
    probe.write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {os.path.dirname(os.path.dirname(authority.__file__))!r})\n"
        "from memory_cli import authority\n"
        "a = authority.agent_ancestor()\n"
        "ok, why = authority.hook_from_agent()\n"
        f"open({str(out)!r}, 'a').write(json.dumps([a.name, a.depth, ok, why]) + '\\n')\n"
    )
    run = f"{sys.executable} {probe} hook UserPromptSubmit"
    as_agent(agent_bin, f"/bin/sh -c {shlex.quote(run)}")  # the hook runner's shape
    as_agent(agent_bin, bash_tool(run))  # the Bash tool's
    hook_shape, tool_shape = [json.loads(line) for line in out.read_text().splitlines()]
    assert hook_shape[0] == "Claude Code" and hook_shape[2] is True, hook_shape
    assert tool_shape == ["Claude Code", 2, False, tool_shape[3]] and "inside Claude Code" in tool_shape[3]


def test_a_prompt_typed_into_the_agents_shell_is_not_the_persons(agent_bin, db_path, tmp_path, claude_dir):
    """A forged UserPromptSubmit captures nothing and is audited; the hook runner's is heard."""
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text('{"capture": {"agent_lessons": false}}')
    body = tmp_path / "prompt.json"
    body.write_text(json.dumps(payload("UserPromptSubmit", prompt="no, don't use npm here, use pnpm")))
    hook = shlex.join([*hook_cmd(), "--db", str(db_path), "hook", "UserPromptSubmit"]) + f" < {body}"

    forged = as_agent(agent_bin, bash_tool(hook))
    assert "was not sent by Claude Code" in forged.stdout, forged.stdout
    with Store.open(db_path) as s:
        assert s.value("SELECT count(*) FROM corrections") == 0
        audit = s.rows("SELECT details FROM memory_audit_log WHERE action = 'forged_prompt'")
    assert len(audit) == 1 and "inside Claude Code" in audit[0]["details"]

    real = as_agent(agent_bin, f"/bin/sh -c {shlex.quote(hook)}")
    assert "was not sent" not in real.stdout, real.stdout
    with Store.open(db_path) as s:
        assert s.value("SELECT count(*) FROM corrections") == 1


def test_no_agent_above_is_the_person(db_path):
    assert authority.agent_ancestor() is None or authority.agent_ancestor().name  # a dev may run tests in an agent
    ok, _ = authority.hook_from_agent(pid=1)
    assert ok


def test_the_person_confirms_on_the_terminal_they_started_the_agent_from(agent_bin, db_path, guarded):
    """A command the agent starts without a session of its own shares the person's terminal:
    it asks there, and a typed `yes` runs it."""
    inner = shlex.join([*_cmd(), "--db", str(db_path), "rules", "disable", guarded["id"]])
    seen = _on_terminal(agent_bin, inner, answer=b"yes\n")
    assert b"inside Claude Code" in seen, seen
    assert _active(db_path, guarded["id"]) == 0, seen
