#!/usr/bin/env bash
# A one-node Slurm cluster on localhost, for the Slurm backend's tests.
#   bash scripts/slurm-localhost.sh start|stop|status DIR
# Needs root and the Debian packages slurm-wlm and munge; installs nothing.
# Config, state, logs and pid files live under DIR. `start` is idempotent
# (a changed config restarts the daemons) and prints the line that client
# commands (sbatch, squeue, scontrol, scancel) need:
#   export SLURM_CONF=DIR/slurm.conf
# `stop` cancels the cluster's jobs and stops the daemons it started.
#
# The cluster: node `hostname -s` at 127.0.0.1 in partition `debug`, with
# RLXP_SLURM_CPUS CPUs (default 8, whatever the machine has, so that
# parallel tests do not queue behind each other) and two fake GPUs:
# `--gres=gpu:N` (N <= 2) is accepted and the job sees SLURM_JOB_GPUS and
# CUDA_VISIBLE_DEVICES, with /dev/null behind them. Time limits: slurmctld
# checks them every 30 s, so a job dies 0-30 s after its limit (SIGTERM,
# then SIGKILL 2 s later). Finished jobs stay in `scontrol show job` and
# `squeue -t all` for 10 minutes. Slurm's ports are RLXP_SLURM_PORT (default
# 6817) and the next one; two clusters on one machine need different ones.
set -euo pipefail

