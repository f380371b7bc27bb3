#!/usr/bin/env bash
# Installs dependencies, builds (release preset) and runs the whole test suite headless.
set -euo pipefail
cd "$(dirname "$0")/.."
./installer/bootstrap-debian12.sh
cmake --preset release >/dev/null
cmake --build --preset release
export QT_QPA_PLATFORM=offscreen
ctest --preset release --parallel "$(nproc)"
