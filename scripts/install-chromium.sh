#!/usr/bin/env bash
# Installs Debian's chromium and chromium-driver when either is missing on this machine.
# Used by the test harness (floe-testing's ChromiumBrowser) for the dashboard's browser tests;
# idempotent and safe to run concurrently (serialised by a lock).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt-install.sh"

have_chromium() {
  command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1
}

apt_install_once chromium "chromium or chromedriver" have_chromium chromium chromium-driver fonts-dejavu-core
