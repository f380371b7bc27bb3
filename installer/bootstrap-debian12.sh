#!/usr/bin/env bash
# Installs everything Tessera needs to build, run and test on Debian 12.
# Idempotent: packages already present are skipped, so a second run costs one dpkg query.
# Package set and the reasons behind the less obvious entries: docs/BUILDING.md.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config git
  # Qt 6: libqt6opengl6-dev is required by Qt Charts' CMake package but not pulled in by it
  qt6-base-dev qt6-charts-dev qt6-svg-dev qt6-tools-dev qt6-l10n-tools libqt6opengl6-dev
  libqt6sql6-sqlite libgl-dev
  # data formats and engine libraries
  libyaml-cpp-dev nlohmann-json3-dev libsqlite3-dev libcli11-dev
  # headless backend: gRPC needs its plugin package installed even for find_package(gRPC CONFIG)
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  # tesserad's /metrics endpoint: registry, text format and the civetweb pull endpoint
  prometheus-cpp-dev
  # the node agent's dcgm-exporter scrape (prometheus-cpp-dev pulls it in too)
  libcurl4-openssl-dev
  # token hashing (libssl-dev) and the TLS test certificate (openssl)
  libssl-dev openssl
  # tests and benchmarks; poppler-utils: pdftotext, which the report tests read PDFs with;
  # jq: installer/run-benchmarks.sh reads Google Benchmark's JSON with it
  libbenchmark-dev poppler-utils jq
  # the terminal console (tessera top): ncursesw; tmux drives it in the tests; ncurses-term has
  # the terminfo entries beyond xterm (xterm-direct for 24-bit colour)
  libncurses-dev tmux ncurses-term
  # headless GUI at run/test time: without a font every glyph renders as a box;
  # fonts-wqy-microhei: CJK glyphs for the Simplified Chinese translation
  xvfb xauth fonts-dejavu-core fonts-wqy-microhei
  # the console's real-input tests (tests/app/tst_console_input*) move a real pointer and type
  # real keys on their own Xvfb display with it
  xdotool
  # Slurm 22.05 as the live executor and the single-host test cluster (tests/slurm): the daemons,
  # the clients (sbatch/squeue/scontrol) and munge; slurm-wlm-basic-plugins (pulled in) carries
  # job_submit/lua (with liblua5.1), topology/tree and jobcomp/filetxt. Installing starts nothing:
  # the tests run their own munged/slurmctld/slurmd inside the build dir.
  slurmctld slurmd slurm-client munge
  # the Debian packages (docs/packaging.md, the `deb` target and the tests labelled packaging):
  # help2man writes the man pages from --help, librsvg2-bin renders the icons, lintian,
  # desktop-file-utils and appstream check what is shipped, man-db (groff) renders the pages,
  # file checks the icons' sizes, iproute2 (ss) sees whether tesserad's ports are free
  help2man librsvg2-bin lintian desktop-file-utils appstream man-db file iproute2
  # the sanitizer and fuzzing stages of run-tests.sh (installer/run-sanitizers.sh, docs/testing.md):
  # clang 14 with its runtimes (ASan, UBSan, TSan, libFuzzer: libclang-rt-14-dev) and
  # llvm-symbolizer (package llvm) for file:line in the reports
  clang libclang-rt-14-dev llvm
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "tessera bootstrap: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "tessera bootstrap: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "tessera bootstrap: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
