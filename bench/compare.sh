#!/usr/bin/env bash
# Issue 17's side-by-side measure: this appliance against MinIO on the same machine, in the same run.
#
#   bench/compare.sh [--rounds 3] [--duration 20s] [--concurrency 16] [--workloads "put-1m get-1m ..."] \
#                    [--minio BIN] [--warp BIN] [--dir DIR] [--servers "ours minio"] [--no-pause] [--write-warmup 10s]
#                    [--rotate-workloads] [--min-free-gib 16]
#
# Both servers run at once on 127.0.0.1 (ours :9500, MinIO :9600), each on four drive directories under --dir on the
# same filesystem, EC 2+2, plain HTTP, and are wiped and restarted for every round. Within a round each workload runs
# on one server and then the other, the order swapped every round, so drift on a shared machine falls on both. The
# resident set (VmRSS) of each server is sampled every second while its workload runs; the table gives the peak. After
# each start, both servers get an untimed warm-up: 30 s of writes, then 30 s of each read, retention or mixed workload
# of the run (since 2026-11-28 06:00 UTC; before, the writes only). While one server is timed the other is stopped
# (SIGSTOP, then SIGCONT), so neither's background work runs on the other's time; --no-pause leaves both running (runs before
# 2026-11-27 14:30 UTC were made that way). Before each timed run, `sync` writes back what the last one left dirty.
#
# Peers are built from their public sources beside the project and never committed (docs/benchmarks.md says how):
# MinIO's server (needs MINIO_CI_CD=1 for drives on the root disk) and warp v1.4.0. Defaults: ../peer/bin/{minio,warp}
# relative to the checkout, or $MINIO_BIN / $WARP_BIN.
#
# Workloads (ops/s is the figure compared; "x" in the table is ours / MinIO):
#   put-1m put-4k            warp put, 1 MiB / 4 KiB objects
#   get-1m get-4k            warp get of objects warp writes first (200 / 2000 of them)
#   veeam-512k veeam-1m      S3Load veeam-write: Content-MD5, per-object COMPLIANCE retention, lock bucket
#   veeam-512k-versioned     the same write into a versioned bucket without Object Lock
#   restore-1m               S3Load restore: GET of 1 MiB objects written earlier, random order
#   degraded-1m              restore-1m again after one of the four drive directories is moved away (the server runs on)
#   retention                S3Load retention: PutObjectRetention extending retention, round robin over 2,000 objects
#   mixed-1m                 S3Load mixed: 70 % GET / 30 % PUT of 1 MiB
set -euo pipefail
cd "$(dirname "$0")/.."
CHECKOUT="$(pwd)"

ROUNDS=3
DURATION=20s
WRITE_WARMUP=10s
PAUSE_IDLE=1
# --min-free-gib: no warm-up or timed run starts with less free space under --dir. Both servers keep a round's writes
# until it ends: on a fast machine one 20 s run of Veeam's 512 KiB write wrote 13 GiB, and a round of every write
# workload filled 80 GiB, so run the write workloads in separate runs there. The run stops; its table so far is kept.
MIN_FREE_GIB=16
# --rotate-workloads: round r starts the workload list at its r-th entry (degraded-1m stays last). For comparing two
# workloads on one server (run EE): the first timed run after the warm-up carries what the JIT still compiles.
ROTATE=""
CONCURRENCY=16
# degraded-1m last: bringing the drive back sets off healing on both servers, which would weigh on what follows
WORKLOADS="put-1m get-1m put-4k get-4k veeam-512k veeam-512k-versioned veeam-1m restore-1m retention mixed-1m degraded-1m"
SERVERS="ours minio"
MINIO_BIN="${MINIO_BIN:-$CHECKOUT/../peer/bin/minio}"
WARP_BIN="${WARP_BIN:-$CHECKOUT/../peer/bin/warp}"
DIR="${COMPARE_DIR:-/tmp/appliance-compare}"
USER_KEY=benchadmin
USER_SECRET=benchsecret-0123456789

die() { echo "compare.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --concurrency) CONCURRENCY="$2"; shift 2 ;;
    --workloads) WORKLOADS="$2"; shift 2 ;;
    --servers) SERVERS="$2"; shift 2 ;;
    --minio) MINIO_BIN="$2"; shift 2 ;;
    --warp) WARP_BIN="$2"; shift 2 ;;
    --dir) DIR="$2"; shift 2 ;;
    --no-pause) PAUSE_IDLE=""; shift ;;
    --write-warmup) WRITE_WARMUP="$2"; shift 2 ;;
    --rotate-workloads) ROTATE=1; shift ;;
    --min-free-gib) MIN_FREE_GIB="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive number, not '$ROUNDS'"
