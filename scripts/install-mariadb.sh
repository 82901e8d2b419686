#!/usr/bin/env bash
# Installs Debian's mariadb-server when no mariadbd is on this machine.
# Used by the test harness and `floe demo`; safe to run concurrently (serialised by a lock).
# The packaged service is not started: Floe runs its own private servers.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt-install.sh"

have_mariadbd() {
  command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || [ -x /usr/sbin/mysqld ]
}

apt_install_once mariadb mariadbd have_mariadbd mariadb-server
