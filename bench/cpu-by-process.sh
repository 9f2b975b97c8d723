#!/usr/bin/env bash
# CPU time (user + system) used by the processes that ran while this script did, summed by kind of process: the
# appliance, the test JVMs, Maven, Chromium, Python (the AWS CLI, boto3), other. Samples /proc once a second, so a
# process shorter than that is missed (docs/benchmarks.md, "Appliance start CPU"). Stop it with SIGTERM or Ctrl-C.
#
#   bench/cpu-by-process.sh OUT &  ./appliance test;  kill %1;  cat OUT
out=${1:?usage: bench/cpu-by-process.sh OUT}
declare -A first last kind
hz=$(getconf CLK_TCK)
report() {
  for p in "${!last[@]}"; do echo "${kind[$p]} $(( last[$p] - first[$p] ))"; done |
    awk -v hz="$hz" '{ a[$1] += $2 } END { for (k in a) printf "%s %.1f s\n", k, a[k] / hz }' | sort > "$out"
  exit 0
}
trap report TERM INT
sweep=0
while true; do
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    read -r st < "$d/stat" 2>/dev/null || continue
    rest=${st##*) }
    # shellcheck disable=SC2086
    set -- $rest
    t=$(( ${12} + ${13} ))
    if [ -z "${kind[$p]:-}" ]; then
      c=$(tr '\0' ' ' < "$d/cmdline" 2>/dev/null | cut -c1-400)
      case "$c" in
        *surefirebooter*) k=test-jvm ;;
        *appliance.jar*server*|*appliance*" server "*) k=appliance ;;
        *plexus-classworlds*) k=maven ;;
        *chrom*) k=chromium ;;
        *python*|*/aws\ *) k=python ;;
        *) k=other ;;
      esac
      kind[$p]=$k
      # what a process had used before the first sweep is not counted
      if [ "$sweep" -eq 0 ]; then first[$p]=$t; else first[$p]=0; fi
    fi
    last[$p]=$t
  done
  sweep=1
  sleep 1
done
