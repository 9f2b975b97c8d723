#!/usr/bin/env bash
# Issue 17's soak: mixed load (70 % GET / 30 % PUT of 1 MiB over 500 keys of an unversioned bucket, so the stored
# bytes stay bounded and replaced data goes through trash; S3Load --overwrite) against one appliance for a long run, with the
# server's resident set (VmRSS) sampled every 10 s. Memory must stay flat: the script prints the samples, the peak, and
# the mean of the first and of the last quarter of the run, and fails (exit 1) when the last quarter's mean is more
# than 10 % above the first's, or the load had errors. It also prints the live heap after a full collection at minute
# 3 and at the end (jcmd GC.class_histogram), which a leak would grow.
#
#   bench/soak.sh [--minutes 30] [--concurrency 16] [--size 1MiB] [--dir DIR] [--nmt]
#
# --nmt runs the server with native memory tracking and prints, each minute, what the JVM says it has committed (NMT)
# beside the resident set, with its direct buffers ("Other") and code cache: the difference is memory the JVM does not
# account for (malloc arenas, native libraries).
#
# The server is started with the launcher's own sizing (packaging/rpm/files/jvm-options.sh) on four drive directories
# under --dir, EC 2+2, plain HTTP on 127.0.0.1:9700. Figures and how to read them: docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=30
CONCURRENCY=16
SIZE=1MiB
DIR="${SOAK_DIR:-/tmp/appliance-soak}"
NMT=
die() { echo "soak.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES="$2"; shift 2 ;;
    --concurrency) CONCURRENCY="$2"; shift 2 ;;
    --size) SIZE="$2"; shift 2 ;;
    --dir) DIR="$2"; shift 2 ;;
    --nmt) NMT=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ "$MINUTES" =~ ^[1-9][0-9]*$ ]] || die "--minutes must be a positive number, not '$MINUTES'"
[[ "$CONCURRENCY" =~ ^[1-9][0-9]*$ ]] || die "--concurrency must be a positive number, not '$CONCURRENCY'"

mkdir -p "$DIR"
./appliance build >"$DIR/build.log" 2>&1 || { tail -20 "$DIR/build.log" >&2; die "the build failed (log: $DIR/build.log)"; }
./appliance mvn -q -o -Dspotless.check.skip=true -pl jmh -am -DskipTests package >>"$DIR/build.log" 2>&1 \
  || { tail -20 "$DIR/build.log" >&2; die "the load client's build failed (log: $DIR/build.log)"; }
JAVA="$(./appliance mvn -v 2>/dev/null | sed -n 's/^Java version: .*runtime: //p')/bin/java"
JCMD="$(dirname "$JAVA")/jcmd"

rm -rf "$DIR"
mkdir -p "$DIR"/d{1..4}
APPLIANCE_JAVA_OPTS="${APPLIANCE_JAVA_OPTS:-}${NMT:+ -XX:NativeMemoryTracking=summary}" \
  APPLIANCE_ROOT_USER=soakadmin APPLIANCE_ROOT_PASSWORD=soaksecret-0123456789 \
  ./appliance server "$DIR/d{1...4}" --allow-root-drives --address 127.0.0.1:9700 \
  --console-address 127.0.0.1:9701 >"$DIR/server.log" 2>&1 &
PID=$!
trap 'kill -TERM $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 240); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9700/ || true)" != 000 ] && break
  kill -0 "$PID" 2>/dev/null || die "the appliance did not start (log: $DIR/server.log)"
  sleep 0.5
done
echo "[soak] $(date -u +%FT%TZ) $MINUTES min, concurrency $CONCURRENCY, $SIZE; $(tr '\0' '\n' </proc/$PID/cmdline | grep -E -- '^-Xm[sx]|^-XX:MaxDirectMemorySize|^-XX:\+Use.*GC|^-XX:\+AlwaysPreTouch' | tr '\n' ' ')MALLOC_ARENA_MAX=$(tr '\0' '\n' </proc/$PID/environ | sed -n 's/^MALLOC_ARENA_MAX=//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"

