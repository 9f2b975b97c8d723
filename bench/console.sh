#!/usr/bin/env bash
# The console's measured targets (issue 15), against a real appliance process: render times of the dashboard, the
# buckets list, a bucket and the users page in headless Chromium with 10,000 buckets, and the S3 throughput and p99 of a
# fixed PUT+GET workload with the console idle vs polled once a second. Figures and how to read them: docs/benchmarks.md.
#
#   bench/console.sh                       # both, defaults below
#   bench/console.sh -Dbench.buckets=2000  # any bench.* property: buckets, warmup, rounds, threads, seconds, pairs
#   bench/console.sh -Dit.test='ConsoleBench#renderTimes*'   # the render part only
#
# Builds the reactor (no install) and runs ConsoleBench through failsafe (profile console-bench); results are printed
# as [bench] lines and kept in src/it/target/console-bench/results.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "[bench] $(date -u +%FT%TZ) load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
./appliance mvn -q -Dspotless.check.skip=true -pl src/it -am verify -Pconsole-bench \
    -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false "$@"
echo "[bench] $(date -u +%FT%TZ) load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat src/it/target/console-bench/results.txt
