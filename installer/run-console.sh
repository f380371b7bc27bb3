#!/usr/bin/env bash
# Installs dependencies, builds (release preset) and opens the Tessera console on the embedded
# demo cluster. Extra arguments go to `tessera` (e.g. `--cluster FILE`, or a verb such as
# `cluster show`). Without a display it prints the demo cluster summary instead of a window.
set -euo pipefail
cd "$(dirname "$0")/.."
./installer/bootstrap-debian12.sh
cmake --preset release >/dev/null
cmake --build --preset release
exec ./build/release/app/tessera "$@"