[[ "$CONCURRENCY" =~ ^[1-9][0-9]*$ ]] || die "--concurrency must be a positive number, not '$CONCURRENCY'"
[[ "$DURATION" =~ ^[1-9][0-9]*[sm]$ ]] || die "--duration must look like 20s or 2m, not '$DURATION'"
[[ "$MIN_FREE_GIB" =~ ^[0-9]+$ ]] || die "--min-free-gib must be a whole number of GiB, not '$MIN_FREE_GIB'"
[[ "$WRITE_WARMUP" =~ ^[1-9][0-9]*[sm]$ ]] || die "--write-warmup must look like 10s or 1m, not '$WRITE_WARMUP'"
for w in $WORKLOADS; do
  case "$w" in
    put-1m|get-1m|put-4k|get-4k|veeam-512k|veeam-512k-versioned|veeam-1m|restore-1m|degraded-1m|retention|mixed-1m) ;;
    *) die "unknown workload '$w' (see --help)" ;;
  esac
done
for s in $SERVERS; do
  case "$s" in ours|minio) ;; *) die "unknown server '$s' (ours, minio)" ;; esac
done
if [[ " $SERVERS " == *" minio "* ]]; then
  [ -x "$MINIO_BIN" ] || die "no MinIO server at $MINIO_BIN (build it from source, see docs/benchmarks.md, or pass --minio)"
fi
[ -x "$WARP_BIN" ] || die "no warp at $WARP_BIN (build v1.4.0 from source, see docs/benchmarks.md, or pass --warp)"

mkdir -p "$DIR"
./appliance build >"$DIR/build.log" 2>&1 || { tail -20 "$DIR/build.log" >&2; die "the build failed (log: $DIR/build.log)"; }
./appliance mvn -q -o -Dspotless.check.skip=true -pl jmh -am -DskipTests package >>"$DIR/build.log" 2>&1 \
  || { tail -20 "$DIR/build.log" >&2; die "the load client's build failed (log: $DIR/build.log)"; }
JAVA="$(./appliance mvn -v 2>/dev/null | sed -n 's/^Java version: .*runtime: //p')/bin/java"
LOADJAR="$CHECKOUT/jmh/target/benchmarks.jar"

RESULTS="$DIR/results"
mkdir -p "$RESULTS"
RUN_ID="$(date -u +%Y%m%dT%H%M%SZ)"
TABLE="$RESULTS/$RUN_ID.tsv"
LOG="$RESULTS/$RUN_ID.log"
declare -A PID PORT
PORT[ours]=9500
PORT[minio]=9600

log() { echo "[compare] $(date -u +%FT%TZ) $*" | tee -a "$LOG" >&2; }

free_gib() { df -Pk "$DIR" | awk 'NR == 2 { printf "%d", $4 / 1048576 }'; }
# Before anything that writes: a disk that fills mid-run turns the figures into errors for both servers.
require_free() {
  local free; free="$(free_gib)"
  [ "$free" -ge "$MIN_FREE_GIB" ] \
    || die "only $free GiB free under $DIR before $1 (--min-free-gib $MIN_FREE_GIB): fewer write workloads per run; results so far in $TABLE"
}

start_server() {
  local s="$1" d="$DIR/$1"
  rm -rf "$d"
  mkdir -p "$d"/d{1..4}
  if [ "$s" = ours ]; then
    APPLIANCE_ROOT_USER="$USER_KEY" APPLIANCE_ROOT_PASSWORD="$USER_SECRET" \
      setsid ./appliance server "$d/d{1...4}" --allow-root-drives \
      --address "127.0.0.1:${PORT[ours]}" --console-address 127.0.0.1:9501 >"$d.log" 2>&1 &
  else
    MINIO_CI_CD=1 MINIO_ROOT_USER="$USER_KEY" MINIO_ROOT_PASSWORD="$USER_SECRET" \
      setsid "$MINIO_BIN" server "$d/d{1...4}" --address "127.0.0.1:${PORT[minio]}" \
      --console-address 127.0.0.1:9601 >"$d.log" 2>&1 &
  fi
  PID[$s]=$!
  local i
  for i in $(seq 1 240); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${PORT[$s]}/" || true)" != 000 ]; then
      return 0
    fi
    kill -0 "${PID[$s]}" 2>/dev/null || { tail -20 "$d.log" >&2; die "$s did not start (log: $d.log)"; }
    sleep 0.5
  done
  die "$s did not answer on :${PORT[$s]} within 2 minutes (log: $d.log)"
}

