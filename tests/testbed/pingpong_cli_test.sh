#!/usr/bin/env bash
# collsim-mpi pingpong on this machine (no testbed, no root needed): the CSV has one row per size
# with the bytes checked, the summary lines carry latency_s= and bandwidth_Bps=, and bad input
# gets one line and exit status 2.
# shellcheck source=tests/testbed/lib.sh
source "$(dirname "$0")/lib.sh"
mpirun=("$MPIEXEC" --allow-run-as-root --oversubscribe)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$COLLSIM_MPI" pingpong --help | grep -q 'usage: mpirun -np 2 collsim-mpi pingpong' || fail "pingpong --help"

"${mpirun[@]}" -np 2 "$COLLSIM_MPI" pingpong --sizes 1,1000,64KiB,1MiB --time 0.01 --output "$work/pp.csv" >"$work/out"
cat "$work/out" "$work/pp.csv"
[ "$(head -n 1 "$work/pp.csv")" = "bytes,runs,min_rtt_s,median_rtt_s,mean_rtt_s,max_rtt_s,one_way_s,bandwidth_Bps" ] ||
  fail "CSV header"
[ "$(tail -n +2 "$work/pp.csv" | cut -d, -f1 | tr '\n' ' ')" = "1 1000 65536 1048576 " ] || fail "CSV sizes"
grep -Eq 'latency_s=[0-9.e-]+$' "$work/out" || fail "no latency_s="
grep -Eq 'bandwidth_Bps=[0-9.e+]+$' "$work/out" || fail "no bandwidth_Bps="
grep -q 'slope over 64KiB..1MiB, 2 sizes' "$work/out" || fail "the fit should use the sizes from 1MiB / 16 up"

# Three ranks: rank 2 only waits; --peer 2 measures between ranks 0 and 2.
"${mpirun[@]}" -np 3 "$COLLSIM_MPI" pingpong --sizes 1,4KiB --peer 2 --time 0.01 | grep -q 'and rank 2 on' ||
  fail "--peer 2"

# expect_usage_error "PART OF THE LINE" NP ARGS...
expect_usage_error() {
  local want=$1 np=$2 status=0
  shift 2
  "${mpirun[@]}" -np "$np" "$COLLSIM_MPI" pingpong "$@" >"$work/out" 2>"$work/err" || status=$?
  echo "pingpong $* on $np -> $status: $(cat "$work/err")"
  [ "$status" = 2 ] || fail "exit status $status, not 2"
  [ "$(grep -c '^collsim-mpi: ' "$work/err")" = 1 ] || fail "not one collsim-mpi line on stderr"
  grep -q -e "$want" "$work/err" || fail "the line does not say '$want'"
}
expect_usage_error "needs mpirun -np 2" 1
expect_usage_error "--peer 2 is not a rank of 2" 2 --peer 2
expect_usage_error "--sizes: 'x'" 2 --sizes x
expect_usage_error "--max-runs 2 is below --min-runs 5" 2 --max-runs 2
expect_usage_error "unknown option" 2 --bogus
# Options that would be accepted and ignored: a bandwidth fit from beyond the sizes (it fell back
# to the two largest), from 0 bytes (it meant the default), no warm-up (--time had nothing to go by).
expect_usage_error "--fit-from 8MiB: 0 of --sizes from it up, where the bandwidth fit needs 2 (the sizes end at 4MiB)" \
  2 --fit-from 8MiB
expect_usage_error "--fit-from 4MiB: 1 of --sizes from it up" 2 --sizes 1,4MiB --fit-from 4MiB
expect_usage_error "--fit-from: 0 bytes is no size to fit from" 2 --fit-from 0
expect_usage_error "--warmup: 0 is out of range \\[1, " 2 --warmup 0
# A range up to the largest size_t stops doubling there (it doubled past it to 0, endlessly).
expect_usage_error "pingpong: 9223372036854775808 bytes is beyond an int count" 2 --sizes 1..18446744073709551615
echo "PASS"
