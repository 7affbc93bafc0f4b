"""Vectors in the memory database: queued by every write, drained into sqlite-vec, searched.

The storage tests embed with a small hashing embedder (each word hashed into one of 384
buckets, then normalised): real vectors whose similarity follows shared words, so the queue,
the vec0 table and the search can be tested without PyTorch (the core must pass without the
semantic extra). The tests marked ``semantic`` use all-MiniLM-L6-v2 and the real daemon.
"""

from __future__ import annotations

import math
import os
import struct
import subprocess
import sys
import time
import zlib

import pytest

from memory_cli import entries
from memory_cli.embeddings import vectors
from memory_cli.store.db import Store

DIM = 384


def hashing_embed(texts):
    out = []
    for t in texts:
        v = [0.0] * DIM
        for w in t.lower().replace(".", " ").replace(",", " ").split():
            v[zlib.crc32(w.encode()) % DIM] += 1.0
        n = math.sqrt(sum(x * x for x in v)) or 1.0
        out.append(struct.pack(f"<{DIM}f", *(x / n for x in v)))
    return out


def _drain(store, model="hashing"):
    return vectors.drain(store, hashing_embed, model=model)


def _q(text):
    return hashing_embed([text])[0]


@pytest.fixture
def store(db_path):
    s = Store.open(db_path)
    if not s.load_vec():
        pytest.skip("sqlite-vec cannot be loaded here")
    yield s
    s.close()


def test_every_new_memory_waits_in_the_queue_until_embedded(store):
    a = entries.add(store, "Always run the tests with pytest", "rule")
    entries.add(store, "The deploy target is a Raspberry Pi", "fact")
    st = vectors.stats(store)
    assert st["queued"] == 2 and st["vectors"] == 0 and st["active_entries"] == 2

    res = _drain(store)
    assert res == {"embedded": 2, "removed": 0, "remaining": 0}
    st = vectors.stats(store)
    assert st["vectors"] == 2 and st["queued"] == 0 and st["model"] == "hashing" and st["dim"] == DIM

    hits = vectors.search(store, _q("run the tests with pytest please"), 5)
    assert hits[0][0] == a["id"] and 0.5 < hits[0][1] <= 1.0
    assert [h[1] for h in hits] == sorted((h[1] for h in hits), reverse=True)
    assert all(0.0 <= score <= 1.0 for _, score in hits)


def test_archived_and_deleted_memories_never_come_back_from_search(store):
    keep = entries.add(store, "Use pytest for tests", "preference")
    gone = entries.add(store, "Use pytest fixtures for tests", "pattern")
    dead = entries.add(store, "Use pytest markers for tests", "pattern")
    _drain(store)
    entries.archive(store, gone["id"])
    entries.delete(store, dead["id"])

    ids = [i for i, _ in vectors.search(store, _q("use pytest for tests"), 3)]
    assert ids == [keep["id"]]  # filtered before the queue is drained, and k still honoured
    res = _drain(store)
    assert res["removed"] == 2 and vectors.count(store) == 1


def test_edited_content_is_embedded_again(store):
    e = entries.add(store, "Deploy with rsync", "fact")
    _drain(store)
    entries.update(store, e["id"], content="Deploy with ansible playbooks")
    assert vectors.pending_count(store) == 1
    _drain(store)
    ((hit_id, score),) = vectors.search(store, _q("ansible playbooks"), 1)
    assert hit_id == e["id"] and score > 0.6


def test_an_edit_during_embedding_is_not_lost(store):
    e = entries.add(store, "Cache builds in CI", "fact")

    def embed_while_someone_edits(texts):
        # Another session edits the memory while the model is working on the old text.
        other = Store.open(store.path)
        entries.update(other, e["id"], content="Never cache builds in CI")
        other.close()
        return hashing_embed(texts)

    vectors.drain(store, embed_while_someone_edits, model="hashing", max_batches=1)
    assert vectors.pending_count(store) == 1  # the newer text is still waiting
    _drain(store)
    ((hit_id, score),) = vectors.search(store, _q("never cache builds in ci"), 1)
    assert score > 0.99


def test_search_degrades_to_nothing_rather_than_failing(store):
    assert vectors.search(store, _q("anything"), 5) == []  # no vectors yet
    entries.add(store, "Use pytest", "fact")
    _drain(store)
    assert vectors.search(store, b"\x00" * 16, 5) == []  # another model's size
    assert vectors.search(store, b"", 5) == []
    assert vectors.search(store, _q("pytest"), 0) == []


def test_vectors_of_another_model_are_not_mixed_in_until_reindexed(store):
    entries.add(store, "Use pytest", "fact")
    _drain(store, model="hashing")
    entries.add(store, "Use ruff for linting", "fact")
    with pytest.raises(vectors.VectorsStale, match="reindex"):
        _drain(store, model="other-model")
    res = vectors.reindex(store, hashing_embed, model="other-model")
    assert res["model"] == "other-model" and res["vectors"] == 2 and res["remaining"] == 0


