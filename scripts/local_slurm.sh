#!/usr/bin/env bash
# A real one-node SLURM cluster on this machine, for `make slurm-test` (Debian bookworm's
# slurm-wlm 22.05, run as root, no systemd needed).
#
#   scripts/local_slurm.sh up      # install what is missing, configure, start what is not running
#   scripts/local_slurm.sh down    # stop the daemons (only those whose pid files this script wrote)
#   scripts/local_slurm.sh status  # sinfo and squeue
#
# Daemons: munged, MariaDB + slurmdbd (accounting), slurmctld, slurmd, each started directly.
# Accounting stays on: submitit learns the final state of a job that ended without a result
# (scancel, time limit, out of memory) only from `sacct`; without it the sweep waits forever.
# The cluster: partition `debug` (default), one node = this host with `nproc` CPUs and the
# machine's memory minus 2 GiB, time limit MaxTime=$SLURM_MAX_TIME (default 60 minutes), no
# cgroups (proctrack/linuxproc). Jobs run as the submitting user on this same filesystem.
# `up` prints `started:` and the daemons it started, one per line, so a caller can stop
# exactly those (`down` stops every daemon named by the pid files below).
set -euo pipefail

MAX_TIME=${SLURM_MAX_TIME:-60}
NODE=$(hostname -s)
NCPU=$(nproc)
MEM_MB=$(( $(free -m | awk '/^Mem:/ {print $2}') - 2048 ))
ETC=/etc/slurm
PIDS=/run/slurm
LOGS=/var/log/slurm
CTLD_STATE=/var/spool/slurmctld
SLURMD_STATE=/var/spool/slurmd
MUNGE_PIDFILE=/run/munge/munged.pid
DB_PIDFILE=/run/mysqld/mariadbd.pid
DB_SOCKET=/run/mysqld/mysqld.sock
DB_PASSWORD=orderbench-slurm
PACKAGES="munge slurmctld slurmd slurm-client slurmdbd mariadb-server"

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

retry() {  # retry SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS
  local seconds=$1; shift
  local i
  for ((i = 0; i < seconds; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  echo "local_slurm.sh: gave up after ${seconds}s waiting for: $*" >&2
  return 1
}

stop() {  # stop PIDFILE: TERM, wait up to 20 s (the daemon may remove its pid file)
  alive "$1" || return 0
  local pid i
  pid=$(cat "$1")
  echo "stopping $(basename "$1" .pid) (pid $pid)"
  kill "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 40; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  echo "local_slurm.sh: $(basename "$1" .pid) still running" >&2
}

down() {
  stop "$PIDS/slurmd.pid"; stop "$PIDS/slurmctld.pid"; stop "$PIDS/slurmdbd.pid"
  stop "$DB_PIDFILE"; stop "$MUNGE_PIDFILE"
}

install_packages() {
  local missing="" p
  for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  [ -z "$missing" ] && return 0
  echo "installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $missing
}

write_slurm_conf() {  # prints 1 when slurm.conf changed
  cat > "$ETC/slurm.conf.new" <<EOF
# scripts/local_slurm.sh: a one-node cluster for OrderBench's real-cluster test
ClusterName=orderbench
SlurmctldHost=$NODE
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
SlurmctldPort=6817
SlurmdPort=6818
SlurmctldPidFile=$PIDS/slurmctld.pid
SlurmdPidFile=$PIDS/slurmd.pid
StateSaveLocation=$CTLD_STATE
SlurmdSpoolDir=$SLURMD_STATE
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MpiDefault=none
SwitchType=switch/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
JobRequeue=1
KillWait=30
MinJobAge=300
InactiveLimit=0
Waittime=0
SlurmctldTimeout=120
SlurmdTimeout=300
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$NODE
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
JobCompType=jobcomp/none
NodeName=$NODE CPUs=$NCPU RealMemory=$MEM_MB State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=$MAX_TIME State=UP
EOF
  if cmp -s "$ETC/slurm.conf.new" "$ETC/slurm.conf"; then
    rm "$ETC/slurm.conf.new"; echo 0
  else
    mv "$ETC/slurm.conf.new" "$ETC/slurm.conf"; chmod 0644 "$ETC/slurm.conf"; echo 1
  fi
}

start_munge() {
  alive "$MUNGE_PIDFILE" && return 0
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  if [ ! -s /etc/munge/munge.key ]; then mungekey --create --keyfile=/etc/munge/munge.key; fi
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  rm -f "$MUNGE_PIDFILE"
  su -s /bin/sh munge -c "/usr/sbin/munged --pid-file=$MUNGE_PIDFILE"
  retry 10 test -s "$MUNGE_PIDFILE"
  echo "started: munged"
}

start_accounting() {
  if ! alive "$DB_PIDFILE"; then
    mkdir -p /run/mysqld /var/log/mysql
    chown mysql:mysql /run/mysqld /var/log/mysql
    [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql >/dev/null
    setsid /usr/sbin/mariadbd --user=mysql --pid-file="$DB_PIDFILE" --socket="$DB_SOCKET" \
      --bind-address=127.0.0.1 --innodb-buffer-pool-size=64M \
      --log-error=/var/log/mysql/orderbench_slurm.err </dev/null >/dev/null 2>&1 &
    retry 60 mariadb --socket="$DB_SOCKET" -e "select 1"
    echo "started: mariadbd"
  fi
  mariadb --socket="$DB_SOCKET" -e "
    CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
    CREATE DATABASE IF NOT EXISTS slurm_acct_db;
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
  cat > "$ETC/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=$NODE
SlurmUser=slurm
PidFile=$PIDS/slurmdbd.pid
LogFile=$LOGS/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=$DB_PASSWORD
StorageLoc=slurm_acct_db
EOF
  chown slurm:slurm "$ETC/slurmdbd.conf"
  chmod 0600 "$ETC/slurmdbd.conf"
  if ! alive "$PIDS/slurmdbd.pid"; then
    /usr/sbin/slurmdbd
    retry 60 sacctmgr -n show cluster
    echo "started: slurmdbd"
  fi
  sacctmgr -n -P show cluster format=cluster | grep -qx orderbench \
    || sacctmgr -i add cluster orderbench >/dev/null
}

start_slurm() {  # start_slurm CHANGED: (re)start slurmctld and slurmd
  if [ "$1" = 1 ]; then stop "$PIDS/slurmd.pid"; stop "$PIDS/slurmctld.pid"; fi
  if ! alive "$PIDS/slurmctld.pid"; then /usr/sbin/slurmctld; echo "started: slurmctld"; fi
  retry 60 scontrol ping
  if ! alive "$PIDS/slurmd.pid"; then /usr/sbin/slurmd; echo "started: slurmd"; fi
  retry 60 sh -c "sinfo -h -N -o %t | grep -qE '^(idle|mix|alloc)'"
  if sinfo -h -N -o %t | grep -qE '^(down|drain)'; then  # left down by an earlier stop
    scontrol update nodename="$NODE" state=resume
  fi
}

up() {
  [ "$(id -u)" = 0 ] || { echo "local_slurm.sh: must run as root" >&2; exit 2; }
  install_packages
  mkdir -p "$PIDS" "$LOGS" "$CTLD_STATE" "$SLURMD_STATE"
  chown slurm:slurm "$PIDS" "$LOGS" "$CTLD_STATE"
  local changed
  changed=$(write_slurm_conf)
  start_munge
  munge -n | unmunge >/dev/null
  start_accounting
  start_slurm "$changed"
  sinfo
}

case "${1:-up}" in
  up) up ;;
  down) down ;;
  status) sinfo; squeue ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
