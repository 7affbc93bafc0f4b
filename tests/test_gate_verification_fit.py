"""Rules fit the calls they judge: Windows paths, warn-level verification, calls that only look.

Through the real ``memory-cli hook`` process with Claude Code's payloads
(shared/reference/claude-code-hooks.md): a rule derived from "never edit .env files" guards a
Windows path too; after a call ran, a warn-level rule only warns (context for Claude, no
``decision: block``); and a call that only looks (``pip list``) is not counted against a rule
on the whole program, so it never raises that rule's severity.
"""

from __future__ import annotations

from helpers.hooks import payload
from helpers.store import add_rule

from memory_cli import audit
from memory_cli.rules import api
from memory_cli.store.db import Store


def rows(db_path, action):
    with Store.open(db_path) as s:
        return audit.query(s, action=action, limit=50)


def rule_state(db_path, rule_id):
    with Store.open(db_path) as s:
        row = s.row(
            "SELECT e.violation_count AS n, r.severity FROM enforcement_rules r"
            " JOIN memory_entries e ON e.id = r.id WHERE r.id = ?",
            (rule_id,),
        )
        return row["n"], row["severity"]


def write(path):
    return payload("PreToolUse", tool_name="Write", tool_input={"file_path": path, "content": "KEY=1\n"})


def ran(command, stdout=""):
    return payload(
        "PostToolUse",
        tool_input={"command": command, "description": "run"},
        tool_response={"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False},
    )


def test_a_derived_env_file_rule_guards_windows_paths(hook, db_path):
    with Store.open(db_path) as s:
        rule = api.add_rule(s, "never edit .env files")  # derived from the words, as `rules add`
    assert rule["pattern"] == r"(?:^|/)\.env$"
    for path in (r"c:\Users\me\proj\.env", r"C:\work\shop\.env", "/home/u/proj/.env"):
        r = hook("PreToolUse", write(path))
        assert r.decision == "deny", path
    for path in (r"c:\Users\me\proj\.env.example", r"c:\Users\me\proj\settings.env.md"):
        assert hook("PreToolUse", write(path)).decision is None, path


def test_a_file_condition_written_for_posix_paths_holds_on_windows_paths(hook, db_path):
    add_rule(
        db_path,
        "no console.log in src",
        pattern=r"\bconsole\.log\b",
        pattern_type="regex",
        action="block",
        tools=["Write"],
        fields=["content"],
        conditions=[{"field": "file_path", "operator": "regex_match", "pattern": r"(^|/)src/"}],
    )
    src = payload(
        "PreToolUse", tool_name="Write", tool_input={"file_path": r"C:\proj\src\app.js", "content": "console.log(1)"}
    )
    other = payload(
        "PreToolUse", tool_name="Write", tool_input={"file_path": r"C:\proj\tools\x.js", "content": "console.log(1)"}
    )
    assert hook("PreToolUse", src).decision == "deny"
    assert hook("PreToolUse", other).decision is None


def test_a_warn_rule_violated_after_the_call_only_warns(hook, db_path):
    add_rule(db_path, "prefer pnpm over npm", pattern="npm", pattern_type="command", action="warn")
    r = hook("PostToolUse", ran("npm install left-pad"))
    assert r.returncode == 0
    assert "decision" not in (r.json or {})
    assert "prefer pnpm over npm" in r.context
    assert len(rows(db_path, "verify_fail")) == 1


def test_a_block_rule_violated_after_the_call_is_still_put_beside_the_result(hook, db_path):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    add_rule(db_path, "prefer bun over node", pattern="node", pattern_type="command", action="warn")
    r = hook("PostToolUse", ran("npm i && node x.js"))
    assert r.json["decision"] == "block" and "no npm" in r.json["reason"]
    assert "prefer bun over node" not in r.json["reason"] and "prefer bun over node" in r.context


def test_calls_that_only_look_do_not_raise_a_program_rules_severity(hook, db_path):
    rule = add_rule(db_path, "use uv instead of pip", pattern="pip", pattern_type="command", action="warn")
    for command in ("pip list", "pip3 show requests", "python -m pip freeze", "pip --version", "pip list --outdated"):
        r = hook("PostToolUse", ran(command, stdout="requests 2.32.0"))
        assert "decision" not in (r.json or {}) and not r.context, command
    assert rule_state(db_path, rule["id"]) == (0, "medium")
    assert rows(db_path, "verify_fail") == []
    for _ in range(4):
        hook("PostToolUse", ran("pip install requests"))
    assert rule_state(db_path, rule["id"]) == (4, "high")  # installing is what the rule is about


def test_a_rule_naming_the_looking_subcommand_still_counts_it(hook, db_path):
    rule = add_rule(db_path, "never run git log here", pattern="git log", pattern_type="command", action="warn")
    hook("PostToolUse", ran("git log --oneline"))
    assert rule_state(db_path, rule["id"])[0] == 1


def test_what_counts_as_only_looking():
    from memory_cli.rules.read_only import is_read_only

    looks = [("pip", "list"), ("npm", "ls --depth 0"), ("git", "status"), ("git", "-C repo log -3"), ("git", "branch")]
    looks += [("git", "stash list"), ("docker", "image ls"), ("kubectl", "-n prod get pods"), ("cargo", "--version")]
    acts = [("pip", "install x"), ("npm", "install"), ("git", "stash"), ("git", "branch -D old"), ("git", "push")]
    acts += [("docker", "run img"), ("kubectl", "delete pod x"), ("npm", ""), ("git", "config user.name x")]
    assert [p for p, a in looks if not is_read_only(p, a.split())] == []
    assert [p for p, a in acts if is_read_only(p, a.split())] == []


def test_a_path_rule_spelled_with_slashes_guards_the_same_folder_on_windows(hook, db_path):
    add_rule(db_path, "never edit db/v1", pattern="db/v1/", pattern_type="regex", action="block",
             tools=["Write", "Edit"], fields=["file_path"])  # fmt: skip
    assert hook("PreToolUse", write(r"C:\proj\db\v1\schema.sql")).decision == "deny"
    assert hook("PreToolUse", write(r"C:\proj\db\v2\schema.sql")).decision is None
