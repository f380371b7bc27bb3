#!/usr/bin/env bash
# Writes the man pages of tessera, tesserad and every verb of tessera, generated from the
# programs' own --help (CLI11 renders it from the option and subcommand definitions in app/), so a
# page cannot drift from the binary it documents. help2man turns each top-level help into a page;
# the sub-verbs of a verb (tessera ctl submit, tessera ctl node admit, ...) are found by walking
# the "Subcommands:" lists and appended to the verb's page with their full help.
#
# Usage: make-manpages.sh TESSERA TESSERAD VERSION OUTDIR
# Writes OUTDIR/tessera/*.1.gz (tessera.1 and tessera-VERB.1 for each verb) and
# OUTDIR/tesserad/tesserad.1.gz. SOURCE_DATE_EPOCH (default: the release date) fixes the date
# printed in the pages, so that two runs give identical files (gzip -n keeps no timestamp).
set -euo pipefail
tessera=$(realpath "${1:?usage: make-manpages.sh TESSERA TESSERAD VERSION OUTDIR}")
tesserad=$(realpath "${2:?}")
version=${3:?}
out=${4:?}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1795737600} # 2026-11-27
command -v help2man >/dev/null || {
  echo "make-manpages.sh: help2man is missing (installer/bootstrap-debian12.sh installs it)" >&2
  exit 1
}
# Without a display the console would not start anyway; --help never opens it, but keep Qt quiet.
export QT_QPA_PLATFORM=offscreen

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$out/tessera" "$out/tesserad"
mkdir -p "$out/tessera" "$out/tesserad" "$work/help"

# The names listed under "Subcommands:" in a CLI11 help text (two-space indent, then the name).
subcommands() {
  awk '/^Subcommands:/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {print $1}'
}

# Help text as preformatted roff: backslashes escaped, a leading . or ' neutralised.
as_roff() {
  printf '.nf\n'
  sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
  printf '.fi\n'
}

# `tessera ARGS... --help`, run once per verb path (each start maps the whole binary).
help_of() {
  local file="$work/help/${*// /_}.txt"
  [ -f "$file" ] || "$tessera" "$@" --help >"$file"
  cat "$file"
}

# Appends ".SS tessera VERB SUB..." with the help of every sub-verb below "$@", depth first.
walk() {
  local sub
  for sub in $(help_of "$@" | subcommands); do
    printf '.SS "tessera %s"\n' "$* $sub"
    help_of "$@" "$sub" | as_roff
    walk "$@" "$sub"
  done
}

see_also() {
  printf '[SEE ALSO]\n'
  printf '%s\n' "$1"
  printf '.PP\nThe full documentation (docs/*.md of the source tree) is installed under\n'
  printf '.IR /usr/share/doc/tessera ,\n.IR /usr/share/doc/tesserad " and"\n'
  printf '.IR /usr/share/doc/tessera\\-agent .\n'
}

# A program named after the page (help2man takes NAME from it) that answers --help with the verb's
# help, as `tessera VERB --help` printed it.
wrapper() {
  local name=$1 verb=$2
  help_of "$verb" >/dev/null
  cat >"$work/$name" <<EOF
#!/bin/sh
if [ "\$1" = --version ]; then echo "$name $version"; exit 0; fi
exec cat "$work/help/$verb.txt"
EOF
  chmod +x "$work/$name"
}

verbs=$(help_of | subcommands)
[ -n "$verbs" ] || {
  echo "make-manpages.sh: '$tessera --help' lists no verbs" >&2
  exit 1
}

# tessera(1): the console and the list of verbs.
{
  see_also "$(for v in $verbs; do printf '.BR tessera\\-%s (1),\n' "$v"; done).BR tesserad (1)"
} >"$work/tessera.h2m"
help2man --no-info --no-discard-stderr --version-string="$version" \
  --name="GPU cluster operations console and command line" \
  --include="$work/tessera.h2m" --output="$out/tessera/tessera.1" "$tessera"

# tessera-VERB(1) for each verb, with its sub-verbs.
for verb in $verbs; do
  name="tessera-$verb"
  wrapper "$name" "$verb"
  summary=$(help_of "$verb" | head -n1)
  {
    subs=$(walk "$verb")
    if [ -n "$subs" ]; then
      printf '[COMMANDS]\nEach sub-verb with its own options (also: tessera %s SUB --help).\n' "$verb"
      printf '%s\n' "$subs"
    fi
    see_also ".BR tessera (1)"
  } >"$work/$name.h2m"
  # The NAME line wants a short phrase: the summary up to its first colon or parenthesis.
  short=${summary%%[:(]*}
  help2man --no-info --no-discard-stderr --version-string="$version" --name="$short" \
    --include="$work/$name.h2m" --output="$out/tessera/$name.1" "$work/$name"
done

# tesserad(1), with its token sub-verb.
{
  printf '[COMMANDS]\n.SS "tesserad token"\n'
  "$tesserad" token --help | as_roff
  printf '[FILES]\n'
  printf '.TP\n.I /etc/tessera/tesserad.yaml\nconfiguration (the packaged unit reads it)\n'
  printf '.TP\n.I /etc/tessera/tokens.yaml\ntoken file: names, roles and token hashes\n'
  printf '.TP\n.I /var/lib/tessera/tesserad.db\nthe SQLite database\n'
  see_also ".BR tessera (1),\n.BR tessera\\-ctl (1)"
} >"$work/tesserad.h2m"
help2man --no-info --no-discard-stderr --version-string="$version" \
  --name="Tessera's headless GPU scheduler backend" \
  --include="$work/tesserad.h2m" --output="$out/tesserad/tesserad.1" "$tesserad"

gzip -9nf "$out"/tessera/*.1 "$out"/tesserad/*.1
echo "man pages: $(ls "$out/tessera" | wc -l) for tessera, $(ls "$out/tesserad" | wc -l) for tesserad"
