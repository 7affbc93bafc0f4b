"""memory-cli installed the way Claude Code users install plugins: the repository is a
marketplace, the real binary adds it and installs the plugin non-interactively, and the plugin
prepares its own Python environment in ``CLAUDE_PLUGIN_DATA`` on first use.

One test walks the whole life of an installation in a throwaway HOME: validate, add, install,
a first session whose PreToolUse already denies, an update to a new version (which takes
effect without a manual step and does not re-make the environment), a session that still
denies, and an uninstall that leaves the person's store as it was. The environment's packages
come from the package index, as they do for a user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from .sessions import REPO
from .standin import bash

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

MARKET = "memory-cli"
PLUGIN = f"memory-cli@{MARKET}"


def export_checkout(dest: Path) -> Path:
    """The files a clone of this repository holds (tracked and new, not ignored): what a user
    adding the marketplace from GitHub gets, without this checkout's .venv or .e2e."""
    names = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in names:
        if not raw:
            continue
        rel = raw.decode()
        src = REPO / rel
        if not os.path.lexists(src):
            continue  # deleted in the work tree
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), target)
        else:
            shutil.copy2(src, target)
    return dest


def claude(home, *args, timeout=300) -> subprocess.CompletedProcess:
    env = home.env({"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1"})
    return subprocess.run(
        [str(home.claude_bin), *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


def installed(home) -> dict:
    data = json.loads((home.claude_dir / "plugins" / "installed_plugins.json").read_text())
    [entry] = data["plugins"][PLUGIN]
    return entry


def bump_version(market: Path, version: str) -> None:
    for path in (market / "plugin" / ".claude-plugin" / "plugin.json", market / ".claude-plugin" / "marketplace.json"):
        data = json.loads(path.read_text())
        if "plugins" in data:
            data["plugins"][0]["version"] = version
        else:
            data["version"] = version
        path.write_text(json.dumps(data, indent=2))


def wait_until_complete(data_dir: Path, timeout: float = 300) -> None:
    """The background stage (the command line, the MCP SDK, ...) marks the environment complete
    with a copy of requirements.txt; a test must not delete the folder under a running pip."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (data_dir / "env" / ".requirements").exists() and not (data_dir / ".preparing").exists():
            return
        time.sleep(1)
    log = data_dir / "prepare.log"
    raise AssertionError(
        "the plugin's environment was not completed: " + (log.read_text()[-2000:] if log.exists() else "no log")
    )


def prepare_log(home) -> str:
    log = home.claude_dir / "plugins" / "data" / f"memory-cli-{MARKET}" / "prepare.log"
    return log.read_text()[-3000:] if log.exists() else "(no prepare.log)"


def denied_push(home, marker: str):
    """A session that tries a force-push (which would also create ``marker``)."""
    s = home.run_session(
        "push it",
        [bash(f"git push --force origin main || touch {marker}"), "Done."],
        timeout=300,
    )
    assert s.returncode == 0, s.describe()
    [result] = s.tool_results()
    assert result["is_error"] and "Blocked by memory-cli" in result["text"], s.describe() + "\n" + prepare_log(home)
    assert not (home.project / marker).exists(), "the denied command ran"
    return s


def said_prepared(session) -> bool:
    """Whether SessionStart told the person (its systemMessage) that the environment was made."""
    for r in session.hook_responses("SessionStart"):
        try:
            out = json.loads(r.get("output") or "{}")
        except ValueError:
            continue
        if "prepared its environment" in out.get("systemMessage", ""):
            return True
    return False


def test_marketplace_install_first_session_update_and_uninstall(fresh_home, tmp_path):
    home = fresh_home
    home.cli("uninstall")  # only the plugin registers memory-cli in this HOME
    market = export_checkout(tmp_path / "market")

    for target in (market, market / "plugin"):
        v = claude(home, "plugin", "validate", str(target))
        assert v.returncode == 0, v.stdout + v.stderr
    add = claude(home, "plugin", "marketplace", "add", str(market))
    assert add.returncode == 0, add.stdout + add.stderr
    inst = claude(home, "plugin", "install", PLUGIN)
    assert inst.returncode == 0, inst.stdout + inst.stderr
    first = installed(home)
    root = Path(first["installPath"])
    assert (root / "memory_cli" / "fasthook.py").is_file()  # the package came with the plugin
    assert not (root / ".venv").exists()

    # The person's rule, in the person's store (not in the plugin's folders).
    home.cli("add", "Never force-push", "--type", "rule", "--pattern", "git push --force", "--action", "block")
    data_dir = home.claude_dir / "plugins" / "data" / f"memory-cli-{MARKET}"

    # First session: nothing prepared yet, and the gate already holds.
    s1 = denied_push(home, "pushed-1")
    assert (data_dir / "env" / "bin" / "python").exists(), s1.describe()
    assert said_prepared(s1), s1.describe()
    wait_until_complete(data_dir)
    env_before = os.readlink(data_dir / "env")
    cli = data_dir / "bin" / "memory-cli"
    listed = subprocess.run([str(cli), "--json", "list"], capture_output=True, text=True, env=home.env(), check=False)
    assert listed.returncode == 0 and "Never force-push" in listed.stdout, listed.stderr

    # A new version: takes effect on the next session, the environment is kept.
    bump_version(market, "9.9.9")
    up = claude(home, "plugin", "marketplace", "update", MARKET)
    assert up.returncode == 0, up.stdout + up.stderr
    upd = claude(home, "plugin", "update", PLUGIN)
    assert upd.returncode == 0, upd.stdout + upd.stderr
    second = installed(home)
    assert second["version"] == "9.9.9" and second["installPath"] != first["installPath"], second
    s2 = denied_push(home, "pushed-2")
    assert os.readlink(data_dir / "env") == env_before, "an update with the same requirements re-made the environment"
    assert not said_prepared(s2), s2.describe()

    # Uninstall: the plugin and its data go, the person's store and rule stay.
    gone = claude(home, "plugin", "uninstall", PLUGIN)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    rules = home.cli_json("rules", "list")
    assert [r["content"] for r in rules] == ["Never force-push"], rules
    assert home.db.exists()