stop_server() {
  local s="$1" p="${PID[$1]:-}"
  [ -n "$p" ] || return 0
  kill -CONT "$p" 2>/dev/null || true
  kill -TERM "$p" 2>/dev/null || true
  for _ in $(seq 1 240); do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$p" 2>/dev/null || true
  PID[$s]=""
}
# The drive directories hold tens of GB after a run (1 MiB PUTs for minutes): removed at the end, results kept.
trap 'for s in $SERVERS; do stop_server "$s"; rm -rf "${DIR:?}/$s"; done' EXIT

# The peak resident set of a process (KiB) while a command runs: sampled every second into $1.
rss_peak() {
  local pid="$1" out="$2"
  local peak=0 rss
  while kill -0 "$pid" 2>/dev/null; do
    rss="$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)"
    [ "${rss:-0}" -gt "$peak" ] && peak="$rss" && echo "$peak" >"$out"
    sleep 1
  done
}

# Stops (STOP) or resumes (CONT) the servers other than $1: one server's background work (our scanner walks what the
# warm-up wrote at up to 1,000 keys/s, about 0.4 of a core) must not run on the other's time. Both are treated alike.
pause_others() {
  local p
  [ -n "$PAUSE_IDLE" ] || return 0
  for p in $(other_pids "$1"); do kill -"$2" "$p" 2>/dev/null || true; done
}

# CPU time (ms, user + system) and context switches (voluntary and not, over all its threads) of one process so far.
ticks() { awk '{print $14 + $15}' "$1" 2>/dev/null || echo 0; } # user + system clock ticks in a /proc stat file
cpu_ms() { echo $(( $(ticks "/proc/$1/stat") * 1000 / CLK_TCK )); }
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {n += $2} END {print n + 0}'; }
# CPU time (ms) of a JVM's JIT compiler threads so far (0 for MinIO): a timed run whose paths are still being compiled
# pays for it (see --write-warmup).
jit_ms() {
  local t sum=0
  for t in /proc/"$1"/task/*; do
    case "$(cat "$t/comm" 2>/dev/null)" in
      C1\ Compiler*|C2\ Compiler*) sum=$(( sum + $(ticks "$t/stat") )) ;;
    esac
  done
  echo $(( sum * 1000 / CLK_TCK ))
}

# CPU time (ms) of the servers other than $1 so far: what the idle server spends while the other is timed.
idle_cpu_ms() {
  local p t=0
  for p in $(other_pids "$1"); do t=$(( t + $(cpu_ms "$p") )); done
  echo "$t"
}

other_pids() { local o; for o in $SERVERS; do [ "$o" != "$1" ] && [ -n "${PID[$o]:-}" ] && echo "${PID[$o]}"; done; true; }
CLK_TCK="$(getconf CLK_TCK)"

# $1 spread over the operations of a timed run at $2 ops/s: per operation, 2 decimals.
per_op() {
  python3 -c 'import sys; v, r, d = sys.argv[1:]; s = int(d[:-1]) * (60 if d[-1] == "m" else 1); print(f"{float(v) / (float(r) * s):.2f}" if r not in ("", "error") and float(r) > 0 else "-")' "$1" "$2" "$DURATION"
}

run_duration() { case "${WARM:-}" in "") echo "$DURATION" ;; workload) echo 30s ;; *) echo "$WRITE_WARMUP" ;; esac; }

warp_run() { # op size objects server -> ops/s
  local op="$1" size="$2" objects="$3" s="$4" extra=()
  [ "$op" = get ] && extra=(--objects "$objects")
  local out
  out="$("$WARP_BIN" "$op" --host "127.0.0.1:${PORT[$s]}" --access-key "$USER_KEY" --secret-key "$USER_SECRET" \
    --bucket "${WARM:+warmup-}warp-$op-${size,,}" --obj.size "$size" --concurrent "$CONCURRENCY" \
    --duration "$(run_duration)" \
    --noclear --no-color --lookup path --benchdata "$RESULTS/warp-$RUN_ID-$s-$op-${size,,}${WARM:+-warmup}" \
    "${extra[@]}" 2>&1)" || { echo "$out" >>"$LOG"; echo "error"; return; }
  echo "$out" >>"$LOG"
  # warp's summary: "Report: PUT. ..." followed by " * Average: 123.45 MiB/s, 123.45 obj/s"
  echo "$out" | awk -v op="$(echo "$op" | tr a-z A-Z)" '
    $0 ~ "Report: " op "\\." {inrep=1}
    inrep && /Average:/ { for (i=1;i<=NF;i++) if ($i ~ /^obj\/s/) { v=$(i-1) } ; print v; exit }'
}

load_run() { # s3load args... (server last) -> ops/s
  local s="${*: -1}" args=("${@:1:$#-1}") out
  out="$("$JAVA" -Xmx512m -cp "$LOADJAR" dev.appliance.jmh.S3Load --endpoint "http://127.0.0.1:${PORT[$s]}" \
    --access-key "$USER_KEY" --secret-key "$USER_SECRET" --concurrency "$CONCURRENCY" \
    --duration "$(run_duration)" \
    "${args[@]}" 2>&1)" || { echo "$out" >>"$LOG"; echo "error"; return; }
  echo "$out" >>"$LOG"
  echo "$out" | sed -n 's/.*ops_per_s=\([0-9.]*\).*/\1/p' | tail -1
}

