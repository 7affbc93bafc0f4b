"""Consent that holds: what the person approves in review is exactly what the gate enforces
afterwards, whichever door they approved it through (the CLI, the interactive review on a
terminal, the REST API, the dashboard in a browser), and what they typed is what is kept.

Each test ends on the decision a real PreToolUse hook process takes, or on what the person
reads, never only on a stored column."""

from __future__ import annotations

import json

import pytest
from helpers.hooks import payload
from helpers.terminal import terminals

NEVER_NPM_PUBLISH = "never run npm publish"


@pytest.fixture(autouse=True)
def outside_any_project(tmp_path, monkeypatch):
    """The person types in a folder that is no git project, so what they teach applies everywhere."""
    monkeypatch.chdir(tmp_path)


def _capture(cli, message: str, session: str, **kw) -> dict:
    r = cli("capture", "--user-message", message, "--session-id", session, "--json", **kw)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _propose(cli, message: str = NEVER_NPM_PUBLISH) -> dict:
    """Say it in three sessions: it becomes a proposed rule waiting in review."""
    for s in ("s1", "s2", "s3"):
        said = _capture(cli, message, s)
    assert said["promoted_now"], said
    [item] = [i for i in json.loads(cli("review", "--list", "--json").stdout) if i["id"] == said["id"]]
    assert item["item"] == "proposal"
    return item


def _gate(hook, command: str, cwd: str = "/home/u/proj") -> str | None:
    """The decision a real PreToolUse hook process takes on ``command`` (None: let through)."""
    return hook(
        "PreToolUse", payload("PreToolUse", cwd=cwd, tool_name="Bash", tool_input={"command": command})
    ).decision


def _enforces_only_yarn_publish(hook) -> None:
    assert _gate(hook, "yarn publish --access public") == "deny"
    assert _gate(hook, "npm publish --access public") is None  # approved away: no longer stopped
    assert _gate(hook, "yarn install") is None


def test_the_cli_approval_with_another_pattern_enforces_exactly_that_pattern(cli, hook):
    proposal = _propose(cli)
    assert proposal["rule"]["pattern"] == "npm publish"
    r = cli("review", "--approve", proposal["id"][:8], "--pattern", "yarn publish", "--action", "block")
    assert r.returncode == 0, r.stderr
    assert "'yarn publish' -> block, confirmed" in r.stdout
    _enforces_only_yarn_publish(hook)


