# The appliance server's JVM options, sized from the machine: sourced by both launchers (the checkout's ./appliance and
# the package's /usr/bin/appliance), which pass what appliance_jvm_options prints before any options of the admin's own
# (APPLIANCE_JAVA_OPTS), so an -Xmx there still wins.
#
# Why these bounds: the server never holds a whole object. Its memory is the Spring console and caches (about 150 MiB),
# the erasure-coding buffers of the requests in flight (about 5 MiB per request, pooled, and the S3 port admits
# --max-requests at a time) and Netty's pooled direct buffers. Left to the JVM's defaults the heap may grow to a quarter
# of the machine (5.8 GB resident was measured on a 24 GiB machine), taking the page cache the drives need.
#   heap:   1/32 of the memory the server may use (RAM, or a cgroup limit below it), at least 512 MiB, at most 2 GiB
#           (768 MiB on a 24 GiB machine: resident 0.9-1.0 GiB at concurrency 16, docs/benchmarks.md)
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
  heap_mib=$((mem_kib / 1024 / 32))
  [ "$heap_mib" -lt 512 ] && heap_mib=512
  [ "$heap_mib" -gt 2048 ] && heap_mib=2048
  direct_mib=$((heap_mib / 3))
  [ "$direct_mib" -lt 256 ] && direct_mib=256
  echo "-XX:+UseG1GC -Xms256m -Xmx${heap_mib}m -XX:MaxDirectMemorySize=${direct_mib}m"
}
