#!/usr/bin/env bash
# Installs the pinned Claude Code CLI into .e2e/ (git-ignored) for the end-to-end tests in
# tests/e2e/. Idempotent: when the pinned version is already there it only says so.
# The version is pinned because hook behaviour changes between Claude Code releases.
# Without npm it prints why and exits 0: the e2e tests then skip with that reason.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="${CLAUDE_CODE_VERSION:-2.1.328}"
DEST=.e2e
BIN="$DEST/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q "^$VERSION "; then
    echo "setup_claude_code: Claude Code $VERSION already in $DEST/"
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "setup_claude_code: npm not found; the end-to-end tests (tests/e2e) will be skipped." >&2
    echo "setup_claude_code: install Node.js 18+ with npm, then run scripts/setup_claude_code.sh." >&2
    exit 0
fi
mkdir -p "$DEST"
# A package.json of its own keeps npm from walking up into any parent project.
[ -f "$DEST/package.json" ] || echo '{"name": "memory-cli-e2e", "private": true}' > "$DEST/package.json"
echo "setup_claude_code: installing @anthropic-ai/claude-code@$VERSION into $DEST/ (about 15 s)"
npm install --prefix "$DEST" --no-audit --no-fund --no-save --loglevel=error \
    "@anthropic-ai/claude-code@$VERSION"
"$BIN" --version
