"""The layering the code keeps: SQL on a table lives in the module that owns the table, and the
edges (CLI, dashboard, MCP server, daemon, doctor checks, the hook adapter and each area's hook
handlers, install, demo) hold none.

docs/ARCHITECTURE.md ("Who owns each table") lists the owners and the read models.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "memory_cli"

# The methods of Store (and an apsw connection) that run a statement.
RUNNERS = frozenset({"rows", "row", "value", "execute", "executemany"})
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|PRAGMA|CREATE|DROP|ALTER|VACUUM)\b", re.I)
TABLE = re.compile(r"\b(?:FROM|INTO|UPDATE|JOIN)\s+([A-Za-z_]\w*)", re.I)

# Read models: modules that read several owners' tables at once to answer one question. They are
# not edges; they are named here so a new one is a decision, not an accident.
READ_MODELS = {
    "memory_cli/stats.py": "counts for `memory-cli stats` and the dashboard's overview",
    "memory_cli/rules/proof.py": "what each rule did in hooks, read from the audit log",
}

# Edge statements allowed, by (module, table): none. An entry here is a decision to leave SQL in
# an edge for a while, to be removed once its module no longer needs it.
ALLOWED: set[tuple[str, str]] = set()


def edge_modules() -> list[Path]:
    found = {
        *PKG.glob("cli/*.py"),
        *PKG.glob("web/*.py"),
        *PKG.glob("mcp/*.py"),
        *PKG.glob("daemon/*.py"),
        *PKG.rglob("doctor.py"),
        *PKG.glob("hooks/*.py"),
        *PKG.rglob("hook.py"),
        PKG / "__main__.py",
        *PKG.glob("install*.py"),
        PKG / "demo.py",
    }
    return sorted(p for p in found if p.exists())


def _text(node: ast.AST) -> str:
    """The literal text of a string expression: constants, f-strings' literal parts, ``+`` joins."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else ""
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(v) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return " ".join(_text(n) for n in ast.iter_child_nodes(node))


def sql_statements(source: str) -> list[tuple[int, str]]:
    """(line, statement) for every SQL string passed to ``x.rows/row/value/execute/executemany``,
    given inline or through a name bound to a string in the same module."""
    tree = ast.parse(source)
    named: dict[str, str] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            text = _text(n.value)
            if SQL.search(text):
                for t in n.targets:
                    if isinstance(t, ast.Name):
                        named[t.id] = text
    out = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in RUNNERS):
            continue
        if not n.args:
            continue
        arg = n.args[0]
        text = named.get(arg.id, "") if isinstance(arg, ast.Name) else _text(arg)
        if SQL.search(text):
            out.append((n.lineno, " ".join(text.split())))
    return sorted(out)


def tables_of(statement: str) -> set[str]:
    if re.match(r"\s*PRAGMA\b", statement, re.I):
        return {"pragma"}
    return {t.lower() for t in TABLE.findall(statement)} or {"?"}


def edge_sql() -> dict[str, list[tuple[int, str, set[str]]]]:
    found: dict[str, list] = {}
    for path in edge_modules():
        rel = path.relative_to(ROOT).as_posix()
        for line, stmt in sql_statements(path.read_text(encoding="utf-8")):
            found.setdefault(rel, []).append((line, stmt, tables_of(stmt)))
    return found


def test_the_scan_sees_sql_passed_inline_through_a_name_and_as_an_f_string():
    source = (
        "Q = ('SELECT count(*) FROM memory_entries'\n     ' WHERE status = ?')\n"
        "def f(store, s, t):\n"
        "    store.value(Q, ('active',))\n"
        "    s.rows(f'SELECT * FROM {t} WHERE id = ?', (1,))\n"
        "    store.conn.execute('PRAGMA user_version')\n"
        "    store.execute('''\n        DELETE FROM kv WHERE key = ?''', ('k',))\n"
        "    subprocess.run(['git', 'status'])\n"
        "    print('SELECT this option')\n"
    )
    found = sql_statements(source)
    assert [line for line, _ in found] == [4, 5, 6, 7]
    assert [tables_of(s) for _, s in found] == [{"memory_entries"}, {"?"}, {"pragma"}, {"kv"}]


def test_edges_cover_the_cli_dashboard_mcp_doctors_hooks_install_and_demo():
    rels = {p.relative_to(ROOT).as_posix() for p in edge_modules()}
    for expected in (
        "memory_cli/cli/entries_cmds.py",
        "memory_cli/web/api_memories.py",
        "memory_cli/mcp/server.py",
        "memory_cli/doctor.py",
        "memory_cli/rules/doctor.py",
        "memory_cli/hooks/runner.py",
        "memory_cli/rules/hook.py",
        "memory_cli/install.py",
        "memory_cli/demo.py",
    ):
        assert expected in rels


