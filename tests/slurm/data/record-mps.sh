#!/usr/bin/env bash
# Records what gres/mps's default, one_sharing, does to a share released onto a node's idle GPU
# (README.md beside this file): starts the test cluster with node5's two H100 running MPS
# (TESSERA_SLURM_SHARING=mps) in <scratch dir>, runs mps:60 and mps:30 on node5 (both on GPU 0),
# then submits an mps:25 held as tesserad does, pins it to node5 and releases it: Slurm leaves it
# PENDING (Resources) although GPU 1 is idle. Its tag is tessera:db.7, the job tst_slurm_driver
# drives. Captures squeue --json and sinfo --json. Run as root.
#   tests/slurm/data/record-mps.sh <scratch dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
F=${1:?usage: record-mps.sh <scratch dir>}
export TESSERA_SLURM_SHARING=mps
bash "$here/../slurm_cluster.sh" start "$F" >/dev/null
trap 'bash "$here/../slurm_cluster.sh" stop "$F"' EXIT
export SLURM_CONF=$F/etc/slurm.conf
cd "$F/jobs"

# shellcheck source=record_lib.sh
. "$here/record_lib.sh"

sub() { sbatch --parsable -t 10 "$@" --wrap 'sleep 600'; }
sixty=$(sub --comment=tessera:rec.60 -w node5 --gres=mps:h100:60)
thirty=$(sub --comment=tessera:rec.30 -w node5 --gres=mps:h100:30)
wait_state "$sixty" RUNNING
wait_state "$thirty" RUNNING
quarter=$(sub --comment=tessera:db.7 --hold --gres=mps:h100:25)
scontrol update JobId="$quarter" ReqNodeList=node5 NumNodes=1
scontrol release "$quarter"
scontrol update JobId="$quarter" Priority=1000000
sleep 5 # a scheduling pass has looked at it: Reason=Resources

squeue --json >"$here/squeue-mps-one-sharing.json"
sinfo --json >"$here/sinfo-mps.json"
{
  echo "slurm_version=$(sinfo -V)"
  echo "recorded=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for v in sixty thirty quarter; do echo "$v=${!v}"; done
} >"$here/jobs-mps.txt"
