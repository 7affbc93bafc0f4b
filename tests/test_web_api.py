"""The REST API and the dashboard's security, through FastAPI's test client against a real
SQLite store: every route, every refusal, bad input named by field, nothing half applied."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from memory_cli import entries  # noqa: E402
from memory_cli.web.app import ServerConfig, create_app  # noqa: E402
from memory_cli.web.security import csrf_token  # noqa: E402

TOKEN = "test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ORIGIN = "http://127.0.0.1:8765"


@pytest.fixture
def app(db_path, store):
    return create_app(ServerConfig(db_path=str(db_path), token=TOKEN, extra_hosts=("testserver",)))


@pytest.fixture
def api(app):
    with TestClient(app, headers=AUTH) as c:
        yield c


@pytest.fixture
def browser(app):
    """A client that authenticates like the browser: the session cookie from a one-time ?code=."""
    with TestClient(app) as c:
        r = c.get(f"/?code={app.state.sessions.new_code()}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/"
        assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]
        yield c


def add(store, text, **kw):
    kw.setdefault("type", "fact")
    return entries.add(store, text, kw.pop("type"), **kw)


# ------------------------------------------------------------------------------ security
def test_every_route_needs_the_token(app):
    with TestClient(app) as c:
        for path in (
            "/",
            "/memories",
            "/rules",
            "/review",
            "/audit",
            "/api/memories",
            "/api/rules",
            "/api/corrections",
            "/api/stats",
            "/api/audit",
            "/api/overview",
            "/api/openapi.json",
            "/api/docs",
            "/static/app.js",
        ):
            r = c.get(path)
            assert r.status_code == 401, path
        assert c.post("/api/memories", json={"content": "x"}).status_code == 401
        assert c.get("/api/memories", headers={"Authorization": "Bearer wrong-token-0000000"}).status_code == 401
        assert c.get("/?token=wrong", follow_redirects=False).status_code == 401
        c.cookies.set("memory_cli_session_8765", TOKEN)  # the token is no session
        assert c.get("/api/memories").status_code == 401


def test_wrong_host_is_refused_even_with_the_token(app):
    """DNS rebinding: evil.example resolving to 127.0.0.1 still sends its own Host header."""
    with TestClient(app, headers=AUTH) as c:
        r = c.get("/api/memories", headers={"Host": "evil.example:8765"})
        assert r.status_code == 400 and "host" in r.json()["detail"]
        assert c.get("/api/memories", headers={"Host": "127.0.0.1:8765"}).status_code == 200
        assert c.get("/api/memories", headers={"Host": "localhost:8765"}).status_code == 200
        assert c.get("/api/memories", headers={"Host": "127.0.0.1:9999"}).status_code == 400


def test_cookie_session_writes_need_origin_and_csrf(browser, store):
    csrf = csrf_token(TOKEN)
    body = {"content": "remember the CSRF"}
    # no Origin (a form posted from a page the browser does not label) -> refused
    assert browser.post("/api/memories", json=body, headers={"X-CSRF-Token": csrf}).status_code == 403
    # foreign Origin -> refused
    r = browser.post("/api/memories", json=body, headers={"Origin": "http://evil.example", "X-CSRF-Token": csrf})
    assert r.status_code == 403 and "origin" in r.json()["detail"]
    # cross-site fetch metadata -> refused
    r = browser.post(
        "/api/memories",
        json=body,
        headers={"Origin": ORIGIN, "X-CSRF-Token": csrf, "Sec-Fetch-Site": "cross-site"},
    )
    assert r.status_code == 403
    # right Origin, missing or wrong CSRF token -> refused
    assert browser.post("/api/memories", json=body, headers={"Origin": ORIGIN}).status_code == 403
    assert (
        browser.post("/api/memories", json=body, headers={"Origin": ORIGIN, "X-CSRF-Token": "0" * 64}).status_code
        == 403
    )
    assert entries.count_entries(store) == 0
    # all present -> accepted; reads need neither
    r = browser.post("/api/memories", json=body, headers={"Origin": ORIGIN, "X-CSRF-Token": csrf})
    assert r.status_code == 201
    assert browser.get("/api/memories").json()["total"] == 1
    page = browser.get("/memories")
    assert page.status_code == 200 and csrf in page.text and "remember the CSRF" in page.text


def test_bearer_writes_with_a_foreign_origin_are_refused(api, store):
    r = api.post("/api/memories", json={"content": "x"}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert entries.count_entries(store) == 0


def test_responses_carry_hardening_headers(api):
    r = api.get("/memories")
    assert r.headers["x-frame-options"] == "DENY"
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["referrer-policy"] == "no-referrer"


def test_non_loopback_host_needs_an_explicit_token():
    from memory_cli.errors import InvalidInput
    from memory_cli.web.server import resolve_token

    with pytest.raises(InvalidInput, match="explicit token"):
        resolve_token("0.0.0.0", None)
    with pytest.raises(InvalidInput, match="explicit token"):
        resolve_token("192.168.1.20", None)
    with pytest.raises(InvalidInput, match="16 characters"):
        resolve_token("0.0.0.0", "short")
    assert resolve_token("0.0.0.0", "a-long-enough-token-123") == "a-long-enough-token-123"
    assert len(resolve_token("127.0.0.1", None)) >= 24
    assert resolve_token("127.0.0.1", None) != resolve_token("127.0.0.1", None)


def test_secrets_are_redacted_through_the_api(api):
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    r = api.post("/api/memories", json={"content": f"deploy with token {secret}"})
    assert r.status_code == 201
    assert secret not in r.text
    eid = r.json()["id"]
    assert secret not in api.get(f"/api/memories/{eid}").text
    r = api.put(f"/api/memories/{eid}", json={"content": f"now {secret}"})
    assert secret not in r.text and secret not in api.get("/api/audit").text


# ------------------------------------------------------------------------------ memories
def test_list_filters_count_and_paginate(api, store):
    add(store, "redis timeout is 5s", category="timing", subject="redis", scope="project:web", confidence=0.9)
    add(store, "redis needs auth", category="dependency", subject="Redis", scope="project:web", confidence=0.4)
    add(store, "prefer uv over pip", type="preference", source="imported")
    old = add(store, "old fact")
    entries.archive(store, old["id"])
    r = api.get("/api/memories").json()
    assert r["total"] == 3 and len(r["items"]) == 3
    assert api.get("/api/memories", params={"status": "all"}).json()["total"] == 4
    assert api.get("/api/memories", params={"status": "archived"}).json()["items"][0]["id"] == old["id"]
    assert api.get("/api/memories", params={"type": "preference"}).json()["total"] == 1
    assert api.get("/api/memories", params={"scope": "project:web"}).json()["total"] == 2
    assert api.get("/api/memories", params={"source": "imported"}).json()["total"] == 1
    assert (
        api.get("/api/memories", params={"category": "timing"}).json()["items"][0]["content"] == "redis timeout is 5s"
    )
    assert api.get("/api/memories", params={"subject": "redis"}).json()["total"] == 2
    assert api.get("/api/memories", params={"min_confidence": 0.85}).json()["total"] == 1
    page = api.get("/api/memories", params={"limit": 2, "offset": 2, "order": "content"}).json()
    assert page["total"] == 3 and [m["content"] for m in page["items"]] == ["redis timeout is 5s"]
    ranked = api.get("/api/memories", params={"q": "redis timeout"}).json()
    assert ranked["items"][0]["content"] == "redis timeout is 5s" and "score" in ranked["items"][0]


@pytest.mark.parametrize(
    "params,field",
    [
        ({"type": "nonsense"}, "type"),
        ({"scope": "team:x"}, "scope"),
        ({"status": "gone"}, "status"),
        ({"source": "telepathy"}, "source"),
        ({"category": "vibes"}, "category"),
        ({"min_confidence": 2}, "min_confidence"),
        ({"limit": -1}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": -5}, "offset"),
        ({"order": "random"}, "order"),
    ],
)
def test_bad_list_filters_are_422_naming_the_field(api, params, field):
    r = api.get("/api/memories", params=params)
    assert r.status_code == 422
    assert r.json()["field"] == field and field in r.json()["detail"]


def test_create_get_update_delete(api, store):
    r = api.post(
        "/api/memories",
        json={
            "content": "CI runs on ubuntu",
            "type": "fact",
            "scope": "project:web",
            "tags": ["ci"],
            "category": "behavior",
            "subject": "ci",
        },
    )
    assert r.status_code == 201
    m = r.json()
    assert m["scope"] == "project:web" and m["tags"] == ["ci"] and m["confidence"] == 0.8
    got = api.get(f"/api/memories/{m['id']}").json()
    assert got["content"] == "CI runs on ubuntu" and got["history"][0]["action"] == "add"
    assert api.get(f"/api/memories/{m['id'][:8]}").json()["id"] == m["id"]  # prefixes, as the CLI
    r = api.put(f"/api/memories/{m['id']}", json={"confidence": 0.5})
    assert r.status_code == 200
    after = r.json()
    assert after["confidence"] == 0.5 and after["content"] == "CI runs on ubuntu" and after["tags"] == ["ci"]
    assert api.delete(f"/api/memories/{m['id']}").json() == {"deleted": m["id"]}
    assert api.get(f"/api/memories/{m['id']}").status_code == 404
    deleted = [a for a in api.get("/api/audit", params={"action": "delete"}).json() if a["entry_id"] == m["id"]]
    assert deleted and deleted[0]["details"]["entry"]["content"] == "CI runs on ubuntu"


def test_create_a_rule_with_its_pattern(api):
    r = api.post(
        "/api/memories",
        json={
            "content": "never run rm -rf /",
            "type": "rule",
            "pattern": "rm -rf /",
            "pattern_type": "command",
            "action": "block",
        },
    )
    assert r.status_code == 201
    assert r.json()["rule"]["pattern"] == "rm -rf /" and r.json()["rule"]["effective_action"] == "block"
    assert api.post("/api/memories", json={"content": "x", "type": "fact", "pattern": "y"}).json()["field"] == "type"
    bad = api.post("/api/memories", json={"content": "bad", "type": "rule", "pattern": "(", "pattern_type": "regex"})
    assert bad.status_code == 422 and bad.json()["field"] == "pattern"


@pytest.mark.parametrize(
    "body,field",
    [
        ({"content": ""}, "content"),
        ({"content": "   "}, "content"),
        ({}, "content"),
        ({"content": "x", "type": "opinion"}, "type"),
        ({"content": "x", "scope": "nowhere"}, "scope"),
        ({"content": "x", "confidence": "high"}, "confidence"),
        ({"content": "x", "category": "vibes"}, "category"),
        ({"content": "x", "source": "dream"}, "source"),
        ({"content": "x", "colour": "red"}, "colour"),
        ({"content": "x", "tags": "notalist"}, "tags"),
    ],
)
def test_bad_create_is_422_naming_the_field_and_stores_nothing(api, store, body, field):
    r = api.post("/api/memories", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field
    assert entries.count_entries(store, status="all") == 0


def test_update_changes_only_given_fields_and_refuses_bad_ones(api, store):
    m = add(store, "keep me", tags=["a"], category="timing", subject="s")
    r = api.put(f"/api/memories/{m['id']}", json={"type": "opinion"})
    assert r.status_code == 422 and r.json()["field"] == "type"
    r = api.put(f"/api/memories/{m['id']}", json={})
    assert r.status_code == 422
    assert api.put("/api/memories/ffffffff-0000", json={"content": "y"}).status_code == 404
    r = api.put(f"/api/memories/{m['id']}", json={"scope": "project:x"}).json()
    assert (r["content"], r["tags"], r["category"], r["subject"], r["scope"]) == (
        "keep me",
        ["a"],
        "timing",
        "s",
        "project:x",
    )


def test_unknown_ids_are_404(api):
    for method, path in (
        ("get", "/api/memories/nope-nope"),
        ("delete", "/api/memories/nope-nope"),
        ("get", "/api/rules/nope-nope"),
        ("post", "/api/rules/nope-nope/enable"),
        ("post", "/api/corrections/nope-nope/approve"),
        ("post", "/api/corrections/nope-nope/reject"),
    ):
        r = getattr(api, method)(path)
        assert r.status_code == 404, (method, path)
        assert "nope-nope" in r.json()["detail"]


def test_reactivating_a_superseded_memory_is_a_conflict(api, store):
    old = add(store, "python 3.10")
    new = entries.supersede(store, old["id"], "python 3.12")
    r = api.put(f"/api/memories/{old['id']}", json={"status": "active"})
    assert r.status_code == 409 and new["id"][:8] in r.json()["detail"]
    r = api.post("/api/memories/bulk", json={"action": "activate", "ids": [old["id"]]})
    assert r.status_code == 409
    assert entries.get(store, old["id"])["status"] == "superseded"


def test_bulk_is_all_or_nothing(api, store):
    ids = [add(store, f"bulk {i}")["id"] for i in range(5)]
    r = api.post("/api/memories/bulk", json={"action": "delete", "ids": ids[:3] + ["no-such-id"]})
    assert r.status_code == 404 and "nothing was changed" in r.json()["detail"]
    assert entries.count_entries(store) == 5
    r = api.post("/api/memories/bulk", json={"action": "explode", "ids": ids})
    assert r.status_code == 422 and r.json()["field"] == "action"
    r = api.post("/api/memories/bulk", json={"action": "delete", "ids": []})
    assert r.status_code == 422 and r.json()["field"] == "ids"
    assert api.post("/api/memories/bulk", json={"action": "archive", "ids": ids[:2]}).json() == {"changed": 2}
    assert entries.count_entries(store) == 3
    assert api.post("/api/memories/bulk", json={"action": "activate", "ids": ids[:2]}).json() == {"changed": 2}
    assert api.post("/api/memories/bulk", json={"action": "delete", "ids": ids}).json() == {"changed": 5}
    assert entries.count_entries(store, status="all") == 0


def test_activate_restores_memories_below_the_floor(api, store):
    faded = add(store, "faded", confidence=0.1)
    assert api.post("/api/memories/bulk", json={"action": "activate", "ids": [faded["id"]]}).json() == {"changed": 1}
    assert entries.get(store, faded["id"])["confidence"] == entries.REACTIVATE_CONFIDENCE


def test_purge_a_scope(api, store):
    add(store, "a", scope="project:old")
    add(store, "b", scope="project:old", source="imported")
    add(store, "c", scope="project:keep")
    assert api.post("/api/purge", json={"scope": "project:old", "source": "imported"}).json() == {"deleted": 1}
    assert api.post("/api/purge", json={"scope": "project:old"}).json() == {"deleted": 1}
    assert api.post("/api/purge", json={"scope": "project:old"}).json() == {"deleted": 0}
    assert entries.count_entries(store) == 1
    r = api.post("/api/purge", json={"scope": "bogus"})
    assert r.status_code == 422 and r.json()["field"] == "scope"
    r = api.post("/api/purge", json={"scope": "project:keep", "source": "dream"})
    assert r.status_code == 422 and r.json()["field"] == "source"
    assert api.post("/api/purge", json={}).json()["field"] == "scope"
    assert entries.count_entries(store) == 1
    assert api.get("/api/audit", params={"action": "purge"}).json()[0]["context"] == "project:old"


# ------------------------------------------------------------------------------ rules, review
def _rule(store, **kw):
    from memory_cli.rules import api as rules_api

    kw.setdefault("pattern", "pip install")
    kw.setdefault("pattern_type", "command")
    kw.setdefault("action", "warn")
    return rules_api.create_rule(store, kw.pop("content", "use uv, not pip"), **kw)


def test_rules_routes(api, store):
    rule = _rule(store, confirmed=False, provenance="promoted", source="promoted")
    listed = api.get("/api/rules").json()
    assert [r["id"] for r in listed] == [rule["id"]]
    assert api.get(f"/api/rules/{rule['id']}").json()["pattern"] == "pip install"
    assert api.post(f"/api/rules/{rule['id']}/disable").json()["enabled"] is False
    assert api.get("/api/rules", params={"enabled": True}).json() == []
    assert api.post(f"/api/rules/{rule['id']}/enable").json()["enabled"] is True
    confirmed = api.post(f"/api/rules/{rule['id']}/confirm").json()
    assert confirmed["confirmed"] is True and confirmed["action"] == "block"
    edited = api.put(f"/api/rules/{rule['id']}", json={"severity": "high", "alternative": "uv add"}).json()
    assert edited["severity"] == "high" and edited["alternative"] == "uv add" and edited["pattern"] == "pip install"
    r = api.put(f"/api/rules/{rule['id']}", json={"action": "smite"})
    assert r.status_code == 422 and r.json()["field"] == "action"
    r = api.put(f"/api/rules/{rule['id']}", json={"pattern": "(", "pattern_type": "regex"})
    assert r.status_code == 422 and r.json()["field"] == "pattern"
    assert api.get(f"/api/rules/{rule['id']}").json()["pattern"] == "pip install"
    assert api.delete(f"/api/rules/{rule['id']}").json() == {"deleted": rule["id"]}
    assert api.get("/api/rules").json() == []


def _capture_three(store):
    from memory_cli.capture.corrections import capture

    for i in range(3):
        result = capture(store, "no, don't use pip install, use uv add instead", session_id=f"s{i}")
    return result


def test_review_approve_and_reject(api, store):
    result = _capture_three(store)
    queue = api.get("/api/corrections").json()
    assert queue and queue[0]["id"] == result["id"] and queue[0]["item"] == "proposal"
    r = api.post(f"/api/corrections/{result['id']}/approve", json={"action": "telepathy"})
    assert r.status_code == 422 and r.json()["field"] == "action"
    approved = api.post(f"/api/corrections/{result['id']}/approve", json={"action": "block"}).json()
    assert approved["status"] == "approved" and approved["rule"]["action"] == "block"
    assert approved["rule"]["confirmed"] is True
    assert api.get("/api/corrections").json() == []
    assert api.get("/api/corrections", params={"status": "approved"}).json()[0]["id"] == result["id"]
    assert api.get("/api/corrections", params={"status": "nope"}).json()["field"] == "status"
    rejected = api.post(f"/api/corrections/{result['id']}/reject").json()
    assert rejected["status"] == "rejected" and rejected["rule"]["enabled"] is False


# ------------------------------------------------------------------------------ stats, audit
def test_stats_overview_and_audit(api, store):
    from memory_cli import audit

    m = add(store, "x")
    rule = _rule(store)
    audit.record(store, "enforce_block", entry_id=rule["id"])
    audit.record(store, "enforce_warn", entry_id=rule["id"])
    audit.record(store, "verify_fail", entry_id=rule["id"])
    audit.record(store, "hook", hook_event="PreToolUse", elapsed_ms=12.0)
    s = api.get("/api/stats").json()
    assert s["total"] == 2 and s["by_type"] == {"fact": 1, "rule": 1}
    o = api.get("/api/overview").json()
    assert len(o["enforcement"]["days"]) == 30
    assert (
        o["enforcement"]["blocks"][-1],
        o["enforcement"]["warns"][-1],
        o["enforcement"]["violations"][-1],
    ) == (1, 1, 1)
    assert o["hook_latency_ms"]["PreToolUse"]["p50"] == 12.0
    assert api.get("/api/overview", params={"days": 0}).json()["field"] == "days"
    assert [a["action"] for a in api.get("/api/audit", params={"entry": m["id"][:8]}).json()] == ["add"]
    assert all(a["action"].startswith("enforce_") for a in api.get("/api/audit", params={"action": "enforce_*"}).json())
    assert len(api.get("/api/audit", params={"limit": 2}).json()) == 2
    r = api.get("/api/audit", params={"since": "last tuesday"})
    assert r.status_code == 422 and r.json()["field"] == "since"


def test_openapi_lists_every_api_route(api):
    paths = api.get("/api/openapi.json").json()["paths"]
    for p in (
        "/api/memories",
        "/api/memories/{entry_id}",
        "/api/memories/bulk",
        "/api/purge",
        "/api/rules",
        "/api/rules/{rule_id}/confirm",
        "/api/corrections",
        "/api/corrections/{correction_id}/approve",
        "/api/stats",
        "/api/audit",
    ):
        assert p in paths
    assert not any(p.startswith("/ui") for p in paths)


# ------------------------------------------------------------------------------ dashboard fragments
def _ui(browser):
    return {"Origin": ORIGIN, "X-CSRF-Token": csrf_token(TOKEN), "HX-Request": "true"}


def test_dashboard_fragments_change_the_store(browser, store):
    h = _ui(browser)
    r = browser.post(
        "/ui/memories",
        data={
            "content": "added in the browser",
            "new_type": "decision",
            "new_scope": "project:web",
            "tags": "a, b",
        },
        headers=h,
    )
    assert r.status_code == 200 and "added in the browser" in r.text
    m = entries.list_entries(store, type="decision")[0]
    assert m["scope"] == "project:web" and m["tags"] == ["a", "b"]
    assert 'name="content"' in browser.get(f"/ui/memories/{m['id']}/edit").text
    r = browser.post(
        f"/ui/memories/{m['id']}",
        data={"content": "edited in the browser", "confidence": "0.9", "tags": ""},
        headers=h,
    )
    assert r.status_code == 200 and "edited in the browser" in r.text
    assert entries.get(store, m["id"])["tags"] == [] and entries.get(store, m["id"])["confidence"] == 0.9
    r = browser.post(f"/ui/memories/{m['id']}", data={"scope": "nowhere"}, headers=h)
    assert r.status_code == 422 and r.json()["field"] == "scope"
    assert browser.post(f"/ui/memories/{m['id']}/archive", headers=h).status_code == 200
    assert entries.get(store, m["id"])["status"] == "archived"
    assert "reactivate" in browser.get(f"/ui/memories/{m['id']}/row").text
    browser.post(f"/ui/memories/{m['id']}/activate", headers=h)
    assert entries.get(store, m["id"])["status"] == "active"
    other = add(store, "bulk me")
    r = browser.post("/ui/memories/bulk", data={"action": "delete", "ids": [m["id"], other["id"]]}, headers=h)
    assert r.status_code == 200 and "deleted 2" in r.text
    assert entries.count_entries(store, status="all") == 0
    assert browser.post("/ui/memories/bulk", data={"action": "delete"}, headers=h).json()["field"] == "ids"
    # without the CSRF header the same fragment is refused
    r = browser.post("/ui/memories", data={"content": "x"}, headers={"Origin": ORIGIN})
    assert r.status_code == 403 and entries.count_entries(store) == 0


def test_dashboard_rule_and_review_fragments(browser, store):
    h = _ui(browser)
    rule = _rule(store, confirmed=False, provenance="promoted", source="promoted")
    assert "enable" in browser.post(f"/ui/rules/{rule['id']}/disable", headers=h).text
    assert browser.post(f"/ui/rules/{rule['id']}/confirm", headers=h).status_code == 200
    r = browser.post(f"/ui/rules/{rule['id']}", data={"pattern": "pip3 install", "action": "warn"}, headers=h)
    assert r.status_code == 200 and "pip3 install" in r.text
    assert browser.post(f"/ui/rules/{rule['id']}/explode", headers=h).status_code == 404
    result = _capture_three(store)
    assert result["id"][:8] in browser.get("/review").text or "uv add" in browser.get("/review").text
    r = browser.post(f"/ui/review/{result['id']}/approve", data={"action": "block"}, headers=h)
    assert r.status_code == 200 and "approved" in r.text
    r = browser.post(f"/ui/review/{result['id']}/approve", data={"action": "smite"}, headers=h)
    assert r.status_code == 422 and r.json()["field"] == "action"


def test_pages_render_and_unknown_ids_get_an_html_404(browser, store):
    m = add(store, "page me")
    for path in (
        "/",
        "/memories",
        "/memories?status=all&order=content&desc=1&limit=25",
        "/rules",
        "/rules?status=all",
        "/review",
        "/audit",
        "/audit?action=add&since=2020-01-01",
        f"/memories/{m['id']}",
        "/api/docs",
    ):
        r = browser.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html")
    assert "page me" in browser.get("/memories").text
    bad = browser.get("/memories?type=opinion")
    assert bad.status_code == 200 and "unknown type" in bad.text
    assert "not an ISO date" in browser.get("/audit?since=someday").text
    r = browser.get("/memories/does-not-exist")
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    entries.delete(store, m["id"])
    r = browser.get(f"/memories/{m['id']}")  # deleted: its history is still there
    assert r.status_code == 200 and "deleted" in r.text and "page me" in r.text


def test_hosts_accepted_for_each_bind():
    from memory_cli.web.security import allowed_hosts

    loop = allowed_hosts("127.0.0.1", 8765)
    assert {"127.0.0.1:8765", "localhost:8765", "[::1]:8765"} <= loop and "evil.example:8765" not in loop
    lan = allowed_hosts("192.168.1.20", 8765, ("dash.lan:8765",))
    assert lan == {"192.168.1.20:8765", "dash.lan:8765"}
    import socket

    assert f"{socket.gethostname()}:9000".lower() in allowed_hosts("0.0.0.0", 9000)


def test_bulk_failing_midway_rolls_back_what_it_had_done(api, store):
    archived = add(store, "archived first")
    entries.archive(store, archived["id"])
    old = add(store, "python 3.10")
    entries.supersede(store, old["id"], "python 3.12")
    r = api.post("/api/memories/bulk", json={"action": "activate", "ids": [archived["id"], old["id"]]})
    assert r.status_code == 409
    assert entries.get(store, archived["id"])["status"] == "archived"
    assert [a["action"] for a in api.get("/api/audit", params={"entry": archived["id"]}).json()] == ["archive", "add"]


# ------------------------------------------------------------------------------ journal
def test_journal_page_and_api_show_incidents_reports_and_baselines(api, browser, store):
    from memory_cli.baselines import api as baselines
    from memory_cli.incidents import api as incidents
    from memory_cli.reports import api as reports

    inc = incidents.record(
        store,
        "Postgres refused connections",
        "connection refused on 5432",
        service="billing-db",
        resolution="restart pgbouncer",
        embed_timeout_ms=0,
    )
    reports.save_report(store, "Moved the drag handling; tests green", scope="project:whisperclick")
    for v in (10, 11, 12, 10, 11):
        baselines.record(store, "cmd: pytest -q", v, unit="s")
    page = browser.get("/journal")
    assert page.status_code == 200
    for text in (
        "Postgres refused connections",
        "restart pgbouncer",
        "Moved the drag handling",
        "cmd: pytest -q",
        "10.8 s",
    ):
        assert text in page.text
    items = api.get("/api/incidents", params={"q": "connection refused"}).json()["items"]
    assert items[0]["id"] == inc["id"] and items[0]["score"] > 0
    assert api.get(f"/api/incidents/{inc['id'][:8]}").json()["title"] == "Postgres refused connections"
    assert api.get("/api/incidents/zzzzzzzz").status_code == 404
    assert api.get("/api/incidents", params={"status": "closed"}).status_code == 422
    assert api.get("/api/reports").json()["items"][0]["scope"] == "project:whisperclick"
    metric = api.get("/api/baselines").json()["items"][0]
    assert metric["name"] == "cmd: pytest -q" and metric["baseline"]["n"] == 5
    with TestClient(api.app) as anonymous:
        assert anonymous.get("/journal").status_code in (401, 403)
        assert anonymous.get("/api/incidents").status_code in (401, 403)


def test_the_review_page_lets_the_person_answer_an_agents_request_for_a_wider_scope(browser, store):
    h = _ui(browser)
    asked = entries.add(
        store,
        "Always run the linter before committing",
        "preference",
        scope="global",
        source="agent",
        home_scope="project:shop",
    )
    kept = entries.add(
        store, "Deploys need a ticket", "fact", scope="global", source="agent", home_scope="project:shop"
    )
    page = browser.get("/review").text
    assert "Always run the linter before committing" in page and "asks for global" in page
    r = browser.post(f"/ui/review-scope/{asked['id']}/approve", headers=h)
    assert r.status_code == 200 and "applies in global" in r.text
    assert entries.get(store, asked["id"])["scope"] == "global"
    r = browser.post(f"/ui/review-scope/{kept['id']}/reject", headers=h)
    assert r.status_code == 200 and entries.get(store, kept["id"])["scope"] == "project:shop"
    assert "Deploys need a ticket" not in browser.get("/review").text
    assert browser.post(f"/ui/review-scope/{asked['id']}/explode", headers=h).status_code == 404
    # without the CSRF header nothing changes
    again = entries.add(store, "Use tabs", "preference", scope="global", source="agent", home_scope="project:shop")
    assert browser.post(f"/ui/review-scope/{again['id']}/approve", headers={"Origin": ORIGIN}).status_code == 403
    assert entries.get(store, again["id"])["scope"] == "project:shop"


# ------------------------------------------------------------------------------ sessions
def test_logging_out_ends_the_session_on_the_server_and_clears_the_cookie(app, browser):
    assert browser.get("/api/memories").status_code == 200
    stolen = dict(browser.cookies)
    assert browser.post("/logout", headers={"Origin": "http://evil.example"}).status_code == 403
    r = browser.post("/logout", headers={"Origin": ORIGIN}, follow_redirects=False)
    assert r.status_code == 303 and "Max-Age=0" in r.headers["set-cookie"]
    assert browser.get("/api/memories").status_code == 401
    with TestClient(app, cookies=stolen) as replay:  # a copy of the cookie is worthless now
        assert replay.get("/api/memories").status_code == 401
    assert "/logout" in TestClient(app, headers=AUTH).get("/").text  # the pages offer it


def test_a_session_ends_after_half_an_hour_unused_and_each_request_extends_it(monkeypatch):
    from memory_cli.web import sessions as mod

    now = [1000.0]
    monkeypatch.setattr(mod.time, "monotonic", lambda: now[0])
    s = mod.Sessions()
    sid = s.open()
    for _ in range(6):  # used every 20 minutes: still in after two hours
        now[0] += 20 * 60
        assert s.valid(sid)
    now[0] += 31 * 60
    assert not s.valid(sid)
    busy = s.open()
    for _ in range(8 * 3 + 1):  # however busy, eight hours is the end
        now[0] += 20 * 60
        alive = s.valid(busy)
    assert not alive


def test_failed_logins_are_limited_to_ten_a_minute(app, monkeypatch):
    from memory_cli.web import sessions as mod

    now = [1000.0]
    monkeypatch.setattr(mod.time, "monotonic", lambda: now[0])
    with TestClient(app) as c:
        for i in range(10):
            wrong = {"Authorization": f"Bearer wrong-token-{i:016d}"}
            assert c.get("/api/memories", headers=wrong).status_code == 401
        r = c.get("/api/memories", headers=AUTH)  # even the right token waits now
        assert r.status_code == 429 and int(r.headers["retry-after"]) <= 60
        assert "too many failed logins" in r.json()["detail"]
        code = app.state.sessions.new_code()
        assert c.get(f"/?code={code}", follow_redirects=False).status_code == 429
        form = c.post("/login", data={"token": TOKEN}, headers={"Origin": ORIGIN}, follow_redirects=False)
        assert form.status_code == 429
        now[0] += 61
        assert c.get("/api/memories", headers=AUTH).status_code == 200
        assert c.get(f"/?code={code}", follow_redirects=False).status_code == 303  # the code was not spent
