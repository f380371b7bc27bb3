#!/usr/bin/env bash
# Runs every benchmark that has a target in docs/PERFORMANCE.md and prints one table: figure,
# target, measured value (with its sample count), met / not met, with the machine, the build and
# the commit it was measured on. --tsv writes the same as tab-separated values for
# installer/compare-commits.sh. Run with --help for the options.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  cat <<'EOF'
Usage: installer/run-benchmarks.sh [options]

Builds the benchmark executables (release preset unless --build-dir says otherwise), runs those
with a target in docs/PERFORMANCE.md, and prints one table: figure, target, measured, met / not
met, with the CPU, build type and flags, date and commit. The exit status is 0 when every
benchmark ran and produced its figures (met or not), 1 otherwise, 2 on a usage error.

Options:
  --only NAME,...     run only these benchmarks (see --list; a figure id such as
                      engine.cycle.p99 selects its benchmark)
  --quick             smoke sizes: checks that the tooling and the benchmarks work; the
                      figures are not comparable to the targets and get no verdict
  --build-dir DIR     the CMake build directory (default: build/release of this checkout,
                      configured with the release preset when missing)
  --no-build          do not build; run the executables already in the build directory
  --build-only        build what the selection needs, then stop
  --jobs N            parallel build jobs (default: nproc)
  --tsv FILE          also write the results as tab-separated values (read by
                      installer/compare-commits.sh)
  --work-dir DIR      logs and prepared databases (default: BUILD_DIR/bench-runner)
  --verbose           show each benchmark's own output while it runs
  --list              list the benchmarks and their figures, targets and scope, then stop
  -h, --help          this help

Figures are only worth recording from a quiet machine (load average near 0): the table shows
the load average before and after the run. See docs/PERFORMANCE.md, "Figures at HEAD".
EOF
}

die() {
  echo "run-benchmarks: $*" >&2
  exit 2
}

# --- what runs: benchmarks (one or more runs of one executable) and the figures they yield
#
# A benchmark: name|executable|seconds allowed (full run)|description
BENCHMARKS=(
  "mig|bench_mig|300|MIG layout validation"
  "cluster_load|bench_cluster_load|300|cluster spec loading"
  "scheduler|bench_scheduler|300|placement on 40,000 GPUs"
  "engine|bench_engine|900|scheduling cycle, explanation, memory"
  "simulator|bench_simulator|300|trace replay, 100,000 jobs at 200/h"
  "simulator_overload|bench_simulator|90|trace replay, 100,000 jobs at 250/h (stopped after 90 s)"
  "openb|bench_openb|300|openb placement experiment, FGD policy"
  "tesserad_submit|bench_tesserad|300|tesserad sustained submits"
  "tesserad_watch|bench_tesserad|300|tesserad watch fan-out"
  "tesserad_restart|bench_tesserad|1200|tesserad restart to serving (prepares its database once)"
  "heatmap|bench_heatmap|300|topology heatmap, 10,000 GPUs"
  "console|bench_console|300|console start and event to pixel"
  "top|bench_top|120|terminal console (tessera top), 10,000 GPUs"
  "report|bench_report|600|30-day report over 6,000 GPUs"
  "metrics|bench_metrics|300|tesserad /metrics, 10,000 GPUs"
)

