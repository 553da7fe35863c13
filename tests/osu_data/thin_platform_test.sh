#!/usr/bin/env bash
# validation/osu-thin/thin-barrier.yaml simulates THIN's barrier on the platform of thin.yaml's
# broadcasts: the same platform, model, timing and protocol options, or the two reports would
# compare the barrier and the broadcasts on different machines.
set -u
dir=$1/validation/osu-thin
python3 - "$dir/thin.yaml" "$dir/thin-barrier.yaml" <<'PY' || exit 1
import sys, yaml
a, b = (yaml.safe_load(open(p)) for p in sys.argv[1:3])
differ = [k for k in ("platform", "map_by", "model", "timing", "sim") if a.get(k) != b.get(k)]
if differ:
    print("FAIL: thin-barrier.yaml differs from thin.yaml in " + ", ".join(differ))
    sys.exit(1)
print("ok")
PY