def test_the_rest_approval_with_another_pattern_enforces_exactly_that_pattern(cli, hook, db_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from memory_cli.web.app import ServerConfig, create_app

    proposal = _propose(cli)
    token = "consent-token-0123456789abcdef"
    app = create_app(ServerConfig(db_path=str(db_path), token=token, extra_hosts=("testserver",)))
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as api:
        r = api.post(f"/api/corrections/{proposal['id']}/approve", json={"pattern": "yarn publish", "action": "block"})
        assert r.status_code == 200, r.text
        assert r.json()["rule"]["pattern"] == "yarn publish"
    _enforces_only_yarn_publish(hook)


def test_an_approval_with_a_pattern_the_rules_refuse_changes_nothing(cli, hook):
    proposal = _propose(cli)
    r = cli("review", "--approve", proposal["id"], "--pattern", "(unclosed", "--pattern-type", "regex")
    assert r.returncode == 2 and r.stderr.startswith("memory-cli: error:") and "Traceback" not in r.stderr
    [item] = json.loads(cli("review", "--list", "--json").stdout)
    assert item["status"] == "promoted" and item["rule"]["pattern"] == "npm publish"
    assert _gate(hook, "npm publish") is None  # still a proposal: it warns, it does not stop


# ------------------------------------------------------------------ the interactive review


@pytest.fixture
def terminal(db_path):
    yield from terminals(db_path)


def test_interactive_approval_with_another_pattern_enforces_exactly_that_pattern(cli, hook, terminal):
    _propose(cli)
    t = terminal("review")
    assert "command 'npm publish' -> warn, unconfirmed" in t.answer("(q)uit? ", "a")
    t.answer("Action warn/block [warn]: ", "block")
    t.answer("Pattern ('-' for no rule) [npm publish]: ", "yarn publish")
    t.answer("Pattern type command/regex [command]: ", "")
    t.answer("]: ", "")  # the message, offered
    t.answer("Scope [global]: ", "")
    t.answer("Enforced as rule/reminder/ask/stop-check/advice [rule]: ", "")
    assert "'yarn publish' -> block, confirmed, enabled" in t.expect("Done: 1 approved")
    assert t.close() == 0
    _enforces_only_yarn_publish(hook)


def test_an_interactive_edit_is_kept_as_the_memory_the_agent_is_given(cli, hook, terminal):
    proposal = _propose(cli, "never use pythonw.exe")
    t = terminal("review")
    t.answer("(q)uit? ", "e")
    t.answer("What was wrong [pythonw.exe]: ", "")
    t.answer("What is right: ", "python.exe")
    t.answer("Statement [python.exe, not pythonw.exe]: ", "")
    assert "Edited." in t.answer("(q)uit? ", "a")
    t.answer("Action warn/block [warn]: ", "block")
    t.answer("[pythonw.exe]: ", "")
    t.answer("]: ", "")
    t.answer("Scope [global]: ", "")
    t.answer("Enforced as rule/reminder/ask/stop-check/advice [rule]: ", "")
    t.expect("Done: 1 approved")
    assert t.close() == 0
    shown = json.loads(cli("show", proposal["entry"]["id"], "--json").stdout)
    assert shown["content"] == "Python.exe, not pythonw.exe."  # not the "Do not use pythonw.exe." it replaced
    assert _gate(hook, "pythonw.exe app.py") == "deny"
    started = hook("SessionStart", payload("SessionStart", source="startup"))
    assert "Python.exe, not pythonw.exe." in started.context


def test_an_edited_proposal_that_now_names_a_command_offers_its_pattern(cli, hook, terminal):
    """Said three times, "always run the tests before committing" names nothing to stop: it is
    proposed as a reminder. Edited to say what was wrong, the review offers that as the rule."""
    proposal = _propose(cli, "always run the tests before committing")
    assert not proposal.get("rule")
    t = terminal("review")
    assert "approving remembers it (nothing concrete to enforce)" in t.answer("(q)uit? ", "e")
    t.answer("What was wrong: ", "git commit --no-verify")
    t.answer("What is right [", "")
    t.answer("Statement [", "")
    screen = t.expect("(q)uit? ")
    assert "approving creates: command 'git commit --no-verify'" in screen, screen
    t.type("a")
    t.answer("Action warn/block [warn]: ", "block")
    t.answer("[git commit --no-verify]: ", "")  # the pattern, offered
    t.answer("]: ", "")
    t.answer("Scope [global]: ", "")
    t.answer("Enforced as rule/reminder/ask/stop-check/advice [rule]: ", "")
    done = t.expect("Done: 1 approved")
    assert "'git commit --no-verify' -> block, confirmed, enabled" in done, done
    assert "remembered as" not in done
    assert t.close() == 0
    assert _gate(hook, "git commit --no-verify -m wip") == "deny"
    assert _gate(hook, "git commit -m wip") is None


@pytest.mark.parametrize("answers", [[], ["block", "", ""]], ids=["at the action", "at the scope"])
def test_end_of_input_inside_an_item_keeps_it_pending_and_says_so(cli, hook, terminal, answers):
    proposal = _propose(cli)
    t = terminal("review")
    t.answer("(q)uit? ", "a")
    for answer in answers:  # the action, the pattern, the message
        t.answer("]: ", answer)
    t.expect("Action warn/block [warn]: " if not answers else "Scope [global]: ")
    t.end_input()
    said = t.expect("Done: 0 approved")
    assert f"End of input: {proposal['id'][:8]} was not changed and stays promoted." in said, said
    assert t.close() == 0
    [item] = json.loads(cli("review", "--list", "--json").stdout)
    assert item["status"] == "promoted" and item["rule"]["confirmed"] is False
    assert _gate(hook, "npm publish") is None  # still only proposed: nothing was approved


# ------------------------------------------------------------------ what capture keeps


def test_corrections_typed_in_one_project_stay_in_it_unless_said_everywhere(cli, hook, project, tmp_path):
    for message in ("no, don't use npm here, use pnpm", "never use sudo", "stop using pythonw.exe"):
        _capture(cli, message, "s1", cwd=project)
    _capture(cli, "always use rg, not grep -r", "s1", cwd=project)  # "always": every project
    scopes = {i["what_was_wrong"]: i["scope"] for i in json.loads(cli("review", "--list", "--json").stdout)}
    assert scopes == {
        "npm": "project:whisperclick",
        "sudo": "project:whisperclick",
        "pythonw.exe": "project:whisperclick",
        "grep -r": "global",
    }, scopes
    sudo = next(i for i in json.loads(cli("review", "--list", "--json").stdout) if i["what_was_wrong"] == "sudo")
    r = cli("review", "--approve", sudo["id"], "--action", "block", cwd=project)
    assert r.returncode == 0, r.stderr
    assert _gate(hook, "sudo rm -rf build", cwd=str(project)) == "deny"
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".git").mkdir(parents=True)
    assert _gate(hook, "sudo rm -rf build", cwd=str(elsewhere)) is None