def test_no_edge_module_holds_sql():
    offending = []
    for rel, statements in edge_sql().items():
        for line, stmt, tables in statements:
            if all((rel, t) in ALLOWED for t in tables):
                continue
            offending.append(f"{rel}:{line}: {stmt[:100]}")
    assert not offending, (
        "SQL in an edge module; move it into a function of the module that owns the table "
        "(docs/ARCHITECTURE.md, 'Who owns each table') and call that:\n" + "\n".join(offending)
    )


def test_every_allowed_edge_statement_is_still_there():
    present = {(rel, t) for rel, statements in edge_sql().items() for _, _, tables in statements for t in tables}
    stale = sorted(ALLOWED - present)
    assert not stale, f"no longer needed, remove from ALLOWED: {stale}"


@pytest.mark.parametrize("rel", sorted(READ_MODELS))
def test_a_read_model_says_so_in_its_docstring(rel):
    doc = ast.get_docstring(ast.parse((ROOT / rel).read_text(encoding="utf-8"))) or ""
    assert "read model" in doc.lower(), f"{rel}: say in the docstring that it is a read model"


def test_the_architecture_doc_names_every_read_model():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for rel in READ_MODELS:
        assert f"`{rel.removeprefix('memory_cli/')}`" in text, rel


# ------------------------------------------------------------------ only the owner writes


# Who may write each table (INSERT, UPDATE, DELETE, REPLACE), inside the domain as at the edges.
# A table written by a module not listed fails the test below; so does a new table nobody owns.
# The two the house cares most about have one owner each: ``memory_entries`` (entries.py, whose
# functions the other areas call for a counter, a pin, a decay step or a review decision) and
# ``enforcement_rules`` (rules/api.py, through its one door, ``write_rule``).
OWNERS: dict[str, set[str]] = {
    "memory_entries": {"memory_cli/entries.py"},
    "enforcement_rules": {"memory_cli/rules/api.py"},
    "corrections": {
        "memory_cli/capture/corrections.py",  # capture, storage, counts
        "memory_cli/capture/lessons.py",  # the agent's lessons
        "memory_cli/capture/recurring.py",  # recurring instructions grouped across sessions
        "memory_cli/capture/promotion.py",  # status on promotion
        "memory_cli/review.py",  # status and the person's edit on review
    },
    "capture_prompts": {"memory_cli/capture/lessons.py"},
    "capture_marker_seen": {"memory_cli/capture/lifecycle.py"},
    "memory_audit_log": {"memory_cli/audit.py", "memory_cli/maintenance/retention.py"},
    "kv": {"memory_cli/store/kvstate.py"},
    "session_injections": {"memory_cli/retrieval/inject.py", "memory_cli/entries.py"},
    "incidents": {"memory_cli/incidents/api.py"},
    "session_reports": {"memory_cli/reports/api.py"},
    "metric_samples": {"memory_cli/baselines/api.py"},
    "team_entries": {"memory_cli/team/api.py", "memory_cli/team/sync.py"},
    "team_exchanged": {"memory_cli/team/sync.py"},
    "schema_migrations": {"memory_cli/store/migrations.py"},
    "lesson_forms": {"memory_cli/checks/forms.py"},
}

#: The one function of ``rules/api.py`` that changes what a rule enforces, and the counter beside it.
RULE_DOOR = {"write_rule", "record_violation"}

WRITE = re.compile(
    r"^\s*(?:WITH\b.*?\)\s*)?(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)"
    r"\s+([A-Za-z_]\w*)",
    re.I | re.S,
)


def migration_steps() -> set[tuple[str, str]]:
    """(module path, function) of every area's schema migration listed in migrations.py: a
    migration rewrites whatever its step needs, once, and is never edited after it ships."""
    source = (PKG / "store" / "migrations.py").read_text(encoding="utf-8")
    steps = set()
    for m in re.finditer(r'_area\(\s*"memory_cli\.([\w.]+)"(?:\s*,\s*"(\w+)")?', source):
        steps.add(("memory_cli/" + m.group(1).replace(".", "/") + ".py", m.group(2) or "apply_schema"))
    return steps


def writes_by_function(source: str) -> list[tuple[str, int, str]]:
    """(enclosing top-level function or "", line, table) of every write statement in ``source``."""
    tree = ast.parse(source)
    out = []
    for top in tree.body:
        name = top.name if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) else ""
        if isinstance(top, ast.ClassDef):
            name = top.name
        chunk = ast.Module(body=[top], type_ignores=[])
        for line, stmt in sql_statements(ast.unparse(chunk)):
            m = WRITE.search(stmt)
            if m:
                out.append((name, top.lineno + line - 1, m.group(1).lower()))
    return out


def table_writes() -> list[tuple[str, str, int, str]]:
    """(module, function, line, table) of every write outside the migrations."""
    steps = migration_steps()
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "memory_cli/store/migrations.py":
            found += [(rel, f, n, t) for f, n, t in writes_by_function(path.read_text(encoding="utf-8"))]
            continue
        for func, line, table in writes_by_function(path.read_text(encoding="utf-8")):
            if (rel, func) not in steps:
                found.append((rel, func, line, table))
    return found


