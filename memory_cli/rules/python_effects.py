"""What a piece of Python would do to memory-cli's state, read from its syntax tree.

Two questions, asked by :mod:`.protected_state` only of code that names a protected file:

- :func:`reads_only` for code the agent runs now (``python3 -c``, ``python3 - <<EOF``): true
  only when every way the code could change a file or a database is ruled out — each SQL
  text given to ``execute`` is a literal that only reads, no file is opened for writing (save a
  named unprotected one), no file is removed, moved or changed in mode, no other program is
  started, and nothing is reached by a name computed at run time (``exec``, ``getattr``,
  ``__import__``, a module outside a short list of known ones). Anything else, or code that
  does not parse, is "may change": the person is asked.
- :func:`changes_when_run` for a Python file the agent writes (a test, a tool): the protected
  thing it would change when run, and only where the code says so in so many words — a
  literal path of this user's store, settings or caches handed to a call that writes it. A
  test that builds ``tmp / ".claude" / "settings.json"`` or holds a shell line as data changes
  nothing of the person's; the file's own path is judged by its target alone.

Standard library only; ``ast`` is imported only on these rare calls.
"""

from __future__ import annotations

import os

from .sql_words import SQL_WRITE_WORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .protected_state import Checker, Target

# Modules a reading snippet may import: none of them writes a file by a name this check
# does not see (their writers are listed below).
_KNOWN_MODULES = frozenset(
    {
        "sqlite3",
        "apsw",
        "json",
        "sys",
        "os",
        "os.path",
        "pathlib",
        "re",
        "datetime",
        "time",
        "collections",
        "pprint",
        "textwrap",
        "itertools",
        "functools",
        "math",
        "statistics",
        "base64",
        "hashlib",
        "struct",
        "contextlib",
        "csv",
        "string",
        "decimal",
        "fractions",
        "uuid",
        "zlib",
        "binascii",
        "__future__",
    }
)
# Functions of ``os`` that change the file their path argument names: a writer in a snippet run
# now, and in a file written now and run later.
_OS_PATH_WRITERS = frozenset(
    {
        "remove",
        "unlink",
        "rename",
        "renames",
        "replace",
        "rmdir",
        "removedirs",
        "chmod",
        "lchmod",
        "chown",
        "lchown",
        "truncate",
        "link",
        "symlink",
    }
)
# Functions of ``os`` that change files or start programs.
_OS_WRITERS = _OS_PATH_WRITERS | frozenset(
    {
        "fchmod",
        "fchown",
        "ftruncate",
        "mkdir",
        "makedirs",
        "mkfifo",
        "mknod",
        "utime",
        "write",
        "pwrite",
        "writev",
        "pwritev",
        "open",
        "fdopen",
        "system",
        "popen",
        "fork",
        "forkpty",
        "posix_spawn",
        "posix_spawnp",
        "sendfile",
        "copy_file_range",
        "splice",
        "setxattr",
        "removexattr",
        "chroot",
        "kill",
        "killpg",
        "dup2",
    }
)
_OS_PREFIXES = ("spawn", "exec")
# Methods that write whatever object they are called on (a path, a connection).
_METHOD_WRITERS = frozenset(
    {
        "executescript",
        "backup",
        "blobopen",
        "blob_open",
        "deserialize",
        "load_extension",
        "enable_load_extension",
        "loadextension",
        "enableloadextension",
        "file_control",
        "filecontrol",
        "wal_checkpoint",
        "write_text",
        "write_bytes",
        "unlink",
        "touch",
        "chmod",
        "lchmod",
        "mkdir",
        "rmdir",
        "symlink_to",
        "hardlink_to",
        "link_to",
        "rename",
        "rmtree",
        # a module reached through another (``pathlib.os.remove``, ``sys.modules["os"]``)
        "os",
        "sys",
        "io",
        "codecs",
        "shutil",
        "subprocess",
        "builtins",
        "importlib",
        "modules",
    }
)
# Names that reach code or objects by a value computed at run time.
_DYNAMIC = frozenset(
    {
        "exec",
        "eval",
        "compile",
        "__import__",
        "getattr",
        "setattr",
        "delattr",
        "globals",
        "locals",
        "vars",
        "breakpoint",
        "help",  # its pager is a program named by the environment
        "license",
        "credits",
        "copyright",
    }
)
_DUNDERS_READ = frozenset({"__name__", "__file__", "__doc__"})
# SQL statements that only read, and pragmas that only report.
_SQL_READ_START = ("select", "with", "values", "explain", "pragma")
_READ_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "foreign_key_check",
        "integrity_check",
        "quick_check",
        "database_list",
        "compile_options",
        "user_version",
        "schema_version",
        "application_id",
        "journal_mode",
        "page_size",
        "page_count",
        "freelist_count",
        "encoding",
        "collation_list",
        "function_list",
        "module_list",
        "pragma_list",
        "auto_vacuum",
        "foreign_keys",
        "data_version",
    }
)
_READ_PRAGMAS_WITH_ARG = frozenset(
    {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list", "foreign_key_check"}
)


def sql_reads_only(sql: str) -> bool:
    """Whether SQL text given to ``execute`` can only read: each statement a SELECT (WITH,
    VALUES, EXPLAIN) or a reporting PRAGMA, and no writing word anywhere outside its quoted
    strings (so ``WITH ... DELETE`` and ``SELECT load_extension(...)`` are writes)."""
    import re

    # strings and comments in one left-to-right pass: whichever opens first holds the other
    low = re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", " ", sql.lower(), flags=re.S)
    if "'" in low or '"' in low or "/*" in low:
        return False  # an unclosed quote or comment: not read with certainty
    words = set(re.findall(r"[a-z_][a-z0-9_]*", low))
    if words & SQL_WRITE_WORDS:
        return False
    for stmt in low.split(";"):
        stmt = stmt.strip()
        if not stmt:
            continue
        if not stmt.startswith(_SQL_READ_START):
            return False
        if stmt.startswith("pragma"):
            m = re.fullmatch(r"pragma\s+(?:\w+\.)?(\w+)\s*(\(\s*\w+\s*\))?", stmt)
            if m is None or m.group(1) not in (_READ_PRAGMAS_WITH_ARG if m.group(2) else _READ_PRAGMAS):
                return False
    return True


# Options of the interpreter that take the next word as their value.
_VALUE_OPTIONS = frozenset({"-W", "-X", "--check-hash-based-pycs"})


def code_run_by(command, raw: str) -> list[str] | None:
    """The Python code a ``python`` simple command runs, when the line holds all of it: the
    word after ``-c``, or the bodies of the line's heredocs fed to a ``python -``; None when
    the code is elsewhere (a script, a module, a pipe) or the shell fills parts of it in at
    run time (``$X`` in a double-quoted ``-c`` or an unquoted heredoc)."""
    args = command.args
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-c" or (a.startswith("-") and not a.startswith("--") and a.endswith("c") and a[1:-1].isalpha()):
            if i + 1 >= len(args) or args[i + 1] in command.dynamic:
                return None
            return [args[i + 1]]
        if a in _VALUE_OPTIONS:
            i += 2
            continue
        if a == "-" or not a.startswith("-") or a.startswith("-m"):
            if a != "-":
                return None  # a script file or a module: its code is not on the line
            break
        i += 1
    return _python_heredocs(raw)


def _python_heredocs(raw: str) -> list[str] | None:
    """The bodies of every heredoc given to a Python interpreter in ``raw``."""
    import re

    bodies = []
    for m in re.finditer(r"\b(?:python|pypy)[\w.]*[^\n;|&<]*?<<(-?)[ \t]*(['\"]?)([\w.-]+)\2[^\n]*\n", raw):
        strip, quoted, delim = m.group(1), m.group(2), m.group(3)
        lines = []
        for line in raw[m.end() :].split("\n"):
            if (line.lstrip("\t") if strip else line) == delim:
                break
            lines.append(line.lstrip("\t") if strip else line)
        else:
            return None  # no closing line
        body = "\n".join(lines)
        if not quoted and ("$" in body or "`" in body or "\\" in body):
            return None  # the shell expands it first
        bodies.append(body)
    return bodies or None


def _parse(code: str):
    import ast

    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _const_str(node) -> str | None:
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _mode_writes(node) -> bool | None:
    """Whether an ``open`` mode writes (None: not a literal, unknown)."""
    mode = _const_str(node)
    if mode is None:
        return None
    return any(ch in mode for ch in "wax+")


def _parents(tree) -> dict:
    import ast

    out = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            out[child] = parent
    return out


def reads_only(code: str, checker: Checker) -> bool:
    """Whether ``code``, run now, can only read (see the module's doc); unsure is False."""
    import ast

    tree = _parse(code)
    if tree is None:
        return False
    imported = _imports(tree)
    if imported is None:
        return False
    modules, uses_pathlib = imported
    parents = _parents(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id in _DYNAMIC or (node.id.startswith("__") and node.id not in _DUNDERS_READ):
                return False
            if node.id in modules and not isinstance(parents.get(node), ast.Attribute):
                return False  # a module passed around under another name
        elif isinstance(node, ast.Attribute):
            if not _attribute_reads(node, modules, uses_pathlib, parents):
                return False
        elif isinstance(node, ast.Call) and not _call_reads(node, modules, checker):
            return False
    return True


def _imports(tree) -> tuple[dict[str, str], bool] | None:
    """The modules the code binds (local name -> module) and whether it uses ``pathlib``;
    None when it imports a module outside the known list or a writer by name."""
    import ast

    modules: dict[str, str] = {}
    uses_pathlib = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name not in _KNOWN_MODULES:
                    return None
                top = a.name.split(".")[0]
                modules[a.asname or top] = a.name if a.asname else top
                uses_pathlib |= a.name == "pathlib"
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module not in _KNOWN_MODULES:
                return None
            uses_pathlib |= node.module == "pathlib"
            for a in node.names:
                if a.name == "*" and node.module in ("os", "pathlib", "sys"):
                    return None
                if node.module == "os" and (a.name in _OS_WRITERS or a.name.startswith(_OS_PREFIXES)):
                    return None
                if node.module == "sys" and a.name in ("modules", "path"):
                    return None
                if node.module == "os" and a.name == "path":
                    modules[a.asname or a.name] = "os.path"
    return modules, uses_pathlib


def _attribute_reads(node, modules: dict[str, str], uses_pathlib: bool, parents: dict) -> bool:
    """Whether reaching this attribute leaves files alone (``os.remove``, ``Path.unlink``,
    ``conn.executescript``, ``sys.modules``, a dunder do not)."""
    import ast

    name = node.attr
    if (name.startswith("_") and name not in _DUNDERS_READ) or name in _METHOD_WRITERS:
        return False  # a private name (``datetime._sys``) reaches modules this check does not list
    mod = modules.get(node.value.id) if isinstance(node.value, ast.Name) else None
    if mod == "os" and (name in _OS_WRITERS or name.startswith(_OS_PREFIXES)):
        return False
    if mod == "sys" and name in ("modules", "path"):
        return False  # a changed import path runs other code under a known name
    if name == "replace" and uses_pathlib:
        return False  # Path.replace, not str.replace
    call = parents.get(node)
    # apsw's Connection.pragma(name, value) sets it
    return not (
        name == "pragma"
        and isinstance(call, ast.Call)
        and call.func is node
        and len(call.args) + len(call.keywords) > 1
    )


def _call_reads(call, modules: dict[str, str], checker: Checker) -> bool:
    """Whether this call leaves files and databases as they are, as far as can be told."""
    import ast

    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name in ("execute", "executemany") and isinstance(func, ast.Attribute):
        sql = (
            call.args[0]
            if call.args
            else next((k.value for k in call.keywords if k.arg in ("sql", "statements")), None)
        )
        text = _const_str(sql) if sql is not None else None
        return text is not None and sql_reads_only(text)
    if name == "open":
        if any(k.arg == "opener" or k.arg is None for k in call.keywords):
            return False
        method = isinstance(func, ast.Attribute)
        if method and len(call.args) > 1:
            return False  # codecs.open(path, mode) reached some other way: not told apart
        mode_pos = 0 if method else 1
        mode = (
            call.args[mode_pos]
            if len(call.args) > mode_pos
            else next((k.value for k in call.keywords if k.arg == "mode"), None)
        )
        writes = False if mode is None else _mode_writes(mode)
        if writes is False:
            return True
        if method or not call.args:
            return False
        path = _const_str(call.args[0])  # results written to a named file of its own
        return path is not None and checker.touched(path) is None
    # any other call is fine as far as its own name goes: its parts (a dynamic name, a
    # writer reached as an attribute) are walked on their own
    return not (isinstance(func, ast.Name) and name in _DYNAMIC)


# -- a Python file written now, run later ------------------------------------------------------
# What changes the file a call names: ``os``'s writers, ``shutil``'s and ``pathlib``'s.
_WRITE_CALLS = _OS_PATH_WRITERS | frozenset(
    {
        "rmtree",
        "write_text",
        "write_bytes",
        "touch",
        "move",
        "copy",
        "copy2",
        "copyfile",
        "copytree",
        "symlink_to",
        "hardlink_to",
    }
)
_RUN_CALLS = frozenset(
    {"run", "call", "check_call", "check_output", "Popen", "system", "popen", "getoutput", "getstatusoutput"}
)
_COPY_TO = frozenset({"copy", "copy2", "copyfile", "copytree", "symlink", "link"})


def changes_when_run(code: str, checker: Checker) -> Target | None:
    """The protected thing a Python file would change when run, where its code names it
    literally (see the module's doc); None when it does not, or does not parse."""
    import ast

    tree = _parse(code)
    if tree is None:
        return None
    calls, assigns = _calls_and_assignments(tree)
    names = _single_assignments(assigns)
    store: Target | None = None
    sql_texts: list = []
    for node in calls:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name is None:
            continue
        if name in _WRITE_CALLS:
            for p in _written_paths(node, name):
                t = _protected(p, names, checker, ancestors=name in ("rmtree", "remove", "unlink", "rename", "move"))
                if t is not None:
                    return t
        elif name == "open" and node.args:
            mode = (
                node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
            )
            if mode is not None and _mode_writes(mode):
                t = _protected(node.args[0], names, checker)
                if t is not None:
                    return t
        elif name in _RUN_CALLS and node.args:
            line = _command_line(node.args[0], names)
            if line:
                hit = checker.check_command(line)
                if hit is not None and hit[1] is not None:
                    return hit[1]
        elif name in ("connect", "Connection") and node.args:
            store = store or _protected(node.args[0], names, checker)
        elif name in ("execute", "executemany", "executescript") and node.args:
            sql_texts.append(node.args[0])
    if store is not None:
        for sql in sql_texts:
            text = _const_str(sql)
            if text is None or not sql_reads_only(text):
                return store
    return None


def _written_paths(call, name: str) -> list:
    """The expressions naming what a writing call changes: ``os.remove(P)``, ``shutil.copy(S,
    P)``, ``Path(P).unlink()`` (a method: the path it is called on)."""
    import ast

    func = call.func
    module_call = isinstance(func, ast.Name) or (
        isinstance(func.value, ast.Name) and func.value.id in ("os", "shutil", "pathlib")
    )
    if not module_call:
        return [func.value]
    if name in _COPY_TO:
        return list(call.args[1:2])  # what is written is the destination
    if name in ("move", "rename", "renames", "replace"):
        return list(call.args[:2])
    return list(call.args[:1])


def _calls_and_assignments(tree) -> tuple[list, list]:
    """Every call and every assignment in the tree, in one pass (``ast.walk`` is several times
    slower on the large files an agent writes)."""
    import ast

    calls: list = []
    assigns: list = []
    stack = [tree]
    node_type, call_type, assign_type = ast.AST, ast.Call, ast.Assign
    while stack:
        node = stack.pop()
        if isinstance(node, call_type):
            calls.append(node)
        elif isinstance(node, assign_type):
            assigns.append(node)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, node_type))
            elif isinstance(value, node_type):
                stack.append(value)
    calls.reverse()  # in reading order, near enough
    return calls, assigns