# A figure: id|benchmark|what|source|unit|target|better|scope
#   source  gb:RUN_NAME_REGEX:FIELD  a Google Benchmark run (the median aggregate when there are
#                                    repetitions) and a counter or real_time; FIELD@s: a counter
#                                    in seconds (an inverted rate), converted to the unit
#           result:NAME              a "RESULT NAME VALUE UNIT n=N" line (tests/bench/bench_stats.h)
#           Either may end in ;table:LABEL, a fallback for executables built before RESULT lines
#           existed (compare-commits.sh against old commits): the median column of the row
#           "| LABEL | median | ..." of the executable's own table.
#   target  "< 100", ">= 20000" or "-" (shown for context, no verdict)
#   better  lower or higher: which way a change is an improvement (compare-commits.sh)
FIGURES=(
  "mig.validate_random|mig|validate 1,000,000 random H100 layouts, per layout|gb:BM_ValidateRandomLayouts:ns_per_validation@s|ns|< 200|lower|mean over mostly invalid layouts (~8 % valid), most failing an early check"
  "cluster_load.compact_10k|cluster_load|load a 10,000-GPU spec, compact|gb:BM_LoadClusterSpec/gpus:10000/explicit:0:real_time|ms|< 1000|lower|parse and build from a string already in memory"
  "cluster_load.explicit_10k|cluster_load|load a 10,000-GPU spec, one entry per node|gb:BM_LoadClusterSpec/gpus:10000/explicit:1:real_time|ms|< 1000|lower|parse and build from a string already in memory"
  "scheduler.single_10k|scheduler|10,000 single-GPU jobs one by one|gb:BM_PlaceSingleGpuJobs/10000:placements_per_s|/s|>= 20000|higher|one placeGang call per job in its own transaction: not the engine's rate through runCycle (engine.fill_rate)"
  "scheduler.single_50k|scheduler|50,000 single-GPU jobs (10,000 do not fit)|gb:BM_PlaceSingleGpuJobs/50000:placements_per_s|/s|>= 20000|higher|one placeGang call per job in its own transaction: not the engine's rate through runCycle"
  "scheduler.gangs_750x4|scheduler|750 gangs of 4 x 8 GPUs, leaf preferred|gb:BM_PlaceGangs/750/4:tasks_per_s|tasks/s|>= 10000|higher|one placeGang call per gang in its own transaction: not the engine's rate through runCycle"
  "scheduler.gangs_3x1000|scheduler|3 gangs of 1,000 x 8 GPUs|gb:BM_PlaceGangs/3/1000:tasks_per_s|tasks/s|>= 10000|higher|one placeGang call per gang in its own transaction"
  "engine.cycle_mixed.p99|engine|steady-state cycle, 143,000 pending, 112 shapes, quotas|gb:BM_CycleMixed150kPending/20/50(/[0-9]+)*:p99_ms|ms|< 100|lower|the issue's workload: three pools (H100 gangs, A100 MIG, L40S fractions), 20 teams with quotas; runCycle alone; 10 episodes of 20 cycles"
  "engine.cycle_mixed.p50|engine|same, median|gb:BM_CycleMixed150kPending/20/50(/[0-9]+)*:p50_ms|ms|-|lower|as engine.cycle_mixed.p99"
  "engine.cycle.p99|engine|steady-state cycle, 141,000 pending, backfill budget 50 ms|gb:BM_Cycle150kPending/20/50(/[0-9]+)*:p99_ms|ms|< 100|lower|the five-shape workload without quotas kept to compare with earlier figures; runCycle alone (completions and clock moves between cycles untimed); 5 episodes of 20 cycles"
  "engine.cycle.p50|engine|same, median|gb:BM_Cycle150kPending/20/50(/[0-9]+)*:p50_ms|ms|-|lower|as engine.cycle.p99"
  "engine.cycle_bf20.p99|engine|same with backfill budget 20 ms|gb:BM_Cycle150kPending/20/20(/[0-9]+)*:p99_ms|ms|< 100|lower|as engine.cycle.p99"
  "engine.cycle_bf20.p50|engine|same with backfill budget 20 ms, median|gb:BM_Cycle150kPending/20/20(/[0-9]+)*:p50_ms|ms|-|lower|as engine.cycle.p99"
  "engine.fill_rate|engine|first cycle into the empty cluster, jobs started per second|gb:BM_Cycle150kPending/20/50(/[0-9]+)*:first_fill_jobs_per_s|jobs/s|-|higher|the engine's fill rate through runCycle: ordering and verdicts of all 150,000 jobs included"
  "engine.explain|engine|explain a pending 2-4 x 8-GPU gang on 40,000 GPUs|gb:BM_ExplainPending:real_time|ms|< 5|lower|one job (the first pending gang), mean per call"
  "engine.memory|engine|RSS added: 40,000 GPUs + 150,000 jobs after a cycle|gb:BM_Memory40kGpus150kJobs:rss_added_MiB|MiB|< 1024|lower|process RSS added, allocator slack included"
  "simulator.replay_200|simulator|replay 100,000 jobs at 200/h on 6,000 GPUs|result:wall|s|< 30|lower|Simulator::run alone: the trace and the engine are built before it"
  "simulator.replay_250|simulator_overload|replay 100,000 jobs at 250/h (overloaded)|result:wall|s|< 30|lower|Simulator::run alone; stopped at the benchmark's time limit"
  "openb.fgd|openb|openb default trace, FGD scoring, one run|result:default.fgd.42.wall|s|< 5|lower|seed 42; tuning, placement and the metric, not reading the CSVs"
  "tesserad.submit_batch|tesserad_submit|SubmitBatch 1,000 x 4 threads, cycles off|result:submit.batch.cycles_off.rate|jobs/s|>= 20000|higher|loopback gRPC, durability on; rate limit raised; clients share the cores with the server"
  "tesserad.submit_batch_cycles|tesserad_submit|same with cycles every second|result:submit.batch.cycles_on.rate|jobs/s|>= 20000|higher|as tesserad.submit_batch"
  "tesserad.submit_single|tesserad_submit|one job per Submit, 64 callers, cycles off|result:submit.single.cycles_off.rate|jobs/s|>= 2000|higher|as tesserad.submit_batch"
  "tesserad.submit_single_cycles|tesserad_submit|same with cycles every second|result:submit.single.cycles_on.rate|jobs/s|>= 2000|higher|as tesserad.submit_batch"
  "tesserad.watch_lag|tesserad_watch|100 WatchEvents streams, worst lag after the ack|result:watch.lag_after_ack.max|s|< 1|lower|max over every submitted event of every stream; the ack is a lower bound of the commit"
  "tesserad.restart_cold|tesserad_restart|restart with 150,000 jobs and 1,000,000 events, cold cache|result:restart.cold.to_serving|s|< 3|lower|from Backend::open in a loaded process to the first GetSnapshot answered"
  "heatmap.repaint_allocation|heatmap|full repaint, fitted, allocation layer, median|result:repaint.fitted.allocation.median;table:full repaint, fitted, allocation layer|ms|< 16|lower|HeatmapWidget::paint into a 1920x1080 QImage (raster, offscreen): no window, no flush to a screen"
  "heatmap.repaint_team|heatmap|full repaint, fitted, team layer, median|result:repaint.fitted.team.median;table:full repaint, fitted, team layer|ms|< 16|lower|as heatmap.repaint_allocation"
  "heatmap.repaint_utilization|heatmap|full repaint, fitted, utilization layer, median|result:repaint.fitted.utilization.median;table:full repaint, fitted, utilization layer|ms|< 16|lower|as heatmap.repaint_allocation"
  "heatmap.repaint_gap|heatmap|full repaint, fitted, gap layer, median|result:repaint.fitted.gap.median;table:full repaint, fitted, gap layer|ms|< 16|lower|as heatmap.repaint_allocation"
  "heatmap.hit_test|heatmap|hover hit test, one call|result:hit_test.mean_per_call.median;table:hitTest, one call (100,000 random points)|ms|< 0.1|lower|mean per call over batches of 100,000 calls; the median batch"
  "top.heatmap_frame|top|heatmap frame, 10,000 GPUs, 200x60, median|result:frame.heatmap.median|ms|< 10|lower|render() of the screen model (layout of all GPUs, cells of the visible ones); no terminal"
  "top.key_to_screen|top|key to screen, jobs view with 5,000 jobs, median|result:key_to_screen.jobs.median|ms|< 50|lower|controller, render and the ncurses writer into a pipe; no terminal emulator"
  "top.refresh_bytes|top|bytes written by a steady refresh (2% of GPUs changed), median|result:refresh.bytes.median|B|< 5120|lower|heatmap view, 200x60, 256 colours, TERM=xterm-256color"
  "console.cold_start|console|cold start to the first painted heatmap|result:cold_start|ms|< 1500|lower|from creating the window; process start and Qt's loading excluded"
  "console.event_to_pixel|console|event to pixel, worst of the submits|result:event_to_pixel.max|ms|< 100|lower|a submit in this process (no gRPC), one at a time, the 50 ms refresh pause included"
  "report.csv_team|report|30-day report to CSV, grouped by team|result:team.csv|s|< 5|lower|opening the database, computing and writing"
  "report.pdf_team|report|30-day report to PDF, grouped by team|result:team.pdf|s|< 10|lower|computed again, laid out and written"
  "report.csv_job|report|same to CSV, grouped by job (100,000 rows)|result:job.csv|s|< 5|lower|as report.csv_team"
  "report.pdf_job|report|same to PDF, grouped by job (table cut at 500 rows)|result:job.pdf|s|< 10|lower|as report.pdf_team"
  "report.csv_node|report|same to CSV, grouped by node|result:node.csv|s|< 5|lower|as report.csv_team"
  "report.pdf_node|report|same to PDF, grouped by node|result:node.pdf|s|< 10|lower|as report.pdf_team"
  "metrics.scrape|metrics|scrape of /metrics, 10,000 GPUs, p99|result:metrics.scrape.p99|ms|< 50|lower|connect, GET and read over loopback from prometheus-cpp's endpoint (civetweb); 6,000 jobs, 17 RPC histograms"
  "metrics.record_cycle|metrics|metrics update per cycle, 10,000 GPUs, max|result:metrics.record_cycle.max|ms|-|lower|BackendMetrics::recordCycle on the engine thread (figures from the active jobs)"
  "metrics.exporter_rss|metrics|exporter resident memory after the scrapes|result:metrics.exporter.rss_after_scrapes|MiB|-|lower|RSS after start and 200 scrapes minus before start"
)

