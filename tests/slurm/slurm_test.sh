#!/usr/bin/env bash
# collsim slurm against a real Slurm on this machine: a one-node cluster of its own (2 CPUs) in a
# temporary folder, with its own munge key and munged, slurmctld and slurmd; a small scenario
# submitted as an array of 3 shards and the merge job (collsim slurm --report --submit) must give
# the results.csv of a serial collsim run byte for byte, and the report page; a task requeued runs
# its shard again with --resume; then one collsim-mpi measure of 2 ranks through an allocation
# (mpirun inside salloc, and srun --mpi=pmix).
#
#   bash slurm_test.sh COLLSIM COLLSIM_MPI
#
# Skipped (exit 77, ctest's SKIP_RETURN_CODE) only where the daemons cannot start: not root, or
# Slurm and munge not installed (tools/setup installs them). Anything else that fails fails the
# test. Never touches /etc/slurm or the system's munge key: SLURM_CONF points at the folder's own
# slurm.conf. Slurm 22.05 has no setting for the address its daemons listen on, so the test runs
# in a network namespace of its own that has only the loopback interface (unshare --net): nothing
# is reachable from outside and no traffic leaves the machine (where no namespace can be made,
# it says so and runs without one: every address is 127.0.0.1 all the same). A trap stops every daemon it
# started (jobs cancelled first) and removes the folder on any exit.
set -euo pipefail

COLLSIM=$(realpath "$1") COLLSIM_MPI=$(realpath "$2")
source_dir=$(cd "$(dirname "$0")/../.." && pwd)

skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

[ "$(id -u)" = 0 ] || skip "a Slurm of its own needs root (munged, slurmctld and slurmd run as root here); run the test as root"
for b in munged munge slurmctld slurmd sbatch salloc srun scancel scontrol sinfo squeue; do
  command -v "$b" >/dev/null || skip "no $b on PATH: tools/setup installs Debian's slurm-wlm and munge"
done

# Into a network namespace with the loopback interface only, once. Slurm resolves addresses with
# AI_ADDRCONFIG, which glibc answers for IPv4 only when an address other than 127.0.0.1 exists: a
# second loopback address, 127.0.0.2, on lo.
# Where namespaces cannot be made (a container without CAP_SYS_ADMIN) the daemons still start: the
# test runs outside one, saying so, with their ports open on every interface while it runs.
if [ -z "${COLLSIM_SLURM_TEST_NETNS:-}" ]; then
  export COLLSIM_SLURM_TEST_NETNS=1
  if unshare --net -- true 2>/dev/null; then
    exec unshare --net -- bash -c 'ip link set lo up && ip addr add 127.0.0.2/32 dev lo && exec bash "$@"' \
      bash "$0" "$@"
  fi
  echo "NOTE: no network namespace here (unshare --net fails): slurmctld and slurmd listen on all interfaces"
fi

