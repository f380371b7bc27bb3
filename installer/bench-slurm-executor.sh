#!/usr/bin/env bash
# The Slurm executor's figures (issue 19 §4) on the real single-host cluster of the tests
# (tests/slurm/slurm_cluster.sh: munged, slurmctld, three slurmd with fake GPUs and the gate):
#   latency   engine decision -> RUNNING in Slurm (tesserad's tessera_executor_start_seconds),
#             and submit acknowledged -> the job's process running, for jobs sent one at a time
#   makespan  N short jobs through the 3 nodes, Tessera deciding vs plain Slurm backfill alone,
#             each job run exactly once
#   idle      tesserad's CPU (its own and its squeue/sinfo children's) polling an idle cluster
# Needs root (the cluster's mknod and SlurmUser=root) and the Slurm packages of
# installer/bootstrap-debian12.sh. Stops everything it started, by pid. Run with --help.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build/release
jobs=1000
seconds=10
latency_jobs=40
idle_seconds=60
idle_finished=1000
only=latency,makespan,idle

usage() {
  cat <<'EOF'
Usage: installer/bench-slurm-executor.sh [options]

Starts the test suite's Slurm cluster (3 nodes: node1, node2 with 4 h100 each, node3 with 2 whole
a100 and 4 MIG instances) in a temporary directory, runs the selected benchmarks against it with
tesserad --executor slurm at its default intervals (cycle 2 s, poll 1 s), prints one table and
stops everything it started.

Options:
  --only LIST         latency,makespan,idle (default: all three)
  --jobs N            makespan: jobs per run (default 1000)
  --seconds S         makespan: each job's length (default 10)
  --latency-jobs N    latency: jobs sent one at a time (default 40)
  --idle-seconds S    idle: how long to measure (default 60)
  --idle-finished N   idle: first run N short jobs through Slurm, so its listing holds N
                      finished jobs as after a busy hour (MinJobAge); 0: an empty one (default 1000)
  --build-dir DIR     where tesserad and tessera are (default build/release)
  -h, --help          this help

The makespan jobs ask for one whole GPU each: four in five an h100 (8 on node1 and node2), one in
five an a100 (2 on node3), so both kinds of node finish together. Plain Slurm gets the same jobs
as sbatch --gres=gpu:<type>:1 tagged past the gate. Figures: docs/PERFORMANCE.md.
EOF
}

die() {
  echo "bench-slurm-executor: $*" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case $1 in
    --only) only=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --latency-jobs) latency_jobs=$2; shift 2 ;;
    --idle-seconds) idle_seconds=$2; shift 2 ;;
    --idle-finished) idle_finished=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

[ "$(id -u)" = 0 ] || die "must run as root (the test cluster needs mknod and SlurmUser=root)"
tesserad=$build/app/tesserad
tessera=$build/app/tessera
[ -x "$tesserad" ] && [ -x "$tessera" ] || die "no tesserad/tessera in $build/app: build first"

# A short path: munge's socket path must stay under 108 bytes.
work=$(mktemp -d /tmp/tsb.XXXXXX)
cluster=$work/c
tesserad_pid=

stop_all() {
  if [ -n "$tesserad_pid" ] && kill -0 "$tesserad_pid" 2>/dev/null; then
    kill "$tesserad_pid" 2>/dev/null || true
    wait "$tesserad_pid" 2>/dev/null || true
  fi
  bash "$repo/tests/slurm/slurm_cluster.sh" stop "$cluster" >/dev/null 2>&1 || true
}
trap stop_all EXIT

bash "$repo/tests/slurm/slurm_cluster.sh" start "$cluster" >/dev/null
export SLURM_CONF=$cluster/etc/slurm.conf
runs=$work/runs
mkdir -p "$runs"

# A free port below the ephemeral range (none of this needs more than bash and awk).
port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 10000))
    grep -q "$(printf ':%04X ' "$p")" /proc/net/tcp /proc/net/tcp6 2>/dev/null || break
  done
  echo "$p"
}
api=127.0.0.1:$(port)
metrics=127.0.0.1:$(port)
export TESSERA_SERVER=$api

