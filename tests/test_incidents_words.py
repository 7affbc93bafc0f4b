"""Incidents take the words agents and alerting tools use: their severities, and a search by
service or alert name."""

from __future__ import annotations

import json

import pytest

from memory_cli.errors import InvalidInput
from memory_cli.incidents import api


@pytest.mark.parametrize(
    "said, stored",
    [
        ("warning", "medium"),
        ("WARN", "medium"),
        ("info", "low"),
        ("error", "high"),
        ("fatal", "critical"),
        ("P1", "critical"),
        ("sev2", "high"),
        ("High", "high"),
    ],
)
def test_common_severities_are_accepted_and_mapped(store, said, stored):
    inc = api.record(store, "Disk almost full", "93% used on /var", severity=said, embed_timeout_ms=0)
    assert inc["severity"] == stored


def test_an_unknown_severity_is_refused_with_the_words_that_work(store):
    with pytest.raises(InvalidInput, match="unknown severity 'purple'.*critical.*warning"):
        api.record(store, "Disk almost full", "93% used on /var", severity="purple", embed_timeout_ms=0)
    assert api.list_incidents(store) == []


def _three(store):
    a = api.record(store, "HighLatency on checkout", "p99 above 2 s", service="checkout-api", embed_timeout_ms=0)
    b = api.record(store, "Pods restarting", "alert KubePodCrashLooping fired", service="billing", embed_timeout_ms=0)
    c = api.record(store, "Slow checkout pages", "p99 above 2 s", service="web", embed_timeout_ms=0)
    return a, b, c


def test_incidents_are_searched_by_service_and_by_alert_name(store):
    a, b, c = _three(store)
    assert [i["id"] for i in api.search(store, "p99 above 2 s", service="Checkout-API", timeout_ms=0)] == [a["id"]]
    assert [i["id"] for i in api.search(store, None, service="billing", timeout_ms=0)] == [b["id"]]
    assert [i["id"] for i in api.search(store, "", alert="kubepodcrashlooping", timeout_ms=0)] == [b["id"]]
    assert [i["id"] for i in api.search(store, None, alert="HighLatency", timeout_ms=0)] == [a["id"]]
    with pytest.raises(InvalidInput, match="query"):
        api.search(store, "", timeout_ms=0)  # nothing to search by


def test_the_cli_searches_incidents_by_service_and_alert(cli, db_path):
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        a, b, _ = _three(s)
    r = cli("incidents", "search", "--service", "billing", "--json")
    assert r.returncode == 0 and [i["id"] for i in json.loads(r.stdout)] == [b["id"]]
    r = cli("incidents", "search", "p99", "--alert", "HighLatency", "--json")
    assert [i["id"] for i in json.loads(r.stdout)] == [a["id"]]
    r = cli("incidents", "add", "Queue backing up", "--symptoms", "lag 10k", "--severity", "warning", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["severity"] == "medium"