# Splits a BENCHMARKS or FIGURES entry into the array F (no subshell: the lists are read often).
split_entry() { IFS='|' read -r -a F <<<"$1"; }

# The BENCHMARKS entry named $1 into B; fails when there is none.
benchmark_entry() {
  local b
  for b in "${BENCHMARKS[@]}"; do
    split_entry "$b"
    if [ "${F[0]}" = "$1" ]; then
      B=("${F[@]}")
      return 0
    fi
  done
  return 1
}

list() {
  local b f name
  for b in "${BENCHMARKS[@]}"; do
    split_entry "$b"
    name=${F[0]}
    printf '%s  (%s; %s)\n' "$name" "${F[1]}" "${F[3]}"
    for f in "${FIGURES[@]}"; do
      split_entry "$f"
      [ "${F[1]}" = "$name" ] || continue
      printf '  %-30s %-9s %s\n' "${F[0]}" "${F[5]}" "${F[2]}"
      printf '  %-30s %-9s scope: %s\n' "" "" "${F[7]}"
    done
  done
}

# --- options

only=""
quick=0
build_dir=""
do_build=1
build_only=0
jobs=$(nproc)
tsv=""
work_dir=""
verbose=0
while [ $# -gt 0 ]; do
  case "$1" in
    --only) [ $# -ge 2 ] || die "--only needs a list of names"; only=$2; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    --quick) quick=1; shift ;;
    --build-dir) [ $# -ge 2 ] || die "--build-dir needs a directory"; build_dir=$2; shift 2 ;;
    --build-dir=*) build_dir=${1#--build-dir=}; shift ;;
    --no-build) do_build=0; shift ;;
    --build-only) build_only=1; shift ;;
    --jobs) [ $# -ge 2 ] || die "--jobs needs a number"; jobs=$2; shift 2 ;;
    --jobs=*) jobs=${1#--jobs=}; shift ;;
    --tsv) [ $# -ge 2 ] || die "--tsv needs a file"; tsv=$2; shift 2 ;;
    --tsv=*) tsv=${1#--tsv=}; shift ;;
    --work-dir) [ $# -ge 2 ] || die "--work-dir needs a directory"; work_dir=$2; shift 2 ;;
    --work-dir=*) work_dir=${1#--work-dir=}; shift ;;
    --verbose) verbose=1; shift ;;
    --list) list; exit 0 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a positive number, not '$jobs'"
