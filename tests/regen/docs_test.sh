#!/usr/bin/env bash
# Every generated block of the reports (tables, counted sentences) is what its committed data
# renders: a table edited by hand, or data changed without re-rendering, fails here.
set -u
source_dir=$1
out=$("$source_dir/tools/regen" --check --docs 2>&1)
status=$?
echo "$out"
[ "$status" = 0 ] || { echo "FAIL: tools/regen --check --docs exited $status"; exit 1; }
grep -q "every generated block matches the committed data" <<<"$out" || { echo "FAIL: no verdict line"; exit 1; }
echo "PASS"