tmp=$(mktemp -d /tmp/collsim-slurm.XXXXXX)
chmod 711 "$tmp"  # munged wants its socket's folder searchable by all
pids=()
cleanup() {
  local status=$?
  # Jobs first, while slurmctld runs: their processes (slurmstepd) outlive a stopped slurmd. A
  # client waits long for a controller that is gone, hence the timeouts.
  if [ ${#pids[@]} -gt 1 ] && kill -0 "${pids[1]}" 2>/dev/null; then
    timeout 10 scancel --quiet --full --user=root 2>/dev/null || true
    for _ in $(seq 25); do
      [ -z "$(timeout 5 squeue --noheader 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "$status" != 0 ] && [ "$status" != 77 ]; then
    for log in "$tmp"/*.log "$tmp"/results/slurm/*.out; do
      [ -f "$log" ] && { echo "--- $log"; tail -n 20 "$log"; }
    done
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Munge, on a key and socket of its own.
head -c 1024 /dev/urandom >"$tmp/munge.key"
chmod 400 "$tmp/munge.key"
munged --foreground --force --key-file="$tmp/munge.key" --socket="$tmp/munge.socket" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" 2>/dev/null &
pids+=($!)
for _ in $(seq 50); do
  [ -S "$tmp/munge.socket" ] && break
  sleep 0.1
done
munge --socket="$tmp/munge.socket" --no-input | unmunge --socket="$tmp/munge.socket" >/dev/null ||
  fail "munged does not answer on $tmp/munge.socket"

# Two free ports, picked now (the namespace is new: any port is free, but ask the kernel anyway).
read -r ctl_port node_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
node=$(hostname -s)
# RealMemory below what slurmd finds (it drains a node that has less than configured); --mem
# requests are checked against it.
memory=$(awk '/^MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=collsimtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
# Their logs are the files slurm.conf names (shown when the test fails); -D copies them to stderr.
slurmctld -D -f "$SLURM_CONF" 2>/dev/null &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" 2>/dev/null &
pids+=($!)
for _ in $(seq 150); do
  [ "$(timeout 5 sinfo --noheader --format=%t 2>/dev/null)" = idle ] && break
  kill -0 "${pids[1]}" 2>/dev/null || fail "slurmctld ended (see $tmp/slurmctld.log below)"
  kill -0 "${pids[2]}" 2>/dev/null || fail "slurmd ended (see $tmp/slurmd.log below)"
  sleep 0.2
done
[ "$(timeout 5 sinfo --noheader --format=%t)" = idle ] || fail "the node is not idle after 30 s: $(timeout 5 sinfo --noheader)"

# The job's state (JobState=...) as scontrol shows it; every task's for an array.
state() { timeout 10 scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' '; }
wait_done() {
  local id=$1 s
  for _ in $(seq 600); do
    s=$(state "$id")
    case "$s" in
      "COMPLETED ") return 0 ;;
      *FAILED* | *CANCELLED* | *TIMEOUT* | *NODE_FAIL* | *OUT_OF_MEMORY*) fail "job $id ended $s" ;;
    esac
    timeout 10 scontrol show job "$id" | grep -q 'DependencyNeverSatisfied' && fail "job $id: its dependency failed"
    sleep 0.2
  done
  fail "job $id not done after 120 s: $s"
}

# A small scenario: 2 engines x 2 operations x 2 process counts x 2 sizes, 16 points.
cat >"$tmp/small.yaml" <<EOF
name: small
platform: $source_dir/platforms/grisou.xml
ranks_per_node: 2
engines: [sim, model]
model: {kind: two_level, from_platform: true}
procs: [2, 8]
bytes: [1KiB, 64KiB]
operations:
  - bcast/binomial
  - gather/binomial
EOF
"$COLLSIM" run "$tmp/small.yaml" --jobs 1 --quiet --out "$tmp/serial" >/dev/null

cd "$tmp"
"$COLLSIM" slurm small.yaml --tasks 3 --out results --report --submit >"$tmp/submit.txt"
cat "$tmp/submit.txt"
ids=$(sed -n 's/^submitted: array job \([0-9]*\), merge job \([0-9]*\) .*/\1 \2/p' "$tmp/submit.txt")
read -r array_id merge_id <<<"$ids"
[ -n "${merge_id:-}" ] || fail "collsim slurm --submit printed no job ids"
grep -q -- "--shard slurm --jobs 1 --resume" results/slurm/array.sh ||
  fail "array.sh does not run its shard with --resume"
wait_done "$array_id"
wait_done "$merge_id"
for k in 1 2 3; do
  grep -q "\"shard\": \"$k/3\"" "results/parts/$k/run.json" || fail "results/parts/$k is not shard $k/3"
done
# merge writes rows in plan order, as the serial run does: the files must be equal, no sorting.
cmp results/results.csv serial/results.csv || fail "the merged rows differ from the serial run's"
rows=$(($(wc -l <serial/results.csv) - 1))
[ "$rows" = 16 ] || fail "the serial run has $rows rows, not 16"
[ -s results/report.html ] || fail "the merge job wrote no results/report.html"
echo "merged $rows rows of 3 array tasks: identical to the serial run"

# A task requeued (as after a pre-emption) continues its shard: here a finished one, with nothing left.
# Slurm holds a requeued job for a while (2 minutes here) before it may start again: start it now.
timeout 10 scontrol requeue "${array_id}_2"
timeout 10 scontrol update JobId="${array_id}_2" StartTime=now
wait_done "$array_id"
grep -q "resuming $tmp/results/parts/2: 5 rows there, 0 to run" results/slurm/shard-2.out ||
  fail "the requeued task did not resume its shard: $(cat results/slurm/shard-2.out)"
cmp results/parts/2/results.csv <(sed -n '1p;3p;6p;9p;12p;15p' serial/results.csv) ||
  fail "the requeued task's rows are not its shard's"
echo "a requeued task resumed its shard"

# Real MPI through an allocation: mpirun inside salloc, then srun's PMIx. Open MPI leaves the
# loopback interface out of its own (out-of-band) connections unless told: the namespace has no other.
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
measure=("$COLLSIM_MPI" measure --op bcast/binomial --bytes 1KiB --max-runs 20 --csv)
out=$(salloc --ntasks=2 --quiet mpirun --allow-run-as-root --oversubscribe -np 2 "${measure[@]}" 2>&1) ||
  fail "collsim-mpi under mpirun in salloc: $out"
echo "$out" | grep -q '^mpi,bcast/binomial,2,1024,.*,ok,' || fail "collsim-mpi under salloc + mpirun: $out"
out=$(srun --mpi=pmix --ntasks=2 --quiet "${measure[@]}" 2>&1) || fail "collsim-mpi under srun --mpi=pmix: $out"
echo "$out" | grep -q '^mpi,bcast/binomial,2,1024,.*,ok,' || fail "collsim-mpi under srun --mpi=pmix: $out"
echo "collsim-mpi measure on 2 ranks: salloc + mpirun and srun --mpi=pmix"
