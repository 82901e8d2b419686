#!/usr/bin/env bash
# Installs Debian's postgresql when no initdb is on this machine.
# Used by the test harness; safe to run concurrently (serialised by a lock).
# The packaged service is not started: Floe runs its own private servers.
set -euo pipefail

# Debian keeps initdb out of PATH, in /usr/lib/postgresql/VERSION/bin.
have_initdb() {
  command -v initdb >/dev/null 2>&1 && return 0
  local candidate
  for candidate in /usr/lib/postgresql/*/bin/initdb; do
    [ -x "$candidate" ] && return 0
  done
  return 1
}

if have_initdb; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "initdb is not installed and this user cannot install packages." >&2
  echo "Install it once with: apt-get install postgresql (as root), then rerun." >&2
  exit 1
fi

LOCK=/tmp/floe-install-postgresql.lock
exec 9>"$LOCK"
flock 9
if have_initdb; then
  exit 0
fi

echo "Installing postgresql with apt-get (once per machine, about a minute)..." >&2
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

# Through env, because sudo drops the caller's environment.
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
$SUDO env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends postgresql >&2
have_initdb || { echo "apt-get finished but initdb is still missing" >&2; exit 1; }
echo "postgresql installed." >&2
