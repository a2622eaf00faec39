#!/usr/bin/env bash
# A private single-node Slurm for the tests (label slurm): munged, slurmctld
# and slurmd on localhost, without systemd, under one directory.
#
#   local_slurm.sh start DIR   write DIR/slurm.conf, start the three daemons,
#                              wait until the node is idle; prints
#                              "SLURM_CONF=DIR/slurm.conf"
#   local_slurm.sh stop DIR    stop the daemons this script started in DIR
#                              (by the PIDs it recorded, checked against
#                              /proc/PID/cmdline), nothing else
#
# Needs root (slurmd runs as root) and the Debian packages slurmctld, slurmd,
# slurm-client and munge. Exit status 77 when they are missing or not root
# (the tests then skip), 1 when the cluster does not come up (logs in DIR/log).
# Facts this relies on (docs/slurm.md, "Testing"): munged needs its socket
# directory 0755; the node's name must be `hostname -s` with NodeAddr
# 127.0.0.1 (a hostname that does not resolve is fine then);
# proctrack/linuxproc and task/none (no cgroups here; THRONG_SLURM_TASK_PLUGIN
# picks another, e.g. task/affinity, which binds each task to its cores);
# srun's MPI plugin is pmix for Debian's Open MPI.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
[[ ($cmd == start || $cmd == stop) && -n $dir ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# alive PIDFILE: the PID, when it is a live process (not a zombie) whose
# command line mentions DIR, i.e. one this script started there
alive() {
  local pid state
  [[ -f $1 ]] || return 1
  pid=$(cat "$1")
  [[ -n $pid && -r /proc/$pid/stat ]] || return 1
  state=$(sed -e 's/^.*) //' "/proc/$pid/stat" | cut -d' ' -f1)
  [[ $state != Z ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$dir" || return 1
  echo "$pid"
}

stop() {
  local f pid pids=()
  for f in "$dir"/pid.slurmd "$dir"/pid.slurmctld "$dir"/pid.munged; do
    pid=$(alive "$f") && pids+=("$pid")
  done
  ((${#pids[@]})) || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 50); do
    local left=0
    for f in "$dir"/pid.slurmd "$dir"/pid.slurmctld "$dir"/pid.munged; do alive "$f" >/dev/null && left=1; done
    ((left)) || return 0
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
}

if [[ $cmd == stop ]]; then
  stop
  exit 0
fi

# ---- start -------------------------------------------------------------------
[[ $(id -u) == 0 ]] || { echo "local_slurm.sh: needs root (slurmd runs as root)"; exit 77; }
for p in slurmctld slurmd sbatch sinfo scontrol munged mungekey; do
  command -v "$p" >/dev/null || { echo "local_slurm.sh: $p not found (apt-get install slurmctld slurmd slurm-client munge)"; exit 77; }
done
stop # leftovers of an earlier start in DIR
rm -rf "$dir"/{state,spool,log,munge}
mkdir -p "$dir"/{state,spool,log,munge}
chmod 755 "$dir" "$dir/munge"

# two free TCP ports for slurmctld and slurmd
read -r ctld_port slurmd_port < <(python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
PY
)

host=$(hostname -s)
node=$(slurmd -C 2>/dev/null | sed -n 's/^\(NodeName=[^ ]*\) \(.*\)$/\2/p' | sed 's/ UpTime=.*//')
[[ -n $node ]] || node="CPUs=$(nproc)"
mem=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
# shellcheck disable=SC2001  # a regex, not a fixed string
node="$(sed 's/ *RealMemory=[0-9]*//' <<<"$node") RealMemory=$mem" # 90 %: slurmd refuses a node with less than declared
cat >"$dir/slurm.conf" <<EOF
# written by tests/slurm/local_slurm.sh: a private single-node cluster
ClusterName=throngtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=${THRONG_SLURM_TASK_PLUGIN:-task/none}
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=pmix
ReturnToService=2
MinJobAge=600
KillWait=30
NodeName=$host NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=60 State=UP
EOF

mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1
chmod 600 "$dir/munge/munge.key"
munged -F -S "$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" --log-file="$dir/log/munged.log" \
  --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" >"$dir/log/munged.out" 2>&1 &
echo $! >"$dir/pid.munged"
for _ in $(seq 50); do [[ -S $dir/munge/munge.socket ]] && break; sleep 0.1; done
[[ -S $dir/munge/munge.socket ]] || { echo "local_slurm.sh: munged did not start ($dir/log/munged.log)"; stop; exit 1; }

export SLURM_CONF=$dir/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
echo $! >"$dir/pid.slurmctld"
slurmd -D -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 &
echo $! >"$dir/pid.slurmd"
for _ in $(seq 120); do
  state=$(timeout 5 sinfo -h -o %T 2>/dev/null || true)
  [[ $state == idle ]] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.25
done
echo "local_slurm.sh: the node did not become idle in 30 s (state '${state:-}'; logs in $dir/log)"
tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" 2>/dev/null || true
stop
exit 1