if [ "$do_build" = 0 ] && [ "$build_only" = 1 ]; then
  die "--no-build and --build-only exclude each other"
fi

# The benchmarks selected: all, or those named in --only (a benchmark or one of its figures).
selected=()
if [ -z "$only" ]; then
  for b in "${BENCHMARKS[@]}"; do
    split_entry "$b"
    selected+=("${F[0]}")
  done
else
  IFS=',' read -r -a names <<<"$only"
  for n in "${names[@]}"; do
    [ -n "$n" ] || continue
    n=${n#bench_}
    match=""
    if benchmark_entry "$n"; then
      match=$n
    else
      for f in "${FIGURES[@]}"; do
        split_entry "$f"
        if [ "${F[0]}" = "$n" ]; then match=${F[1]}; fi
      done
    fi
    [ -n "$match" ] || die "unknown benchmark or figure '$n' (see --list)"
    case " ${selected[*]:-} " in *" $match "*) ;; *) selected+=("$match") ;; esac
  done
fi
[ ${#selected[@]} -gt 0 ] || die "--only selected nothing"

# --- the build

if [ -z "$build_dir" ]; then
  build_dir=$repo/build/release
  if [ ! -f "$build_dir/CMakeCache.txt" ] && [ "$do_build" = 1 ]; then
    echo "run-benchmarks: configuring $build_dir (cmake --preset release)"
    (cd "$repo" && cmake --preset release >/dev/null)
  fi
fi
[ -f "$build_dir/CMakeCache.txt" ] ||
  die "$build_dir is not a configured CMake build directory (cmake --preset release, or --build-dir)"
build_dir=$(cd "$build_dir" && pwd)
bench_bin=$build_dir/tests/bench

cache_value() { # the value of a CMakeCache entry, or empty
  sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt" | head -1
}

targets=()
for name in "${selected[@]}"; do
  benchmark_entry "$name"
  exe=${B[1]}
  case " ${targets[*]:-} " in *" $exe "*) ;; *) targets+=("$exe") ;; esac
done
if [ "$do_build" = 1 ]; then
  echo "run-benchmarks: building ${targets[*]} in $build_dir"
  if ! cmake --build "$build_dir" --target "${targets[@]}" -j "$jobs" >"$build_dir/bench-build.log" 2>&1; then
    tail -30 "$build_dir/bench-build.log" >&2
    echo "run-benchmarks: the build failed (log: $build_dir/bench-build.log)" >&2
    exit 1
  fi
fi
[ "$build_only" = 1 ] && exit 0
for exe in "${targets[@]}"; do
  [ -x "$bench_bin/$exe" ] || die "$bench_bin/$exe is missing: build it (or leave out --no-build)"
done

# --- the machine, the build, the commit