def _single_assignments(assigns: list) -> dict:
    """Names assigned exactly once (``DB = "~/.claude/memory/memory.db"``), to their value."""
    import ast

    seen: dict = {}
    for node in assigns:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            key = node.targets[0].id
            seen[key] = None if key in seen else node.value
    return {k: v for k, v in seen.items() if v is not None}


def _path_value(node, names: dict, depth: int = 0) -> str | None:
    """The path an expression stands for when the code spells it out: a literal, ``~``,
    ``Path.home() / ".claude"``, ``os.path.join``/``expanduser`` of those; else None."""
    import ast

    if depth > 8:
        return None
    s = _const_str(node)
    if s is not None:
        return s
    if isinstance(node, ast.Name) and node.id in names:
        return _path_value(names[node.id], names, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left = _path_value(node.left, names, depth + 1)
        right = _path_value(node.right, names, depth + 1)
        return None if left is None or right is None else os.path.join(left, right)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                inner = _path_value(v.value, names, depth + 1)
                if inner is None:
                    return None
                parts.append(inner)
            else:
                parts.append(_const_str(v) or "")
        return "".join(parts)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name == "home" and not node.args:
            return "~"
        if name in ("expanduser", "resolve", "absolute") and isinstance(func, ast.Attribute) and not node.args:
            return _path_value(func.value, names, depth + 1)  # Path(...).expanduser()
        if name in ("Path", "PurePath", "PosixPath", "expanduser", "abspath", "realpath", "join", "fspath", "str"):
            if not node.args:
                return None
            joined: list[str] = []
            for a in node.args:
                part = _path_value(a, names, depth + 1)
                if part is None:
                    return None
                joined.append(part)
            return os.path.join(*joined)
    return None


def _protected(node, names: dict, checker: Checker, ancestors: bool = False) -> Target | None:
    path = _path_value(node, names)
    if not path:
        return None
    return checker.touched(path, ancestors=ancestors)


def _command_line(node, names: dict) -> str | None:
    """A shell line a ``subprocess``/``os.system`` call runs, when the code spells it out."""
    import ast
    import shlex

    s = _const_str(node)
    if s is not None:
        return s
    if isinstance(node, (ast.List, ast.Tuple)):
        words = [_path_value(e, names) for e in node.elts]
        if words and all(w is not None for w in words):
            return shlex.join(words)  # type: ignore[arg-type]
    return None
