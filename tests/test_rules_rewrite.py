"""A call rewritten to the replacement its rule names (``enforcement.rewrite_to_alternative``):
Claude Code gets ``updatedInput`` with an ``ask``, so the person sees the rewritten call.

The pinned binary taking the rewritten call is shown in tests/e2e/test_e2e_gate.py.
"""

from __future__ import annotations

import json

import pytest
from helpers.hooks import payload
from helpers.store import add_rule

from memory_cli.rules.rewrite import replacement_words, rewrite


@pytest.mark.parametrize(
    "command, pattern, alternative, expected",
    [
        ("npm install left-pad", "npm", "use pnpm", "pnpm install left-pad"),
        ("npm install", "npm", "pnpm instead", "pnpm install"),
        ("  npm  ci", "npm", "`pnpm`", "pnpm  ci"),
        ("pythonw.exe src/main.py", "pythonw.exe", "use python.exe", "python.exe src/main.py"),
        (
            "git push --force origin main",
            "git push --force",
            "git push --force-with-lease",
            "git push --force-with-lease origin main",
        ),
        ('npm run "a b"', "npm", "use pnpm", 'pnpm run "a b"'),
    ],
)
def test_a_plain_call_is_rewritten_to_the_named_replacement(command, pattern, alternative, expected):
    assert rewrite(command, pattern, alternative) == expected


@pytest.mark.parametrize(
    "command, pattern, alternative",
    [
        ("npm install && npm test", "npm", "use pnpm"),  # more than one command
        ("echo x | npm install", "npm", "use pnpm"),
        ("npx npm install", "npm", "use pnpm"),  # does not begin with the rule's words
        ("npmx install", "npm", "use pnpm"),
        ("npm install", "npm", "ask the person which package manager the project uses"),  # prose
        ("npm install", "npm", None),
        ("npm install $(cat pkgs)", "npm", "use pnpm"),
    ],
)
def test_anything_but_a_plain_call_and_a_named_command_is_left_alone(command, pattern, alternative):
    assert rewrite(command, pattern, alternative) is None


def test_replacement_words_read_the_usual_phrasings():
    assert replacement_words("use pnpm") == ["pnpm"]
    assert replacement_words("Use uv pip instead of pip.") == ["uv", "pip"]
    assert replacement_words("prefer the project's own scripts over raw npm") is None


def _pre(command):
    return payload("PreToolUse", tool_name="Bash", tool_input={"command": command, "description": "d"})


def _enable(claude_dir):
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"enforcement": {"rewrite_to_alternative": True}}))


def test_a_block_rule_with_a_replacement_asks_with_the_rewritten_call(hook, db_path, claude_dir):
    add_rule(
        db_path, "use pnpm, not npm", pattern="npm", pattern_type="command", action="block", alternative="use pnpm"
    )
    assert hook("PreToolUse", _pre("npm install left-pad")).decision == "deny"  # off by default
    _enable(claude_dir)
    r = hook("PreToolUse", _pre("npm install left-pad"))
    out = r.json["hookSpecificOutput"]
    assert out["permissionDecision"] == "ask"
    assert out["updatedInput"] == {"command": "pnpm install left-pad", "description": "d"}
    assert "pnpm install left-pad" in out["permissionDecisionReason"] and "pnpm install" in r.system_message
    # Not plain: denied as before.
    assert hook("PreToolUse", _pre("npm install && npm test")).decision == "deny"


def test_a_rewritten_call_another_rule_stops_is_denied(hook, db_path, claude_dir):
    _enable(claude_dir)
    add_rule(
        db_path, "use pnpm, not npm", pattern="npm", pattern_type="command", action="block", alternative="use pnpm"
    )
    add_rule(db_path, "no pnpm either here", pattern="pnpm", pattern_type="command", action="block")
    r = hook("PreToolUse", _pre("npm install"))
    assert r.decision == "deny" and "updatedInput" not in r.json["hookSpecificOutput"]


def test_codex_and_gemini_never_get_a_rewrite(db_path, claude_dir):
    import subprocess

    from helpers.hooks import hook_cmd

    _enable(claude_dir)
    add_rule(
        db_path, "use pnpm, not npm", pattern="npm", pattern_type="command", action="block", alternative="use pnpm"
    )
    body = dict(_pre("npm install"), hook_event_name="PreToolUse")
    proc = subprocess.run(
        hook_cmd() + ["--db", str(db_path), "hook", "--agent", "codex", "PreToolUse"],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        timeout=60,
    )
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "updatedInput" not in out


def test_an_ask_rule_defers_in_an_unattended_claude_session_when_configured(hook, db_path, claude_dir):
    add_rule(db_path, "Ask before pushing", pattern="git push", pattern_type="command", action="ask")
    headless = {"CLAUDE_CODE_SESSION_ATTENDED": "0"}
    assert hook("PreToolUse", _pre("git push origin main"), env=headless).decision == "ask"  # default: refuse
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"enforcement": {"headless_ask": "defer"}}))
    r = hook("PreToolUse", _pre("git push origin main"), env=headless)
    assert r.decision == "defer" and "Ask before pushing" in r.json["hookSpecificOutput"]["permissionDecisionReason"]
    assert hook("PreToolUse", _pre("git push origin main"), env={"CLAUDE_CODE_SESSION_ATTENDED": "1"}).decision == "ask"