source_dir=$(cache_value CMAKE_HOME_DIRECTORY)
commit="unknown (not a git checkout)"
commit_id=""
if git -C "$source_dir" rev-parse --git-dir >/dev/null 2>&1; then
  commit_id=$(git -C "$source_dir" rev-parse HEAD)
  commit="$(git -C "$source_dir" describe --always --dirty --abbrev=12) ($commit_id)"
  if [ -n "$(git -C "$source_dir" status --porcelain --untracked-files=no)" ]; then
    commit="$commit, uncommitted changes in the tree"
  fi
fi
# Family, model and stepping too: a virtual machine may name only "AMD EPYC".
cpuinfo() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -1; }
cpu="$(cpuinfo 'model name') (family $(cpuinfo 'cpu family') model $(cpuinfo model) stepping"
cpu="$cpu $(cpuinfo stepping), $(cpuinfo 'cpu MHz' | cut -d. -f1) MHz; $(nproc) CPUs available)"
build_type=$(cache_value CMAKE_BUILD_TYPE)
upper=$(printf '%s' "${build_type:-none}" | tr '[:lower:]' '[:upper:]')
flags=$(printf '%s %s' "$(cache_value CMAKE_CXX_FLAGS)" "$(cache_value "CMAKE_CXX_FLAGS_$upper")" | xargs)
compiler=$(cache_value CMAKE_CXX_COMPILER)
compiler_version=$("$compiler" --version 2>/dev/null | head -1 || true)
build="${build_type:-no build type} (${flags:-no flags}), ${compiler_version:-$compiler}"
[ "$do_build" = 1 ] || build="$build; not rebuilt (--no-build)"
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
mode=$([ "$quick" = 1 ] && echo "quick (smoke sizes: no verdicts)" || echo "full")

