#!/usr/bin/env bash
# Installs Debian's postgresql when no initdb is on this machine.
# Used by the test harness; safe to run concurrently (serialised by a lock).
# The packaged service is not started: Floe runs its own private servers.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt-install.sh"

# Debian keeps initdb out of PATH, in /usr/lib/postgresql/VERSION/bin.
have_initdb() {
  command -v initdb >/dev/null 2>&1 && return 0
  local candidate
  for candidate in /usr/lib/postgresql/*/bin/initdb; do
    [ -x "$candidate" ] && return 0
  done
  return 1
}

apt_install_once postgresql initdb have_initdb postgresql
