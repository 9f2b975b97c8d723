#!/usr/bin/env python3
"""CPU time and context switches of one process's threads, grouped by name, per operation of a timed run.

    bench/thread-cpu.py snapshot PID FILE     # before the run
    ...run the load...
    bench/thread-cpu.py snapshot PID FILE2    # after it
    bench/thread-cpu.py diff FILE FILE2 OPS   # ms of CPU and switches per operation, by thread name with digits as #

Reads /proc/PID/task/*/stat (user + system ticks) and status (voluntary and involuntary switches). Threads that ended
during the run are missing from the second snapshot and so from the figures (the appliance's threads are long-lived).
"""
import json
import os
import re
import sys

TICK_MS = 1000.0 / os.sysconf("SC_CLK_TCK")


def snapshot(pid, path):
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2:].split()
            ticks = int(fields[11]) + int(fields[12])
            switches = 0
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if "ctxt_switches" in line:
                        switches += int(line.split()[1])
            threads[tid] = [name, ticks, switches]
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass  # the thread ended while we read
    with open(path, "w") as f:
        json.dump(threads, f)


def diff(before_path, after_path, ops):
    with open(before_path) as f:
        before = json.load(f)
    with open(after_path) as f:
        after = json.load(f)
    groups = {}
    for tid, (name, ticks, switches) in after.items():
        _, ticks0, switches0 = before.get(tid, [name, 0, 0])
        g = groups.setdefault(re.sub(r"\d+", "#", name), [0.0, 0])
        g[0] += (ticks - ticks0) * TICK_MS
        g[1] += switches - switches0
    total = [0.0, 0]
    for name, (ms, sw) in sorted(groups.items(), key=lambda kv: -kv[1][0]):
        total[0] += ms
        total[1] += sw
        if ms or sw:
            print(f"{name:<28}{ms / ops:8.3f} ms/op{sw / ops:8.2f} switches/op")
    print(f"{'all threads':<28}{total[0] / ops:8.3f} ms/op{total[1] / ops:8.2f} switches/op")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "snapshot":
        snapshot(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    else:
        sys.exit(__doc__)
