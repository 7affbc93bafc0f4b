#!/usr/bin/env bash
# Installs the pinned Codex CLI and Gemini CLI into .e2e-agents/ (git-ignored) for the end-to-end
# tests in tests/e2e/test_e2e_agents.py. Idempotent: when both pinned versions are there it only
# says so. The versions are pinned because each agent's hook protocol still changes between
# releases. Without npm it prints why and exits 0: those tests then skip with that reason.
set -euo pipefail
cd "$(dirname "$0")/.."
CODEX_VERSION="${CODEX_VERSION:-0.169.0}"
GEMINI_VERSION="${GEMINI_VERSION:-0.61.0}"
DEST="${MEMORY_CLI_AGENTS_DIR:-.e2e-agents}"
CODEX="$DEST/node_modules/@openai/codex/package.json"
GEMINI="$DEST/node_modules/@google/gemini-cli/package.json"
installed() { [ -f "$1" ] && grep -q "\"version\": \"$2\"" "$1"; }
if installed "$CODEX" "$CODEX_VERSION" && installed "$GEMINI" "$GEMINI_VERSION"; then
    echo "setup_agents: Codex CLI $CODEX_VERSION and Gemini CLI $GEMINI_VERSION already in $DEST/"
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "setup_agents: npm not found; the agent end-to-end tests will be skipped." >&2
    exit 0
fi
mkdir -p "$DEST"
# A package.json of its own keeps npm from walking up into any parent project.
[ -f "$DEST/package.json" ] || echo '{"name": "memory-cli-e2e-agents", "private": true}' > "$DEST/package.json"
echo "setup_agents: installing @openai/codex@$CODEX_VERSION and @google/gemini-cli@$GEMINI_VERSION into $DEST/"
npm install --prefix "$DEST" --no-audit --no-fund --no-save --loglevel=error \
    "@openai/codex@$CODEX_VERSION" "@google/gemini-cli@$GEMINI_VERSION"
"$DEST/node_modules/.bin/codex" --version
"$DEST/node_modules/.bin/gemini" --version
