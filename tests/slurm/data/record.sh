#!/usr/bin/env bash
# Records the Slurm output the parser tests read (README.md beside this file): starts the test
# cluster in <scratch dir>, puts jobs into every state the parsers map, waits for the time-limit
# job to time out (about 90 s: Slurm's minimum limit is one minute, checked every 30 s), then
# captures squeue/sinfo JSON and scontrol text into this directory. Run as root.
#   tests/slurm/data/record.sh <scratch dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
F=${1:?usage: record.sh <scratch dir>}
bash "$here/../slurm_cluster.sh" start "$F" >/dev/null
trap 'bash "$here/../slurm_cluster.sh" stop "$F"' EXIT
export SLURM_CONF=$F/etc/slurm.conf
cd "$F/jobs"

squeue --json >"$here/squeue-empty.json"
sub() { sbatch --parsable "$@"; }
tag() { echo "--comment=tessera:$1"; }

# shellcheck source=record_lib.sh
. "$here/record_lib.sh"

timeout_job=$(sub "$(tag rec-timeout)" -J timeout -t 1 -w node3 --gres=gpu:a100:1 --wrap 'sleep 600')
running=$(sub "$(tag rec-running)" -J train-a -t 30 -w node2 --gres=gpu:h100:2 --wrap 'sleep 600')
gang=$(sub "$(tag rec-gang)" -J gang -t 30 -N 2 -w node1,node2 --gres=gpu:h100:1 \
  --wrap 'srun sleep 600')
mig=$(sub "$(tag rec-mig)" -J mig -t 5 --gres=gpu:a100_3g.40gb:1 --wrap 'sleep 3')
done_ok=$(sub "$(tag rec-done)" -J ok -t 5 --wrap 'true')
failed=$(sub "$(tag rec-exit3)" -J exit3 -t 5 --wrap 'exit 3')
killed=$(sub "$(tag rec-sig9)" -J sig9 -t 5 --wrap 'kill -KILL $$')
begin=$(sub "$(tag rec-begin)" -J later -t 5 --begin=now+1hour --wrap 'true')
held=$(sub -J plain -t 5 --gres=gpu:2 --wrap 'true' 2>/dev/null) # the gate holds it
cancelled=$(sub "$(tag rec-cancel)" -J cancel -t 5 --hold --wrap 'true')
scancel "$cancelled"
badc=$(sub "$(tag 'rec-bad=constraints x')" -J badc -t 5 --hold --gres=gpu:h100:8 --wrap 'true')
scontrol update JobId="$badc" ReqNodeList=node1 NumNodes=1
scontrol release "$badc"
requeued=$(sub "$(tag rec-requeue)" -J requeue -t 30 -w node1 --gres=gpu:h100:1 --wrap 'sleep 600')
wait_state "$requeued" RUNNING
scontrol requeuehold "$requeued"
wait_state "$running" RUNNING
wait_state "$gang" RUNNING

echo "waiting for job $timeout_job to time out (up to 100 s)"
for i in $(seq 1 200); do
  [ "$(squeue -h -t all -j "$timeout_job" -o %T)" = TIMEOUT ] && break
  sleep 0.5
done
wait_state "$timeout_job" TIMEOUT
wait_state "$mig" COMPLETED
scontrol update NodeName=node3 State=DRAIN Reason="psu swap [ticket=42] by ops"
scontrol create reservation ReservationName=rec_maint StartTime=now+1hour Duration=30 Nodes=node1 \
  Users=root Flags=IGNORE_JOBS >/dev/null
sleep 1

squeue --json -t all >"$here/squeue-all.json"
squeue --json >"$here/squeue-active.json"
# The executor's light listing between full polls (backend/slurm/squeue_text.h).
squeue --noheader --array --states=all \
  --Format='JobID:|,State:|,Reason:|,PriorityLong:|,NodeList:' >"$here/squeue-glance.txt"
sinfo --json >"$here/sinfo.json"
scontrol show job -o >"$here/show-job.txt"
scontrol show node -o >"$here/show-node.txt"
scontrol show config >"$here/show-config.txt"
scontrol show topology >"$here/show-topology.txt"
scontrol show reservation -o >"$here/show-reservation.txt"
sinfo -R >"$here/sinfo-R.txt"
scontrol delete ReservationName=rec_maint
{
  echo "slurm_version=$(sinfo -V)"
  echo "recorded=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for v in timeout_job running gang mig done_ok failed killed begin held cancelled badc requeued; do
    echo "$v=${!v}"
  done
} >"$here/jobs.txt"
echo "recorded into $here"
