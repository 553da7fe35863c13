#!/usr/bin/env bash
# tools/regen on a tiny product (2 points of the model engine) in a repository of its own: it
# re-makes the product and its report's block in place; --check then finds it current; a value
# changed in the committed data makes it stale, naming the row and the change; a report block
# edited by hand is out of sync; a failing command is reported as such; a measured row that
# would come back changed is an error.
set -u
source_dir=$1 collsim=$2
regen=$source_dir/tools/regen
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
mkdir -p "$root/build/release/bin" "$root/scenarios" "$root/validation" "$root/tools"
ln -s "$collsim" "$root/build/release/bin/collsim"
cat >"$root/scenarios/tiny.yaml" <<'YAML'
name: tiny
engines: [model]
procs: [4]
bytes: [1KiB, 4KiB]
operations: [bcast/binomial]
YAML
cat >"$root/tools/regen.yaml" <<'YAML'
products:
  tiny:
    minutes: 0.1
    doc: validation/tiny.md
    commands:
      - build/release/bin/collsim run scenarios/tiny.yaml --out validation/tiny --quiet
    outputs:
      validation/tiny/results.csv: {key: [engine, op, procs, bytes], group: engine}
      validation/tiny/run.json:
    blocks:
      times:
        command: >-
          awk -F, 'NR == 1 { print "| engine | op | bytes | time_s |"; print "|---|---|---|---|"; next }
          { print "| " $1 " | " $2 " | " $4 " | " $7 " |" }' validation/tiny/results.csv
YAML
cat >"$root/validation/tiny.md" <<'MD'
# tiny

```sh
build/release/bin/collsim run scenarios/tiny.yaml --out validation/tiny --quiet
```

<!-- regen: tiny times -->
<!-- /regen -->
MD
# run_regen EXPECTED_STATUS ARGS...: runs tools/regen in the tiny repository; its stdout in $out.
run_regen() {
  local want=$1 status=0
  shift
  out=$("$regen" --root "$root" "$@" 2>"$root/stderr") || status=$?
  echo "\$ tools/regen $* -> $status"
  echo "$out"
  [ "$status" = "$want" ] || { cat "$root/stderr"; fail "exit status $status, not $want"; }
}
expect() { grep -qF -- "$1" <<<"$out" || fail "the output does not say '$1'"; }

run_regen 0 tiny
expect "tiny: re-made"
[ -s "$root/validation/tiny/results.csv" ] || fail "no validation/tiny/results.csv"
grep -q "^| model | bcast/binomial | 4096 | " "$root/validation/tiny.md" || fail "the block was not rendered"
good=$(cat "$root/validation/tiny/results.csv")

run_regen 0 --check tiny
expect "tiny: current"
run_regen 0 --check --docs

# The committed 4 KiB time made 1.5 times larger: the re-made one is 1/1.5 - 1 = -33.3% off.
awk -F, -v OFS=, 'NR > 1 && $4 == 4096 { $7 = $7 * 1.5 } 1' <<<"$good" >"$root/validation/tiny/results.csv"
run_regen 1 --check tiny
expect "tiny: stale"
expect "validation/tiny/results.csv: model: 1 of 2 rows moved: time_s 1 (largest -33.3% at model bcast/binomial 4 4096)"
expect "validation/tiny.md [times]: 1 of 8 cells changed"
run_regen 1 --check --docs
expect "tiny: the report is out of sync with the committed data or commands"
echo "$good" >"$root/validation/tiny/results.csv"

# A column the committed file lacks (an older layout) with every value unchanged: current, and said.
protocol=$(head -n 1 <<<"$good" | tr ',' '\n' | grep -nx protocol | cut -d: -f1)
cut -d, -f"$protocol" --complement <<<"$good" >"$root/validation/tiny/results.csv"
run_regen 0 --check tiny
expect "tiny: current"
expect "columns added: protocol (values unchanged; a re-make writes the new layout)"
echo "$good" >"$root/validation/tiny/results.csv"

# A number of the report's block edited by hand.
sed -i 's/^| model | bcast\/binomial | 1024 | [0-9.e-]* |/| model | bcast\/binomial | 1024 | 0.5 |/' "$root/validation/tiny.md"
run_regen 1 --check --docs
expect "validation/tiny.md [times]: 1 of 8 cells changed"
run_regen 0 --render
run_regen 0 --check --docs

# The documented command no longer the one the manifest runs.
sed -i 's/--out validation\/tiny --quiet$/--out validation\/tiny/' "$root/validation/tiny.md"
run_regen 1 --check --docs
expect "its \`\`\`sh blocks lack the command"
sed -i 's/--out validation\/tiny$/--out validation\/tiny --quiet/' "$root/validation/tiny.md"

# A command that fails leaves the repository as it was.
sed -i 's/scenarios\/tiny.yaml --out/scenarios\/missing.yaml --out/' "$root/tools/regen.yaml"
run_regen 1 tiny
expect "tiny: FAILED: command 1 exited with status 2"
[ "$(cat "$root/validation/tiny/results.csv")" = "$good" ] || fail "a failed re-make changed the data"
sed -i 's/scenarios\/missing.yaml --out/scenarios\/tiny.yaml --out/' "$root/tools/regen.yaml"

# Rows marked measured are kept, and must come back unchanged: here they are re-run (the model
# engine stands in for a measurement), so a changed one is an error.
sed -i 's/{key: \[engine, op, procs, bytes\], group: engine}/{key: [engine, op, procs, bytes], group: engine, measured: {column: bytes, values: ["1024"]}}/' \
  "$root/tools/regen.yaml"
awk -F, -v OFS=, 'NR > 1 && $4 == 1024 { $7 = $7 * 2 } 1' <<<"$good" >"$root/validation/tiny/results.csv"
run_regen 1 --check tiny
expect "ERROR: 1 measured rows differ"
echo "PASS"
