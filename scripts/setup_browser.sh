#!/usr/bin/env bash
# Installs the headless browser the dashboard's browser tests drive: Debian's `chromium`
# (Playwright for Python drives it at /usr/bin/chromium; Playwright's own browser download is
# never used). Idempotent: does nothing when chromium is already there. Without root or apt it
# prints why, and the browser tests skip with that reason.
set -uo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup_browser: /usr/bin/chromium is missing and cannot be installed here (needs root and apt-get);" \
         "install Debian's chromium package to run the dashboard's browser tests (they skip until then)." >&2
    exit 0
fi
echo "setup_browser: installing Debian's chromium for the dashboard's browser tests"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q chromium >/dev/null 2>&1; then
    apt-get update -q >/dev/null 2>&1 || true
    apt-get install -y -q chromium >/dev/null 2>&1 || \
        echo "setup_browser: apt-get install chromium failed; the browser tests will skip." >&2
fi
exit 0
