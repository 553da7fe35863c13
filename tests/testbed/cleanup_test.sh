#!/usr/bin/env bash
# (c) Nothing is left behind (namespaces, processes, temporary files) when
#   command-fails: COMMAND exits with status 3 (tools/testbed exits 3 too);
#   sigint:        SIGINT reaches tools/testbed while COMMAND runs (exit 130, COMMAND stopped);
#   sigterm:       SIGTERM reaches it during its own ping-pong measurement (exit 143).
# Usage: cleanup_test.sh TESTBED COLLSIM_MPI COLLSIM MPIEXEC CASE
# shellcheck source=tests/testbed/lib.sh
source "$(dirname "$0")/lib.sh"
need_root
case_name=$5

# Job control: a background job of a script would otherwise start with SIGINT ignored, which
# bash cannot trap (a terminal's Ctrl-C reaches tools/testbed normally).
set -m
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
info=$work/info
# COMMAND: notes its parent (tools/testbed) and its own pid, then stays or fails.
# shellcheck disable=SC2016 # expanded by the command's shell
note='echo "$PPID $$" >"$1"'

case $case_name in
  command-fails)
    status=0
    timeout -k 10 60 "$TESTBED" --nodes 2 --rate 1gbit "${quick[@]}" -- \
      sh -c "$note; exit 3" sh "$info" 2>"$work/err" || status=$?
    cat "$work/err"
    [ "$status" = 3 ] || fail "tools/testbed exited with $status, not COMMAND's 3"
    read -r testbed_pid _ <"$info"
    ;;
  sigint | sigterm)
    "$TESTBED" --nodes 2 --rate 1gbit "${quick[@]}" -- sh -c "$note; exec sleep 120" sh "$info" 2>"$work/err" &
    testbed_pid=$!
    # The moment to interrupt: sigint once COMMAND runs, sigterm while mpirun measures.
    for _ in $(seq 600); do
      if [ "$case_name" = sigint ] && [ -s "$info" ]; then break; fi
      if [ "$case_name" = sigterm ] && grep -q measuring "$work/err" &&
        [ -n "$(ip netns pids "ctb${testbed_pid}n2" 2>/dev/null)" ]; then break; fi
      sleep 0.1
    done
    signal=INT expected=130
    [ "$case_name" = sigterm ] && signal=TERM expected=143
    ip netns list | grep -q "^ctb${testbed_pid}n2" || fail "the cluster was not up after 60 s: $(cat "$work/err")"
    echo "sending SIG$signal to tools/testbed ($testbed_pid)"
    kill -"$signal" "$testbed_pid"
    status=0
    wait "$testbed_pid" || status=$?
    cat "$work/err"
    [ "$status" = "$expected" ] || fail "tools/testbed exited with $status after SIG$signal, not $expected"
    if [ -s "$info" ]; then
      read -r _ command_pid <"$info"
      for _ in $(seq 50); do kill -0 "$command_pid" 2>/dev/null || break; sleep 0.1; done
      ! kill -0 "$command_pid" 2>/dev/null || fail "COMMAND ($command_pid) still runs"
    fi
    ;;
  *) fail "unknown case '$case_name'" ;;
esac
expect_clean "ctb$testbed_pid"
echo "PASS: nothing left of ctb$testbed_pid"
