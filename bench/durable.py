#!/usr/bin/env python3
"""Start-to-durable latency of `capture`: CLOCK_MONOTONIC just before the exec, and the agent's
own log line (at -vv) stamped with CLOCK_MONOTONIC the moment the capture's transaction committed."""
import os, statistics, subprocess, sys, time

binary, config, state, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
samples = []
for i in range(runs):
    start = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    p = subprocess.run([binary, "capture", "-v", "-v", "--config-dir", config, "--state-dir", state, f"bench note {i}"],
                       capture_output=True, text=True)
    line = next(l for l in p.stderr.splitlines() if "durable at CLOCK_MONOTONIC" in l)
    samples.append((int(line.split()[-2]) - start) / 1e6)
samples.sort()
print(f"start-to-durable over {runs} runs: median {statistics.median(samples):.2f} ms, "
      f"p10 {samples[len(samples) // 10]:.2f} ms, p90 {samples[len(samples) * 9 // 10]:.2f} ms")
