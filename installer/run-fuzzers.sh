#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan, docs/fuzzing.md) and runs each for a bounded
# time over its committed corpus. Usage:
#   installer/run-fuzzers.sh [seconds-per-target] [target...]     (default 60 s, every target)
# Environment: TESSERA_FUZZ_PRESET=fuzz (default: build/fuzz, the fuzz targets and only the
# libraries they need) or asan (build/asan: the fuzz_<target>_libfuzzer binaries of the ASan+UBSan
# test tree, what CI uses, installer/run-sanitizers.sh); TESSERA_FUZZ_JOBS=N runs N targets at a
# time (default 1).
# New interesting inputs go to build/<preset>/fuzz-corpus/<target>/ (not committed); a crash, leak,
# timeout or out-of-memory input is copied into fuzz/corpus/<target>/ as regression-<kind>-<hash>,
# where the replay test (ctest -L fuzz-regression) runs it in every build from then on. Exits 1
# when any target found something. A summary per target: build/<preset>/fuzz-summary.txt.
set -uo pipefail
self="$(realpath "$0")"
cd "$(dirname "$0")/.."
preset="${TESSERA_FUZZ_PRESET:-fuzz}"
build="build/$preset"
case "$preset" in
  fuzz) suffix="" ;;
  asan) suffix="_libfuzzer" ;;
  *) echo "run-fuzzers: TESSERA_FUZZ_PRESET must be fuzz or asan" >&2; exit 2 ;;
esac

# One target (the script calls itself, so that TESSERA_FUZZ_JOBS targets run side by side).
if [ "${1:-}" = "--one" ]; then
  seconds="$2"
  t="$3"
  work="$build/fuzz-corpus/$t"
  artifacts="$build/fuzz-artifacts/$t"
  log="$build/fuzz_$t.log"
  mkdir -p "$work" "$artifacts"
  # The first directory receives the new inputs; the committed corpus is only read.
  "$build/fuzz/fuzz_$t$suffix" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
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
  printf '%-16s %5ss %10s execs %6s corpus files  %s (log %s)\n' "$t" "$seconds" "${execs:-?}" \
    "$corpus" "$result" "$log" | tee -a "$build/fuzz-summary.txt"
  [ "$result" = ok ]
  exit
fi

seconds="${1:-60}"
shift || true
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for dir in fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi

cmake --preset "$preset" >/dev/null || exit 2
binaries=()
for t in "${targets[@]}"; do binaries+=("fuzz_$t$suffix"); done
cmake --build "$build" --target "${binaries[@]}" || exit 2

: >"$build/fuzz-summary.txt"
printf '%s\n' "${targets[@]}" | xargs -P "${TESSERA_FUZZ_JOBS:-1}" -I{} bash "$self" --one "$seconds" {} || exit 1