usage() { echo "usage: $0 start|stop|status DIR" >&2; exit 2; }
(($# == 2)) || usage
cmd=$1
[[ $cmd == start || $cmd == stop || $cmd == status ]] || usage
[[ $cmd == start ]] && mkdir -p "$2"
if [[ ! -d $2 ]]; then
  [[ $cmd == stop ]] && exit 0
  echo "slurm-localhost: no cluster in $2" >&2
  exit 3
fi
dir=$(cd "$2" && pwd)
conf=$dir/slurm.conf
node=$(hostname -s)
export SLURM_CONF=$conf

die() { echo "slurm-localhost: $*" >&2; exit 1; }
alive() { [[ -s $1 ]] && kill -0 "$(<"$1")" 2>/dev/null; }
munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

write_conf() {
  local cpus=${RLXP_SLURM_CPUS:-8} port=${RLXP_SLURM_PORT:-6817} mem
  # Slurm drains a node that has less memory than configured; leave slack.
  mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
  mkdir -p "$dir"/{state,spool,log,run,dev}
  # gres.conf wants a device file per GPU (Slurm takes the index from the
  # name's number and ignores plain files); /dev/null stands in for both.
  ln -sfn /dev/null "$dir/dev/nvidia0"
  ln -sfn /dev/null "$dir/dev/nvidia1"
  cat >"$dir/gres.conf.new" <<EOF
AutoDetect=off
Name=gpu File=$dir/dev/nvidia[0-1]
EOF
  cat >"$conf.new" <<EOF
# Written by scripts/slurm-localhost.sh; rewritten on each start.
ClusterName=local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CryptoType=crypto/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
# No cgroups: works in containers and on cgroup v1 or v2 alike.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
SchedulerType=sched/backfill
# Start a submitted job within about a second (by default the main
# scheduler waits up to 3 s for batch jobs and backfill runs every 30 s).
SchedulerParameters=batch_sched_delay=0,bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Accept the configured CPUs even where the machine has fewer.
SlurmdParameters=config_overrides
# Kill at the time limit with a 2 s grace after SIGTERM, and keep finished
# jobs visible for 10 minutes.
OverTimeLimit=0
KillWait=2
MinJobAge=600
InactiveLimit=0
GresTypes=gpu
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
  munge_ok && return
  # The Debian package creates a key; make one where it did not.
  if [[ ! -s /etc/munge/munge.key ]]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /etc/munge /etc/munge/munge.key /run/munge /var/log/munge /var/lib/munge
  chmod 400 /etc/munge/munge.key
  runuser -u munge -- /usr/sbin/munged --force
  for _ in $(seq 50); do munge_ok && break; sleep 0.1; done
  munge_ok || die "munged did not start (see /var/log/munge/munged.log)"
  # Remember that munged is ours, so that stop ends it too.
  cp /run/munge/munged.pid "$dir/run/munged.pid"
}

stop_pid() { # NAME PIDFILE
  alive "$2" || { rm -f "$2"; return 0; }
  local pid
  pid=$(<"$2")
  kill "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$2"
  echo "slurm-localhost: stopped $1 ($pid)" >&2
}

stop_slurm() {
  stop_pid slurmd "$dir/run/slurmd.pid"
  stop_pid slurmctld "$dir/run/slurmctld.pid"
}

# Cancel every job and wait for them to end, so that no job's processes
# outlive the cluster.
cancel_jobs() {
  alive "$dir/run/slurmctld.pid" && alive "$dir/run/slurmd.pid" || return 0
  local ids
  ids=$(timeout 10 squeue -h -o %A 2>/dev/null) || return 0
  [[ -n $ids ]] || return 0
  # shellcheck disable=SC2086 # one id a word
  timeout 10 scancel $ids || true
  for _ in $(seq 150); do
    [[ -z $(timeout 5 squeue -h -o %A 2>/dev/null) ]] && return 0
    sleep 0.1
  done
}

# sinfo retries for a long time when slurmctld is down; bound each call.
node_state() { timeout 5 sinfo -h -n "$node" -o %t 2>/dev/null || true; }
# Whether the controller that answers is this one, not another cluster's
# on the same port (whose node would look just as idle).
ours() {
  timeout 5 scontrol show config 2>/dev/null |
    awk -v d="$dir/state" '$1 == "StateSaveLocation" && $3 == d { f = 1 } END { exit !f }'
}

start() {
  [[ $(id -u) == 0 ]] || die "needs root (slurmd runs as root)"
  local c
  for c in munged munge slurmctld slurmd sinfo sbatch; do
    command -v "$c" >/dev/null || die "$c not found: apt-get install slurm-wlm munge"
  done
  write_conf
  if ! cmp -s "$conf.new" "$conf" || ! cmp -s "$dir/gres.conf.new" "$dir/gres.conf"; then
    stop_slurm
    mv "$conf.new" "$conf"
    mv "$dir/gres.conf.new" "$dir/gres.conf"
  else
    rm -f "$conf.new" "$dir/gres.conf.new"
  fi
  start_munge
  alive "$dir/run/slurmctld.pid" || slurmctld -f "$conf"
  alive "$dir/run/slurmd.pid" || slurmd -f "$conf"
  # The node stays `unk` until slurmd has registered with slurmctld.
  local state='' deadline=$((SECONDS + 30)) up=''
  while ((SECONDS < deadline)); do
    # A daemon whose pid file outlives it has died (the pid file comes
    # a moment after the daemon forks, so a missing one is no failure).
    [[ -s $dir/run/slurmctld.pid ]] && ! alive "$dir/run/slurmctld.pid" && break
    [[ -s $dir/run/slurmd.pid ]] && ! alive "$dir/run/slurmd.pid" && break
    state=$(node_state)
    # mix/alloc: up, with jobs recovered from an earlier run.
    if [[ $state == idle || $state == mix || $state == alloc ]] && ours; then up=1; break; fi
    sleep 0.1
  done
  if [[ -z $up ]]; then
    tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    die "node $node not up (state: ${state:-none}); logs in $dir/log"
  fi
  echo "export SLURM_CONF=$conf"
}

stop() {
  cancel_jobs
  stop_slurm
  stop_pid munged "$dir/run/munged.pid"
}

status() {
  local rc=0 d
  for d in munged slurmctld slurmd; do
    if [[ $d == munged ]] && munge_ok; then
      echo "munged: running"
    elif alive "$dir/run/$d.pid"; then
      echo "$d: running ($(<"$dir/run/$d.pid"))"
    else
      echo "$d: stopped"
      rc=3
    fi
  done
  if alive "$dir/run/slurmctld.pid"; then
    timeout 10 sinfo -N -o '%N %P %t %c %G' || rc=3
    echo "export SLURM_CONF=$conf"
  fi
  return "$rc"
}

"$cmd"
