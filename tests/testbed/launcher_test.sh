#!/usr/bin/env bash
# (g) The seed's method across the testbed's nodes (validation/testbed/seed-run's two steps, on a
# 3-node testbed at 100 Mbit/s): collsim calibrate --engine mpi and collsim run, each given
# mpirun's line as --launcher "$TESTBED_MPIRUN", run their points one rank per node. Checked by
# the network's pace: bcast/basic_linear of 64 KiB to 2 ranks sends 2 x 65536 bytes through the
# root's link, which at the measured bandwidth B takes 131072 / B (11 ms at 100 Mbit/s); on one
# node, over its loopback, it would take well under 1 ms. The fastest run may beat that by at most
# one bucket of the shaper (one frame at 100 Mbit/s), so at least 0.95 of it is asked.
# shellcheck source=tests/testbed/lib.sh
source "$(dirname "$0")/lib.sh"
need_root

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/s.yaml" <<'YAML'
engines: [mpi]
procs: [3]
operations:
  - op: bcast/basic_linear
    bytes: [64KiB]
mpi: {statistic: min, min_runs: 5, max_runs: 5}
YAML
# shellcheck disable=SC2016 # expanded by the testbed's command
command='set -e
"$1" calibrate --engine mpi --launcher "$TESTBED_MPIRUN" --statistic min --procs 2,3 --bytes 1KiB,64KiB \
  --ops bcast/basic_linear --pingpong-sizes none --min-runs 3 --max-runs 3 --quiet --output "$2/p.yaml"
"$1" run "$2/s.yaml" --launcher "$TESTBED_MPIRUN" --out "$2/run" --quiet >/dev/null
echo "bandwidth_Bps=$TESTBED_BANDWIDTH"'
status=0
timeout -k 10 90 "$TESTBED" --nodes 3 --rate 100mbit "${quick[@]}" -- bash -c "$command" sh "$COLLSIM" "$work" \
  >"$work/log" 2>&1 || status=$?
cat "$work/log"
[ "$status" = 0 ] || fail "tools/testbed exited with status $status"
bandwidth=$(sed -n 's/^bandwidth_Bps=//p' "$work/log")
grep -q '^  bcast/basic_linear: {alpha: ' "$work/p.yaml" || fail "calibrate wrote no fit: $(cat "$work/p.yaml")"
time_s=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "time_s") c = i } NR == 2 { print $c }' \
  "$work/run/results.csv")
echo "bcast/basic_linear, 3 ranks, 64 KiB: $time_s s; the root's link at $bandwidth B/s: 131072 B"
awk -v t="$time_s" -v b="$bandwidth" 'BEGIN { exit !(t >= 0.95 * 131072 / b) }' ||
  fail "$time_s s is faster than the root's link allows: the ranks did not run on three nodes"
echo "PASS"
