#!/usr/bin/env bash
# Installs what Claude Code's sandbox needs on Linux (Debian packages `bubblewrap` and `socat`),
# so the end-to-end tests of `memory-cli install --harden` run the agent's Bash in it.
# Idempotent: does nothing when both are there. Without root or apt it prints why, and the
# sandbox tests skip with that reason.
set -uo pipefail
if command -v bwrap >/dev/null 2>&1 && command -v socat >/dev/null 2>&1; then
    exit 0
fi
if [ "$(uname -s)" != "Linux" ]; then
    exit 0  # macOS: Seatbelt is built in
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup_sandbox: bubblewrap/socat are missing and cannot be installed here (needs root and apt-get);" \
         "install Debian's bubblewrap and socat packages to run the sandbox tests (they skip until then)." >&2
    exit 0
fi
echo "setup_sandbox: installing Debian's bubblewrap and socat for Claude Code's sandbox"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q bubblewrap socat >/dev/null 2>&1; then
    apt-get update -q >/dev/null 2>&1 || true
    apt-get install -y -q bubblewrap socat >/dev/null 2>&1 || \
        echo "setup_sandbox: apt-get install bubblewrap socat failed; the sandbox tests will skip." >&2
fi
exit 0
