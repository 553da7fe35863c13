#!/usr/bin/env bash
# COMMAND of across_nodes_test.sh, run by tools/testbed with TESTBED_* set:
#   across_nodes_command.sh COLLSIM_MPI COLLSIM
set -euo pipefail
COLLSIM_MPI=$1 COLLSIM=$2
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
read -ra namespaces <<<"$TESTBED_NAMESPACES"
[ "${#namespaces[@]}" = 4 ] || fail "TESTBED_NAMESPACES has ${#namespaces[@]} nodes, not 4"
for var in TESTBED_MPIRUN TESTBED_PLATFORM TESTBED_SWITCH TESTBED_NODE_EXEC TESTBED_LATENCY TESTBED_BANDWIDTH; do
  [ -n "${!var:-}" ] || fail "$var is not set"
done

# Byte counters of a link: node I's eth0 (what it sent, tx, and received, rx) and the switch end
# pI (its tx goes to node I).
counter() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }
declare -A before
snapshot() {
  local i
  for i in 1 2 3 4; do
    before[n$i.tx]=$(counter "${namespaces[i - 1]}" eth0 tx_bytes)
    before[n$i.rx]=$(counter "${namespaces[i - 1]}" eth0 rx_bytes)
    before[p$i.tx]=$(counter "$TESTBED_SWITCH" "p$i" tx_bytes)
  done
}
# Fails unless counter $1 ("n2.rx", ...) grew by at least $2 bytes since the snapshot.
grew() {
  local ns dev stat now
  case $1 in
    n*) ns=${namespaces[${1:1:1} - 1]} dev=eth0 ;;
    p*) ns=$TESTBED_SWITCH dev=p${1:1:1} ;;
  esac
  stat=${1#*.}_bytes
  now=$(counter "$ns" "$dev" "$stat")
  echo "  $1: +$((now - before[$1])) bytes"
  [ $((now - before[$1])) -ge "$2" ] || fail "$1 grew by $((now - before[$1])) bytes, expected at least $2"
}

echo "--- hostnames of the ranks"
# shellcheck disable=SC2086 # TESTBED_MPIRUN is a list of words
names=$($TESTBED_MPIRUN -np 4 cat /proc/sys/kernel/hostname | sort -u)
echo "$names"
[ "$(echo "$names" | wc -l)" = 4 ] || fail "4 ranks on 4 nodes should see 4 hostnames"

echo "--- bcast/binomial, 1 MiB, 4 ranks on 4 nodes"
snapshot
# shellcheck disable=SC2086
csv=$($TESTBED_MPIRUN -np 4 "$COLLSIM_MPI" measure --op bcast/binomial --bytes 1MiB --csv --min-runs 3 --max-runs 5)
echo "$csv"
row=$(echo "$csv" | tail -n 1)
[[ $row == mpi,bcast/binomial,4,1048576,* ]] || fail "unexpected row: $row"
# The column is found by its name: columns are added over time.
column=$(echo "$csv" | head -n 1 | tr , '\n' | grep -nx data | cut -d: -f1)
[ -n "$column" ] || fail "no data column in: $(echo "$csv" | head -n 1)"
data=$(echo "$row" | cut -d, -f"$column")
[ "$data" = ok ] || fail "data not ok: $data"
# Rank r runs on node r+1. Binomial from rank 0: 0 -> 2, 0 -> 1, 2 -> 3; at least 5 calls of 1 MiB.
grew n1.tx $((2 * 5 * 1048576))
for i in 2 3 4; do
  grew "n$i.rx" $((5 * 1048576))
  grew "p$i.tx" $((5 * 1048576))
done

echo "--- gather/binomial, 256 KiB per rank"
snapshot
# shellcheck disable=SC2086
out=$($TESTBED_MPIRUN -np 4 "$COLLSIM_MPI" run --op gather/binomial --bytes 256KiB)
echo "$out"
[[ $out == *"data ok"* ]] || fail "gather: $out"
grew n1.rx $((2 * 262144))

echo "--- the platform in collsim's SimGrid engine"
grep -q 'radical="1-4"' "$TESTBED_PLATFORM" || fail "platform has not 4 hosts: $(grep cluster "$TESTBED_PLATFORM")"
"$COLLSIM" measure --engine sim --platform "$TESTBED_PLATFORM" --op bcast/binomial --procs 4 --bytes 1MiB --csv ||
  fail "collsim could not simulate on $TESTBED_PLATFORM"

echo "all checks passed on ${namespaces[0]%n1}"
