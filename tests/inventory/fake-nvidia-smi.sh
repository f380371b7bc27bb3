#!/bin/bash
# A fake `nvidia-smi` for the MIG-apply tests: appends its argv to $FAKE_SMI_LOG (one line per
# call), answers `mig -dci/-dgi/-cgi/-cci` as the real one does (gpu-hardware.md, "Create and
# destroy commands": its success and failure lines) and edits the fake NVML's fixture
# ($TESSERA_FAKE_NVML, one file) so that NVML reads the new layout back. Like the driver it
# refuses to destroy a GPU instance that still has compute instances, to create one over slices
# another occupies, and -dci on a GPU instance without compute instances.
# $FAKE_SMI_FAIL=-cgi (or another operation) makes that operation fail as "In use by another
# client" would.
set -u
log=${FAKE_SMI_LOG:?}
fixture=${TESSERA_FAKE_NVML:?}
printf '%s\n' "$*" >>"$log"
if [ "${1:-}" != mig ]; then
  echo "fake nvidia-smi: only 'mig' is served" >&2
  exit 2
fi
shift
gpu=0 gi= op= arg= with_ci=0
while [ $# -gt 0 ]; do
  case $1 in
    -i) gpu=$2; shift 2 ;;
    -gi) gi=$2; shift 2 ;;
    -dci | -dgi) op=$1; shift ;;
    -cgi | -cci) op=$1; arg=$2; shift 2 ;;
    -C) with_ci=1; shift ;;
    *) echo "fake nvidia-smi: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ "$op" = "${FAKE_SMI_FAIL:-}" ]; then
  case $op in
    -cgi) echo "Unable to create a GPU instance on GPU  $gpu using profile ${arg%%:*}: In use by another client" ;;
    *) echo "Unable to destroy GPU instance ID  $gi from GPU  $gpu: In use by another client" ;;
  esac
  exit 1
fi

# CI profile id by compute slices (gpu-hardware.md 1.6).
ci_profile() {
  case $1 in 1) echo 0 ;; 2) echo 1 ;; 3) echo 2 ;; 4) echo 3 ;; 7) echo 4 ;; 8) echo 5 ;; 6) echo 6 ;; esac
}
# A field of the fixture's profile line for profile id $1 of GPU $gpu: slices, or the placement
# size.
profile_field() {
  awk -v g="$gpu" -v p="$1" -v want="$2" '
    $1 == "gpu" { cur = $2 }
    $1 == "profile" && cur == g && $4 == p {
      if (want == "slices") { print $6; exit }
      for (i = 1; i <= NF; ++i) if ($i == "placements") { split($(i + 1), a, ":"); print a[2]; exit }
    }' "$fixture"
}
edit() {  # keeps the lines for which the awk condition $1 is false
  awk -v g="$gpu" -v id="$gi" "!($1)" "$fixture" >"$fixture.new" && mv "$fixture.new" "$fixture"
}
next_migdev() { awk -v g="$gpu" '$1 == "migdev" && $2 == g { n++ } END { print n + 0 }' "$fixture"; }

case $op in
  -dci)
    cis=$(awk -v g="$gpu" -v id="$gi" '$1 == "ci" && $2 == g && $4 == id { print $6 }' "$fixture")
    if [ -z "$cis" ]; then
      echo "No compute instances found on GPU instance ID  $gi of GPU  $gpu"
      exit 6
    fi
    edit '($1 == "ci" && $2 == g && $4 == id) || ($1 == "migdev" && $2 == g && $8 == id)'
    for c in $cis; do
      echo "Successfully destroyed compute instance ID  $c from GPU  $gpu GPU instance ID  $gi"
    done
    ;;
  -dgi)
    if awk -v g="$gpu" -v id="$gi" '$1 == "ci" && $2 == g && $4 == id { f = 1 } END { exit !f }' "$fixture"; then
      echo "Unable to destroy GPU instance ID  $gi from GPU  $gpu: In use by another client"
      exit 1
    fi
    if ! awk -v g="$gpu" -v id="$gi" '$1 == "gi" && $2 == g && $4 == id { f = 1 } END { exit !f }' "$fixture"; then
      echo "Failed to destroy GPU instance ID  $gi from GPU  $gpu: Not Found"
      exit 6
    fi
    edit '$1 == "gi" && $2 == g && $4 == id'
    echo "Successfully destroyed GPU instance ID  $gi from GPU  $gpu"
    ;;
  -cgi)
    profile=${arg%%:*} start=${arg#*:}
    size=$(profile_field "$profile" size) slices=$(profile_field "$profile" slices)
    if [ -z "$size" ]; then
      echo "Unable to create a GPU instance on GPU  $gpu using profile $profile: Invalid Argument"
      exit 2
    fi
    overlap=$(awk -v g="$gpu" -v s="$start" -v n="$size" '
      $1 == "gi" && $2 == g { split($8, a, ":"); if (a[1] < s + n && s < a[1] + a[2]) print $4 }' "$fixture")
    if [ -n "$overlap" ]; then
      echo "Unable to create a GPU instance on GPU  $gpu using profile $profile: Insufficient Resources"
      exit 1
    fi
    # The id the driver appears to give each placement (gpu-hardware.md 1.5, observed), else the
    # next free one.
    case $size in 8) gi=0 ;; 4) gi=$((start == 4 ? 1 : 2)) ;; 2) gi=$((3 + start / 2)) ;; 1) gi=$((7 + start)) ;; *) gi= ;; esac
    if [ -z "$gi" ] || awk -v g="$gpu" -v id="$gi" '$1 == "gi" && $2 == g && $4 == id { f = 1 } END { exit !f }' "$fixture"; then
      gi=$(awk -v g="$gpu" '$1 == "gi" && $2 == g && $4 > m { m = $4 } END { print m + 1 }' "$fixture")
    fi
    echo "gi $gpu id $gi profile $profile placement $start:$size" >>"$fixture"
    echo "Successfully created GPU instance ID  $gi on GPU  $gpu using profile MIG ${slices}g (ID  $profile)"
    if [ "$with_ci" = 1 ]; then
      ci=$(ci_profile "$slices")
      echo "ci $gpu gi $gi id 0 profile $ci placement 0:$slices" >>"$fixture"
      echo "migdev $gpu index $(next_migdev) uuid MIG-$gpu-$gi-0 gi $gi ci 0" >>"$fixture"
      echo "Successfully created compute instance ID  0 on GPU  $gpu GPU instance ID  $gi using profile MIG ${slices}g (ID  $ci)"
    fi
    ;;
  -cci)
    start=0 id=0
    for ci in ${arg//,/ }; do
      case $ci in 0) n=1 ;; 1) n=2 ;; 2) n=3 ;; 3) n=4 ;; 4) n=7 ;; 5) n=8 ;; 6) n=6 ;; esac
      echo "ci $gpu gi $gi id $id profile $ci placement $start:$n" >>"$fixture"
      echo "migdev $gpu index $(next_migdev) uuid MIG-$gpu-$gi-$id gi $gi ci $id" >>"$fixture"
      echo "Successfully created compute instance ID  $id on GPU  $gpu GPU instance ID  $gi using profile MIG ${n}c (ID  $ci)"
      start=$((start + n)) id=$((id + 1))
    done
    ;;
  *)
    echo "fake nvidia-smi: nothing to do" >&2
    exit 2
    ;;
esac
