"""settings.value: one way to read a setting, its default taken from the field table."""

import json

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
