# The appliance server's JVM options, sized from the machine: sourced by both launchers (the checkout's ./appliance and
# the package's /usr/bin/appliance), which pass what appliance_jvm_options prints before any options of the admin's own
# (APPLIANCE_JAVA_OPTS). When those size the heap (-Xmx, -Xms, -XX:MaxRAM...), the heap options here are left out, so
# the admin's sizing is taken whole (an -Xmx below the -Xms here would stop the JVM at start).
#
# Why these bounds: the server never holds a whole object. Its memory is the Spring console and caches (about 150 MiB),
# the erasure-coding buffers of the requests in flight (about 5 MiB per request, pooled, and the S3 port admits
# --max-requests at a time) and Netty's pooled direct buffers. Left to the JVM's defaults the heap may grow to a quarter
# of the machine (5.8 GB resident was measured on a 24 GiB machine), taking the page cache the drives need.
#   heap:   1/48 of the memory the server may use (RAM, or a cgroup limit below it), at least 512 MiB, at most 2 GiB;
#           the most ever in use was 329 MiB at concurrency 16 (docs/benchmarks.md). Fixed (-Xms = -Xmx) and touched at
#           start (AlwaysPreTouch): the resident set is stated from the first minute instead of creeping up as G1 grows
#           the heap under load, and a leak shows as collections, not as a slow climb hidden in the heap's growth.
#   direct: a third of the heap, at least 256 MiB (Netty's buffers and the coding buffers' direct halves)
#   G1:     on 2 to 8 cores it costs less CPU per request than ZGC's concurrent threads, and with a bounded heap its
#           pauses stay in the tens of milliseconds (docs/benchmarks.md, issue 17).
appliance_jvm_options() {
  local mem_kib limit heap_mib direct_mib
  mem_kib="$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)"
  if [ -r /sys/fs/cgroup/memory.max ]; then
    limit="$(cat /sys/fs/cgroup/memory.max 2>/dev/null || echo max)"
    if [[ "$limit" =~ ^[0-9]+$ ]] && [ "$((limit / 1024))" -lt "$mem_kib" ]; then
      mem_kib=$((limit / 1024))
    fi
  fi
  heap_mib=$((mem_kib / 1024 / 48))
  [ "$heap_mib" -lt 512 ] && heap_mib=512
  [ "$heap_mib" -gt 2048 ] && heap_mib=2048
  direct_mib=$((heap_mib / 3))
  [ "$direct_mib" -lt 256 ] && direct_mib=256
  local heap="-Xms${heap_mib}m -Xmx${heap_mib}m -XX:+AlwaysPreTouch" direct="-XX:MaxDirectMemorySize=${direct_mib}m"
  case " ${APPLIANCE_JAVA_OPTS:-} " in *" -Xmx"* | *" -Xms"* | *" -XX:MaxRAM"* | *" -XX:InitialRAM"*) heap="" ;; esac
  case " ${APPLIANCE_JAVA_OPTS:-} " in *" -XX:MaxDirectMemorySize="*) direct="" ;; esac
  echo "-XX:+UseG1GC $heap $direct"
}

# glibc's malloc keeps up to 8 arenas per core and rarely hands memory freed in one back to the system, so the native
# memory of a JVM with many threads creeps up under load. Measured (docs/benchmarks.md, 1 MiB mixed load): with the
# default, the resident set outside what the JVM accounts for (NMT) grew about 10 MiB a minute; with 2 arenas it stayed
# within 80-110 MiB. An admin's own setting wins.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
