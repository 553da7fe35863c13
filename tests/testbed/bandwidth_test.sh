#!/usr/bin/env bash
# (b) A 2-node testbed at 100 Mbit/s: the ping-pong's bandwidth is within 10% of the configured
# rate, both the testbed's own measurement (TESTBED_BANDWIDTH) and a ping-pong run by the command,
# whose 2 MiB one-way time must match 2 MiB at the measured bandwidth.
# shellcheck source=tests/testbed/lib.sh
source "$(dirname "$0")/lib.sh"
need_root

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# shellcheck disable=SC2016 # expanded by the command's shell
timeout -k 10 80 "$TESTBED" --nodes 2 --rate 100mbit --collsim-mpi "$COLLSIM_MPI" \
  --pingpong-sizes 1,128KiB,512KiB,2MiB --pingpong-time 0.05 -- bash -c '
    set -euo pipefail
    echo "rate $TESTBED_RATE bit/s, measured bandwidth $TESTBED_BANDWIDTH B/s, latency $TESTBED_LATENCY s"
    awk -v b="$TESTBED_BANDWIDTH" -v r="$TESTBED_RATE" -v l="$TESTBED_LATENCY" "BEGIN {
      ratio = b * 8 / r; printf \"bandwidth / rate = %.3f\n\", ratio
      if (ratio < 0.9 || ratio > 1.1) { print \"FAIL: bandwidth not within 10% of the rate\"; exit 1 }
      if (l <= 0 || l > 1e-3) { print \"FAIL: latency \" l \" s is not between 0 and 1 ms\"; exit 1 } }"
    csv=$(mktemp)
    $TESTBED_MPIRUN -np 2 "$1" pingpong --sizes 1,2MiB --min-runs 3 --output "$csv"
    cat "$csv"
    awk -F, -v r="$TESTBED_RATE" "NR == 3 {
      ratio = \$1 / \$7 * 8 / r; printf \"2 MiB: size / one-way time = %.3f of the rate\n\", ratio
      if (ratio < 0.9 || ratio > 1.1) { print \"FAIL: not within 10% of the rate\"; exit 1 } }" "$csv"
    rm -f "$csv"
    echo "checked on ${TESTBED_SWITCH%s}"' bash "$COLLSIM_MPI" >"$log" 2>&1 || status=$?
cat "$log"
[ "$status" = 0 ] || fail "tools/testbed exited with status $status"
prefix=$(sed -n 's/^checked on \(ctb[0-9]*\)$/\1/p' "$log")
[ -n "$prefix" ] || fail "the command's checks did not run"
expect_clean "$prefix"
echo "PASS"
