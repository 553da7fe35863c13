#!/bin/sh
# The fidelity benchmark: every algorithm of ours (engine mpi) against Open MPI's own
# implementation of it (engine mpi-native), interleaved call by call, on 4 processes by default.
#
#   tools/bench/fidelity.sh [collsim-mpi fidelity options]     e.g. --output fidelity.csv --min-runs 50
#
# COLLSIM_MPI names the program (default: build/release/bin/collsim-mpi beside this directory),
# NP the number of processes (default 4). More processes than cores are allowed (--oversubscribe);
# as root, mpirun also needs --allow-run-as-root, which is added. See tools/bench/README.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
program=${COLLSIM_MPI:-$here/../../build/release/bin/collsim-mpi}
np=${NP:-4}
if [ ! -x "$program" ]; then
  echo "tools/bench/fidelity.sh: no $program (build it first: cmake --build --preset release)" >&2
  exit 2
fi
if [ "$(id -u)" = 0 ]; then
  exec mpirun --allow-run-as-root --oversubscribe -np "$np" "$program" fidelity "$@"
fi
exec mpirun --oversubscribe -np "$np" "$program" fidelity "$@"
