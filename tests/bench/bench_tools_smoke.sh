#!/usr/bin/env bash
# ctest: installer/run-benchmarks.sh and installer/compare-commits.sh keep working together.
# Runs the cheapest benchmark (bench_mig) twice in quick mode without building, as sides A and B,
# then lets the comparison summarize the two TSVs. Asserts no timing: only that each tool runs,
# the runner's TSV holds the figure with a number, and the comparison prints its ratio line.
# Usage: bench_tools_smoke.sh SOURCE_DIR BUILD_DIR OUT_DIR
set -euo pipefail
src=${1:?usage: bench_tools_smoke.sh SOURCE_DIR BUILD_DIR OUT_DIR}
build=${2:?usage: bench_tools_smoke.sh SOURCE_DIR BUILD_DIR OUT_DIR}
out=${3:?usage: bench_tools_smoke.sh SOURCE_DIR BUILD_DIR OUT_DIR}
rm -rf "$out"
mkdir -p "$out"
for side in A B; do
  bash "$src/installer/run-benchmarks.sh" --quick --no-build --build-dir "$build" --only mig \
    --work-dir "$out/work" --tsv "$out/$side-1.tsv"
done
# The figure's row: id, then a numeric measured value in the value column.
if ! awk -F'\t' '$1 == "mig.validate_random" && $6 ~ /^[0-9.eE+-]+$/ { found = 1 }
                 END { exit found ? 0 : 1 }' "$out/A-1.tsv"; then
  echo "bench_tools_smoke: no measured mig.validate_random row in $out/A-1.tsv" >&2
  cat "$out/A-1.tsv" >&2
  exit 1
fi
bash "$src/installer/compare-commits.sh" --summarize "$out"
