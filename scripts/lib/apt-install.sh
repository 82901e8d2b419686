# Shared by scripts/install-*.sh (sourced, not run): installs Debian packages once per machine.
#
#   apt_install_once NAME WHAT CHECK PACKAGE...
#
# NAME names the lock (/tmp/floe-install-NAME.lock), WHAT what is missing in messages, CHECK is a shell function that succeeds when it is
# installed. Does nothing when CHECK already succeeds; otherwise installs PACKAGE... with apt-get
# as root (directly or through sudo), serialised by a lock so concurrent callers install once,
# and keeps the packaged services from starting (Floe runs its own private servers).

apt_install_once() {
  local name="$1" what="$2" check="$3"
  shift 3
  if "$check"; then
    return 0
  fi

  local sudo
  if [ "$(id -u)" -eq 0 ]; then
    sudo=""
  elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "$what is not installed and this user cannot install packages." >&2
    echo "Install it once with: apt-get install $* (as root), then rerun." >&2
    return 1
  fi

  exec 9>"/tmp/floe-install-${name}.lock"
  flock 9
  if "$check"; then
    return 0
  fi

  echo "Installing $* with apt-get (once per machine, a minute or two)..." >&2
  # policy-rc.d exiting 101 forbids service starts while the packages install.
  local policy=/usr/sbin/policy-rc.d created_policy=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
    created_policy=1
  fi
  # Through env, because sudo drops the caller's environment.
  local status=0
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || status=$?
  if [ "$status" -eq 0 ]; then
    $sudo env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "$@" >&2 || status=$?
  fi
  if [ -n "$created_policy" ]; then
    $sudo rm -f "$policy"
  fi
  if [ "$status" -ne 0 ]; then
    echo "apt-get failed (exit $status) installing $*" >&2
    return "$status"
  fi
  "$check" || { echo "apt-get finished but $what is still missing" >&2; return 1; }
  echo "$* installed." >&2
}