def test_reindex_rebuilds_every_vector_and_drops_orphans(store):
    a = entries.add(store, "Use pytest", "fact")
    entries.add(store, "Use ruff", "fact")
    _drain(store)
    store.execute("DELETE FROM memory_vec WHERE entry_id = ?", (a["id"],))  # damaged index
    res = vectors.reindex(store, hashing_embed, model="hashing")
    assert res["embedded"] == 2 and res["vectors"] == 2 and res["remaining"] == 0
    assert vectors.search(store, _q("use pytest"), 1)[0][0] == a["id"]


def test_index_entry_without_a_daemon_leaves_the_entry_queued(store):
    e = entries.add(store, "Prefer httpx over requests", "preference")
    assert vectors.index_entry(store, e["id"]) is False
    assert vectors.pending_count(store) == 1


def test_cosine_matches_the_stored_similarity(store):
    a, b = hashing_embed(["use pytest for the tests", "run the tests with pytest"])
    entries.add(store, "run the tests with pytest", "fact")
    _drain(store)
    ((_, score),) = vectors.search(store, a, 1)
    assert abs(vectors.cosine(a, b) - score) < 1e-5
    assert vectors.cosine(a, a) == pytest.approx(1.0)
    assert vectors.cosine(a, b"") == 0.0


def test_searching_loads_no_heavy_library(db_path, store):
    entries.add(store, "Use pytest", "fact")
    _drain(store)
    code = (
        "import sys; from memory_cli.store.db import Store; from memory_cli.embeddings import vectors; "
        f"s = Store.open({str(db_path)!r}); r = vectors.search(s, b'\\0' * {4 * DIM}, 3); "
        "print(len(r), sorted(m for m in ('numpy', 'torch', 'sqlite_vec') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split(None, 1) == ["1", "[]\n"]


# ------------------------------------------------------------------ with the real model


@pytest.fixture
def daemon_rundir(claude_dir):
    from memory_cli.daemon import control, protocol

    rd = os.path.abspath(protocol.run_dir())
    yield rd
    control.stop(rd, timeout_s=10)


@pytest.mark.semantic
def test_warm_daemon_embeds_new_memories_at_once_and_backfills_the_rest(store, daemon_rundir):
    from memory_cli.daemon import control

    queued = [
        entries.add(store, t, "fact")
        for t in (
            "Run the test suite with pytest -q.",
            "The staging server is deployed with Kubernetes.",
            "Never store API tokens in the repository.",
        )
    ]
    control.start(model=None, idle_timeout_s=600, rundir=daemon_rundir, dbs=[store.path])
    assert control.wait_ready(180, daemon_rundir)["state"] == "ready"
    deadline = time.monotonic() + 60
    while vectors.pending_count(store) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert vectors.pending_count(store) == 0 and vectors.count(store) == 3
    assert control.status(daemon_rundir)["entries_backfilled"] == 3

    new = entries.add(store, "Secrets belong in the vault, not in .env files.", "rule")
    assert vectors.index_entry(store, new["id"], timeout_ms=5000) is True
    assert vectors.count(store) == 4

    from memory_cli.daemon import client

    q = client.embed(["where should credentials be kept?"], 5000)[0]
    ids = [i for i, _ in vectors.search(store, q, 4)]
    assert set(ids[:2]) == {new["id"], queued[2]["id"]}
    q = client.embed(["how do I run the tests?"], 5000)[0]
    assert vectors.search(store, q, 1)[0][0] == queued[0]["id"]


def test_doctor_says_what_is_missing_from_the_index(store):
    from memory_cli import settings
    from memory_cli.embeddings.doctor import doctor_checks

    entries.add(store, "Use pytest", "fact")
    checks = {c["name"]: c for c in doctor_checks(store, settings.load())}
    assert checks["vectors"]["status"] == "warn" and "1 queued" in checks["vectors"]["detail"]
    assert checks["daemon"]["status"] == "ok" and "not running" in checks["daemon"]["detail"]

    _drain(store, model="hashing")  # vectors of a model other than the configured one
    checks = {c["name"]: c for c in doctor_checks(store, settings.load())}
    assert checks["vectors"]["status"] == "warn" and "reindex" in checks["vectors"]["detail"]
    assert "1 of 1 active memories have vectors" in checks["vectors"]["detail"]


def test_a_daemon_running_another_model_is_not_mixed_into_the_index(monkeypatch):
    """Vectors from two models in one index would rank by noise: fall back instead.

    The daemon's answer is substituted here (a second real model is not installed on CI);
    the answer has the exact shape a real daemon sends.
    """
    from memory_cli.daemon import client, protocol

    answer = {
        "v": 1,
        "ok": True,
        "model": "some-other-model",
        "dim": 2,
        "vectors": protocol.encode_vectors([b"\x00\x00\x80?\x00\x00\x00\x00"]),
    }
    monkeypatch.setattr(client, "request", lambda *a, **k: answer)
    assert client.embed(["x"], 100, model="all-MiniLM-L6-v2") is None
    assert client.last_failure == "model_mismatch"
