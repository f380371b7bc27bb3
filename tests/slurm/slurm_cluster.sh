#!/usr/bin/env bash
# A private single-host Slurm 22.05 cluster for the tests: munged, slurmctld and three slurmd
# (node1..node3) with fake GPUs, all inside <dir>, on ports free at start time, never the system's.
#
#   slurm_cluster.sh start <dir>   start it (stopping a previous one in <dir> first); waits until the
#                                  nodes are idle, then prints the environment the tests need
#   slurm_cluster.sh stop <dir>    delete its reservations, cancel its jobs, stop exactly the
#                                  processes it started (pid files) and the job processes left behind
#
# node1, node2: 4 x h100 each, under switch s1; node3: 2 x a100 plus MIG-like a100_3g.40gb:2 and
# a100_1g.10gb:2 (gres.conf MultipleFiles=), under s2. With TESSERA_SLURM_EXACT_NODE=1 also node4
# under s2: 2 h100 as per-device types h100_g0, h100_g1 (the exact-GPU site mode, docs/slurm.md).
# With TESSERA_SLURM_SHARING=shard also node5 under s2: 2 h100 shared between jobs by time-slicing
# (gres/shard, 8 per GPU); with TESSERA_SLURM_SHARING=mps node5's 2 h100 run MPS instead
# (gres/mps, 100 per GPU). One kind per cluster: in Slurm 22.05, with both in GresTypes, every
# GPU gets zero-count shard records that gres/mps also reads, and MPS jobs are given
# CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=0 (seen on this cluster; docs/slurm.md). Needs root (mknod,
# SlurmUser=root) and the Debian packages slurmctld slurmd slurm-client munge
# (installer/bootstrap-debian12.sh).
# Recipe and gotchas: docs/slurm.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
gate="$here/../../installer/slurm/job_submit.lua"
# Every daemon gets this variable: stop finds slurmstepd processes (and so the jobs) by it.
marker_var=TESSERA_SLURM_FIXTURE
nodes=(node1 node2 node3)
[ "${TESSERA_SLURM_EXACT_NODE:-0}" = 1 ] && nodes+=(node4)
sharing=${TESSERA_SLURM_SHARING:-}
case $sharing in
  '') ;;
  shard | mps) nodes+=(node5) ;;
  *) echo "slurm_cluster: TESSERA_SLURM_SHARING must be shard or mps, not '$sharing'" >&2 && exit 1 ;;
esac

has_node() { [[ " ${nodes[*]} " == *" $1 "* ]]; }

die() {
  echo "slurm_cluster: $*" >&2
  exit 1
}

# ---- ports ----------------------------------------------------------------------------------

