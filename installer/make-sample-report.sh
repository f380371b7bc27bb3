#!/usr/bin/env bash
# Makes the sample report in docs/samples/ (docs/reports.md): a simulated month of synthetic work
# on the demo cluster, recorded and reported as PDF, HTML and CSV, plus the PDF's first page as
# a PNG (pdftoppm, from poppler-utils). Run after a build: bash installer/make-sample-report.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tessera=$(realpath "${TESSERA:-build/release/app/tessera}")
out=$root/docs/samples
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
cd "$work"  # the report's header names its source: "sample.db", not a temporary path
"$tessera" simulate --synthetic 1500 --rate 2.1 --seed 7 --duration 30d --record sample.db \
  --no-progress >/dev/null
mkdir -p "$out"
rm -rf "$out/csv"
common=(--db sample.db --prices "$root/resources/sample-prices.yaml" --no-progress)
"$tessera" report "${common[@]}" -o "$out/report.pdf"
"$tessera" report "${common[@]}" -o "$out/report.html"
"$tessera" report "${common[@]}" -o "$out/csv"
pdftoppm -png -r 60 -f 1 -l 1 -singlefile "$out/report.pdf" "$out/report-page1"
echo "wrote docs/samples/report.pdf, report.html, csv/ and report-page1.png"
