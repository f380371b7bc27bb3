#!/usr/bin/env bash
# The sanitizer and fuzzing stages of the test suite (docs/testing.md); installer/run-tests.sh runs
# them after the release tests when TESSERA_SANITIZERS=1 (CI does not yet). Usage:
#   installer/run-sanitizers.sh [stage...]      stages: asan fuzz tsan (default: all three, in order)
# asan: the tests labelled asan, built with ASan+UBSan (preset asan, build/asan), the committed fuzz
#       corpus replayed among them (label fuzz-regression).
# fuzz: every fuzz target under libFuzzer for TESSERA_FUZZ_SECONDS each (default 10), two at a
#       time, from the asan tree (installer/run-fuzzers.sh).
# tsan: the service and event-hub tests (label tsan) built with ThreadSanitizer (preset tsan).
# Each stage prints its wall time, so the CI log shows the budget. Exits non-zero at the first
# stage that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(asan fuzz tsan)

timed() {
  local name="$1"
  shift
  local start=$SECONDS
  echo "== tessera: stage $name"
  "$@"
  echo "== tessera: stage $name took $((SECONDS - start)) s"
}

for stage in "${stages[@]}"; do
  case "$stage" in
    asan)
      cmake --preset asan >/dev/null
      timed asan-build cmake --build --preset asan
      timed asan-tests ctest --preset asan --parallel "$jobs"
      ;;
    fuzz)
      cmake --preset asan >/dev/null
      timed fuzz env TESSERA_FUZZ_PRESET=asan TESSERA_FUZZ_JOBS="$jobs" \
        bash installer/run-fuzzers.sh "${TESSERA_FUZZ_SECONDS:-10}"
      ;;
    tsan)
      cmake --preset tsan >/dev/null
      timed tsan-build cmake --build --preset tsan
      timed tsan-tests ctest --preset tsan --parallel "$jobs"
      ;;
    *)
      echo "run-sanitizers: unknown stage '$stage' (asan, fuzz, tsan)" >&2
      exit 2
      ;;
  esac
done
