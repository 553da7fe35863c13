# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this
# Shared by the testbed tests (sourced). Each test script is called by ctest as
#   bash NAME_test.sh TESTBED COLLSIM_MPI COLLSIM MPIEXEC
# with the paths of tools/testbed, the build's collsim-mpi and collsim, and mpirun.
set -euo pipefail

TESTBED=$1 COLLSIM_MPI=$2 COLLSIM=$3 MPIEXEC=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The clusters need root. Not root: skipped (exit 77, ctest's SKIP_RETURN_CODE), saying so. As
# root, a machine that cannot make namespaces fails the tests (tools/testbed says why).
need_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "SKIP: tools/testbed needs root (network namespaces); run the tests as root"
    exit 77
  fi
}

# Quick measurement settings for tests: a few sizes, short.
quick=(--collsim-mpi "$COLLSIM_MPI" --pingpong-sizes "1,256KiB,1MiB" --pingpong-time 0.05)

# Namespaces and processes left by the testbed whose namespaces start with $1 (e.g. ctb1234):
# prints them, nothing when all is clean.
leftovers() {
  local prefix=$1 pid
  ip netns list 2>/dev/null | awk -v p="$prefix" '$1 ~ "^" p "(s|n[0-9]+)$" { print "namespace " $1 }'
  for pid in /proc/[0-9]*; do
    if tr '\0' ' ' <"$pid/cmdline" 2>/dev/null | grep -q "/tmp/$prefix\."; then
      echo "process ${pid#/proc/}: $(tr '\0' ' ' <"$pid/cmdline")"
    fi
  done
  find /tmp -maxdepth 1 -name "$prefix.*" -printf 'file %p\n' 2>/dev/null || true
}

# Fails unless nothing of testbed $1 (its namespace prefix) is left, allowing it 5 s to vanish.
expect_clean() {
  local left
  for _ in $(seq 50); do
    left=$(leftovers "$1")
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  fail "left behind by $1: $left"
}
