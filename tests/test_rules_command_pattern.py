"""`command` patterns: a rule about running a program, matched on shell structure."""

from __future__ import annotations

import pytest

from memory_cli.rules.command_pattern import (
    InvalidCommandPattern,
    match_command,
    normalize_program,
    parse_command_pattern,
)

CASES = [
    # (pattern, command line, matches)
    ("pythonw.exe", "pythonw.exe src/main.py", True),
    ("pythonw.exe", "cd app && pythonw.exe main.py", True),
    ("pythonw.exe", "pythonw main.py", True),  # Windows resolves pythonw to pythonw.exe
    ("pythonw.exe", r"C:\Python311\pythonw.exe main.py", True),
    ("pythonw.exe", "PYTHONW.EXE main.py", True),
    ("pythonw.exe", "grep pythonw.exe notes.md", False),
    ("pythonw.exe", "pgrep pythonw.exe", False),
    ("pythonw.exe", "python.exe main.py", False),
    ("pythonw", "pythonw.exe main.py", True),
    ("npm", "npm install", True),
    ("npm", "npm.cmd install", True),
    ("npm", "pnpm install", False),
    ("npm", "npx prettier .", False),
    ("npm", "echo npm", False),
    ("python", "python3 x.py", False),
    ("git push --force", "git push --force", True),
    ("git push --force", "git push origin main --force", True),
    ("git push --force", "git push -f", True),
    ("git push --force", "git push -f origin main", True),
    ("git push --force", "git push origin +main", True),
    ("git push --force", "git push --force-with-lease", False),
    ("git push --force", "git push origin main", False),
    ("git push --force", 'git commit -m "push --force"', False),
    ("git push --force", "git -C repo push --force", True),
    ("git push --force", "cd x && git push --force", True),
    ("git push -f", "git push --force", True),
    ("git push", "git commit -m push", False),
    ("git push", "git log --grep push", False),
    ("git push public main", "git push public main", True),
    ("git push public main", "git push public feature:main", True),  # updates the remote main
    ("git push public main", "git push public main:feature", False),
    ("git push main", "git push origin HEAD:main", True),
    ("git push main", "git push origin +refs/heads/main", True),
    ("git add .", "git add -A", True),
    ("git add .", "git add --all", True),
    ("git add -A", "git add .", True),
    ("git add .", "git add src/app.py", False),
    ("npm install -g", "npm i -g typescript", True),
    ("npm install", "npm init", False),
    ("pip", "pipx install black", False),
    ("git push public main", "git push origin main", False),
    ("git push main", "git push origin main", True),
    ("rm -rf /", "rm -rf /", True),
    ("rm -rf /", "rm -fr /", True),
    ("rm -rf /", "rm -r -f /", True),
    ("rm -rf /", "rm -Rf /", True),
    ("rm -rf /", "rm --recursive --force /", True),
    ("rm -rf /", "sudo rm -rf /", True),
    ("rm -rf /", "rm -rf //", True),
    ("rm -rf /", "rm -rf ./build", False),
    ("rm -rf /", "rm -rf /tmp/x", False),
    ("rm -rf /", "rm -r /", False),
    ("rm -rf /", "echo rm -rf /", False),
    ("rm -rf build", "rm -rf build/", True),
    ("tar -xzf", "tar -xzf a.tgz", True),
    ("tar -xzf", "tar -x -z -f a.tgz", True),
    ("find -delete", "find . -name '*.pyc' -delete", True),
    ("find -delete", "find . -type d -name el", False),
    ("npm install -g", "npm install --global typescript", True),
    ("npm install -g", "npm install typescript", False),
    ("/usr/bin/python", "/usr/bin/python x", True),
    ("/usr/bin/python", "python x", False),
    ("venv/bin/python", "/home/u/p/venv/bin/python x", True),
    ("curl --insecure", "curl --insecure https://x", True),
    ("curl --output=x", "curl --output=x https://x", True),
    ("curl --output=x", "curl --output x https://x", True),
    ("curl --output=x", "curl --output y https://x", False),
    ("docker system prune", "docker system prune -af", True),
    ("docker system prune", "docker image prune", False),
]


@pytest.mark.parametrize("pattern,line,expected", CASES)
def test_command_pattern_matching(pattern, line, expected):
    assert bool(match_command(pattern, line)) is expected


def test_matching_returns_the_simple_command_that_ran():
    [hit] = match_command("pythonw.exe", "cd app && FOO=1 pythonw.exe main.py --debug")
    assert hit.args == ["main.py", "--debug"]


def test_pattern_parts_are_read_like_a_command():
    p = parse_command_pattern('git commit -m "wip"')
    assert p.program == "git"
    assert p.flags == ("-m",)
    assert p.positionals == ("commit", "wip")
    assert parse_command_pattern("PythonW.EXE").key == "pythonw"
    assert normalize_program("NPM.CMD") == "npm"


@pytest.mark.parametrize("bad", ["", "   ", "-rf", "a && b", "npm install; rm -rf /"])
def test_patterns_that_do_not_describe_one_command_are_refused(bad):
    with pytest.raises(InvalidCommandPattern):
        parse_command_pattern(bad)
