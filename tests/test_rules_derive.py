"""Deriving a checkable pattern from a rule written in words."""

from __future__ import annotations

import re

import pytest

from memory_cli.rules.command_pattern import match_command
from memory_cli.rules.derive import derive_rule


@pytest.mark.parametrize(
    "content,pattern,alternative",
    [
        ("Never use pythonw.exe", "pythonw.exe", None),
        ("never use pythonw.exe", "pythonw.exe", None),
        ("Don't run git push --force", "git push --force", None),
        ("Do not run `rm -rf /`", "rm -rf /", None),
        ("avoid sudo", "sudo", None),
        ("use pnpm, not npm", "npm", "use pnpm"),
        ("Use python.exe instead of pythonw.exe", "pythonw.exe", "use python.exe"),
        ("No, use python.exe not pythonw.exe", "pythonw.exe", "use python.exe"),
        ("Don't use npm, use pnpm instead", "npm", "use pnpm"),
        ("prefer uv over pip", "pip", "use uv"),
        ("Never use pythonw.exe - use python.exe instead", "pythonw.exe", "use python.exe"),
        ("Never run git push public main; use sync_public.py", "git push public main", "use sync_public.py"),
        ("Never force push", "git push --force", None),
        ("never commit with --no-verify", "git commit --no-verify", None),
        ("`pythonw.exe` is banned", "pythonw.exe", None),
    ],
)
def test_programs_become_command_rules(content, pattern, alternative):
    rule = derive_rule(content)
    assert rule is not None
    assert rule["pattern_type"] == "command"
    assert rule["pattern"] == pattern
    assert rule["alternative"] == alternative
    assert rule["tools"] == ["Bash"] and rule["fields"] == ["command"]
    assert rule["message"] == content


@pytest.mark.parametrize(
    "content",
    [
        "be more careful",
        "Always use pytest",
        "Don't run tests in parallel",
        "never hardcode API keys",
        "Don't use tabs",
        "Do not use print() in library code",  # a place we cannot turn into paths
        "",
    ],
)
def test_nothing_concrete_gives_none(content):
    assert derive_rule(content) is None


def test_derived_command_rules_do_not_fire_on_look_alikes():
    npm = derive_rule("use pnpm, not npm")["pattern"]
    assert match_command(npm, "npm install")
    assert not match_command(npm, "pnpm install")
    assert not match_command(npm, "grep npm package.json")
    pyw = derive_rule("Never use pythonw.exe")["pattern"]
    assert match_command(pyw, "cd app && pythonw.exe main.py")
    assert not match_command(pyw, "pgrep pythonw.exe")


def test_committing_env_files_is_a_git_command_regex():
    rule = derive_rule("never commit .env files")
    assert rule["pattern_type"] == "regex" and rule["tools"] == ["Bash"]
    rx = re.compile(rule["pattern"], re.I)
    assert rx.search("git add .env")
    assert rx.search("git add config/.env && git commit -m x")
    assert rx.search("git commit -m wip .env")
    assert not rx.search("git add .env.example")
    assert not rx.search("cat .env")
    assert not rx.search("git add src/app.py")


def test_file_globs_in_commit_rules():
    rx = re.compile(derive_rule("never commit *.pem files")["pattern"], re.I)
    assert rx.search("git add certs/server.pem")
    assert not rx.search("git add README.md")


def test_code_in_written_files_is_a_content_regex_with_a_place():
    rule = derive_rule("never write console.log in src")
    assert rule["pattern_type"] == "regex"
    assert rule["tools"] == ["Write", "Edit", "MultiEdit"]
    assert rule["fields"] == ["content", "new_string"]
    rx = re.compile(rule["pattern"], re.I)
    assert rx.search("  console.log('x')") and not rx.search("myconsole.logger")
    [cond] = rule["conditions"]
    assert cond["field"] == "file_path"
    path_rx = re.compile(cond["pattern"])
    assert path_rx.search("/home/u/p/src/app.js") and not path_rx.search("/home/u/p/test/a.js")


def test_language_places_become_extensions():
    rule = derive_rule("never use var in JavaScript files")
    assert re.search(rule["pattern"], "var x = 1") and not re.search(rule["pattern"], "variable")
    assert re.search(rule["conditions"][0]["pattern"], "/p/a.mjs")
    assert not re.search(rule["conditions"][0]["pattern"], "/p/a.py")


def test_editing_files_guards_paths():
    rule = derive_rule("Don't modify package-lock.json")
    assert rule["fields"] == ["file_path"]
    assert re.search(rule["pattern"], "/p/package-lock.json")
    assert not re.search(rule["pattern"], "/p/package.json")
    rule = derive_rule("never edit files in vendor/")
    assert re.search(rule["pattern"], "/p/vendor/lib.py")
    assert not re.search(rule["pattern"], "/p/src/vendor_utils.py")