run_workload() { # workload server round -> ops/s
  local w="$1" s="$2" r="$3"
  case "$w" in
    put-1m) warp_run put 1MiB 0 "$s" ;;
    put-4k) warp_run put 4KiB 0 "$s" ;;
    get-1m) warp_run get 1MiB 200 "$s" ;;
    get-4k) warp_run get 4KiB 2000 "$s" ;;
    veeam-512k) load_run --workload veeam-write --size 512KiB --lock --bucket "veeam-lock-$r" "$s" ;;
    veeam-512k-versioned) load_run --workload veeam-write --size 512KiB --bucket "veeam-versioned-$r" "$s" ;;
    veeam-1m) load_run --workload veeam-write --size 1MiB --lock --bucket "veeam-lock1m-$r" "$s" ;;
    restore-1m) load_run --workload restore --size 1MiB --objects 200 --bucket "restore-$r" "$s" ;;
    degraded-1m)
      # The same restore with one drive directory moved away under the running server (a drive pulled).
      load_run --workload restore --size 1MiB --objects 200 --bucket "degraded-$r" --prefill-only "$s" >/dev/null
      mv "$DIR/$s/d4" "$DIR/$s/d4.away"
      load_run --workload restore --size 1MiB --objects 200 --bucket "degraded-$r" --no-prefill "$s"
      mv "$DIR/$s/d4.away" "$DIR/$s/d4"
      ;;
    retention) load_run --workload retention --objects 2000 --bucket "retention-$r" "$s" ;;
    mixed-1m) load_run --workload mixed --size 1MiB --objects 200 --bucket "mixed-$r" "$s" ;;
  esac
}

