"""The self-protection check asks about what a call does, not about what its text mentions:
a Python query that only reads the store runs without a question while one that could write
it is asked; a file written inside a project is judged by where it goes (and, for a program, by
what it plainly writes when run), so this repository's own tests, which name memory-cli's
files all over, are written without a question. Each decision is the installed PreToolUse
hook's, run as its own process with Claude Code's payloads."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
from helpers.hooks import payload
from helpers.store import add_rule

from memory_cli import audit
from memory_cli.store.db import Store

PROJECT = "/home/u/proj"
TESTS = Path(__file__).parent


@pytest.fixture
def guarded(db_path, claude_dir):
    """A store holding the person's block rule, and Claude Code settings with memory-cli's hooks."""
    rule = add_rule(
        db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block", confirmed=True
    )
    (claude_dir / "settings.json").write_text('{"hooks": {}}')
    return rule


def bash(command: str) -> dict:
    return payload("PreToolUse", cwd=PROJECT, tool_input={"command": command, "description": "run"})


def write(path, content: str) -> dict:
    return payload(
        "PreToolUse", cwd=PROJECT, tool_name="Write", tool_input={"file_path": str(path), "content": content}
    )


def asked(db_path) -> list:
    with Store.open(db_path) as s:
        return audit.query(s, action="protect_ask", limit=500)


def python_c(code: str) -> str:
    return 'python3 -c "' + code.replace('"', '\\"') + '"'


def _reading_queries(db) -> dict[str, str]:
    connect = f"import sqlite3; c = sqlite3.connect('{db}'); "
    return {
        "count through sqlite3.connect": python_c(
            connect + "print(c.execute('SELECT count(*) FROM enforcement_rules').fetchone()[0])"
        ),
        "a read-only URI": python_c(
            f"import sqlite3; c = sqlite3.connect('file:{db}?mode=ro', uri=True); "
            "print(c.execute('SELECT count(*) FROM enforcement_rules').fetchone()[0])"
        ),
        "a heredoc that only selects": (
            "python3 - <<'EOF'\n"
            "import sqlite3\n"
            f"c = sqlite3.connect('{db}')\n"
            "rows = c.execute(\"SELECT id, action FROM enforcement_rules WHERE action = 'block'\").fetchall()\n"
            "print(len(rows))\n"
            "EOF"
        ),
        "the schema, by pragma": python_c(
            connect + "print(len(c.execute('PRAGMA table_info(enforcement_rules)').fetchall()) > 0 and 1)"
        ),
        "the path as an argument": (
            'python3 -c "import sqlite3, sys; '
            "print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM enforcement_rules').fetchone()[0])\" "
            f"{db}"
        ),
    }


def _rules(db_path) -> list:
    with sqlite3.connect(db_path) as c:
        return c.execute("SELECT * FROM enforcement_rules ORDER BY id").fetchall()


def test_a_python_query_that_only_reads_the_store_is_not_asked(hook, db_path, guarded):
    before = _rules(db_path)
    for name, command in _reading_queries(db_path).items():
        r = hook("PreToolUse", bash(command))
        assert r.decision is None, (name, r)
        # allowed, it runs as the agent would run it: it reads the rule and changes nothing
        ran = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60, cwd=db_path.parent)
        assert ran.returncode == 0 and ran.stdout.strip() == "1", (name, ran.stderr)
    assert asked(db_path) == []
    assert _rules(db_path) == before
    assert hook("PreToolUse", bash("git push --force origin main")).decision == "deny"


def _writing_snippets(db, claude) -> dict[str, str]:
    connect = f"import sqlite3; c = sqlite3.connect('{db}'); "
    return {
        "INSERT": python_c(
            connect + "c.execute(\"INSERT INTO memory_entries(id, content) VALUES ('x', 'y')\"); c.commit()"
        ),
        "UPDATE": python_c(connect + "c.execute('UPDATE enforcement_rules SET active = 0'); c.commit()"),
        "DELETE": python_c(connect + "c.execute('DELETE FROM enforcement_rules'); c.commit()"),
        "DROP": python_c(connect + "c.execute('DROP TABLE enforcement_rules')"),
        "ATTACH": python_c(connect + "c.execute(\"ATTACH '/tmp/other.db' AS o\")"),
        "VACUUM": python_c(connect + "c.execute('VACUUM')"),
        "PRAGMA writable_schema": python_c(connect + "c.execute('PRAGMA writable_schema = 1')"),
        "a pragma set by call": python_c(connect + "c.execute('PRAGMA journal_mode(DELETE)')"),
        "a write between comment marks held in strings": python_c(
            connect + "c.execute(\"SELECT '/*', 1; DELETE FROM enforcement_rules; SELECT '*/'\")"
        ),
        "a write behind WITH": python_c(connect + "c.execute('WITH x AS (SELECT 1) DELETE FROM enforcement_rules')"),
        "executescript": python_c(connect + "c.executescript('SELECT 1')"),
        "open for writing": python_c(f"open('{db}', 'w').write('')"),
        "os.remove": python_c(f"import os; os.remove('{db}')"),
        "os.remove under another name": python_c(f"from os import remove as r; r('{db}')"),
        "shutil": python_c(f"import shutil; shutil.copy('/tmp/forged.db', '{db}')"),
        "pathlib": python_c(f"from pathlib import Path; Path('{db}').unlink()"),
        "a subprocess": python_c(
            f"import subprocess; subprocess.run(['sqlite3', '{db}', 'DELETE FROM enforcement_rules'])"
        ),
        "SQL built at run time": python_c(connect + "t = 'enforcement_rules'; c.execute('SELECT * FROM ' + t)"),
        "SQL in a variable": python_c(connect + "q = 'DELETE FROM enforcement_rules'; c.execute(q)"),
        "SQL from an f-string": python_c(connect + "w = 'DELETE'; c.execute(f'{w} FROM enforcement_rules')"),
        "exec": python_c(connect + "exec('c.execute(' + chr(34) + 'DELETE FROM enforcement_rules' + chr(34) + ')')"),
        "eval": python_c(connect + "eval('1')"),
        "a writer reached through sys.modules": python_c(f"import sys; sys.modules['os'].remove('{db}')"),
        "a writer reached through a private name": python_c(
            f"import datetime; datetime._sys.modules['os'].remove('{db}')"
        ),
        "a pager named in the environment": f"PAGER='rm -f {db}' python3 -c \"help(str)\"",
        "getattr": python_c(connect + "getattr(c, 'execute' + 'script')('DELETE FROM enforcement_rules')"),
        "a heredoc that deletes": (
            f"python3 - <<'EOF'\nimport sqlite3\nc = sqlite3.connect('{db}')\n"
            "c.execute('DELETE FROM enforcement_rules')\nc.commit()\nEOF"
        ),
        "a heredoc the shell fills in": (
            f"python3 - <<EOF\nimport sqlite3\nprint(sqlite3.connect('{db}').execute('SELECT 1 $MORE').fetchall())\nEOF"
        ),
        "code that does not parse": python_c(connect + "c.execute('SELECT 1'"),
        "the settings through Path.home()": python_c(
            "from pathlib import Path; (Path.home() / '.claude' / 'settings.json').write_text('{}')"
        ),
    }


def test_a_python_snippet_that_may_write_the_store_is_still_asked(hook, db_path, claude_dir, guarded):
    decisions = {}
    for name, command in _writing_snippets(db_path, claude_dir).items():
        r = hook("PreToolUse", bash(command))
        decisions[name] = r.decision
        if r.decision == "ask":
            reason = r.json["hookSpecificOutput"]["permissionDecisionReason"]
            assert reason.startswith("memory-cli protects its own state: this command runs python3 code"), reason
    assert {k: v for k, v in decisions.items() if v != "ask"} == {}
    assert len(asked(db_path)) == len(decisions)


def _own_tests() -> list[Path]:
    return sorted(TESTS.glob("*.py"))


def test_writing_this_repositorys_own_tests_into_a_project_is_not_asked(hook, db_path, guarded):
    """Every test file of memory-cli itself, written as it is into a project's tests/ folder: they
    name the store, the settings and the caches throughout, and run programs against them in
    temporary folders; none of that writes the person's."""
    files = _own_tests()
    assert len(files) >= 33
    wrong = []
    for f in files:
        r = hook("PreToolUse", write(f"{PROJECT}/tests/{f.name}", f.read_text(encoding="utf-8")))
        if r.decision is not None:
            wrong.append((f.name, r.decision, r.json))
    assert wrong == []
    assert asked(db_path) == []


