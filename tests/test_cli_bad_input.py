"""Every command, enumerated from the CLI itself: bad input gets one line, an exit code, no
traceback, and what is already stored survives. New commands are covered automatically."""

import json

import pytest
import typer

from memory_cli.cli import app

ID_ARGS = {"entry_id", "rule_id"}
# Commands whose job is to run a whole session or talk to Claude Code: covered elsewhere.
SKIP = {("demo",), ("hook",)}


def _commands():
    root = typer.main.get_command(app)

    def walk(group, prefix=()):
        for name, sub in group.commands.items():
            if hasattr(sub, "commands"):
                yield from walk(sub, prefix + (name,))
            else:
                yield prefix + (name,), [p.name for p in sub.params if p.__class__.__name__ == "TyperArgument"]

    return [c for c in walk(root) if c[0] not in SKIP]


COMMANDS = _commands()


def _assert_one_line(r, codes):
    assert r.returncode in codes, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("memory-cli: error:"), r.stderr


@pytest.fixture
def precious(cli):
    eid = cli("add", "Precious memory that must survive", "--type", "fact").stdout.strip()
    yield eid
    shown = json.loads(cli("show", eid, "--json").stdout)
    assert shown["content"] == "Precious memory that must survive" and shown["status"] == "active"


@pytest.mark.parametrize("path,args", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_unknown_option_is_a_one_line_usage_error(cli, precious, path, args):
    _assert_one_line(cli(*path, "--no-such-option"), {2})


ID_COMMANDS = [(p, a) for p, a in COMMANDS if a and a[0] in ID_ARGS]


@pytest.mark.parametrize("path,args", ID_COMMANDS, ids=[" ".join(c[0]) for c in ID_COMMANDS])
def test_unknown_id_is_a_one_line_error(cli, precious, path, args):
    extra = ["--content", "x"] if path == ("supersede",) else (["--content", "x"] if path == ("update",) else [])
    extra += ["--yes"] if path[-1] == "delete" else []
    _assert_one_line(cli(*path, "ffffffff-nope", *extra), {2, 3})


def test_corrupt_database_refused_by_every_command_that_opens_it(tmp_path, cli):
    bad = tmp_path / "broken.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x07" * 5000)
    before = bad.read_bytes()
    for path, args in COMMANDS:
        if path in {
            ("install",),
            ("uninstall",),
            ("config",),
            ("config", "get"),
            ("config", "set"),
            ("config", "unset"),
            ("config", "list"),
            ("instructions",),
            ("daemon", "stop"),
            ("daemon", "status"),
            ("daemon", "start"),
            ("doctor",),
            ("maintenance", "status"),
        }:
            continue  # these do not need the database to do their job
        argv = list(path)
        if args and args[0] in ID_ARGS:
            argv.append("abcd1234")
        elif args:
            argv.append(
                {
                    "content_arg": "x",
                    "text": "x",
                    "file": str(tmp_path / "none.jsonl"),
                    "paths": str(tmp_path),
                    "path": str(tmp_path / "none.db"),
                    "directory": str(tmp_path),
                }.get(args[0], "x")
            )
        if path == ("enforce",):
            argv += ["--tool", "Bash", "--input", "ls"]
        if path == ("capture",):
            argv += ["--user-message", "never use pythonw.exe"]
        if path == ("inject",):
            argv += ["--session-context", "{}"]
        r = cli(*argv, db=bad)
        assert r.returncode != 0 and "Traceback" not in r.stderr, (argv, r.stderr)
        assert bad.read_bytes() == before, argv
