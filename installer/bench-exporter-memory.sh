#!/usr/bin/env bash
# What the metrics endpoint costs inside tesserad: for each binary given, starts it on a fresh
# database (live mode, demo cluster, no jobs) with the endpoint off and then on, serves SCRAPES
# scrapes (on), waits and reads the process's resident (VmRSS) and private dirty memory
# (smaps_rollup). The endpoint's cost is on minus off of the same binary; private dirty is the
# figure to compare (RSS also counts shared library pages, which vary by 0.3 MiB run to run).
# Usage: installer/bench-exporter-memory.sh [-n SCRAPES] [-r ROUNDS] LABEL=TESSERAD ...
# Example (old against new, docs/PERFORMANCE.md):
#   installer/bench-exporter-memory.sh old=/tmp/old/tesserad new=build/release/app/tesserad
set -euo pipefail
scrapes=200
rounds=4
while getopts "n:r:" opt; do
  case "$opt" in
    n) scrapes=$OPTARG ;;
    r) rounds=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-n SCRAPES] [-r ROUNDS] LABEL=TESSERAD ..." >&2; exit 2; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Prints "RSS_KIB PRIVATE_DIRTY_KIB" of one run.
measure() {
  local bin=$1 mode=$2 dir api metrics pid
  dir=$(mktemp -d)
  api=$(free_port)
  metrics=off
  [ "$mode" = on ] && metrics="127.0.0.1:$(free_port)"
  "$bin" --db "$dir/t.db" --listen "127.0.0.1:$api" --metrics-listen "$metrics" >"$dir/log" 2>&1 &
  pid=$!
  sleep 6  # the engine's first cycles allocate; let them settle
  if [ "$mode" = on ]; then
    for _ in $(seq "$scrapes"); do curl -sf -o /dev/null "http://$metrics/metrics"; done
  fi
  sleep 3
  echo "$(awk '/^VmRSS/{print $2}' "/proc/$pid/status") \
$(awk '/^Private_Dirty/{print $2}' "/proc/$pid/smaps_rollup")"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}

echo "label round rss_off rss_on rss_delta pd_off pd_on pd_delta (KiB)"
for round in $(seq "$rounds"); do
  for spec in "$@"; do
    label=${spec%%=*}
    bin=${spec#*=}
    read -r rss_off pd_off < <(measure "$bin" off)
    read -r rss_on pd_on < <(measure "$bin" on)
    echo "$label $round $rss_off $rss_on $((rss_on - rss_off)) $pd_off $pd_on $((pd_on - pd_off))"
  done
done
