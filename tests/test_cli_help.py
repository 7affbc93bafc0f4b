"""`memory-cli --help` as a newcomer reads it: commands grouped under panels, each with its
whole description (never cut with "..."), on a wide terminal and within 80 columns."""

from __future__ import annotations

import os
import re
import subprocess

from helpers.cli import _cmd

PANELS = ["Everyday", "Rules", "Review", "Maintenance", "Team", "Agents", "Servers"]


def _help(*args: str, columns: int) -> str:
    env = dict(os.environ, COLUMNS=str(columns))
    r = subprocess.run(_cmd() + [*args, "--help"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _cut(out: str) -> list[str]:
    """Description lines click shortened (they end in "..."; the usage line's [ARGS]... is not one)."""
    return [ln for ln in out.splitlines() if ln.endswith("...") and not ln.startswith("Usage:")]


def test_top_level_help_is_grouped_in_panels_with_whole_descriptions():
    from memory_cli.cli import click_command
    from memory_cli.cli.panels import first_paragraph

    out = _help(columns=200)
    headers = [ln[:-1] for ln in out.splitlines() if re.fullmatch(r"[A-Z][a-z]+:", ln)]
    assert headers == ["Options"] + PANELS, f"{headers}: give each new command a panel in memory_cli/cli/panels.py"
    assert not _cut(out)
    flat = " ".join(out.split())
    root = click_command()
    for name, cmd in root.commands.items():
        if cmd.hidden:
            continue
        assert re.search(rf"^  {re.escape(name)}\s", out, re.M), name
        assert first_paragraph(cmd.help) in flat, name  # whole, wrapped at most


def test_help_fits_80_columns_and_subcommands_are_whole_too():
    for args in ((), ("rules",), ("team",)):
        out = _help(*args, columns=80)
        assert max(len(ln) for ln in out.splitlines()) <= 80, args
        assert not _cut(out), args


def test_every_option_of_every_command_says_what_it_does():
    """`--help` of any command describes each of its options (`rules test` once listed six bare)."""
    import click

    from memory_cli.cli import click_command

    bare = []

    def walk(cmd: click.Command, path: list[str]) -> None:
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(sub, [*path, name])
            return
        bare.extend(
            (" ".join(path), p.opts[0])
            for p in cmd.params
            if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip()
        )

    walk(click_command(), [])
    assert bare == [], f"options without help: {bare}"
