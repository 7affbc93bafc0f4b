"""settings.value: one way to read a setting, its default taken from the field table."""

import ast
import json
from pathlib import Path

import pytest

from memory_cli import settings
from memory_cli.daemon import client


def _field_default(name):
    section, _, key = name.rpartition(".")
    return next(f[3] for f in settings.FIELDS if (f[0] or "") == section and f[1] == key)


def test_a_configured_key_wins_and_an_unset_one_takes_the_field_default(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"daemon": {"request_timeout_ms": 90}, "enforcement": {"enabled": False}}))
    s = settings.load(path)
    assert settings.value(s, "daemon.request_timeout_ms") == 90
    assert settings.value(s, "enforcement.enabled") is False
    assert settings.value(s, "verification.max_latency_ms") == _field_default("verification.max_latency_ms")
    assert settings.value(s, "database_path") is None


def test_a_bad_value_in_the_file_reads_as_the_default(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"daemon": {"request_timeout_ms": "fast"}}))
    s = settings.load(path)
    assert settings.value(s, "daemon.request_timeout_ms") == _field_default("daemon.request_timeout_ms")
    assert any("daemon.request_timeout_ms" in p for p in s.problems)


def test_plain_dicts_and_none_read_the_same_way():
    assert settings.value(None, "limits.per_scope") == _field_default("limits.per_scope")
    assert settings.value({}, "capture.agent_lessons") is True
    assert settings.value({"capture": None}, "capture.enabled") is True
    assert settings.value({"capture": {"enabled": False}}, "capture.enabled") is False
    # A list default is a fresh copy: a caller appending to it does not change the next read.
    settings.value(None, "llm.exclude_projects").append("x")
    assert settings.value(None, "llm.exclude_projects") == []


def test_an_unknown_name_is_an_error_not_a_silent_none():
    with pytest.raises(KeyError):
        settings.value(None, "daemon.request_timeout")


def test_the_daemon_client_waits_what_the_field_table_says():
    assert _field_default("daemon.request_timeout_ms") == client.DEFAULT_TIMEOUT_MS


# --------------------------------------------------------------------------- one style of read

_ROOT = Path(settings.__file__).resolve().parent
_SECTIONS = {f[0] for f in settings.FIELDS if f[0]}
_KEYS = {(f[0], f[1]) for f in settings.FIELDS}
_TOP_LEVEL = {f[1] for f in settings.FIELDS if f[0] is None}
# A dict read under one of these names is a read of the configuration.
_SETTINGS_NAMES = ("settings", "config", "cfg", "defaults(", "load(")


def _read_key(node: ast.AST) -> tuple[ast.AST, str] | None:
    """``(base, key)`` of ``base["key"]`` or ``base.get("key", ...)`` / ``base.section("key")``
    when it reads (a store into a settings dict is ``config set``'s business, not a read)."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        return node.value, node.slice.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "section")
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.func.value, node.args[0].value
    return None


def _unwrapped(node: ast.AST) -> ast.AST:
    """``x`` of ``(x or {})``: the spelling that guards a missing section."""
    while isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        node = node.values[0]
    return node


def old_style_reads(source: str) -> list[tuple[int, str]]:
    """The settings read past :func:`settings.value` in ``source``: a field read through its
    section (``s["daemon"]["autostart"]``, ``(s.get("capture") or {}).get("enabled")``), a
    section taken from something named as the configuration, or ``Settings.section``."""
    tree = ast.parse(source)
    written = set()  # settings["daemon"] in settings["daemon"]["autostart"] = ...: a write's path
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            base = node.value
            while isinstance(base, ast.Subscript):
                written.add(id(base))
                base = base.value
    found = []
    for node in ast.walk(tree):
        read = _read_key(node)
        if read is None or id(node) in written:
            continue
        base, key = read
        outer = _read_key(_unwrapped(base))
        through_section = outer is not None and outer[1] in _SECTIONS and (outer[1], key) in _KEYS
        named = any(n in ast.unparse(base).lower() for n in _SETTINGS_NAMES)
        by_section_method = isinstance(node, ast.Call) and node.func.attr == "section"  # type: ignore[attr-defined]
        if through_section or by_section_method or (named and (key in _SECTIONS or key in _TOP_LEVEL)):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_scan_sees_each_old_spelling_and_leaves_writes_and_other_dicts_alone():
    old = [
        'x = settings["daemon"]["autostart"]',
        'x = s["backup"]["max_backups"]',
        'x = (settings or {}).get("retrieval") or {}',
        'x = (s.get("capture") or {}).get("enabled", True)',
        'x = ctx.settings.section("capture")',
        'x = settings_mod.load()["embedding"]["backend"]',
        'x = dict(defaults()["llm"])',
        'x = cfg.get("database_path")',
    ]
    for line in old:
        assert old_style_reads(line), line
    fine = [
        'settings["daemon"]["autostart"] = False',
        'x = value(settings, "daemon.autostart")',
        'x = row["embedding"]',
        'x = out["team"]',
        'x = payload["tool_input"]["command"]',
    ]
    for line in fine:
        assert not old_style_reads(line), line


def test_every_setting_is_read_through_settings_value():
    offenders = []
    for path in sorted(_ROOT.rglob("*.py")):
        if path.name == "settings.py" and path.parent == _ROOT:
            continue  # the accessor itself, and load() filling the sections
        for line, text in old_style_reads(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(_ROOT.parent)}:{line}: {text}")
    assert not offenders, "read these with settings.value(settings, 'section.key'):\n" + "\n".join(offenders)
