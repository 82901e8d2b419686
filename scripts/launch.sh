#!/usr/bin/env bash
# Shared by ./floe and ./bench: builds the project when a source or pom is newer than the last
# build (quietly, once; concurrent launches wait for one build), then runs MAIN_CLASS from
# MODULE with Maven's classpath order (the CDC connector needs it).
# Usage: scripts/launch.sh MODULE MAIN_CLASS [ARGS...]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODULE="$1"
MAIN_CLASS="$2"
shift 2

CLASSPATH_FILE="$ROOT/$MODULE/target/classpath.txt"
STAMP="$ROOT/$MODULE/target/launcher-build.stamp"
JAR="$(ls "$ROOT/$MODULE"/target/"$MODULE"-*.jar 2>/dev/null | grep -v -- '-tests.jar' | head -n 1 || true)"

if ! command -v java >/dev/null 2>&1 && [ -z "${JAVA_HOME:-}" ]; then
  echo "floe needs Java 17 or newer: install it (apt-get install openjdk-17-jdk) or set JAVA_HOME." >&2
  exit 2
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

stale() {
  [ ! -f "$STAMP" ] || [ ! -f "$CLASSPATH_FILE" ] || [ -z "$JAR" ] || [ ! -f "$JAR" ] && return 0
  [ -n "$(find "$ROOT" \( -name target -o -name .git -o -name floe-data \) -prune -o \
      \( -name '*.java' -o -name pom.xml -o -path '*/src/main/resources/*' -o -name install-mariadb.sh \) \
      -newer "$STAMP" -print -quit)" ]
}

if stale; then
  if ! command -v mvn >/dev/null 2>&1; then
    echo "Building Floe needs Maven 3.8 or newer (apt-get install maven)." >&2
    exit 2
  fi
  mkdir -p "$ROOT/target"
  exec 9>"$ROOT/target/build.lock"
  flock 9
  if stale; then
    echo "Building Floe (first run or sources changed; about a minute)..." >&2
    LOG="$ROOT/target/build.log"
    if ! (cd "$ROOT" && mvn -B -q -DskipTests -Dspotless.skip=true -pl "$MODULE" -am package >"$LOG" 2>&1); then
      echo "The build failed; the end of $LOG says why:" >&2
      tail -n 30 "$LOG" >&2
      exit 2
    fi
    touch "$STAMP"
  fi
  flock -u 9
  JAR="$(ls "$ROOT/$MODULE"/target/"$MODULE"-*.jar | grep -v -- '-tests.jar' | head -n 1)"
fi

# Flink and Iceberg on Java 17 need these (see shared/docs/dependencies.md, pitfall 2).
OPENS=$(sed -n 's:.*<floe.jvm.opens>\(.*\)</floe.jvm.opens>.*:\1:p' "$ROOT/pom.xml")

# shellcheck disable=SC2086
exec "$JAVA" ${FLOE_JAVA_OPTS:-} $OPENS -cp "$JAR:$(cat "$CLASSPATH_FILE")" "$MAIN_CLASS" "$@"
