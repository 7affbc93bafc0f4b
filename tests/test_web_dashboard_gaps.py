"""The dashboard answers what the CLI answers: which session wrote a memory, which memories
have no subject ("general"), and a confidence out of range is clamped with a warning."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402
from helpers.cli import run_cli  # noqa: E402

from memory_cli import audit, entries  # noqa: E402
from memory_cli.web.app import ServerConfig, create_app  # noqa: E402

TOKEN = "test-token-0123456789abcdef"


@pytest.fixture
def api(db_path, store):
    app = create_app(ServerConfig(db_path=str(db_path), token=TOKEN, extra_hosts=("testserver",)))
    with TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        yield c


def test_a_memory_links_to_the_session_that_wrote_it(api, store):
    e = entries.add(store, "Tray icon is recreated on TaskbarCreated", "fact", session_id="sess-42")
    audit.record(store, "inject", session_id="sess-42", context="session:startup")
    audit.record(store, "inject", session_id="someone-else", context="session:startup")
    page = api.get(f"/memories/{e['id']}")
    assert page.status_code == 200 and 'href="/audit?session=sess-42"' in page.text
    session_page = api.get("/audit?session=sess-42")
    assert session_page.status_code == 200 and "someone-else" not in session_page.text
    rows = api.get("/api/audit", params={"session": "sess-42"}).json()
    assert rows and {r["session_id"] for r in rows} == {"sess-42"}


def test_memories_without_a_subject_are_listed_as_general(api, store, db_path):
    plain = entries.add(store, "Deploys go through the release branch", "fact")
    about = entries.add(store, "Jellyfin takes 60 s to start", "fact", subject="jellyfin", category="timing")
    got = api.get("/api/memories", params={"subject": "general"}).json()
    assert [i["id"] for i in got["items"]] == [plain["id"]] and got["total"] == 1
    ranked = api.get("/api/memories", params={"subject": "general", "q": "deploys release jellyfin"}).json()
    assert [i["id"] for i in ranked["items"]] == [plain["id"]]
    assert about["id"] in api.get("/api/memories", params={"subject": "Jellyfin"}).text
    assert plain["id"][:8] in api.get("/memories", params={"subject": "general"}).text
    cli = run_cli("list", "--subject", "general", "--json", db=db_path)
    assert [e["id"] for e in __import__("json").loads(cli.stdout)] == [plain["id"]]


def test_a_confidence_out_of_range_is_clamped_with_a_warning_as_in_the_cli(api, store, db_path):
    r = api.post("/api/memories", json={"content": "Builds need 8 GB of RAM", "confidence": 1.5})
    assert r.status_code == 201
    body = r.json()
    assert body["confidence"] == 1.0 and any("clamped to 1" in w for w in body["warnings"])
    r = api.put(f"/api/memories/{body['id']}", json={"confidence": -0.2})
    assert r.status_code == 200 and r.json()["confidence"] == 0.0
    assert any("clamped to 0" in w for w in r.json()["warnings"])
    cli = run_cli("add", "Builds need 16 GB of RAM", "--confidence", "1.5", db=db_path)
    assert cli.returncode == 0 and "clamped to 1" in cli.stderr
    assert api.post("/api/memories", json={"content": "x y z", "confidence": "high"}).status_code == 422
