#!/usr/bin/env bash
# Regenerates the console screenshots in docs/images from the real application, headless
# (offscreen platform), on the embedded demo. Run after a build with the release preset.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/app/tessera
[ -x "$bin" ] || { echo "make-screenshots: build first (cmake --build --preset release)" >&2; exit 2; }
mkdir -p docs/images
# DejaVu for Latin text, WenQuanYi Micro Hei (fonts-wqy-microhei) for the Chinese screenshot.
export QT_QPA_PLATFORM=offscreen QT_QPA_FONTDIR=/usr/share/fonts/truetype
# A private settings directory: the developer's own window layout stays out of the pictures.
export XDG_CONFIG_HOME
XDG_CONFIG_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
"$bin" --screenshot docs/images/console.png
TESSERA_LANG=de "$bin" --screenshot docs/images/console-de.png
TESSERA_LANG=zh_CN "$bin" --screenshot docs/images/console-zh_CN.png
