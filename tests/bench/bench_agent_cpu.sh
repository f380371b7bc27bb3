#!/usr/bin/env bash
# The node agent's CPU cost (issue 24: < 1 % of one core at a 10 s interval): a live tesserad on
# the demo cluster and `tessera agent --node pod-a-01` against it, NVML served by the tests' fake
# libnvidia-ml.so.1 with the recorded H100 (no dcgm-exporter: every sample is an NVML sample and a
# probe). After SECONDS the agent's user + system CPU time from /proc/PID/stat over the wall time.
# Both processes are started here and stopped by their pids.
# Usage: bench_agent_cpu.sh BUILD_DIR [SECONDS] [INTERVAL]
set -euo pipefail
build=${1:?usage: bench_agent_cpu.sh BUILD_DIR [SECONDS] [INTERVAL]}
seconds=${2:-300}
interval=${3:-10}
src=$(cd "$(dirname "$0")/../.." && pwd)
data=$src/tests/data
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
"$build/app/tesserad" --mode live --db "$work/cpu.db" --listen "127.0.0.1:$port" \
  --metrics-listen off >"$work/tesserad.log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true; kill "${agent:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "msg=serving" "$work/tesserad.log" && break; sleep 0.1; done
export LD_LIBRARY_PATH=$build/tests/fake-nvml
export TESSERA_FAKE_NVML=$data/real-gpu/h100-sxm5-80gb/nvml-probe.txt:$data/inventory/h100-pci.txt
"$build/app/tessera" agent --server "127.0.0.1:$port" --node pod-a-01 --interval "$interval" \
  --dcgm-url "" 2>"$work/agent.log" &
agent=$!
ticks=$(getconf CLK_TCK)
start=$(date +%s.%N)
sleep "$seconds"
read -r -a stat <"/proc/$agent/stat"
end=$(date +%s.%N)
# Fields 14 and 15 (utime, stime), counted from 1; the command name has no spaces here.
cpu=$(echo "(${stat[13]} + ${stat[14]}) / $ticks" | bc -l)
wall=$(echo "$end - $start" | bc -l)
pct=$(echo "100 * $cpu / $wall" | bc -l)
grep -q "tesserad took the inventory" "$work/agent.log" || { cat "$work/agent.log" >&2; exit 1; }
printf 'agent CPU: %.3f s over %.1f s at a %s s interval = %.4f %% of one core (%s)\n' \
  "$cpu" "$wall" "$interval" "$pct" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf 'RESULT agent.cpu_percent %.6g %% n=1\n' "$pct"