log "run $RUN_ID: rounds=$ROUNDS duration=$DURATION concurrency=$CONCURRENCY servers='$SERVERS' workloads='$WORKLOADS' pause_idle=${PAUSE_IDLE:-0}"
log "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
log "ours: $(git -C "$CHECKOUT" rev-parse --short HEAD)$(git -C "$CHECKOUT" diff --quiet || echo '+changes'); minio: $("$MINIO_BIN" --version 2>/dev/null | head -1 || echo absent)"
printf 'round\tworkload\tserver\tops_per_s\trss_peak_mib\tload1\n' >"$TABLE"
order=($SERVERS)
for r in $(seq 1 "$ROUNDS"); do
  for s in "${order[@]}"; do start_server "$s"; done
  # Untimed warm-up of each server (the JVM compiles its hot paths in its first minute; MinIO's binary needs none,
  # but gets the same): 10 s (--write-warmup) each of 1 MiB and 4 KiB PUTs and a Veeam write, then 30 s of each
  # workload of the run that is not one of those writes (a degraded read warms up as a healthy one), into buckets no
  # timed run uses. Without the latter a workload whose path the PUTs do not compile (PutObjectRetention, GET) was
  # timed while the JIT still worked on it: a fresh server gave 1,489, 1,658, 1,898, 1,873 retention requests/s in its
  # first four 20 s runs (2026-11-28). The writes get no more by default: 30 s more of 1 MiB PUTs on each server filled the disk (MinIO
  # refused Veeam's writes for want of free space). Yet our JIT compiler still took a fifth of our CPU in timed write
  # runs after 10 s (the log's "JIT compiler threads"): --write-warmup 30s gives a run of fewer workloads more.
  for s in "${order[@]}"; do
    require_free "the warm-up of $s"
    WARM=1 warp_run put 1MiB 0 "$s" >/dev/null
    WARM=1 warp_run put 4KiB 0 "$s" >/dev/null
    WARM=1 load_run --workload veeam-write --size 512KiB --lock --bucket "warmup-$r" "$s" >/dev/null
    for w in $WORKLOADS; do
      case "$w" in
        put-* | veeam-*) ;; # the same paths as the writes above
        degraded-1m) WARM=workload run_workload restore-1m "$s" "warmup$r" >/dev/null ;;
        *) WARM=workload run_workload "$w" "$s" "warmup$r" >/dev/null ;;
      esac
    done
  done
  timed=($WORKLOADS)
  if [ -n "$ROTATE" ]; then
    rest=(); for w in "${timed[@]}"; do [ "$w" = degraded-1m ] || rest+=("$w"); done
    if [ ${#rest[@]} -gt 1 ]; then
      k=$(( (r - 1) % ${#rest[@]} ))
      timed=("${rest[@]:k}" "${rest[@]:0:k}")
      if [[ " $WORKLOADS " == *" degraded-1m "* ]]; then timed+=(degraded-1m); fi
    fi
  fi
  for w in "${timed[@]}"; do
    for s in "${order[@]}"; do
      require_free "round $r $w on $s"
      # Each timed run starts with nothing dirty in the page cache: what the previous run left (the other server's
      # writes, or a wiped round's deletions) is written back now, not on this run's time.
      sync
      peakf="$(mktemp)"; echo 0 >"$peakf"
      rss_peak "${PID[$s]}" "$peakf" & sampler=$!
      idle_before="$(idle_cpu_ms "$s")"
      cpu_before="$(cpu_ms "${PID[$s]}")"; cs_before="$(switches "${PID[$s]}")"; jit_before="$(jit_ms "${PID[$s]}")"
      pause_others "$s" STOP
      ops="$(run_workload "$w" "$s" "$r")"
      pause_others "$s" CONT
      idle_after="$(idle_cpu_ms "$s")"
      cpu_used=$(( $(cpu_ms "${PID[$s]}") - cpu_before )); cs_used=$(( $(switches "${PID[$s]}") - cs_before ))
      jit_used=$(( $(jit_ms "${PID[$s]}") - jit_before ))
      kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
      rss_mib=$(( $(cat "$peakf") / 1024 )); rm -f "$peakf"
      load1="$(cut -d' ' -f1 /proc/loadavg)"
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$w" "$s" "${ops:-error}" "$rss_mib" "$load1" >>"$TABLE"
      log "round $r $w $s: ${ops:-error} ops/s, RSS peak ${rss_mib} MiB, load $load1, the other server's CPU meanwhile $(( idle_after - idle_before )) ms, its own $cpu_used ms and $cs_used context switches ($(per_op "$cpu_used" "${ops:-}") ms and $(per_op "$cs_used" "${ops:-}") switches per op, a get's prefill included), of it $jit_used ms in JIT compiler threads"
    done
  done
  for s in "${order[@]}"; do stop_server "$s"; done
  # swap the order every round
  order=($(printf '%s\n' "${order[@]}" | tac))
done

# The table: best round and median of each server, ratios of best and median, the spread of per-round ratios.
python3 - "$TABLE" <<'EOF' | tee -a "$LOG"
import sys, csv, statistics
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = {}
for r in rows:
    try:
        v = float(r["ops_per_s"])
    except ValueError:
        v = None
    by.setdefault(r["workload"], {}).setdefault(r["server"], []).append((int(r["round"]), v, int(r["rss_peak_mib"])))
print(f"{'workload':<22}{'ours best':>11}{'ours med':>10}{'MinIO best':>11}{'MinIO med':>10}{'x best':>8}{'x med':>7}{'x range':>13}{'RSS ours':>10}{'RSS MinIO':>10}")
for w, servers in by.items():
    o = [v for _, v, _ in servers.get("ours", []) if v is not None]
    m = [v for _, v, _ in servers.get("minio", []) if v is not None]
    ro = max((x for _, _, x in servers.get("ours", [])), default=0)
    rm = max((x for _, _, x in servers.get("minio", [])), default=0)
    fmt = lambda xs, f: f"{f(xs):.1f}" if xs else "-"
    ratios = []
    for rnd, v, _ in servers.get("ours", []):
        mv = [x for k, x, _ in servers.get("minio", []) if k == rnd and x]
        if v and mv:
            ratios.append(v / mv[0])
    xb = f"{max(o)/max(m):.2f}" if o and m else "-"
    xm = f"{statistics.median(o)/statistics.median(m):.2f}" if o and m else "-"
    xr = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "-"
    print(f"{w:<22}{fmt(o, max):>11}{fmt(o, statistics.median):>10}{fmt(m, max):>11}{fmt(m, statistics.median):>10}{xb:>8}{xm:>7}{xr:>13}{ro:>9}M{rm:>9}M")
EOF
log "table: $TABLE, log: $LOG"
