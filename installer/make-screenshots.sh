#!/usr/bin/env bash
# Regenerates the console screenshots in docs/images from the real application, headless
# (offscreen platform), on the embedded demo: the default layout on a 1366×768, 1920×1080 and
# 2560×1440 screen, on a 2560×1440 screen at scale 2 (HiDPI), and in German and Chinese.
# Run after a build with the release preset.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/app/tessera
[ -x "$bin" ] || { echo "make-screenshots: build first (cmake --build --preset release)" >&2; exit 2; }
mkdir -p docs/images
# DejaVu for Latin text, WenQuanYi Micro Hei (fonts-wqy-microhei) for the Chinese screenshot.
export QT_QPA_FONTDIR=/usr/share/fonts/truetype
# A private settings directory: the developer's own window layout stays out of the pictures.
export XDG_CONFIG_HOME
XDG_CONFIG_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT

# shot WIDTHxHEIGHT SCALE OUT [VAR=value...]: the console opened on a screen of that many
# pixels (the offscreen platform's screen, described in a config file) at QT_SCALE_FACTOR SCALE.
shot() {
  local size=$1 scale=$2 out=$3
  shift 3
  local screen=$XDG_CONFIG_HOME/screen-$size.json
  printf '{"screens":[{"name":"screen","x":0,"y":0,"width":%d,"height":%d,"logicalDpi":96}]}\n' \
    "${size%x*}" "${size#*x}" >"$screen"
  env QT_QPA_PLATFORM="offscreen:configfile=$screen" QT_SCALE_FACTOR="$scale" "$@" \
    "$bin" --screenshot "$out"
}

shot 1920x1080 1 docs/images/console.png
shot 1366x768 1 docs/images/console-1366x768.png
shot 2560x1440 1 docs/images/console-2560x1440.png
shot 2560x1440 2 docs/images/console-2560x1440-scale2.png
shot 1920x1080 1 docs/images/console-de.png TESSERA_LANG=de
shot 1920x1080 1 docs/images/console-zh_CN.png TESSERA_LANG=zh_CN