def test_writes_onto_memory_clis_own_files_are_still_asked(hook, db_path, claude_dir, guarded):
    content = (TESTS / "test_self_protect.py").read_text(encoding="utf-8")
    home = Path.home()
    for path in (
        claude_dir / "settings.json",
        f"{PROJECT}/.claude/settings.local.json",
        f"{PROJECT}/.claude/memory-cli.toml",
        db_path,
        f"{db_path}.rules-cache",
        claude_dir / "memory" / "config.json",
        home / ".codex" / "config.toml",
        home / ".gemini" / "settings.json",
    ):
        r = hook("PreToolUse", write(path, content))
        assert r.decision == "ask", (path, r)
        assert str(path) in r.json["hookSpecificOutput"]["permissionDecisionReason"]
    # a program in the project that plainly writes them when run is asked as well
    for name, program in {
        "fix.py": f"import sqlite3\nsqlite3.connect({str(db_path)!r}).execute('DELETE FROM enforcement_rules')\n",
        "reset.py": "from pathlib import Path\n(Path.home() / '.claude' / 'settings.json').write_text('{}')\n",
        "wipe.py": f"import os\nos.remove({str(db_path)!r})\n",
    }.items():
        r = hook("PreToolUse", write(f"{PROJECT}/tools/{name}", program))
        assert r.decision == "ask", (name, r)


def test_shell_writes_into_the_project_that_name_memory_clis_files_are_not_asked(hook, db_path, claude_dir, guarded):
    for command in (
        'echo "The store lives in ~/.claude/memory/memory.db; hooks in ~/.claude/settings.json" > README.md',
        f"echo 'never run: rm -f {db_path}' >> docs/notes.md",
        "printf '%s\\n' 'see .claude/memory-cli.toml' > CONTRIBUTING.md",
        "cat > docs/setup.md <<'EOF'\nEdit ~/.codex/config.toml and ~/.gemini/settings.json\nEOF",
    ):
        assert hook("PreToolUse", bash(command)).decision is None, command
    assert asked(db_path) == []
    assert hook("PreToolUse", bash(f"echo '{{}}' > {claude_dir / 'settings.json'}")).decision == "ask"
    assert json.loads((claude_dir / "settings.json").read_text()) == {"hooks": {}}
