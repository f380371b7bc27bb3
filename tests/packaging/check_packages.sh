#!/usr/bin/env bash
# The Debian packages' checks (docs/packaging.md), run by ctest (label packaging) on the .deb files
# the `deb` target wrote:
#   check_packages.sh lintian  PKGDIR          lintian: no error and no warning (overrides are in the packages)
#   check_packages.sh desktop  PKGDIR SRCDIR   desktop entry, AppStream metadata, icons, man pages as shipped
#   check_packages.sh units    PKGDIR          systemd-analyze verify and security (exposure <= 2.5)
#   check_packages.sh install  PKGDIR          root only: install, run, remove, purge (exit 77 = skipped)
set -euo pipefail
check=${1:?usage: check_packages.sh lintian|desktop|units|install PKGDIR [SRCDIR]}
pkgdir=$(realpath "${2:?}")
max_exposure=2.5

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
need() {
  command -v "$1" >/dev/null || fail "$1 is missing: installer/bootstrap-debian12.sh installs it ($2)"
}

debs=("$pkgdir"/tessera_*.deb "$pkgdir"/tesserad_*.deb "$pkgdir"/tessera-agent_*.deb)
for d in "${debs[@]}"; do [ -f "$d" ] || fail "no package $d (build them: cmake --build --preset release --target deb)"; done

work=$(mktemp -d)
cleanup_dirs() { rm -rf "$work"; }
trap cleanup_dirs EXIT

# The three packages unpacked into one tree, as they would lie on a machine.
unpack() {
  mkdir -p "$work/root"
  for d in "${debs[@]}"; do dpkg-deb -x "$d" "$work/root"; done
}

case $check in
lintian)
  need lintian lintian
  # --fail-on warning: a new warning fails until it is fixed or overridden with its reason
  # (docs/packaging.md lists the overrides and why).
  lintian --fail-on error,warning --no-tag-display-limit "${debs[@]}" || fail "lintian reported errors or warnings (above)"
  echo "lintian: no errors, no warnings in ${#debs[@]} packages"
  ;;

