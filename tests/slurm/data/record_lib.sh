# What record.sh and record-mps.sh share (sourced, with SLURM_CONF set).

wait_state() { # <job> <state>: polls for up to 20 s
  local i
  for i in $(seq 1 200); do
    [ "$(squeue -h -t all -j "$1" -o %T)" = "$2" ] && return 0
    sleep 0.1
  done
  echo "job $1 never reached $2" >&2
  return 1
}