cat >"$work/workload.yaml" <<EOF
version: 1
teams:
  - {name: bench, weight: 1}
EOF

start_tesserad() {
  rm -f "$work/tesserad.db"*
  "$tesserad" --mode live --executor slurm --slurm-conf "$SLURM_CONF" --db "$work/tesserad.db" \
    --cluster "$repo/tests/slurm/data/fixture-cluster.yaml" --workload "$work/workload.yaml" \
    --listen "$api" --metrics-listen "$metrics" --log-level warn >"$work/tesserad.log" 2>&1 &
  tesserad_pid=$!
  for _ in $(seq 1 100); do
    "$tessera" ctl health >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "tesserad did not start, see $work/tesserad.log"
}

stop_tesserad() {
  kill "$tesserad_pid"
  wait "$tesserad_pid" 2>/dev/null || true
  tesserad_pid=
}

# The job every benchmark runs: its start and end on the node's clock, one line per run.
job_command() { # $1: seconds
  echo "s=\$(date +%s.%N); sleep $1; echo \"\$s \$(date +%s.%N)\" >>$runs/\$SLURM_JOB_NAME"
}

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

# GET /metrics from tesserad's Prometheus endpoint over bash's /dev/tcp.
scrape() {
  local host=${metrics%:*} port=${metrics##*:}
  exec 3<>"/dev/tcp/$host/$port"
  printf 'GET /metrics HTTP/1.0\r\nHost: %s\r\n\r\n' "$host" >&3
  cat <&3
  exec 3<&-
}
results=()
# A result line: shown at once (a long run's first figures are not lost if it is stopped) and
# again in the table at the end.
add() {
  results+=("$(printf '%-44s %-22s %s' "$1" "$2" "$3")")
  echo "${results[-1]}" >&2
}

# Waits until `count` run files exist with one line each; fails after `limit` seconds.
wait_runs() { # $1: name prefix, $2: count, $3: limit
  local deadline=$((SECONDS + $3)) have
  while [ $SECONDS -lt "$deadline" ]; do
    have=$(find "$runs" -name "$1*" | wc -l)
    [ "$have" -ge "$2" ] && return 0
    sleep 0.5
  done
  die "only $(find "$runs" -name "$1*" | wc -l) of $2 '$1' jobs ran within $3 s"
}

# Every run file of the prefix has exactly one line: no job ran twice.
check_once() { # $1: prefix
  local twice
  twice=$(find "$runs" -name "$1*" -exec awk 'END { if (NR != 1) print FILENAME }' {} \;)
  [ -z "$twice" ] || die "ran more than once: $twice"
}

last_end() { cat "$runs/$1"* | awk '{ if ($2 > m) m = $2 } END { printf "%.3f", m }'; }

percentile() { # $1: p (0-100), numbers on stdin
  sort -n | awk -v p="$1" '{ v[NR] = $1 } END { i = int((p / 100) * NR + 0.999999); if (i < 1) i = 1; printf "%.2f", v[i] }'
}

# From tesserad's Prometheus histogram: the share of starts at or under `le` seconds.
share_under() { # $1: le
  scrape | awk -v le="$1" '
    /^tessera_executor_start_seconds_bucket/ && $0 ~ "le=\"" le "\"" { under = $2 }
    /^tessera_executor_start_seconds_count/ { n = $2 }
    END { if (n > 0) printf "%.1f %% of %d", 100 * under / n, n; else print "none" }'
}

latency() {
  start_tesserad
  local i t0 started lat=()
  for i in $(seq 1 "$latency_jobs"); do
    t0=$(now)
    "$tessera" ctl submit --team bench --gpus 1 --name "lat-$i" --time-limit 5m \
      --workdir "$work" --output /dev/null --command "$(job_command 1)" >/dev/null
    wait_runs "lat-$i" 1 60
    started=$(awk '{ print $1 }' "$runs/lat-$i")
    lat+=("$(calc "$started - $t0")")
  done
  add "submit ack -> job running, p50 (s)" "-" "$(printf '%s\n' "${lat[@]}" | percentile 50)"
  add "submit ack -> job running, p99 (s)" "-" "$(printf '%s\n' "${lat[@]}" | percentile 99)"
  add "decision -> RUNNING seen, <= 2 s" "p50 < 2 s (>= 50 %)" "$(share_under 2)"
  add "decision -> RUNNING seen, <= 5 s" "p99 < 5 s (>= 99 %)" "$(share_under 5)"
  stop_tesserad
}

# N jobs that do nothing, past the gate, run to their end: Slurm then lists N finished jobs.
finished_jobs() { # $1: count
  local i
  for i in $(seq 1 "$1"); do
    sbatch --parsable --comment="tessera:done.$i" -J "done-$i" -t 1 -o /dev/null -D "$work" \
      --wrap true >/dev/null
  done
  local deadline=$((SECONDS + 600))
  while squeue -h -t PD,R,CG -o %j | grep -q '^done-'; do
    [ $SECONDS -lt $deadline ] || die "the $1 short jobs did not end within 600 s"
    sleep 1
  done
}

idle() {
  [ "$idle_finished" -gt 0 ] && finished_jobs "$idle_finished"
  start_tesserad
  sleep 5 # past start-up
  local hz a b
  hz=$(getconf CLK_TCK)
  # utime stime cutime cstime: tesserad's own and its reaped children's (squeue, sinfo).
  a=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$tesserad_pid/stat")
  sleep "$idle_seconds"
  b=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$tesserad_pid/stat")
  add "tesserad idle, % of one core (with children), $idle_finished finished jobs in squeue" "< 2 %" \
    "$(calc "100 * ($b - $a) / $hz / $idle_seconds") %"
  stop_tesserad
}

# The makespan jobs' GPU type: one in five an a100, the rest h100.
type_of() { if [ $(($1 % 5)) = 0 ]; then echo a100; else echo h100; fi; }

makespan_slurm() {
  local i t0
  t0=$(now)
  for i in $(seq 1 "$jobs"); do
    sbatch --parsable --comment="tessera:plain.$i" -J "plain-$i" -t 2 -o /dev/null -D "$work" \
      --gres="gpu:$(type_of "$i"):1" --wrap "$(job_command "$seconds")" >/dev/null
  done
  wait_runs plain- "$jobs" $((jobs * seconds))
  check_once plain-
  plain_makespan=$(calc "$(last_end plain-) - $t0")
}

makespan_tessera() {
  start_tesserad
  local i t0 file=$work/jobs.yaml model
  : >"$file"
  for i in $(seq 1 "$jobs"); do
    if [ "$(type_of "$i")" = a100 ]; then model=A100-SXM4-80GB; else model=H100-SXM5-80GB; fi
    printf -- '- {name: tessera-%d, team: bench, gpus: 1, model: %s, time_limit: 2m, work_dir: %s, output: /dev/null, command: "%s"}\n' \
      "$i" "$model" "$work" "$(job_command "$seconds" | sed 's/"/\\"/g')" >>"$file"
  done
  t0=$(now)
  "$tessera" ctl submit --file "$file" >/dev/null
  wait_runs tessera- "$jobs" $((jobs * seconds))
  check_once tessera-
  tessera_makespan=$(calc "$(last_end tessera-) - $t0")
  stop_tesserad
}

makespan() {
  makespan_slurm
  makespan_tessera
  local plain=$plain_makespan tessera=$tessera_makespan
  add "makespan, plain Slurm backfill (s)" "-" "$plain ($jobs x ${seconds}s, each once)"
  add "makespan, Tessera deciding (s)" "within 15 % of Slurm" \
    "$tessera ($(calc "100 * ($tessera - $plain) / $plain") %, each once)"
}

IFS=, read -r -a selected <<<"$only"
for b in "${selected[@]}"; do
  case $b in
    latency | makespan | idle) "$b" ;;
    *) die "unknown benchmark $b (latency, makespan, idle)" ;;
  esac
done

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  commit: $(git -C "$repo" describe --always --dirty --abbrev=7)  build: $build"
printf '%-44s %-22s %s\n' figure target measured
printf '%s\n' "${results[@]}"