desktop)
  src=$(realpath "${3:?desktop needs SRCDIR}")
  need desktop-file-validate desktop-file-utils
  need appstreamcli appstream
  unpack
  r=$work/root
  id=io.github.tessera.Console
  desktop=$r/usr/share/applications/$id.desktop
  metainfo=$r/usr/share/metainfo/$id.metainfo.xml
  [ -f "$desktop" ] || fail "tessera ships no $id.desktop"
  [ -f "$metainfo" ] || fail "tessera ships no $id.metainfo.xml"
  desktop-file-validate "$desktop" || fail "desktop-file-validate: $desktop"
  appstreamcli validate --no-net "$metainfo" || fail "appstreamcli validate: $metainfo"
  # The entry starts a program the package has, with an icon the package has at every size.
  exec_cmd=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
  [ -x "$r/usr/bin/$exec_cmd" ] || fail "Exec=$exec_cmd is not in the package"
  icon=$(sed -n 's/^Icon=//p' "$desktop")
  for size in 16 22 24 32 48 64 128 256 512; do
    png=$r/usr/share/icons/hicolor/${size}x${size}/apps/$icon.png
    [ -f "$png" ] || fail "no ${size}x${size} icon $png"
    file "$png" | grep -q "PNG image data, $size x $size" || fail "$png is not a ${size}x${size} PNG"
  done
  [ -f "$r/usr/share/icons/hicolor/scalable/apps/$icon.svg" ] || fail "no scalable icon"
  grep -q "<launchable type=\"desktop-id\">$id.desktop</launchable>" "$metainfo" ||
    fail "the metainfo's launchable is not $id.desktop"
  # Every screenshot is one of the repository's own (docs/images), at its real size.
  n=0
  while read -r w h name; do
    [ -f "$src/docs/images/$name" ] || fail "screenshot $name is not in docs/images"
    file "$src/docs/images/$name" | grep -q "$w x $h" || fail "screenshot $name is not ${w}x$h"
    n=$((n + 1))
  done < <(sed -n 's|.*width="\([0-9]*\)" height="\([0-9]*\)">.*/images/\([^<]*\)</image>.*|\1 \2 \3|p' "$metainfo")
  [ "$n" -gt 0 ] || fail "the metainfo has no screenshots"
  # A man page for each program and each verb the shipped tessera lists, sub-verbs included.
  man=$r/usr/share/man/man1
  for page in tessera tesserad; do [ -f "$man/$page.1.gz" ] || fail "no man page $page(1)"; done
  verbs=$(QT_QPA_PLATFORM=offscreen "$r/usr/bin/tessera" --help |
    awk '/^Subcommands:/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {print $1}')
  [ -n "$verbs" ] || fail "the shipped tessera lists no verbs"
  for verb in $verbs; do
    [ -f "$man/tessera-$verb.1.gz" ] || fail "no man page tessera-$verb(1) for the verb $verb"
  done
  for sub in "ctl node admit" "ctl submit" "mig validate"; do
    zcat "$man/tessera-${sub%% *}.1.gz" | grep -q "tessera $sub" || fail "tessera-${sub%% *}(1) lacks 'tessera $sub'"
  done
  MANWIDTH=80 man -l "$man/tesserad.1.gz" 2>/dev/null | grep -q -- "--tokens" || fail "tesserad(1) lacks --tokens"
  # Pages that groff renders without warnings.
  for page in "$man"/*.1.gz; do
    warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null || true)
    [ -z "$warnings" ] || fail "$(basename "$page"): $warnings"
  done
  echo "desktop entry, metainfo ($n screenshots), 9 icon sizes and $(ls "$man" | wc -l) man pages OK"
  ;;

units)
  need systemd-analyze systemd
  unpack
  r=$work/root
  # systemd's own units beside the packaged ones, so that --root finds the targets they name.
  cp -an /lib/systemd/system/. "$r/lib/systemd/system/"
  for unit in tesserad.service tessera-agent.service; do
    [ -f "$r/lib/systemd/system/$unit" ] || fail "no $unit in the packages"
    # --root: ExecStart= must name a binary the packages install. The man: pages of
    # Documentation= are checked in the packaged tree, as man(1) would look only at the host's.
    systemd-analyze verify --man=no --root="$r" "$unit" || fail "systemd-analyze verify $unit"
    for doc in $(sed -n 's/^Documentation=//p' "$r/lib/systemd/system/$unit"); do
      case $doc in
      man:*) page=${doc#man:} && page=${page%(1)} &&
        { [ -f "$r/usr/share/man/man1/$page.1.gz" ] || fail "$unit: Documentation=$doc: no such page"; } ;;
      file://*) [ -f "$r${doc#file://}" ] || fail "$unit: Documentation=$doc: not in the packages" ;;
      esac
    done
    report=$(systemd-analyze security --offline=true --root="$r" --no-pager "$unit")
    exposure=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
    [ -n "$exposure" ] || fail "$unit: no exposure level in: $report"
    echo "$unit: exposure $exposure"
    if awk -v e="$exposure" -v m="$max_exposure" 'BEGIN {exit !(e > m)}'; then
      printf '%s\n' "$report" | grep -v '✓' >&2
      fail "$unit: exposure $exposure is above $max_exposure"
    fi
  done
  ;;

install)
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIPPED: installing packages needs root (CI runs as root); nothing was checked"
    exit 77
  fi
  need apt-get apt
  need setpriv util-linux
  # Never on a machine that has Tessera installed or its files: removing and purging would take them.
  for p in tessera tesserad tessera-agent; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv "not-installed"; then
      fail "package $p is already on this machine ($(dpkg-query -W -f='${Status}' "$p")): this test installs, removes and purges it; remove it first (apt-get purge $p)"
    fi
  done
  for path in /etc/tessera /var/lib/tessera; do
    [ ! -e "$path" ] || fail "$path exists: this test would purge it; move it away first"
  done
  if ss -ltnH 2>/dev/null | awk '{print $4}' | grep -qE '^127\.0\.0\.1:(50551|9464)$'; then
    fail "127.0.0.1:50551 or :9464 is in use: the packaged configuration listens there"
  fi

  pid=""
  apid=""
  installed=0
  cleanup() {
    [ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null || true
    [ -z "$apid" ] || kill -KILL "$apid" 2>/dev/null || true
    if [ "$installed" = 1 ]; then
      DEBIAN_FRONTEND=noninteractive dpkg --purge tessera-agent tesserad tessera >/dev/null 2>&1 || true
    fi
    cleanup_dirs
  }
  trap cleanup EXIT

  installed=1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${debs[@]}" ||
    fail "apt-get install of the packages"
  [ "$(tessera --version)" = "tessera 0.1.0" ] || fail "tessera --version: $(tessera --version)"
  tesserad --version | grep -q "tesserad 0.1.0" || fail "tesserad --version"
  echo "installed: $(tessera --version), $(tesserad --version)"

  # What the postinst made: the user, the state directory, the token files and their modes.
  getent passwd tessera >/dev/null || fail "no user tessera"
  getent passwd tessera-agent >/dev/null || fail "no user tessera-agent"
  [ "$(stat -c '%U:%G %a' /var/lib/tessera)" = "tessera:tessera 750" ] ||
    fail "/var/lib/tessera is $(stat -c '%U:%G %a' /var/lib/tessera)"
  [ "$(stat -c '%U:%G %a' /etc/tessera/tokens.yaml)" = "root:tessera 640" ] ||
    fail "/etc/tessera/tokens.yaml is $(stat -c '%U:%G %a' /etc/tessera/tokens.yaml)"
  [ "$(stat -c '%U:%G %a' /etc/tessera/admin.token)" = "root:root 600" ] ||
    fail "/etc/tessera/admin.token is $(stat -c '%U:%G %a' /etc/tessera/admin.token)"
  if setpriv --reuid=nobody --regid=nogroup --clear-groups cat /etc/tessera/tokens.yaml >/dev/null 2>&1; then
    fail "another user can read /etc/tessera/tokens.yaml"
  fi
  [ -L /etc/systemd/system/multi-user.target.wants/tesserad.service ] || fail "tesserad.service is not enabled"
  systemd-analyze verify --man=no /lib/systemd/system/tesserad.service /lib/systemd/system/tessera-agent.service ||
    fail "systemd-analyze verify of the installed units"

  # tessera ctl with no connection settings but its flags (no environment, no ~/.config file).
  ctl() {
    env -u TESSERA_SERVER -u TESSERA_TOKEN -u TESSERA_CA -u TESSERA_CTL_CONFIG HOME="$work" tessera ctl "$@"
  }

  # A node's agent token, as an operator adds one: the hash into tokens.yaml, the secret for the
  # agent's user only.
  new=$(tesserad token --name test-node --role agent)
  printf '%s\n' "$new" | grep '^  - {name: test-node' >>/etc/tessera/tokens.yaml
  printf '%s\n' "$new" | sed -n 's/^token .*: //p' |
    install -m 0640 -g tessera-agent /dev/stdin /etc/tessera/agent.token

  # tesserad as the unit starts it: its ExecStart= command line, as its User= and Group=.
  unit=/lib/systemd/system/tesserad.service
  read -r -a cmd <<<"$(sed -n 's/^ExecStart=//p' "$unit")"
  user=$(sed -n 's/^User=//p' "$unit")
  group=$(sed -n 's/^Group=//p' "$unit")
  echo "starting as $user:$group: ${cmd[*]}"
  (cd / && umask 0027 && exec setpriv --reuid="$user" --regid="$group" --init-groups -- "${cmd[@]}") \
    >"$work/tesserad.log" 2>&1 &
  pid=$!
  ok=0
  for _ in $(seq 1 120); do
    if out=$(ctl --token-file /etc/tessera/admin.token --timeout 2 health 2>&1); then
      ok=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || { cat "$work/tesserad.log" >&2; fail "tesserad exited: $out"; }
    sleep 0.5
  done
  [ "$ok" = 1 ] || { cat "$work/tesserad.log" >&2; fail "tesserad did not answer health: $out"; }
  echo "health: $out"
  printf '%s\n' "$out" | grep -q SERVING || fail "health answered: $out"
  whoami=$(ctl --token-file /etc/tessera/admin.token whoami)
  printf '%s\n' "$whoami" | grep -q admin || fail "whoami with the packaged admin token: $whoami"
  code=0
  anon=$(ctl --timeout 5 whoami 2>&1) || code=$?
  [ "$code" = 4 ] && printf '%s\n' "$anon" | grep -qi unauthenticated ||
    fail "a call without a token should be refused as unauthenticated (exit 4): exit $code, $anon"

  # The agent as its unit starts it (Environment=, ExecStart=, User=, Group=): it reads its token
  # as tessera-agent and runs (no GPU here: it logs that it cannot probe) until SIGTERM.
  aunit=/lib/systemd/system/tessera-agent.service
  read -r -a acmd <<<"$(sed -n 's/^ExecStart=//p' "$aunit")"
  aenv=$(sed -n 's/^Environment=//p' "$aunit")
  auser=$(sed -n 's/^User=//p' "$aunit")
  agroup=$(sed -n 's/^Group=//p' "$aunit")
  (cd / && umask 0077 && exec env "$aenv" setpriv --reuid="$auser" --regid="$agroup" --init-groups -- "${acmd[@]}") \
    >"$work/agent.log" 2>&1 &
  apid=$!
  for _ in $(seq 1 40); do
    grep -q "server ${aenv#TESSERA_SERVER=}" "$work/agent.log" && break
    kill -0 "$apid" 2>/dev/null || break
    sleep 0.25
  done
  sleep 1
  kill -0 "$apid" 2>/dev/null || { cat "$work/agent.log" >&2; fail "the agent exited as $auser"; }
  grep -q "server ${aenv#TESSERA_SERVER=}" "$work/agent.log" || { cat "$work/agent.log" >&2; fail "the agent did not start"; }
  kill -TERM "$apid"
  code=0
  wait "$apid" || code=$?
  apid=""
  [ "$code" = 0 ] || { cat "$work/agent.log" >&2; fail "the agent exited $code after SIGTERM"; }
  echo "the agent ran as $auser with its token and stopped cleanly on SIGTERM"

  kill -TERM "$pid"
  code=0
  wait "$pid" || code=$?
  pid=""
  [ "$code" = 0 ] || { cat "$work/tesserad.log" >&2; fail "tesserad exited $code after SIGTERM"; }
  [ "$(stat -c %U /var/lib/tessera/tesserad.db)" = tessera ] || fail "no database owned by tessera"
  echo "tesserad served health as $user and stopped cleanly on SIGTERM"

  # remove: programs gone, configuration and database kept.
  DEBIAN_FRONTEND=noninteractive dpkg --remove tessera-agent tesserad tessera || fail "dpkg --remove"
  [ ! -e /usr/bin/tesserad ] || fail "/usr/bin/tesserad is still there after remove"
  [ -f /var/lib/tessera/tesserad.db ] || fail "remove deleted the database"
  [ -f /etc/tessera/tesserad.yaml ] || fail "remove deleted the configuration"
  echo "removed: database and configuration kept"

  # purge: configuration, tokens and state gone, and the unit's links.
  # tessera has no conffiles: remove took all of it, dpkg says so (a warning) and purges the others.
  DEBIAN_FRONTEND=noninteractive dpkg --purge tessera-agent tesserad tessera || fail "dpkg --purge"
  installed=0
  for p in tessera tesserad tessera-agent; do
    if dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qv '^not-installed$'; then
      fail "$p is still known to dpkg after purge: $(dpkg-query -W -f='${Status}' "$p")"
    fi
  done
  [ ! -e /etc/tessera ] || fail "/etc/tessera is still there after purge: $(ls -A /etc/tessera)"
  [ ! -e /var/lib/tessera ] || fail "/var/lib/tessera is still there after purge"
  [ ! -e /etc/systemd/system/multi-user.target.wants/tesserad.service ] || fail "the unit is still enabled after purge"
  echo "purged: /etc/tessera and /var/lib/tessera gone"
  ;;

*)
  fail "unknown check '$check'"
  ;;
esac
