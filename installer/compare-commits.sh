#!/usr/bin/env bash
# Compares the benchmarks of two commits on this machine: builds each in its own git worktree and
# build directory (ccache shares what the two have in common), runs the same benchmarks
# alternately A, B, A, B ... so that both sides share the machine's noise, and prints per figure
# the ratio B/A of the medians with the spread of each side. Run with --help for the options.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
runner=$repo/installer/run-benchmarks.sh

usage() {
  cat <<'EOF'
Usage: installer/compare-commits.sh [options] A B
       installer/compare-commits.sh --summarize DIR

Builds commits A and B (any revision git understands: a hash, a branch, HEAD~3) in separate
worktrees and build directories under --work, configured alike (RelWithDebInfo with the release
preset's flags, Ninja), then runs installer/run-benchmarks.sh on each alternately, A then B,
--rounds times, and prints for every figure: the median of A, the median of B, each side's
spread (min-max over the rounds), the ratio B/A and whether B is better, worse, or within the
noise (the two ranges overlap). The benchmark runner of this checkout runs both sides, so both
are measured the same way; a commit that predates a benchmark cannot be compared on it (choose
--only accordingly).

Options:
  --only NAME,...   the benchmarks to compare (run-benchmarks.sh --list); default: all
  --rounds N        alternations (default 3: each side runs 3 times)
  --quick           run-benchmarks.sh --quick: checks the tooling, says nothing about speed
  --work DIR        worktrees, builds and results (default: build/compare in this checkout)
  --jobs N          parallel build jobs (default: nproc)
  --no-build        reuse the worktrees' builds as they are
  --summarize DIR   only print the comparison of the results already in DIR (A-*.tsv, B-*.tsv)
  -h, --help        this help

Uncommitted changes are not compared: the worktrees hold the commits. Results, logs and the
table go to WORK/results/<A>-<B>/. The worktrees stay for the next comparison; remove one with
`git worktree remove --force WORK/<sha>`. Figures are valid only on a quiet machine. With R
rounds, two identical commits get disjoint ranges ("better"/"worse") by chance with probability
2 (R!)^2 / (2R)!: 33 % for 2, 10 % for 3, 0.8 % for 5.
EOF
}

die() {
  echo "compare-commits: $*" >&2
  exit 2
}

# --- the comparison of two sets of runner TSVs

# Prints the per-figure comparison of DIR/A-*.tsv against DIR/B-*.tsv.
summarize() { # dir
  local dir=$1
  compgen -G "$dir/A-*.tsv" >/dev/null || die "no A-*.tsv in $dir"
  compgen -G "$dir/B-*.tsv" >/dev/null || die "no B-*.tsv in $dir"
  local a_first b_first
  a_first=$(find "$dir" -maxdepth 1 -name 'A-*.tsv' | sort | head -1)
  b_first=$(find "$dir" -maxdepth 1 -name 'B-*.tsv' | sort | head -1)
  echo "Comparison of two commits, B/A (runs alternated A, B, A, B ...)"
  for side in A B; do
    local first=$a_first
    [ "$side" = A ] || first=$b_first
    awk -F'\t' -v side="$side" '$1 == "# commit" { printf "  %s: %s\n", side, $2 }' "$first"
  done
  awk -F'\t' '$1 == "# cpu" || $1 == "# build" || $1 == "# mode" {
      sub(/^# /, "", $1); printf "  %-6s %s\n", $1 ":", $2 }' "$b_first"
  echo "  load average during the rounds:"
  for f in "$dir"/A-*.tsv "$dir"/B-*.tsv; do
    awk -F'\t' -v f="$(basename "$f" .tsv)" '$1 == "# load average" { printf "    %-5s %s\n", f, $2 }' "$f"
  done
  echo
  awk -F'\t' '
    function median(list, n,   a, i, j, t) {
      split(list, a, " ");
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
    }
    function lo(list,   a, i, m, n) { n = split(list, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
    function hi(list,   a, i, m, n) { n = split(list, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
    function runs(k) { return k == 1 ? "1 run" : k " runs" }
    function num(v) {
      if (v >= 100) return sprintf("%.0f", v); if (v >= 10) return sprintf("%.1f", v);
      if (v >= 1) return sprintf("%.2f", v); return sprintf("%.3g", v);
    }
    FNR == 1 { side = FILENAME; sub(/.*\//, "", side); side = substr(side, 1, 1) }
    /^#/ || $1 == "id" { next }
    {
      if (!($1 in order)) { order[$1] = ++count; ids[count] = $1 }
      unit[$1] = $5; better[$1] = $9;
      if ($6 == "") { missing[$1, side]++; next }
      values[$1, side] = values[$1, side] " " $6; n[$1, side]++;
    }
    END {
      fmt = "| %-30s | %16s | %-22s | %16s | %-22s | %-19s | %s\n";
      printf fmt, "figure", "A median", "A spread (min-max)", "B median", "B spread (min-max)", "B/A (range)", "verdict";
      printf fmt, "---", "---", "---", "---", "---", "---", "---";
      for (k = 1; k <= count; k++) {
        id = ids[k];
        if (!n[id, "A"] || !n[id, "B"]) {
          printf fmt, id, n[id, "A"] ? num(median(values[id, "A"], n[id, "A"])) " " unit[id] : "-", runs(n[id, "A"] + 0),
                 n[id, "B"] ? num(median(values[id, "B"], n[id, "B"])) " " unit[id] : "-", runs(n[id, "B"] + 0), "-", "no result on one side";
          continue;
        }
        ma = median(values[id, "A"], n[id, "A"]); mb = median(values[id, "B"], n[id, "B"]);
        la = lo(values[id, "A"]); ha = hi(values[id, "A"]); lb = lo(values[id, "B"]); hb = hi(values[id, "B"]);
        shown = "-";
        if (ma != 0 && la > 0) shown = sprintf("%.3f (%.2f-%.2f)", mb / ma, lb / ha, hb / la);
        if (lb > ha) verdict = better[id] == "higher" ? "B better" : "B worse";
        else if (hb < la) verdict = better[id] == "higher" ? "B worse" : "B better";
        else verdict = "within the noise";
        if (n[id, "A"] < 2 || n[id, "B"] < 2) verdict = "one run on a side: no spread to judge by";
        printf fmt, id, num(ma) " " unit[id], num(la) "-" num(ha) " (" runs(n[id, "A"]) ")",
               num(mb) " " unit[id], num(lb) "-" num(hb) " (" runs(n[id, "B"]) ")",
               shown, verdict;
      }
    }' "$dir"/A-*.tsv "$dir"/B-*.tsv
  echo
  echo "B/A: the ratio of the medians (range: B's lowest over A's highest to B's highest over A's"
  echo "lowest). Above 1, B took longer or, for a rate, did more per second. The verdict reads"
  echo "'better' or 'worse' only when the two sides' ranges do not overlap."
  local per_side
  per_side=$(find "$dir" -maxdepth 1 -name 'A-*.tsv' | wc -l)
  # Two equal sides give disjoint ranges by chance with probability 2 (R!)^2 / (2R)!.
  awk -v r="$per_side" 'BEGIN {
      p = 2; for (i = 1; i <= r; i++) p *= i / (r + i);
      printf "With %d run(s) a side, two identical commits get disjoint ranges by chance %.1f %% of the time.\n", r, 100 * p }'

}

# --- options

only=""
rounds=3
quick=0
work=""
jobs=$(nproc)
do_build=1
summarize_dir=""
commits=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) [ $# -ge 2 ] || die "--only needs a list of names"; only=$2; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    --rounds) [ $# -ge 2 ] || die "--rounds needs a number"; rounds=$2; shift 2 ;;
    --rounds=*) rounds=${1#--rounds=}; shift ;;
    --quick) quick=1; shift ;;
    --work) [ $# -ge 2 ] || die "--work needs a directory"; work=$2; shift 2 ;;
    --work=*) work=${1#--work=}; shift ;;
    --jobs) [ $# -ge 2 ] || die "--jobs needs a number"; jobs=$2; shift 2 ;;
    --jobs=*) jobs=${1#--jobs=}; shift ;;
    --no-build) do_build=0; shift ;;
    --summarize) [ $# -ge 2 ] || die "--summarize needs a directory"; summarize_dir=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) commits+=("$1"); shift ;;
  esac
done

if [ -n "$summarize_dir" ]; then
  [ ${#commits[@]} -eq 0 ] || die "--summarize takes no commits"
  summarize "$summarize_dir"
  exit 0
fi
[ ${#commits[@]} -eq 2 ] || die "expected two commits, A and B (see --help)"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds needs a positive number, not '$rounds'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a positive number, not '$jobs'"

resolve() {
  git -C "$repo" rev-parse --verify --quiet "$1^{commit}" || die "'$1' is not a commit of $repo"
}
sha_a=$(resolve "${commits[0]}")
sha_b=$(resolve "${commits[1]}")
[ "$sha_a" != "$sha_b" ] || echo "compare-commits: A and B are the same commit: a measure of the noise alone"

work=${work:-$repo/build/compare}
mkdir -p "$work"
work=$(cd "$work" && pwd)
results=$work/results/${sha_a:0:12}-${sha_b:0:12}
mkdir -p "$results"
rm -f "$results"/A-*.tsv "$results"/B-*.tsv "$results"/*.log

# A worktree of the commit at WORK/<sha>, configured like the release preset in its build/release.
prepare_side() { # sha
  local sha=$1 tree=$work/${1:0:12}
  if [ ! -e "$tree/.git" ]; then
    echo "compare-commits: worktree for ${sha:0:12} at $tree" >&2
    git -C "$repo" worktree add --detach "$tree" "$sha" >/dev/null 2>&1 ||
      die "cannot create the worktree $tree (git worktree add)"
  fi
  [ "$(git -C "$tree" rev-parse HEAD)" = "$sha" ] ||
    die "$tree holds $(git -C "$tree" rev-parse --short HEAD), not ${sha:0:12}: remove it (git worktree remove)"
  if [ ! -f "$tree/build/release/CMakeCache.txt" ]; then
    echo "compare-commits: configuring $tree/build/release" >&2
    cmake -S "$tree" -B "$tree/build/release" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g -gsplit-dwarf -DNDEBUG" \
      -DCMAKE_EXE_LINKER_FLAGS_RELWITHDEBINFO=-Wl,--compress-debug-sections=zlib >/dev/null ||
      die "cannot configure $tree/build/release"
  fi
  printf '%s' "$tree/build/release"
}

runner_args=()
[ -z "$only" ] || runner_args+=(--only "$only")
[ "$quick" = 0 ] || runner_args+=(--quick)

build_a=$(prepare_side "$sha_a")
build_b=$(prepare_side "$sha_b")
if [ "$do_build" = 1 ]; then
  for side in A B; do
    dir=$build_a
    [ "$side" = A ] || dir=$build_b
    echo "compare-commits: building $side in $dir"
    bash "$runner" --build-only --build-dir "$dir" --jobs "$jobs" "${runner_args[@]}" ||
      die "the build of $side failed; a commit that predates a benchmark cannot run it (--only)"
  done
fi

for round in $(seq 1 "$rounds"); do
  for side in A B; do
    dir=$build_a
    [ "$side" = A ] || dir=$build_b
    echo "compare-commits: round $round of $rounds, $side"
    # A benchmark that fails on one side leaves its figures empty there; the comparison says so.
    bash "$runner" --no-build --build-dir "$dir" "${runner_args[@]}" \
      --tsv "$results/$side-$round.tsv" >"$results/$side-$round.log" 2>&1 ||
      echo "compare-commits: some figures missing in $side round $round (log: $results/$side-$round.log)"
  done
done

echo
summarize "$results" | tee "$results/comparison.txt"
echo
echo "Results: $results"
