"""search_incidents' vector side with the real model: an incident that shares no word with the
question is found by meaning once vectors are available, and not by keywords alone. The daemon's
client is the only stand-in (the model runs in-process)."""

from __future__ import annotations

import pytest

from memory_cli.incidents import api

pytestmark = pytest.mark.semantic


def test_meaning_finds_an_incident_that_shares_no_keyword(store, monkeypatch):
    from memory_cli.embeddings import model as model_mod

    try:
        m = model_mod.load_model()
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"model unavailable: {e}")
    monkeypatch.setattr(api, "_embed", lambda texts, timeout_ms: m.embed(list(texts)))
    target = api.record(
        store, "App freezes when the window is dragged", "UI thread blocked", resolution="do resizing off the UI thread"
    )
    api.record(store, "Invoices rounded wrong", "totals off by a cent")
    api.record(store, "Certificate expired", "TLS handshake fails on the staging host")
    query = "program hangs while moving its frame"
    assert api.search(store, query, timeout_ms=0) == []  # no word in common
    hits = api.search(store, query, timeout_ms=500)
    assert hits and hits[0]["id"] == target["id"], hits
    assert hits[0]["resolution"] == "do resizing off the UI thread"