def test_corrections_typed_to_the_agent_in_one_project_get_that_project(cli, hook, project):
    """The same through the UserPromptSubmit hook Claude Code runs, in three sessions."""
    for n, prompt in enumerate(("no, don't use npm here, use pnpm", "never use sudo", "stop using pythonw.exe")):
        body = payload("UserPromptSubmit", cwd=str(project), session_id=f"s{n}", prompt=prompt)
        assert hook("UserPromptSubmit", body).returncode == 0
    scopes = [i["scope"] for i in json.loads(cli("review", "--list", "--json").stdout)]
    assert scopes == ["project:whisperclick"] * 3, scopes


def test_what_is_right_is_kept_when_said_as_the_house_way(cli, hook):
    said = hook(
        "UserPromptSubmit",
        payload("UserPromptSubmit", prompt="stop using tabs, we indent with 4 spaces"),
    )
    assert said.returncode == 0
    [item] = json.loads(cli("review", "--list", "--json").stdout)
    assert (item["what_was_wrong"], item["what_is_right"]) == ("tabs", "indent with 4 spaces")
    assert item["statement"] == "indent with 4 spaces, not tabs"


def test_a_rule_approved_from_the_cli_reaches_the_codex_native_copy(cli, hook):
    """The one door also rewrites the agents' own rule copies: Codex forbids exactly what was approved."""
    from memory_cli.native.sync import FORMATS

    proposal = _propose(cli)
    assert cli("rules", "export", "--to", "codex", "--write").returncode == 0
    r = cli("review", "--approve", proposal["id"], "--pattern", "yarn publish", "--action", "block")
    assert r.returncode == 0, r.stderr
    text = FORMATS["codex"].path().read_text()
    assert '["yarn", "publish"]' in text and '"npm", "publish"' not in text


def test_nothing_is_written_by_a_failed_approval_of_the_hook_store(cli):
    """A second approval of the same proposal is refused in one line; the first one holds."""
    proposal = _propose(cli)
    assert cli("review", "--approve", proposal["id"], "--pattern", "yarn publish", "--action", "block").returncode == 0
    again = cli("review", "--approve", proposal["id"], "--pattern", "(bad", "--pattern-type", "regex")
    assert again.returncode == 2 and "Traceback" not in again.stderr
    [rule] = json.loads(cli("rules", "list", "--json").stdout)
    assert (rule["pattern"], rule["action"], rule["confirmed"]) == ("yarn publish", "block", True)
