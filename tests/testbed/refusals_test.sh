#!/usr/bin/env bash
# (d) tools/testbed refuses, with exit status 2, exactly one line on stderr and nothing made:
# bad options (checked for any user), a user who is not root, and a root that cannot make
# network namespaces (root of a user namespace).
# shellcheck source=tests/testbed/lib.sh
source "$(dirname "$0")/lib.sh"

namespaces_before=$(ip netns list 2>/dev/null | awk '{ print $1 }' | sort)
checked=0
# expect_refusal "PART OF THE LINE" COMMAND...: runs COMMAND, which must be refused that way.
expect_refusal() {
  local want=$1 status=0 out err
  shift
  out=$(mktemp) err=$(mktemp)
  "$@" >"$out" 2>"$err" </dev/null || status=$?
  echo "$* -> $status: $(cat "$err")"
  [ "$status" = 2 ] || fail "exit status $status, not 2"
  [ ! -s "$out" ] || fail "printed on stdout: $(cat "$out")"
  [ "$(wc -l <"$err")" = 1 ] || fail "not one line on stderr"
  grep -q "^testbed: .*$want" "$err" || fail "the line does not say '$want'"
  rm -f "$out" "$err"
  checked=$((checked + 1))
}

tb=("$TESTBED" --collsim-mpi "$COLLSIM_MPI")
expect_refusal "missing --nodes" "${tb[@]}" --rate 1gbit -- true
expect_refusal "missing --rate" "${tb[@]}" --nodes 2 -- true
expect_refusal "missing COMMAND" "${tb[@]}" --nodes 2 --rate 1gbit
expect_refusal "missing COMMAND" "${tb[@]}" --nodes 2 --rate 1gbit --
expect_refusal "expected options, then -- COMMAND" "${tb[@]}" --nodes 2 --rate 1gbit true
expect_refusal "--nodes: '1'" "${tb[@]}" --nodes 1 --rate 1gbit -- true
expect_refusal "--nodes: 'two'" "${tb[@]}" --nodes two --rate 1gbit -- true
expect_refusal "--nodes: '255'" "${tb[@]}" --nodes=255 --rate 1gbit -- true
expect_refusal "--rate: 'fast'" "${tb[@]}" --nodes 2 --rate fast -- true
expect_refusal "--rate: '10%'" "${tb[@]}" --nodes 2 --rate 10% -- true
expect_refusal "--rate: '1gbyte'" "${tb[@]}" --nodes 2 --rate 1gbyte -- true
expect_refusal "--rate: '0'" "${tb[@]}" --nodes 2 --rate 0 -- true
expect_refusal "--rate: '10kbit' is below 1mbit" "${tb[@]}" --nodes 2 --rate 10kbit -- true
expect_refusal "--mtu: '100'" "${tb[@]}" --nodes 2 --rate 1gbit --mtu 100 -- true
expect_refusal "unknown option '--bogus'" "${tb[@]}" --nodes 2 --rate 1gbit --bogus 1 -- true
expect_refusal "--rate needs a value" "${tb[@]}" --nodes 2 --rate
expect_refusal "collsim-mpi not found" "$TESTBED" --collsim-mpi /nonexistent/collsim-mpi --nodes 2 --rate 1gbit -- true

if [ "$(id -u)" = 0 ]; then
  # Not root: nobody, through setpriv (util-linux) or runuser.
  if command -v setpriv >/dev/null; then
    expect_refusal "must run as root" setpriv --reuid=65534 --regid=65534 --clear-groups \
      "${tb[@]}" --nodes 2 --rate 1gbit -- true
  elif command -v runuser >/dev/null; then
    expect_refusal "must run as root" runuser -u nobody -- "${tb[@]}" --nodes 2 --rate 1gbit -- true
  else
    fail "neither setpriv nor runuser is installed (util-linux): cannot test as another user"
  fi
  # Root in a user namespace: uid 0, but no right to make network namespaces.
  if unshare --user --map-root-user true 2>/dev/null; then
    expect_refusal "cannot create network namespaces" unshare --user --map-root-user \
      "${tb[@]}" --nodes 2 --rate 1gbit -- true
  else
    echo "note: this kernel refuses user namespaces; the no-namespace refusal is not tested here"
  fi
else
  expect_refusal "must run as root" "${tb[@]}" --nodes 2 --rate 1gbit -- true
fi

# --help: usage on stdout, status 0.
"$TESTBED" --help | grep -q '^usage: tools/testbed --nodes N --rate RATE' || fail "--help"

namespaces_after=$(ip netns list 2>/dev/null | awk '{ print $1 }' | sort)
[ "$namespaces_before" = "$namespaces_after" ] ||
  fail "namespaces changed: $(diff <(echo "$namespaces_before") <(echo "$namespaces_after") | tr '\n' ' ')"
echo "PASS: $checked refusals"
