#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang, ASan+UBSan, docs/fuzzing.md) and runs each
# for a bounded time over its committed corpus. Usage:
#   installer/run-fuzzers.sh [seconds-per-target] [target...]     (default 60 s, every target)
# New interesting inputs go to build/fuzz/corpus/<target>/ (not committed); a crash, leak,
# timeout or out-of-memory input is copied into fuzz/corpus/<target>/ as regression-<kind>-<hash>,
# where the replay test (ctest -L fuzz-regression) runs it in every build from then on. Exits 1
# when any target found something. A summary per target: build/fuzz/fuzz-summary.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for dir in fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi

cmake --preset fuzz >/dev/null || exit 2
cmake --build build/fuzz --target "${targets[@]/#/fuzz_}" || exit 2

summary=build/fuzz/fuzz-summary.txt
: >"$summary"
found=0
for t in "${targets[@]}"; do
  work="build/fuzz/corpus/$t"
  artifacts="build/fuzz/artifacts/$t"
  log="build/fuzz/fuzz_$t.log"
  mkdir -p "$work" "$artifacts"
  # The first directory receives the new inputs; the committed corpus is only read.
  "build/fuzz/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$work" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(find "$work" "fuzz/corpus/$t" -type f | wc -l)
  result=ok
  for crash in "$artifacts"/*; do
    [ -f "$crash" ] || continue
    base=$(basename "$crash")
    cp "$crash" "fuzz/corpus/$t/regression-${base%%-*}-$(sha1sum "$crash" | cut -c1-12)"
    rm "$crash"
    result=FOUND
  done
  [ "$rc" -ne 0 ] && result=FOUND
  [ "$result" = FOUND ] && found=1
  printf '%-16s %5ss %10s execs %6s corpus files  %s (log %s)\n' "$t" "$seconds" "${execs:-?}" \
    "$corpus" "$result" "$log" | tee -a "$summary"
done
exit "$found"
