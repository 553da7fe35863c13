#!/usr/bin/env bash
# (a) A 4-node testbed at 1 Gbit/s: collsim-mpi runs across the nodes with the bytes right, the
# traffic crosses the veth links (their byte counters), every node has its own hostname, and the
# platform file loads in collsim's SimGrid engine. Then nothing is left behind.
# shellcheck source=tests/testbed/lib.sh
source "$(dirname "$0")/lib.sh"
need_root

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
timeout -k 10 80 "$TESTBED" --nodes 4 --rate 1gbit "${quick[@]}" -- \
  bash "$here/across_nodes_command.sh" "$COLLSIM_MPI" "$COLLSIM" >"$log" 2>&1 || status=$?
cat "$log"
[ "$status" = 0 ] || fail "tools/testbed exited with status $status"
grep -q '^all checks passed on ' "$log" || fail "the command's checks did not run"
expect_clean "$(sed -n 's/^all checks passed on \(ctb[0-9]*\)$/\1/p' "$log")"
echo "PASS"
