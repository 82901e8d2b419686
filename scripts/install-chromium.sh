#!/usr/bin/env bash
# Installs Debian's chromium and chromium-driver when either is missing on this machine.
# Used by the test harness (floe-testing's ChromiumBrowser) for the dashboard's browser tests;
# idempotent and safe to run concurrently (serialised by a lock).
set -euo pipefail

have_chromium() {
  command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1
}

if have_chromium; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "chromium or chromedriver is not installed and this user cannot install packages." >&2
  echo "Install them once with: apt-get install chromium chromium-driver (as root), then rerun." >&2
  exit 1
fi

LOCK=/tmp/floe-install-chromium.lock
exec 9>"$LOCK"
flock 9
if have_chromium; then
  exit 0
fi

echo "Installing chromium and chromium-driver with apt-get (once per machine, a minute or two)..." >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >&2
have_chromium || { echo "apt-get finished but chromium or chromedriver is still missing" >&2; exit 1; }
echo "chromium and chromium-driver installed." >&2
