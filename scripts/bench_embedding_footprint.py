#!/usr/bin/env python3
"""What running the embedding model costs, per back end: the table behind the choice of numpy.

For each back end (``numpy``: memory_cli/embeddings/numpy_encoder.py; ``sentence-transformers``:
PyTorch), in fresh processes of this interpreter:

- the embedding daemon's resident memory, idle with the model loaded (a private daemon in a
  throwaway CLAUDE_CONFIG_DIR, as SessionStart starts it);
- first query: from an empty process to the first vector (imports, load, one embedding);
- p50 / p95 of one short sentence, in process, one BLAS or PyTorch thread (as the daemon runs);
- the largest difference from the other back end's vectors (1 - cosine).

``--venv NAME=PATH`` adds the installed size of an environment (``du`` of its folder). Recall
(R@5) is measured by ``scripts/bench_retrieval_cv.py`` with ``MEMORY_CLI_EMBED_BACKEND`` set.

    .venv/bin/python scripts/bench_embedding_footprint.py [--queries 100] [--venv light=/tmp/v1 ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACKENDS = ("numpy", "sentence-transformers")
TEXTS = [
    "no, never use pythonw.exe",
    "Deploys go through make deploy, never kubectl apply",
    "the API listens on port 8081",
    "how do I run the integration tests against the staging database? " * 12,
]

_PROBE = r"""
import json, os, sys, time
t0 = time.perf_counter()
from memory_cli.embeddings import model
e = model.load_model(backend=sys.argv[1])
first = e.embed(["how do deploys work"])
ready = time.perf_counter() - t0
try:
    import torch
    torch.set_num_threads(1)
except ImportError:
    pass
times = []
for i in range(int(sys.argv[2])):
    t = time.perf_counter()
    e.embed([f"how do deploys work for service number {i}"])
    times.append((time.perf_counter() - t) * 1000)
times.sort()
vectors = [v.hex() for v in e.embed(json.loads(sys.argv[3]))]
print(json.dumps({"first_s": ready, "p50": times[len(times) // 2], "p95": times[int(len(times) * 0.95) - 1],
                  "vectors": vectors}))
"""


def probe(backend: str, queries: int) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPATH=ROOT)
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, backend, str(queries), json.dumps(TEXTS)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=900,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def daemon_rss(backend: str) -> float:
    """MB resident of a private daemon with the model loaded, after a few requests."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, CLAUDE_CONFIG_DIR=tmp, MEMORY_CLI_EMBED_BACKEND=backend, PYTHONPATH=ROOT)
        run = [sys.executable, "-m", "memory_cli.daemon.server"]
        try:
            subprocess.run(run + ["start", "--wait", "120"], env=env, capture_output=True, check=True, timeout=180)
            code = (
                "from memory_cli.daemon import client; [client.embed(['warm up the daemon %d' % i]) for i in range(20)]"
            )
            subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=120, check=False)
            st = json.loads(
                subprocess.run(run + ["status"], env=env, capture_output=True, text=True, timeout=60).stdout
            )
            return float(st.get("rss_mb") or st.get("status", {}).get("rss_mb") or 0)
        finally:
            subprocess.run(run + ["stop"], env=env, capture_output=True, timeout=60, check=False)


def du_mb(path: str) -> float:
    out = subprocess.run(["du", "-sm", path], capture_output=True, text=True, check=True).stdout
    return float(out.split()[0])


def _dot(a: bytes, b: bytes) -> float:
    import struct

    n = len(a) // 4
    return sum(x * y for x, y in zip(struct.unpack(f"<{n}f", a), struct.unpack(f"<{n}f", b)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--venv", action="append", default=[], metavar="NAME=PATH", help="an environment to size")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    rows = {}
    for b in BACKENDS:
        p = probe(b, args.queries)
        p["daemon_rss_mb"] = daemon_rss(b)
        rows[b] = p
    a, b = ([bytes.fromhex(h) for h in rows[k]["vectors"]] for k in BACKENDS)
    drift = max(1 - _dot(x, y) for x, y in zip(a, b))
    sizes = {}
    for spec in args.venv:
        name, _, path = spec.partition("=")
        sizes[name] = du_mb(path)
    if args.json:
        print(
            json.dumps(
                {
                    "rows": {k: {x: v for x, v in r.items() if x != "vectors"} for k, r in rows.items()},
                    "max_1_minus_cosine": drift,
                    "install_mb": sizes,
                    "load": load,
                },
                indent=2,
            )
        )
        return 0
    print(f"# 2 CPUs, 1-min load average {load:.1f} before (load inflates latencies, not memory)")
    print(f"{'back end':24} {'daemon RSS':>11} {'first query':>12} {'p50 / p95 per query':>20}")
    for k, r in rows.items():
        print(f"{k:24} {r['daemon_rss_mb']:>8.0f} MB {r['first_s']:>10.2f} s {r['p50']:>9.1f} / {r['p95']:.1f} ms")
    print(f"largest 1 - cosine between the back ends' vectors: {drift:.1e}")
    for name, mb in sizes.items():
        print(f"installed size, {name}: {mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
