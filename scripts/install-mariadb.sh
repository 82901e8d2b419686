#!/usr/bin/env bash
# Installs Debian's mariadb-server when no mariadbd is on this machine.
# Used by the test harness and `floe demo`; safe to run concurrently (serialised by a lock).
# The packaged service is not started: Floe runs its own private servers.
set -euo pipefail

have_mariadbd() {
  command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || [ -x /usr/sbin/mysqld ]
}

if have_mariadbd; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "mariadbd is not installed and this user cannot install packages." >&2
  echo "Install it once with: apt-get install mariadb-server (as root), then rerun." >&2
  exit 1
fi

LOCK=/tmp/floe-install-mariadb.lock
exec 9>"$LOCK"
flock 9
if have_mariadbd; then
  exit 0
fi

echo "Installing mariadb-server with apt-get (once per machine, about a minute)..." >&2
# Keep the packaged service from starting: policy-rc.d exit 101 forbids service starts.
POLICY=/usr/sbin/policy-rc.d
CREATED_POLICY=""
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod +x "$POLICY"
  CREATED_POLICY=1
fi
cleanup() { if [ -n "$CREATED_POLICY" ]; then $SUDO rm -f "$POLICY"; fi; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends mariadb-server >&2
have_mariadbd || { echo "apt-get finished but mariadbd is still missing" >&2; exit 1; }
echo "mariadb-server installed." >&2
