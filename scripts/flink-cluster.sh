#!/usr/bin/env bash
# A Flink 1.20 standalone session cluster on this machine, to try `floe sync --flink` on: a
# JobManager and TaskManagers, each its own JVM, started from Flink's Maven jars the way Flink's
# bin/jobmanager.sh and bin/taskmanager.sh start them (the tests' FlinkCluster harness). Everything
# listens on 127.0.0.1; no Flink download needed.
#
# Usage: scripts/flink-cluster.sh start [--task-managers N] [--rest-port PORT]   (defaults 2, 8081)
#        scripts/flink-cluster.sh status
#        scripts/flink-cluster.sh stop
#
# Its configuration and logs live in $FLOE_FLINK_DIR (default ./floe-data/flink-cluster).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${FLOE_FLINK_DIR:-$PWD/floe-data/flink-cluster}"
PID_FILE="$DIR/cluster.pid"
OUT="$DIR/cluster.out"

running() {
  [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

summary() {
  sed -n '/^Flink cluster ready/,/^  Logs/p' "$OUT"
}

case "${1:-}" in
  start)
    shift
    if running; then
      echo "The Flink cluster in $DIR already runs (pid $(cat "$PID_FILE")):"
      summary
      exit 0
    fi
    mkdir -p "$DIR"
    rm -f "$PID_FILE"
    # Its own session, so that closing this terminal or Ctrl-C here does not stop it.
    setsid "$ROOT/scripts/launch.sh" floe-cli dev.floe.testing.FlinkClusterMain \
      --directory "$DIR" "$@" >"$OUT" 2>&1 </dev/null &
    LAUNCHER=$!
    echo "Starting a Flink cluster in $DIR (the first run builds Floe; about a minute)..." >&2
    for _ in $(seq 1 600); do
      if grep -q '^Flink cluster ready' "$OUT"; then
        summary
        echo "Stop it with: scripts/flink-cluster.sh stop"
        exit 0
      fi
      if ! kill -0 "$LAUNCHER" 2>/dev/null; then
        echo "The Flink cluster did not start:" >&2
        tail -n 40 "$OUT" >&2
        exit 2
      fi
      sleep 0.5
    done
    echo "The Flink cluster is not ready after 5 minutes; see $OUT and $DIR/log." >&2
    exit 2
    ;;
  status)
    if ! running; then
      echo "No Flink cluster runs from $DIR."
      exit 1
    fi
    echo "The Flink cluster in $DIR runs (pid $(cat "$PID_FILE")):"
    summary
    URL="$(sed -n 's/^  Web UI and REST API: //p' "$OUT")"
    if command -v curl >/dev/null 2>&1; then
      echo "  Overview:            $(curl -fsS "$URL/overview" || echo "no answer from $URL")"
    fi
    ;;
  stop)
    if ! running; then
      echo "No Flink cluster runs from $DIR."
      exit 0
    fi
    PID="$(cat "$PID_FILE")"
    kill -TERM "$PID"
    for _ in $(seq 1 120); do
      if ! kill -0 "$PID" 2>/dev/null; then
        echo "Stopped the Flink cluster in $DIR."
        exit 0
      fi
      sleep 0.5
    done
    echo "The Flink cluster (pid $PID) did not stop within 60 s; kill -9 $PID stops it (its" \
      "watchdogs then stop the JobManager and TaskManagers)." >&2
    exit 2
    ;;
  *)
    sed -n 's/^# \{0,1\}//; 2,13p' "${BASH_SOURCE[0]}" | sed -n '/^Usage/,/^$/p' >&2
    exit 2
    ;;
esac