def test_the_write_scan_finds_each_table_and_its_function():
    source = (
        "def a(store):\n"
        "    store.execute('INSERT OR IGNORE INTO kv(key) VALUES (?)', ('k',))\n"
        "def b(store, sets):\n"
        '    store.execute(f"UPDATE memory_entries SET {sets} WHERE id = ?", (1,))\n'
        "    store.execute('DELETE FROM corrections WHERE id = ?', (1,))\n"
        "    store.rows('SELECT * FROM enforcement_rules')\n"
    )
    assert writes_by_function(source) == [("a", 2, "kv"), ("b", 4, "memory_entries"), ("b", 5, "corrections")]


def test_only_the_owner_writes_each_table():
    offending = [
        f"{rel}:{line} ({func or 'module'}) writes {table}; its owner is {sorted(OWNERS.get(table, {'nobody yet'}))}"
        for rel, func, line, table in table_writes()
        if rel not in OWNERS.get(table, set())
    ]
    assert not offending, (
        "a table written outside its owner: call a function of the owner instead (docs/ARCHITECTURE.md, "
        "'Who owns each table'), or name a new table's owner in OWNERS:\n" + "\n".join(offending)
    )


def test_every_owner_listed_still_writes_its_table():
    present = {(rel, table) for rel, _, _, table in table_writes()}
    stale = sorted((rel, table) for table, owners in OWNERS.items() for rel in owners if (rel, table) not in present)
    assert not stale, f"no longer writes the table, remove from OWNERS: {stale}"


def test_a_rule_is_written_through_one_door():
    writers = {func for rel, func, _, table in table_writes() if table == "enforcement_rules"}
    assert writers <= RULE_DOOR, (
        f"enforcement_rules written outside rules.api.write_rule: {sorted(writers - RULE_DOOR)}"
    )
    source = (PKG / "rules" / "api.py").read_text(encoding="utf-8")
    counter = [n for f, n, t in writes_by_function(source) if f == "record_violation" and t == "enforcement_rules"]
    assert len(counter) == 1  # last_violation_at; an escalated severity goes through the door


def test_the_architecture_doc_names_the_owners_of_every_table():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    text = text.split("## Who owns each table", 1)[1].split("\n## ", 1)[0]
    for table, owners in OWNERS.items():
        row = next((line for line in text.splitlines() if line.startswith("| `") and f"`{table}`" in line), None)
        assert row is not None, f"docs/ARCHITECTURE.md names no owner of {table}"
        for rel in owners:
            assert f"`{rel.removeprefix('memory_cli/')}`" in row, f"{table}: the doc does not name {rel}"


# Tests share helpers through tests/helpers/ (and tests/e2e's own modules), never through a
# conftest: a conftest holds fixtures and pytest hooks, and importing it by name loads it a second
# time as a plain module beside the one pytest registered.
TESTS = ROOT / "tests"


def conftest_imports(source: str) -> list[tuple[int, str]]:
    """(line, statement) of every import of a ``conftest`` module in ``source``, at any depth."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names = [a.name for a in node.names]
            if module.split(".")[-1] == "conftest" or (not node.module and "conftest" in names):
                found.append((node.lineno, f"from {module} import {', '.join(names)}"))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names if a.name.split(".")[-1] == "conftest"]
    return found


def test_the_conftest_scan_sees_each_way_of_importing_one():
    source = (
        "from conftest import payload\n"
        "from tests.conftest import run_cli\n"
        "from .conftest import REPO\n"
        "from . import conftest\n"
        "import tests.e2e.conftest\n"
        "def f():\n"
        "    from conftest import add_rule\n"
        "from helpers.hooks import payload\n"
        "from .sessions import E2EHome\n"
    )
    assert [line for line, _ in conftest_imports(source)] == [1, 2, 3, 4, 5, 7]


def test_no_test_or_script_imports_from_a_conftest():
    offending = [
        f"{path.relative_to(ROOT)}:{line}: {stmt}"
        for path in sorted([*TESTS.rglob("*.py"), *(ROOT / "scripts").rglob("*.py")])
        if "artifacts" not in path.parts
        for line, stmt in conftest_imports(path.read_text(encoding="utf-8"))
    ]
    assert not offending, (
        "a conftest imported by name: move the helper into tests/helpers/ (or a module of tests/e2e/) "
        "and import it from there:\n" + "\n".join(offending)
    )


def test_the_top_of_tests_holds_only_test_files_and_the_conftest():
    loose = sorted(p.name for p in TESTS.glob("*.py") if p.name != "conftest.py" and not p.name.startswith("test_"))
    assert not loose, f"helper modules belong in tests/helpers/: {loose}"
