#!/usr/bin/env bash
# compare.py --default ompi-4.1 sets each measured default barrier beside the algorithm Open MPI
# 4.1's fixed decision runs at that size (recursive doubling below 4 and from 8 to 63 processes,
# linear from 4 to 7, Bruck from 64 to 255), and nothing else: every predicted time below is
# half its measured one except the other algorithms' rows, which would give 4 or 0.25 if they
# were picked. An operation it has no decision for is refused (exit 2).
set -u
compare=$1/validation/osu-data/compare.py
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
cat >"$root/points.csv" <<'CSV'
dataset,op,algorithm,mapping,procs,nodes,bytes,osu_avg_us,osu_min_us,osu_max_us,algorithm_id,ompi,osu,source,note
t,barrier,default,core,2,1,0,2.0,,,0,4.1.6,7.3,a:2,
t,barrier,default,core,4,1,0,4.0,,,0,4.1.6,7.3,a:3,
t,barrier,default,core,8,1,0,8.0,,,0,4.1.6,7.3,a:4,
t,barrier,default,core,64,2,0,16.0,,,0,4.1.6,7.3,a:5,
t,barrier,linear,core,8,1,0,100.0,,,1,4.1.6,7.3,a:6,
t,bcast,default,core,4,1,8,1.0,,,0,4.1.6,7.3,a:7,
CSV
{
  echo "engine,op,procs,bytes,map_by,time_s,osu_avg_s"
  # seconds: half of the measured microseconds for the decision's algorithm
  echo "sim,barrier/recursive_doubling,2,0,core,1,1e-06"
  echo "sim,barrier/linear,2,0,core,1,8e-06"
  echo "sim,barrier/linear,4,0,core,1,2e-06"
  echo "sim,barrier/recursive_doubling,4,0,core,1,1.6e-05"
  echo "sim,barrier/recursive_doubling,8,0,core,1,4e-06"
  echo "sim,barrier/linear,8,0,core,1,3.2e-05"
  echo "sim,barrier/bruck,64,0,core,1,8e-06"
  echo "sim,barrier/recursive_doubling,64,0,core,1,6.4e-05"
} >"$root/results.csv"
out=$(python3 "$compare" --measured "$root/points.csv" --results "$root/results.csv" --op barrier \
  --default ompi-4.1 --csv "$root/points-out.csv") || fail "compare.py exited $?"
grep -q "Points compared: 4 (barrier" <<<"$out" || fail "expected 4 points: $out"
grep -q "| sim | all | all | 4 | 0.50 | 0.50-0.50 | 0% | 100% |" <<<"$out" || fail "expected every ratio 0.50: $out"
for want in "bruck,core,64" "linear,core,4" "recursive_doubling,core,2" "recursive_doubling,core,8"; do
  grep -q "^$want," "$root/points-out.csv" || fail "no $want row in the per-point CSV: $(cat "$root/points-out.csv")"
done
# The forced linear row at 8 processes is not a default row: it is not compared.
grep -q "^linear,core,8," "$root/points-out.csv" && fail "the forced row was compared"
python3 "$compare" --measured "$root/points.csv" --results "$root/results.csv" --op bcast --default ompi-4.1 \
  2>"$root/err" >/dev/null
rc=$?
[ $rc -eq 2 ] || fail "an operation without a decision exited $rc, expected 2"
grep -q "no decision written here for bcast" "$root/err" || fail "unclear error: $(cat "$root/err")"
echo "ok"
