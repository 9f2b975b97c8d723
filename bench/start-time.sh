#!/usr/bin/env bash
# Seconds from launching the appliance until both its ports answer, and the CPU time it used to get there, for a given
# way of running it (docs/benchmarks.md, "Appliance start time"). Four fresh drive directories under a temporary
# directory, fixed local ports, then SIGTERM.
#
#   bench/start-time.sh [--runs N] -- JAVA_ARGS...      e.g. -- -Xmx1g -jar appliance-admin-ui/target/appliance.jar
set -euo pipefail
RUNS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "start-time.sh: unknown option $1 (java arguments go after --)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "start-time.sh: give the java arguments after --" >&2; exit 2; }
JAVA="${APPLIANCE_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
S3_PORT=9850 CONSOLE_PORT=9851
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for r in $(seq 1 "$RUNS"); do
  rm -rf "$work/d" && mkdir -p "$work/d"
  t0=$(date +%s%N)
  APPLIANCE_ROOT_USER=starttimer APPLIANCE_ROOT_PASSWORD=start-time-secret-0123 APPLIANCE_CONFIG_DIR="$work/d/config" \
    "$JAVA" "$@" server "$work/d/disk{1...4}" --allow-root-drives --address "127.0.0.1:$S3_PORT" \
    --console-address "127.0.0.1:$CONSOLE_PORT" > "$work/out.log" 2>&1 &
  pid=$!
  ready=""
  for _ in $(seq 1 2400); do # 120 s
    if curl -s -o /dev/null "http://127.0.0.1:$S3_PORT/" && curl -s -o /dev/null "http://127.0.0.1:$CONSOLE_PORT/"; then
      ready=1; break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  t1=$(date +%s%N)
  # the JVM's CPU time (user + system) to that point: what a start costs a machine that is busy with other work
  cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$pid/stat" 2>/dev/null || echo "?")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [ -z "$ready" ]; then echo "start-time.sh: run $r did not get ready; its output:" >&2; cat "$work/out.log" >&2; exit 1; fi
  printf 'run %d: ready in %.2f s, %s s of CPU (load average %s)\n' "$r" "$(echo "($t1 - $t0) / 1000000000" | bc -l)" \
    "$cpu" "$(cut -d' ' -f1 /proc/loadavg)"
done
