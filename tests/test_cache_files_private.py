"""The caches beside the store (the compiled rule set, the compiled regexes) are the owner's
alone and are never written through a name someone could plant in advance."""

import os
import stat
from pathlib import Path

from helpers.hooks import payload, run_hook
from helpers.store import add_rule


def _pre(command):
    return payload("PreToolUse", tool_input={"command": command})


def test_the_rule_cache_is_private_and_a_planted_temporary_name_is_left_alone(db_path, tmp_path):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    cache = Path(str(db_path) + ".rules-cache")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep")
    # The names a fixed temporary scheme would use for the next hook processes' pids.
    pid = os.getpid()
    planted = [Path(f"{cache}.{p}.tmp") for p in range(pid, pid + 400)]
    for p in planted:
        p.symlink_to(elsewhere)
    old = os.umask(0o022)
    try:
        assert run_hook("PreToolUse", _pre("npm i"), db=db_path).decision == "deny"
    finally:
        os.umask(old)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600 and not cache.is_symlink()
    assert elsewhere.read_text() == "keep"
    assert all(p.is_symlink() for p in planted)


def test_the_compiled_regex_cache_is_private(claude_dir, db_path):
    from memory_cli.files import regex_cache

    p = payload("UserPromptSubmit", prompt="no, use pnpm not npm")
    assert run_hook("UserPromptSubmit", p, db=db_path).returncode == 0
    path = Path(regex_cache.cache_file())
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not list(path.parent.glob("*.tmp"))
