#!/bin/bash
# Samples the gain from the second core over time (docs/performance.md,
# "An hour of samples"): every PAUSE seconds, N times, one run of the
# cores benchmarks of pendigits, the USPS-sized set and the fairness model
# (qrc's and the reference's gains from the second core, and the host
# probes cpu-x2 and l2-x2 timed in the same loop and xcore-ns, what a
# cache line takes from one worker to the other), each line prefixed with
# the UTC time and the load average. Needs
# ../shared/data beside the repository; run from the repository's root:
#     bash docs/experiments/cores_sampler.sh [N] [PAUSE] > samples.txt
set -euo pipefail
n=${1:-21}
pause=${2:-150}
bin=$(mktemp -d)/autodiff.test
go test -c -o "$bin" ./autodiff
cd autodiff
for i in $(seq 1 "$n"); do
  ts=$(date -u +%H:%M:%S)
  load=$(cut -d' ' -f1 /proc/loadavg)
  "$bin" -test.run xxx -test.bench '(NPCPendigits|NPCUSPS|FairAdult)/cores' -test.benchtime 200x -test.cpu 2 |
    grep '^Benchmark' | sed "s|^|$ts load $load |"
  if [ "$i" -lt "$n" ]; then sleep "$pause"; fi
done