work_dir=${work_dir:-$build_dir/bench-runner}
mkdir -p "$work_dir/logs"
work_dir=$(cd "$work_dir" && pwd)
logs=$work_dir/logs
# One run at a time per work directory: a second would delete the first one's logs, and two
# runs at once measure each other anyway.
exec 9>"$work_dir/.lock"
flock -n 9 || die "another run-benchmarks is using $work_dir (wait for it, or --work-dir)"
rm -f "$logs"/*.out "$logs"/*.json

# --- running one benchmark

export QT_QPA_PLATFORM=offscreen
export QT_QPA_FONTDIR=${QT_QPA_FONTDIR:-/usr/share/fonts/truetype/dejavu}

# Runs an executable of the build with a time limit; its output is appended to OUT.
run_exe() { # limit out exe args...
  local limit=$1 out=$2 exe=$3
  shift 3
  echo "\$ $exe $*" >>"$out"
  local rc=0
  if [ "$verbose" = 1 ]; then
    timeout --kill-after=10 "$limit" "$bench_bin/$exe" "$@" 2>&1 | tee -a "$out" || rc=${PIPESTATUS[0]}
  else
    timeout --kill-after=10 "$limit" "$bench_bin/$exe" "$@" >>"$out" 2>&1 || rc=$?
  fi
  return "$rc"
}

# A Google Benchmark run: JSON to LOG.N.json beside the console output.
run_gb() { # name limit exe args...
  local name=$1 limit=$2 exe=$3
  shift 3
  local n
  n=$(find "$logs" -maxdepth 1 -name "$name.*.json" | wc -l)
  run_exe "$limit" "$logs/$name.out" "$exe" "$@" \
    --benchmark_out="$logs/$name.$((n + 1)).json" --benchmark_out_format=json
}

# A prepared input that depends on the code (a database written by the benchmark): one per
# commit, so that a build of another commit never reads a file of a different schema.
prepared() { # stem extension
  local tag=${commit_id:0:12}
  printf '%s/%s-%s.%s' "$work_dir" "$1" "${tag:-nogit}" "$2"
}

# Before FILE is written afresh: the files of other commits with its stem go (hundreds of MiB).
forget_other_commits() { # file stem
  find "$work_dir" -maxdepth 1 -name "$2-*" ! -name "$(basename "$1")*" -delete
}

gb_quick=(--benchmark_min_time=0.01)
gb_repeat=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)

# Runs benchmark NAME with LIMIT seconds per executable run; the output goes to $logs/NAME.out.
run_benchmark() { # name limit
  local name=$1 limit=$2
  case "$name:$quick" in
    mig:0) run_gb mig "$limit" bench_mig --benchmark_filter='^BM_ValidateRandomLayouts$' "${gb_repeat[@]}" ;;
    mig:1) run_gb mig "$limit" bench_mig --benchmark_filter='^BM_ValidateRandomLayouts$' "${gb_quick[@]}" ;;
    cluster_load:0) run_gb cluster_load "$limit" bench_cluster_load --benchmark_filter='gpus:10000/' "${gb_repeat[@]}" ;;
    cluster_load:1) run_gb cluster_load "$limit" bench_cluster_load --benchmark_filter='gpus:10000/' "${gb_quick[@]}" ;;
    scheduler:0) run_gb scheduler "$limit" bench_scheduler "${gb_repeat[@]}" ;;
    scheduler:1) run_gb scheduler "$limit" bench_scheduler --benchmark_filter='/10000/|/750/' ;;
    engine:0)
      # One run of the cycles and memory (each is many samples or one state), the explanation
      # three times (median), as docs/PERFORMANCE.md records them.
      run_gb engine "$limit" bench_engine --benchmark_filter='BM_CycleMixed150kPending/20/|BM_Cycle150kPending/20/|BM_Memory40kGpus150kJobs' &&
        run_gb engine "$limit" bench_engine --benchmark_filter='BM_ExplainPending' "${gb_repeat[@]}" ;;
    engine:1)
      # An executable older than --cycle-episodes runs one episode anyway: asked again without it.
      local quick_filter='BM_CycleMixed150kPending/20/50/|BM_ExplainPending'
      run_gb engine "$limit" bench_engine --cycle-episodes=1 --benchmark_filter="$quick_filter" \
        "${gb_quick[@]}" ||
        { grep -q 'unrecognized.*--cycle-episodes' "$logs/engine.out" &&
          run_gb engine "$limit" bench_engine --benchmark_filter="$quick_filter" "${gb_quick[@]}"; } ;;
    simulator:0) run_exe "$limit" "$logs/$name.out" bench_simulator --jobs 100000 --rate 200 ;;
    simulator:1) run_exe "$limit" "$logs/$name.out" bench_simulator --jobs 2000 --nodes 100 --rate 30 ;;
    simulator_overload:0) run_exe "$limit" "$logs/$name.out" bench_simulator --jobs 100000 --rate 250 ;;
    simulator_overload:1) run_exe "$limit" "$logs/$name.out" bench_simulator --jobs 1000 --nodes 100 --rate 40 ;;
    openb:*) run_exe "$limit" "$logs/$name.out" bench_openb --policies fgd ;;
    # The databases under test go to the temporary directory, as in docs/PERFORMANCE.md's
    # commands; bench_tesserad prints its file system and fsync time.
    tesserad_submit:0) run_exe "$limit" "$logs/$name.out" bench_tesserad --only submit ;;
    tesserad_watch:0) run_exe "$limit" "$logs/$name.out" bench_tesserad --only watch ;;
    tesserad_restart:0)
      # bench_tesserad prepares the database when it is missing (about 2 minutes) and keeps it;
      # each measurement restarts from a fresh copy of it.
      local db
      db=$(prepared restart-150k db)
      if [ ! -f "$db.done" ]; then
        rm -f "$db" "$db-wal" "$db-shm"
        forget_other_commits "$db" restart-150k
      fi
      run_exe "$limit" "$logs/$name.out" bench_tesserad --only restart --db "$db" || return $?
      touch "$db.done" ;;
    tesserad_*:1) run_exe "$limit" "$logs/$name.out" bench_tesserad --smoke --only "${name#tesserad_}" ;;
    heatmap:0) run_exe "$limit" "$logs/$name.out" bench_heatmap --runs 100 ;;
    heatmap:1) run_exe "$limit" "$logs/$name.out" bench_heatmap --smoke ;;
    console:0) run_exe "$limit" "$logs/$name.out" bench_console --runs 20 ;;
    console:1) run_exe "$limit" "$logs/$name.out" bench_console --smoke ;;
    top:0) run_exe "$limit" "$logs/$name.out" bench_top --runs 200 ;;
    top:1) run_exe "$limit" "$logs/$name.out" bench_top --smoke ;;
    report:0)
      local db group
      db=$(prepared report-100k db)
      # A database whose writing was cut short has no .done beside it: written again.
      if [ ! -f "$db.done" ]; then
        rm -f "$db" "$db-wal" "$db-shm"
        forget_other_commits "$db" report-100k
        run_exe "$limit" "$logs/$name.out" bench_report --make "$db" || return $?
        touch "$db.done"
      fi
      for group in team job node; do
        run_exe "$limit" "$logs/$name.out" bench_report --db "$db" --group-by "$group" || return $?
      done ;;
    report:1) run_exe "$limit" "$logs/$name.out" bench_report --smoke ;;
    metrics:0) run_exe "$limit" "$logs/$name.out" bench_metrics ;;
    metrics:1) run_exe "$limit" "$logs/$name.out" bench_metrics --smoke ;;
    *) die "no way to run '$name'" ;;
  esac
}

# --- reading the figures

# The value of a figure from its benchmark's output, as "VALUE<TAB>SAMPLES"; nothing when the
# output does not have it.
gb_value() { # name regex field unit
  local name=$1 regex=$2 fld=$3 unit=$4 file
  for file in "$logs/$name".*.json; do
    [ -f "$file" ] || continue
    jq -r --arg re "^(${regex})(/iterations:[0-9]+)?(/repeats:[0-9]+)?$" --arg field "$fld" --arg unit "$unit" '
      def scale(from; to):
        {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1} as $s
        | if ($s[from] and $s[to]) then $s[from] / $s[to] else 1 end;
      [.benchmarks[] | select((.run_name // .name) | test($re)) | select(.error_occurred | not)] as $runs
      | ([$runs[] | select(.run_type == "aggregate" and .aggregate_name == "median")] | first)
        // ([$runs[] | select(.run_type != "aggregate")] | last)
      | select(. != null)
      | (if $field == "real_time" then .real_time * scale(.time_unit; $unit)
         elif ($field | endswith("@s")) then .[$field | rtrimstr("@s")] as $x
           | (if $x == null then null else $x * scale("s"; $unit) end)
         else .[$field] end) as $v
      | select($v != null)
      # An older cycle benchmark (no cycles counter: its first argument, 20 rounds, is the count)
      # called the second-largest of 20 its p99: not a p99, so not read.
      | (.cycles // ((.run_name | split("/")[1] | tonumber?) // 0)) as $cycles
      | select($field != "p99_ms" or $cycles >= 100)
      | (if .run_type == "aggregate" then "median of \(.repetitions // "?") runs"
         elif ($field | test("^p[0-9]+_ms$")) and .cycles then "of \(.cycles) cycles"
         elif ($field | test("^p[0-9]+_ms$"))
           then "of \(.run_name | split("/")[1]) cycles (older bench)"
         elif ($field | startswith("first_")) and .episodes then "median of \(.episodes) episodes"
         elif .iterations > 1 then "mean of \(.iterations) calls"
         else "1 run" end) as $n
      | "\($v)\t\($n)"' "$file"
  done | tail -1
}

result_value() { # name result-name
  awk -v want="$2" '$1 == "RESULT" && $2 == want {
      n = "";
      for (i = 5; i <= NF; i++) if ($i ~ /^n=/) n = substr($i, 3);
      v = $3 "\t" (n == "" ? "" : (n == 1 ? "1 run" : "of " n));
    } END { if (v != "") print v }' "$logs/$1.out" 2>/dev/null || true
}

table_value() { # name label
  awk -F'|' -v want="$2" '{ label = $2; gsub(/^ +| +$/, "", label);
      if (label == want) { v = $3; gsub(/ /, "", v); out = v "\tmedian (older bench)" } }
    END { if (out != "") print out }' "$logs/$1.out" 2>/dev/null || true
}

figure_value() { # name source unit
  local name=$1 source=$2 unit=$3 primary fallback got=""
  primary=${source%%;*}
  fallback=""
  [ "$primary" = "$source" ] || fallback=${source#*;}
  case "$primary" in
    gb:*)
      local rest=${primary#gb:}
      got=$(gb_value "$name" "${rest%:*}" "${rest##*:}" "$unit") ;;
    result:*) got=$(result_value "$name" "${primary#result:}") ;;
  esac
  if [ -z "$got" ] && [ -n "$fallback" ]; then
    got=$(table_value "$name" "${fallback#table:}")
  fi
  printf '%s' "$got"
}

verdict() { # value target
  awk -v v="$1" -v t="$2" 'BEGIN {
      split(t, p, " ");
      if (p[1] == "<") ok = (v + 0 < p[2] + 0); else if (p[1] == ">=") ok = (v + 0 >= p[2] + 0);
      else { print "-"; exit }
      print ok ? "met" : "not met" }'
}

# A wall-time figure of a run stopped at LIMIT seconds: not met when its target is below LIMIT.
stopped_verdict() { # unit target limit
  awk -v u="$1" -v t="$2" -v l="$3" 'BEGIN {
      split(t, p, " ");
      print (u == "s" && p[1] == "<" && p[2] + 0 <= l + 0) ? "not met" : "no result" }'
}

# --- run

command -v jq >/dev/null || die "jq is needed to read Google Benchmark's JSON (apt-get install jq)"
rows=()
failed=0
echo "run-benchmarks: ${#selected[@]} benchmark(s), $mode; logs in $logs"
for name in "${selected[@]}"; do
  benchmark_entry "$name"
  limit=${B[2]}
  [ "$quick" = 0 ] || limit=300
  : >"$logs/$name.out"
  printf '  %-20s ' "$name"
  t0=$(date +%s)
  status=ok
  rc=0
  run_benchmark "$name" "$limit" || rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    status="stopped after ${limit} s"
  elif [ "$rc" != 0 ]; then
    status="failed (exit $rc)"
  fi
  echo "$status, $(($(date +%s) - t0)) s"
  for f in "${FIGURES[@]}"; do
    split_entry "$f"
    [ "${F[1]}" = "$name" ] || continue
    id=${F[0]} what=${F[2]} source=${F[3]} unit=${F[4]} target=${F[5]} better=${F[6]}
    got=$(figure_value "$name" "$source" "$unit")
    value=${got%%$'\t'*}
    samples=${got#*$'\t'}
    if [ -n "$got" ] && [ "$status" = ok ]; then
      if [ "$quick" = 1 ]; then
        v="quick"
      else
        v=$(verdict "$value" "$target")
      fi
    elif [[ "$status" == stopped* ]]; then
      # A run stopped at its limit took longer than the limit: a time target below it is missed.
      value=""
      samples="stopped after ${limit} s"
      v=$(stopped_verdict "$unit" "$target" "$limit")
    elif [ "$status" = ok ] && [ "$quick" = 1 ]; then
      # Smoke sizes leave some figures out (a p99 needs 100 cycles): not an error.
      value=""
      samples="not in a quick run"
      v="-"
    else
      value=""
      samples=$([ "$status" = ok ] && echo "not in the output" || echo "$status")
      v="no result"
    fi
    [ "$v" != "no result" ] || failed=1
    rows+=("$id"$'\t'"$name"$'\t'"$what"$'\t'"$target"$'\t'"$unit"$'\t'"$value"$'\t'"$samples"$'\t'"$v"$'\t'"$better")
  done
  [ "$status" = ok ] || [[ "$status" == stopped* ]] || {
    failed=1
    tail -5 "$logs/$name.out" | sed 's/^/      | /'
  }
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- the table

header() {
  printf '# date\t%s\n# commit\t%s\n# cpu\t%s\n# build\t%s\n# mode\t%s\n' \
    "$started" "$commit" "$cpu" "$build" "$mode"
  printf '# load average\t%s before, %s after\n' "$load_before" "$load_after"
}

tsv_body() {
  printf 'id\tbenchmark\twhat\ttarget\tunit\tvalue\tsamples\tverdict\tbetter\n'
  printf '%s\n' "${rows[@]}"
}

if [ -n "$tsv" ]; then
  mkdir -p "$(dirname "$tsv")"
  { header; tsv_body; } >"$tsv"
fi

echo
echo "Tessera benchmarks"
header | sed 's/^# //' | awk -F'\t' '{ printf "  %-13s %s\n", $1 ":", $2 }'
echo
tsv_body | awk -F'\t' '
  function num(v,   s, i, r, neg) {
    if (v == "") return "-";
    v += 0; neg = v < 0; if (neg) v = -v;
    if (v >= 100) s = sprintf("%.0f", v); else if (v >= 10) s = sprintf("%.1f", v);
    else if (v >= 1) s = sprintf("%.2f", v); else s = sprintf("%.3g", v);
    if (v >= 1000) { r = ""; while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) } s = s r }
    return (neg ? "-" : "") s;
  }
  NR == 1 { next }
  {
    id[NR] = $1; what[NR] = $3;
    target[NR] = ($4 == "-" ? "-" : $4 " " $5);
    measured[NR] = ($6 == "" ? "-" : num($6) " " $5);
    samples[NR] = $7; verdict[NR] = $8; n = NR;
    if (length($1) > w1) w1 = length($1);
    if (length(target[NR]) > w2) w2 = length(target[NR]);
    if (length(measured[NR]) > w3) w3 = length(measured[NR]);
    if (length($7) > w4) w4 = length($7);
    if (length($8) > w5) w5 = length($8);
  }
  END {
    if (w1 < 9) w1 = 9; if (w2 < 6) w2 = 6; if (w3 < 8) w3 = 8; if (w4 < 7) w4 = 7; if (w5 < 7) w5 = 7;
    fmt = "| %-" w1 "s | %-" w2 "s | %" w3 "s | %-" w4 "s | %-" w5 "s | %s\n";
    printf fmt, "benchmark", "target", "measured", "samples", "verdict", "what";
    line = sprintf(fmt, "", "", "", "", "", ""); gsub(/[^|\n]/, "-", line); printf "%s", line;
    for (i = 2; i <= n; i++) printf fmt, id[i], target[i], measured[i], samples[i], verdict[i], what[i];
  }'
echo
echo "Percentiles are nearest rank over the samples shown; what each figure covers: --list."
if [ "$quick" = 1 ]; then
  echo "Quick mode: smoke sizes, so the figures say nothing about the targets."
fi
if awk -v l="${load_before%% *}" -v c="$(nproc)" 'BEGIN { exit !(l > 0.25 * c) }'; then
  echo "Load average ${load_before%% *} at the start: other work was running; these figures are not valid as records."
fi
[ -z "$tsv" ] || echo "TSV: $tsv"
exit "$failed"