port_in_use() {
  local hex
  hex=$(printf ':%04X ' "$1")
  grep -q "$hex" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# Picks $1 distinct free ports below the kernel's ephemeral range (32768+), where outgoing
# connections would otherwise take them between our check and the daemon's bind.
free_ports() {
  local want=$1 picked=() p tries=0
  while [ ${#picked[@]} -lt "$want" ]; do
    tries=$((tries + 1))
    [ $tries -lt 1000 ] || die "no free TCP port found in 10000-31999"
    p=$((10000 + RANDOM % 22000))
    port_in_use "$p" && continue
    [[ " ${picked[*]-} " == *" $p "* ]] && continue
    picked+=("$p")
  done
  echo "${picked[@]}"
}

# ---- configuration --------------------------------------------------------------------------

make_devices() {
  local d=$1/dev i
  mkdir -p "$d/nvidia-caps"
  # Character devices (major 195 like the NVIDIA driver): with plain files slurmd still counts the
  # GPUs but leaves CUDA_VISIBLE_DEVICES empty.
  for i in 0 1 2 3; do [ -e "$d/nvidia$i" ] || mknod "$d/nvidia$i" c 195 "$i"; done
  for i in 21 30 39 48; do [ -e "$d/nvidia-caps/nvidia-cap$i" ] || mknod "$d/nvidia-caps/nvidia-cap$i" c 236 "$i"; done
}

write_slurm_conf() {
  local f=$1 ctld=$2 p1=$3 p2=$4 p3=$5 p4=$6 p5=$7
  local node="NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=64 RealMemory=512000 State=UNKNOWN"
  cat >"$f/etc/slurm.conf" <<EOF
# Written by tests/slurm/slurm_cluster.sh; overwritten at every start.
ClusterName=tessera-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$f/munge/munge.socket
StateSaveLocation=$f/state
SlurmdSpoolDir=$f/spool/%n
SlurmctldPidFile=$f/run/slurmctld.pid
SlurmdPidFile=$f/run/slurmd-%n.pid
SlurmctldLogFile=$f/log/slurmctld.log
SlurmdLogFile=$f/log/slurmd-%n.log
MailProg=/bin/true
# No cgroups: nothing left under /sys/fs/cgroup, runs in containers.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$f/log/jobcomp.txt
JobSubmitPlugins=lua
TopologyPlugin=topology/tree
MpiDefault=none
JobRequeue=1
PriorityType=priority/basic
SchedulerType=sched/backfill
# Quick tests: the periodic pass every 2 s (default 60) catches what no event triggers.
SchedulerParameters=sched_interval=2,bf_interval=1,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=2
MinJobAge=600
GresTypes=gpu${sharing:+,$sharing}
NodeName=node1 Port=$p1 Gres=gpu:h100:4 $node
NodeName=node2 Port=$p2 Gres=gpu:h100:4 $node
NodeName=node3 Port=$p3 Gres=gpu:a100:2,gpu:a100_3g.40gb:2,gpu:a100_1g.10gb:2 $node
EOF
  if has_node node4; then
    echo "NodeName=node4 Port=$p4 Gres=gpu:h100_g0:1,gpu:h100_g1:1 $node" >>"$f/etc/slurm.conf"
  fi
  if has_node node5; then
    # The node's total; gres.conf spreads it evenly over the GPUs.
    echo "NodeName=node5 Port=$p5 Gres=gpu:h100:2,$sharing:$(shared_count) $node" >>"$f/etc/slurm.conf"
  fi
  echo "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$f/etc/slurm.conf"
}

write_gres_conf() {
  local f=$1 d=$1/dev
  cat >"$f/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=node[1-2] Name=gpu Type=h100 File=$d/nvidia[0-3]
NodeName=node3 Name=gpu Type=a100 File=$d/nvidia[0-1]
# GPU 2 as two 3g.40gb instances, GPU 3 as two 1g.10gb (no NVML: MultipleFiles= models MIG).
NodeName=node3 Name=gpu Type=a100_3g.40gb MultipleFiles=$d/nvidia2,$d/nvidia-caps/nvidia-cap21
NodeName=node3 Name=gpu Type=a100_3g.40gb MultipleFiles=$d/nvidia2,$d/nvidia-caps/nvidia-cap30
NodeName=node3 Name=gpu Type=a100_1g.10gb MultipleFiles=$d/nvidia3,$d/nvidia-caps/nvidia-cap39
NodeName=node3 Name=gpu Type=a100_1g.10gb MultipleFiles=$d/nvidia3,$d/nvidia-caps/nvidia-cap48
EOF
  if has_node node4; then
    cat >>"$f/etc/gres.conf" <<EOF
# One type per device: a job asking for gpu:h100_g1:1 gets exactly device 1.
NodeName=node4 Name=gpu Type=h100_g0 File=$d/nvidia0
NodeName=node4 Name=gpu Type=h100_g1 File=$d/nvidia1
EOF
  fi
  if has_node node5; then
    cat >>"$f/etc/gres.conf" <<EOF
# Shared GPUs. The GPUs need File= (without NVML Slurm learns the devices only from it): the
# shared GRES's Count= is spread evenly over them, and its type is theirs.
NodeName=node5 Name=gpu Type=h100 File=$d/nvidia[0-1]
NodeName=node5 Name=$sharing Count=$(shared_count)
EOF
  fi
}

# node5's shared GRES for its 2 GPUs: 8 shards (time-sliced replicas) or 100 mps (Slurm's
# convention: a count of 100 per GPU, so mps:25 is 25 % of the GPU's threads) per GPU.
shared_count() {
  case $sharing in
    shard) echo 16 ;;
    mps) echo 200 ;;
  esac
}

leaf_s2_nodes() {
  local n under=(node3)
  for n in node4 node5; do has_node $n && under+=("$n"); done
  local IFS=,
  echo "${under[*]}"
}

write_topology_conf() {
  cat >"$1/etc/topology.conf" <<EOF
SwitchName=s1 Nodes=node[1-2]
SwitchName=s2 Nodes=$(leaf_s2_nodes)
SwitchName=top Switches=s[1-2]
EOF
}

# ---- processes ------------------------------------------------------------------------------

# True when pid $1 is alive and runs program $2 (pid files may be stale and the pid reused).
runs() {
  [ -r "/proc/$1/cmdline" ] || return 1
  local argv0
  argv0=$(tr '\0' '\n' <"/proc/$1/cmdline" | head -n 1)
  [ "$(basename -- "$argv0")" = "$2" ]
}

alive() {
  [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# TERM, then KILL after 5 s: a slurmd that never reached slurmctld ignores TERM.
kill_pids() {
  [ $# -gt 0 ] || return 0
  kill "$@" 2>/dev/null || true
  local i p left=("$@")
  for i in $(seq 1 50); do
    local still=()
    for p in "${left[@]}"; do alive "$p" && still+=("$p"); done
    left=("${still[@]+"${still[@]}"}")
    [ ${#left[@]} -eq 0 ] && return 0
    sleep 0.1
  done
  echo "slurm_cluster: SIGKILL ${left[*]}" >&2
  kill -9 "${left[@]}" 2>/dev/null || true
}

# The cluster's processes and all their descendants: daemons carry the marker in their
# environment; slurmstepd clears its environment but works in (or writes to) the cluster dir; job
# processes were submitted with this SLURM_CONF, so they carry it and a job id. One pass over
# /proc per kind: the set is small, the process table may not be.
fixture_process_tree() {
  local f=$1 roots=() p
  mapfile -t roots < <(
    grep -lzxF "$marker_var=$f" /proc/[0-9]*/environ 2>/dev/null
    grep -lzxF "SLURM_CONF=$f/etc/slurm.conf" /proc/[0-9]*/environ 2>/dev/null |
      xargs -r grep -lz '^SLURM_JOB_ID=' 2>/dev/null
  )
  roots=("${roots[@]//\/environ/}")
  roots=("${roots[@]#/proc/}")
  for p in $(pgrep -x slurmstepd); do
    if [[ "$(readlink "/proc/$p/cwd")/" == "$f/"* ]] || ls -l "/proc/$p/fd" 2>/dev/null | grep -qF -- "-> $f/"; then
      roots+=("$p")
    fi
  done
  [ ${#roots[@]} -gt 0 ] || return 0
  ps -e -o pid=,ppid= | awk -v roots="${roots[*]}" -v self=$$ '
    BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
    { parent[$1] = $2 }
    END {
      do { grew = 0; for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grew = 1 } } while (grew)
      for (p in keep) if (p != self && (p in parent)) print p
    }'
}

ctl() { SLURM_CONF="$1/etc/slurm.conf" timeout 10 "${@:2}"; }

controller_up() {
  [ -f "$1/run/slurmctld.pid" ] && runs "$(cat "$1/run/slurmctld.pid")" slurmctld
}

# Reservations survive slurmctld -c and jobs outlive slurmd: remove both while the controller runs.
clean_slurm_state() {
  local f=$1 r
  controller_up "$f" || return 0
  for r in $(ctl "$f" scontrol -o show reservation 2>/dev/null | grep -o 'ReservationName=[^ ]*' | cut -d= -f2); do
    ctl "$f" scontrol delete ReservationName="$r" || echo "slurm_cluster: could not delete reservation $r" >&2
  done
  local jobs
  jobs=$(ctl "$f" squeue -h -o %i 2>/dev/null || true)
  [ -n "$jobs" ] || return 0
  # shellcheck disable=SC2086  # job ids: one word each
  ctl "$f" scancel $jobs || true
  local i
  for i in $(seq 1 50); do
    [ -z "$(ctl "$f" squeue -h -t running,completing,suspended -o %i 2>/dev/null)" ] && return 0
    sleep 0.1
  done
}

stop_cluster() {
  local f=$1 pids=() pf p
  clean_slurm_state "$f"
  for pf in "$f"/run/slurmd-node*.pid "$f/run/slurmctld.pid"; do
    [ -f "$pf" ] || continue
    p=$(cat "$pf")
    case $pf in *slurmctld.pid) prog=slurmctld ;; *) prog=slurmd ;; esac
    runs "$p" "$prog" && pids+=("$p")
    rm -f "$pf"
  done
  kill_pids "${pids[@]+"${pids[@]}"}"
  # shellcheck disable=SC2046  # a list of pids
  kill_pids $(fixture_process_tree "$f")
  if [ -f "$f/munge/munged.pid" ]; then
    p=$(cat "$f/munge/munged.pid")
    runs "$p" munged && kill_pids "$p"
    rm -f "$f/munge/munged.pid"
  fi
}

start_munge() {
  local f=$1 m=$1/munge
  mkdir -p "$m"
  chmod 711 "$m" # clients need o+x to reach the socket
  [ ${#m} -lt 90 ] || die "cluster dir too long for a unix socket path: $m/munge.socket"
  [ -f "$m/munge.key" ] || mungekey --create --keyfile="$m/munge.key"
  env "$marker_var=$f" munged --force --socket="$m/munge.socket" --key-file="$m/munge.key" \
    --log-file="$m/munged.log" --pid-file="$m/munged.pid" --seed-file="$m/munged.seed" \
    --num-threads=4 || die "munged did not start, see $m/munged.log"
}

# Waits until sinfo lists every node idle. Clients block ~9 s when slurmctld is down, so each
# poll is bounded and the controller's pid is checked first.
wait_idle() {
  local f=$1 deadline=$((SECONDS + 30)) idle
  while [ $SECONDS -lt $deadline ]; do
    controller_up "$f" || die "slurmctld exited during start-up, see $f/log/slurmctld.log"
    idle=$(SLURM_CONF="$f/etc/slurm.conf" timeout 2 sinfo -h -N -o '%t' 2>/dev/null | grep -cx idle || true)
    [ "$idle" = ${#nodes[@]} ] && return 0
    sleep 0.1
  done
  die "nodes not idle after 30 s, see $f/log/slurmctld.log and $f/log/slurmd-node*.log"
}

start_cluster() {
  local f=$1
  [ "$(id -u)" = 0 ] || die "must run as root (mknod, SlurmUser=root)"
  [ -f "$gate" ] || die "missing gate plugin $gate"
  stop_cluster "$f"
  rm -rf "$f/state" "$f/spool" "$f/log" "$f/run" "$f/etc"
  mkdir -p "$f"/{etc,state,log,run,jobs}
  for n in "${nodes[@]}"; do mkdir -p "$f/spool/$n"; done
  make_devices "$f"
  read -r ctld p1 p2 p3 p4 p5 <<<"$(free_ports 6)"
  write_slurm_conf "$f" "$ctld" "$p1" "$p2" "$p3" "$p4" "$p5"
  write_gres_conf "$f"
  write_topology_conf "$f"
  cp "$gate" "$f/etc/job_submit.lua"
  start_munge "$f"
  local conf=$f/etc/slurm.conf
  # -c: clean state (no jobs from an earlier run); slurmctld and slurmd daemonize.
  (cd "$f/run" && env "$marker_var=$f" SLURM_CONF="$conf" slurmctld -c -f "$conf") ||
    die "slurmctld did not start, see $f/log/slurmctld.log"
  local n
  for n in "${nodes[@]}"; do
    (cd "$f/run" && env "$marker_var=$f" SLURM_CONF="$conf" slurmd -N "$n" -f "$conf") ||
      die "slurmd $n did not start, see $f/log/slurmd-$n.log"
  done
  if ! (wait_idle "$f"); then
    stop_cluster "$f"
    exit 1
  fi
  echo "SLURM_CONF=$conf" | tee "$f/env"
}

[ $# -eq 2 ] || die "usage: $0 start|stop <dir>"
dir=$(mkdir -p "$2" && cd "$2" && pwd)
case $1 in
  start) start_cluster "$dir" ;;
  stop) stop_cluster "$dir" ;;
  *) die "usage: $0 start|stop <dir>" ;;
esac