SAMPLES="$DIR/rss.tsv"
: >"$SAMPLES"
(
  start=$(date +%s)
  while kill -0 "$PID" 2>/dev/null; do
    printf '%s\t%s\n' "$(( $(date +%s) - start ))" "$(awk '/^VmRSS:/ {print $2}' /proc/$PID/status)" >>"$SAMPLES"
    sleep 10
  done
) &
SAMPLER=$!
NMT_SAMPLER=
if [ -n "$NMT" ]; then
  (
    m=0
    while sleep 60 && kill -0 "$PID" 2>/dev/null; do
      m=$((m + 1))
      summary="$("$JCMD" "$PID" VM.native_memory summary 2>/dev/null || true)"
      committed="$(sed -n 's/^Total: .*committed=\([0-9]*\)KB.*/\1/p' <<<"$summary")"
      # the categories that moved in earlier soaks: direct buffers (NMT's "Other") and the JIT's code cache
      other="$(sed -n 's/^-  *Other (reserved=[0-9]*KB, committed=\([0-9]*\)KB.*/\1/p' <<<"$summary")"
      code="$(sed -n 's/^-  *Code (reserved=[0-9]*KB, committed=\([0-9]*\)KB.*/\1/p' <<<"$summary")"
      rss="$(awk '/^VmRSS:/ {print $2}' "/proc/$PID/status")"
      [ -n "$committed" ] && echo "[soak] minute $m: RSS $((rss / 1024)) MiB, NMT committed $((committed / 1024)) MiB" \
        "(direct buffers $((${other:-0} / 1024)), code $((${code:-0} / 1024))), outside NMT $(((rss - committed) / 1024)) MiB"
    done
  ) &
  NMT_SAMPLER=$!
fi

# The live heap (after a full collection) early in the run and at its end: a leak grows it even where the resident
# set cannot show it (the launcher's heap is fixed and touched at start).
live_heap_mib() {
  "$JCMD" "$PID" GC.class_histogram 2>/dev/null | awk '/^Total/ {printf "%.0f", $3 / 1048576}'
}
( sleep 180; echo "$(live_heap_mib)" >"$DIR/live-heap-early" ) &
set +e
"$JAVA" -Xmx256m -cp jmh/target/benchmarks.jar dev.appliance.jmh.S3Load --endpoint http://127.0.0.1:9700 \
  --access-key soakadmin --secret-key soaksecret-0123456789 --workload mixed --overwrite --size "$SIZE" --objects 500 \
  --concurrency "$CONCURRENCY" --duration "${MINUTES}m" | tee "$DIR/load.txt"
LOAD_RC=${PIPESTATUS[0]}
set -e
kill "$SAMPLER" $NMT_SAMPLER 2>/dev/null || true
echo "[soak] live heap after a full collection: $(cat "$DIR/live-heap-early" 2>/dev/null || echo '?') MiB at minute 3, $(live_heap_mib) MiB at the end"

python3 - "$SAMPLES" "$LOAD_RC" <<'EOF'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
rss = [r / 1024 for _, r in rows]
q = max(1, len(rss) // 4)
first, last = sum(rss[:q]) / q, sum(rss[-q:]) / q
print("[soak] RSS MiB every 10 s:", " ".join(f"{x:.0f}" for x in rss))
print(f"[soak] samples {len(rss)}, peak {max(rss):.0f} MiB, first quarter mean {first:.0f} MiB, last quarter mean {last:.0f} MiB ({(last / first - 1) * 100:+.1f} %)")
bad = last > first * 1.10 or sys.argv[2] != "0"
print("[soak] " + ("FAILED: " + ("memory grew" if last > first * 1.10 else "the load had errors") if bad else "flat: passed"))
sys.exit(1 if bad else 0)
EOF
