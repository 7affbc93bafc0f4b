"""The reference docs are generated from the code; these tests keep them from drifting and keep
every page the README links to in place."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import typer

ROOT = Path(__file__).resolve().parent.parent


def test_generated_docs_are_current():
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


def _commands(cmd, path=()):
    subs = getattr(cmd, "commands", None)
    if subs is None:
        yield path, cmd
        return
    for name, sub in subs.items():
        if not getattr(sub, "hidden", False):
            yield from _commands(sub, path + (name,))


def test_every_command_and_option_is_in_the_cli_reference():
    from memory_cli.cli import app

    text = (ROOT / "docs" / "cli.md").read_text()
    missing = []
    for path, cmd in _commands(typer.main.get_command(app)):
        heading = f"## `memory-cli {' '.join(path)}`"
        if heading not in text:
            missing.append(heading)
            continue
        section = text.split(heading, 1)[1].split("\n## ", 1)[0]
        for p in cmd.params:
            if (
                p.param_type_name == "option"
                and not getattr(p, "hidden", False)
                and not any(o in section for o in p.opts)
            ):
                missing.append(f"{' '.join(path)} {p.opts[0]}")
    assert missing == []


def test_readme_links_resolve():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert links, "the README links to its docs pages"
    assert [link for link in links if not (ROOT / link).exists()] == []
