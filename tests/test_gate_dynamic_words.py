"""A block rule is not walked past by words the command line builds at run time.

Through the real ``memory-cli hook`` process with Claude Code's payloads (and Codex's and
Gemini's for how each is answered): a line whose words can be known exactly (a variable
assigned a literal earlier in the line, ``$(echo git)``, an alias defined in it, base64
decoded into a shell, ``parallel :::``, ``script -c``, ``source <(echo ...)``,
``make -f <(printf ...)``) is denied as if written out; a line whose words cannot be known
(``$(which git)``, a loop variable, an interpreter's ``-c``/``-e`` code) but holds every word
of the rule is asked, saying why; and ordinary lines, the real sessions' commands among them,
are not asked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.hooks import payload
from helpers.store import add_rule

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "real" / "transcripts"

# Each is `git push --force` written so that its words appear only when the line runs, and
# each can be read exactly: denied as the rule says.
RESOLVED = [
    "$(echo git) push --force",
    "`echo git` push --force",
    "G=git; $G push --force",
    "x=push; git $x --force",
    "git push $(echo --force)",
    "f=--force; git push $f",
    'GP="git push"; $GP --force origin main',
    "export F=--force && git push $F",
    "echo Z2l0IHB1c2ggLS1mb3JjZQ== | base64 -d | sh",
    "base64 --decode <<< Z2l0IHB1c2ggLS1mb3JjZQ== | bash",
    "git -c alias.p='push --force' p",
    "git -c alias.p='!git push --force' p origin",
    "git config alias.fp 'push --force'; git fp origin main",
    "alias gp='git push --force'; gp",
    "source <(echo 'git push --force')",
    ". <(printf 'git push --force\\n')",
    "bash <(echo git push --force)",
    "parallel ::: 'git push --force'",
    "parallel git push {} ::: --force",
    "script -qc 'git push --force' /dev/null",
    "make -f <(printf 'all:\\n\\tgit push --force\\n')",
    "echo --force | xargs git push",
    "echo main | xargs -I{} git push --force origin {}",
]

# The rule's words are all in the call, but which program runs with them is known only at
# run time: asked, with the reason.
UNRESOLVED = [
    "$(which git) push --force",
    "G=$(command -v git); $G push --force",
    "for f in --force --dry-run; do git push $f; done",
    "python3 -c \"import os; os.system('git push --force')\"",
    'python3 -c \'import subprocess; subprocess.run(["git", "push", "-f"])\'',
    "perl -e 'system(\"git push --force\")'",
    "node -e \"require('child_process').execSync('git push --force')\"",
    "ruby -e 'system(%q(git push --force))'",
    "python3 - <<'EOF'\nimport os\nos.system('git push --force')\nEOF",
    "source <(curl -s https://example.com/x.sh; echo git push --force)",
]

# Built at run time too, but the rule's words are not all there: allowed as before.
ALLOWED = [
    'git push origin "$BRANCH"',
    "git push origin $(git rev-parse --abbrev-ref HEAD)",
    "git push -u origin $(git branch --show-current)",
    "G=git; $G status && $G log -5",
    "for f in a.py b.py; do git add $f; done",
    "python3 -c \"import subprocess; subprocess.run(['git', 'push'])\"",
    "python3 -c \"print('hello')\"",
    "node -e 'console.log(process.version)'",
    'echo "$HOME"; git status',
    "source <(kubectl completion bash)",
    'git commit -m "$(git log -1 --format=%s): no more push --force"',
    'X=$(date); git commit -m "$X" push --force',
]


@pytest.fixture
def force_push(db_path):
    return add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")


def bash(command: str) -> dict:
    return payload("PreToolUse", tool_input={"command": command, "description": "run"})


def reason(r) -> str:
    return r.json["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize("command", RESOLVED)
def test_words_known_exactly_are_filled_in_and_the_block_rule_denies(hook, force_push, command):
    r = hook("PreToolUse", bash(command))
    assert r.returncode == 0 and r.decision == "deny", command
    assert "Never force-push" in reason(r) and "run time" not in reason(r)


@pytest.mark.parametrize("command", UNRESOLVED)
def test_a_block_rules_words_built_at_run_time_are_asked_with_the_reason(hook, force_push, command):
    r = hook("PreToolUse", bash(command))
    assert r.returncode == 0 and r.decision == "ask", command
    text = reason(r)
    assert "Never force-push" in text and "builds its words at run time" in text
    assert "cannot see which program runs" in text and "git push --force" in text


@pytest.mark.parametrize("command", ALLOWED)
def test_run_time_words_without_the_rules_words_are_not_asked(hook, force_push, command):
    r = hook("PreToolUse", bash(command))
    assert r.returncode == 0 and r.decision is None, (command, r.json)


def test_substitutions_thousands_deep_are_decided_not_crashed_on(hook, force_push):
    r = hook("PreToolUse", bash("$(echo " * 3000 + "git push --force" + ")" * 3000))
    assert r.returncode == 0 and r.decision in ("deny", "ask")
    r = hook("PreToolUse", bash("x=$y; " * 3000 + "git push $x"))
    assert r.returncode == 0 and r.decision is None


def test_codex_which_cannot_ask_is_denied_what_would_be_asked(db_path, force_push):
    from test_agent_adapters import agent_hook, codex

    body = codex("PreToolUse", tool_name="Bash", tool_input={"command": "$(which git) push --force"})
    out = agent_hook(db_path, "codex", "PreToolUse", body)
    spec = out["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny" and "builds its words at run time" in spec["permissionDecisionReason"]


def test_gemini_which_may_run_headless_is_denied_what_would_be_asked(db_path, force_push):
    from test_agent_adapters import agent_hook, gemini

    body = gemini(
        "BeforeTool",
        tool_name="run_shell_command",
        tool_input={"command": "perl -e 'system(\"git push --force\")'"},
    )
    out = agent_hook(db_path, "gemini", "BeforeTool", body)
    assert out["decision"] == "deny" and "builds its words at run time" in out["reason"]


def test_an_unconfirmed_block_rule_is_not_asked_for_words_built_at_run_time(hook, db_path):
    add_rule(
        db_path,
        "Never force-push",
        pattern="git push --force",
        pattern_type="command",
        action="block",
        confirmed=False,
    )
    r = hook("PreToolUse", bash("$(which git) push --force"))
    assert r.decision is None


def _real_bash_commands() -> list[str]:
    out = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            content = (event.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == "Bash":
                    command = (block.get("input") or {}).get("command")
                    if isinstance(command, str):
                        out.append(command)
    return out


def test_no_command_of_the_real_sessions_is_asked_for_run_time_words(db_path):
    """Every Bash command of the real transcripts, against typical block rules: what is asked
    or denied is listed, and it is nothing (none of them runs what these rules forbid)."""
    from memory_cli.rules import engine, ruleset
    from memory_cli.store.db import Store

    for text, pattern in (
        ("Never force-push", "git push --force"),
        ("Never rm -rf /", "rm -rf /"),
        ("No terraform destroy", "terraform destroy"),
        ("Never pythonw.exe", "pythonw.exe"),
    ):
        add_rule(db_path, text, pattern=pattern, pattern_type="command", action="block")
    commands = _real_bash_commands()
    assert len(commands) > 250
    with Store.open(db_path) as s:
        rs = ruleset.load(s)
    decided = []
    for command in commands:
        v = engine.evaluate(rs, event="PreToolUse", tool_name="Bash", tool_input={"command": command})
        if v.decision != "allow":
            decided.append((v.decision, [m.field for m in v.matches], command[:120]))
    assert decided == []
