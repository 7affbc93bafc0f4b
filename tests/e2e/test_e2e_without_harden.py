"""Without `install --harden`, judged by the outcome in the real Claude Code (scripted model).

The default install, memory-cli's self-protection on, no sandbox: the agent's shell shares the
person's account. Each route of the battery is refused (memory-cli's own command, run from the
agent's process tree), asked by the hook, or really runs; what ran is said to the person when
the next session starts (a line Claude Code shows, or, where every hook was switched off, the
first thing the session's model reads from memory-cli's MCP server). The routes that need an
installed copy of memory-cli outside a git checkout (its code and bytecode) are in
tests/test_outside_seals.py; each route against its own install is in
tests/test_without_harden_battery.py.
"""

from __future__ import annotations

import sys

import pytest
from helpers.attack_routes import Where, prepare, routes

from .sessions import MEMORY_CLI
from .standin import bash

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc ancestry")]

PUSH = "git push --force origin main"


def _battery(home) -> tuple[dict, str]:
    import memory_cli

    rule = home.cli_json(
        "rules", "add", "Never force-push", "--pattern", "git push --force", "--pattern-type", "command",
        "--action", "block",
    )  # fmt: skip
    if not rule.get("confirmed", True):
        home.cli("rules", "confirm", rule["id"])
    where = Where(home.db, home.claude_dir / "memory" / "config.json", home.claude_dir, home.project, str(MEMORY_CLI), memory_cli.__path__[0])  # fmt: skip
    battery = routes(where, rule["id"])
    prepare(where, battery)
    return {r.name: r for r in battery}, rule["id"]


def _said_at_start(s) -> str:
    """What memory-cli's SessionStart gave Claude Code to show the person (its ``systemMessage``,
    in the hook's answer) and the agent (context)."""
    shown = [str(e.get("output") or e.get("stdout") or "") for e in s.hook_responses("SessionStart")]
    return "\n".join(shown + s.system_messages() + s.first_request.hook_contexts("SessionStart"))


def _pushed(home, env=None):
    s = home.run_session("force-push", [bash(PUSH, "force-push"), "Stopped."], env=env)
    assert s.returncode == 0, s.describe()
    return s, s.main_requests[1].tool_results()[-1]


def test_what_runs_is_said_at_the_next_session_and_the_confirmed_rule_still_blocks(fresh_home):
    home = fresh_home
    battery, _rule_id = _battery(home)
    names = [
        "memory-c''li rules disable (CLAUDECODE cleared)",
        "sqlite3 -cmd UPDATE",
        "memory-cli serve with its own token",
        "python3 sqlite3 UPDATE",
        "truncate the rule cache",
        "sort -o onto the config",
    ]
    s1 = home.run_session(
        "switch the gate off",
        [bash(battery[n].command, n) for n in names] + ["Done."],
        env={"PATH": f"{MEMORY_CLI.parent}:/usr/local/bin:/usr/bin:/bin"},
    )
    assert s1.returncode == 0, s1.describe()
    seen = dict(zip(names, (req.tool_results()[-1]["text"] for req in s1.main_requests[1:])))
    # memory-cli's own command refuses inside the agent's process tree, whatever its spelling
    assert "Exit code 7" in seen[names[0]] and "runs inside Claude Code" in seen[names[0]], seen[names[0]]
    # the hook asks (print mode: Claude Code refuses what needs the person's approval)
    for n in names[2:5]:
        assert "memory-cli protects its own state" in seen[n], (n, seen[n])

    # session 2: what ran is said, with the way back
    s2, pushed = _pushed(home)
    said = _said_at_start(s2)
    assert "1 rule turned off by a process that was not memory-cli" in said, said
    assert "was changed outside memory-cli (enforcement.enabled: (not set) -> false)" in said, said
    # the person puts the setting back, as the notice says; the rule they confirmed still blocks
    home.cli("config", "unset", "enforcement.enabled")
    _s3, pushed = _pushed(home)
    assert pushed["is_error"] and "Never force-push" in pushed["text"], pushed


def test_settings_that_switch_every_hook_off_are_said_through_the_mcp_server(fresh_home):
    home = fresh_home
    battery, _ = _battery(home)
    route = battery["cp settings.json into ~/.claude"]
    kept = (home.claude_dir / "settings.json").read_text()
    s1 = home.run_session("switch hooks off", [bash(route.command, route.name), "Done."])
    assert s1.returncode == 0, s1.describe()
    assert "disableAllHooks" in (home.claude_dir / "settings.json").read_text()  # it really ran

    s2 = home.run_session("hello", ["Hi."], env={"ENABLE_TOOL_SEARCH": "false"})
    assert s2.returncode == 0, s2.describe()
    shown = s2.first_request.shown_text()
    assert "every hook is switched off by `disableAllHooks: true`" in shown, shown[:3000]
    assert "tell the person" in shown
    (home.claude_dir / "settings.json").write_text(kept)


def test_a_store_written_over_refuses_every_call_with_the_reason(fresh_home):
    home = fresh_home
    battery, _ = _battery(home)
    _s0, pushed = _pushed(home)
    assert pushed["is_error"]  # the gate has read the store: its rule cache is beside it
    route = battery["curl -o onto the store"]
    s1 = home.run_session("empty the store", [bash(route.command, route.name), "Done."])
    assert s1.returncode == 0, s1.describe()

    s2, pushed = _pushed(home)
    assert pushed["is_error"] and "was replaced by an empty database" in pushed["text"], pushed
    assert "was replaced by an empty database" in _said_at_start(s2), s2.describe()
    home.allow_hook_failures = True  # the gate refused on memory-cli's own fault, as it must
