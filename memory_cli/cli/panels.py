"""`memory-cli --help` grouped the way people scan it, with whole descriptions.

Forty-odd commands in one flat list, each cut to the width click allows for a short help (about
55 characters, whatever the terminal's width), hid what memory-cli can do. Each command belongs
to a panel (typer's ``rich_help_panel``), the top-level help lists the panels in this order, and
every command's description is the first paragraph of its docstring, wrapped rather than cut.
"""

from __future__ import annotations

import typer.core

# Panel -> commands, in the order shown. A command missing here is listed under "More".
PANELS: dict[str, tuple[str, ...]] = {
    "Everyday": ("add", "query", "list", "show", "update", "archive", "supersede", "delete", "stats", "audit"),
    "Rules": ("rules", "enforce", "import-rules", "pin", "unpin", "pins"),
    "Review": ("review", "capture", "instructions", "lessons", "checks"),
    "Maintenance": (
        "install",
        "uninstall",
        "doctor",
        "config",
        "backup",
        "restore",
        "export",
        "import",
        "import-markdown",
        "purge",
        "decay",
        "compact",
        "reindex",
        "maintenance",
        "demo",
    ),
    "Team": ("share", "unshare", "team"),
    "Agents": ("incidents", "reports", "baselines", "summarize", "inject", "hook"),
    "Servers": ("serve", "mcp", "daemon"),
}
OTHER = "More"
_PANEL_OF = {name: panel for panel, names in PANELS.items() for name in names}

# Help is laid out up to this width on a wide terminal (click's default stops at 80).
MAX_CONTENT_WIDTH = 120


def panel_of(name: str) -> str:
    return _PANEL_OF.get(name, OTHER)


def first_paragraph(text: str | None) -> str:
    """A docstring's first paragraph as one line (click's ``\\b`` marker dropped)."""
    para = (text or "").strip().split("\n\n", 1)[0]
    return " ".join(w for w in para.split() if w != "\b")


def prepare(command):
    """Give every command in the tree its panel and its whole first paragraph as short help.
    (typer carries its own copy of click: groups are recognised by their ``commands``.)"""
    if isinstance(getattr(command, "commands", None), dict):
        for name, sub in command.commands.items():
            if getattr(sub, "rich_help_panel", None) is None:
                root = getattr(command, "parent_is_root", False)
                sub.rich_help_panel = panel_of(name) if root else None  # type: ignore[attr-defined]
            if not sub.short_help and sub.help:
                sub.short_help = first_paragraph(sub.help)
            if isinstance(getattr(sub, "commands", None), dict):
                sub.parent_is_root = False  # type: ignore[attr-defined]
                prepare(sub)
    return command


class PanelGroup(typer.core.TyperGroup):
    """The top-level group: commands listed under their panels."""

    parent_is_root = True

    def format_commands(self, ctx, formatter) -> None:
        rows: dict[str, list[tuple[str, str]]] = {}
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            panel = getattr(cmd, "rich_help_panel", None) or panel_of(name)
            rows.setdefault(panel, []).append((name, cmd.short_help or first_paragraph(cmd.help)))
        for panel in [*PANELS, OTHER]:
            if rows.get(panel):
                order = PANELS.get(panel, ())
                listed = sorted(rows[panel], key=lambda r: order.index(r[0]) if r[0] in order else len(order))
                with formatter.section(panel):
                    formatter.write_dl(listed)
