#!/usr/bin/env python3
"""Normalise published OSU measurements of Open MPI into one CSV per dataset (points.csv).

    validation/osu-data/normalise.py [--raw DIR] [--out DIR] [DATASET ...]

DIR/<dataset>/raw/... holds the files exactly as published (see <dataset>/SOURCE.md for where
they come from); the script writes OUT/<dataset>/points.csv. --raw defaults to the directory of
this script, --out to --raw. Standard library only; the output is deterministic (rows in the
order of DATASETS below, then of the files, then of their lines).

Columns (empty where unknown):
  dataset, op, algorithm, mapping, procs, nodes, bytes, osu_avg_us, osu_min_us, osu_max_us
    the comparison's columns. op: bcast, barrier, allreduce, allgather, alltoall or latency (osu_latency, 2 ranks).
    algorithm: Open MPI 4.1 coll/tuned name (default = algorithm 0, the fixed decision).
    mapping: mpirun --map-by core|socket|node; for osu_latency "cpus:A,B" (--cpu-list A,B).
    nodes: nodes the ranks occupy, derived from the job layout (see SOURCE.md).
    osu_*_us: OSU's Avg/Min/Max latency in microseconds, as printed (2 decimals).
  algorithm_id, ompi, osu, source, note
    the forced coll_tuned_<op>_algorithm value, the Open MPI module and OSU version of the run,
    the raw file and line the row comes from, and what SOURCE.md says about that file.

To add a dataset: write a function that yields dicts with the keys of COLUMNS (missing keys are
written empty) and add it to DATASETS.
"""
import argparse
import csv
import math
import os
import re
import sys

COLUMNS = ["dataset", "op", "algorithm", "mapping", "procs", "nodes", "bytes",
           "osu_avg_us", "osu_min_us", "osu_max_us",
           "algorithm_id", "ompi", "osu", "source", "note"]

# Open MPI 4.1 coll/tuned algorithm numbers (checked against shared/reference/openmpi-algorithms.md).
BCAST = {0: "default", 1: "basic_linear", 2: "chain", 3: "pipeline", 4: "split_binary_tree",
         5: "binary_tree", 6: "binomial", 7: "knomial", 8: "scatter_allgather",
         9: "scatter_allgather_ring"}
BARRIER = {0: "default", 1: "linear", 2: "double_ring", 3: "recursive_doubling", 4: "bruck",
           5: "two_proc", 6: "tree"}


def nodes_for(mapping, procs, slots_per_node, nodes_in_job):
    """Nodes occupied under ORTE's mapping in a job of nodes_in_job x slots_per_node slots:
    core and socket fill one node's slots before the next; node round-robins over nodes."""
    if mapping == "node":
        return min(procs, nodes_in_job)
    return math.ceil(procs / slots_per_node)


def read_csv(path):
    """(line number, row) for each data row of a CSV with one header line."""
    with open(path, newline="") as f:
        for number, row in enumerate(csv.reader(f), start=1):
            if number > 1 and row:
                yield number, [cell.strip() for cell in row]


def osu_text(path, start_marker):
    """(line number, marker line, size, avg) for each data row of OSU text output; the marker is
    the last line before the rows that starts with start_marker."""
    marker = None
    with open(path) as f:
        for number, line in enumerate(f, start=1):
            line = line.rstrip("\n")
            if line.startswith(start_marker):
                marker = line
                continue
            fields = line.split()
            if marker and len(fields) == 2 and fields[0].isdigit():
                yield number, marker, int(fields[0]), fields[1]


# --- orfeo-thin-zampar: mzampar/High_Performance_Computing_2023, ORFEO THIN nodes ----------------

def orfeo_thin_zampar(raw):
    name = "orfeo-thin-zampar"
    base = "raw/Excercise_1"
    sep_run = ("openMPI/4.1.6/gnu/14.2.1", "7.3")
    feb_run = ("openMPI/4.1.5/icc/2021.7.1", "unknown (prebuilt in the author's ~/.local)")
    # file, forced bcast algorithm, run, note
    bcast_files = [
        (base + "/bcast/results/bcast_default.csv", 0, sep_run, ""),
        (base + "/bcast/results/bcast_linear.csv", 6, sep_run,
         "file named linear and labelled Linear, but its job script forces algorithm 6 (binomial)"),
        (base + "/bcast/results/bcast_chain.csv", 2, sep_run, ""),
        (base + "/bcast/results/bcast_binarytree.csv", 5, sep_run, ""),
        (base + "/bcast/results/bcast_binomial.csv", 6, feb_run, "Feb 2024 run"),
        (base + "/bcast/results/bcast_pipeline.csv", 3, feb_run, "Feb 2024 run"),
        ("raw-e10444e/Excercise_1/bcast/results/bcast_pipeline_socket_node.csv", 3, feb_run,
         "Feb 2024 run, second pipeline run (deleted from the repository later)"),
    ]
    for rel, alg, (ompi, osu), note in bcast_files:
        for line, row in read_csv(os.path.join(raw, rel)):
            mapping, procs, size = row[1], int(row[2]), int(row[3])
            yield {"dataset": name, "op": "bcast", "algorithm": BCAST[alg], "mapping": mapping,
                   "procs": procs, "nodes": nodes_for(mapping, procs, 24, 2), "bytes": size,
                   "osu_avg_us": row[4], "osu_min_us": row[5] if len(row) > 5 else "",
                   "osu_max_us": row[6] if len(row) > 6 else "", "algorithm_id": alg,
                   "ompi": ompi, "osu": osu, "source": f"{rel}:{line}", "note": note}
    # The barrier scripts set coll_tuned_bcast_algorithm, not coll_tuned_barrier_algorithm:
    # every barrier file measured Open MPI's default barrier.
    for label in ["default", "linear", "recursive_doubling", "tree"]:
        rel = f"{base}/barrier/results/barrier_{label}.csv"
        for line, row in read_csv(os.path.join(raw, rel)):
            mapping, procs = row[1], int(row[2])
            yield {"dataset": name, "op": "barrier", "algorithm": "default", "mapping": mapping,
                   "procs": procs, "nodes": nodes_for(mapping, procs, 24, 2), "bytes": 0,
                   "osu_avg_us": row[3], "algorithm_id": 0, "ompi": sep_run[0], "osu": sep_run[1],
                   "source": f"{rel}:{line}",
                   "note": f"file labelled {label}, but the script forced only the bcast "
                           "algorithm: default barrier"}
    # osu_latency by --cpu-list pairs (logical core numbers: 0-11 socket 0, 12-23 socket 1).
    for rel, note in [
            (base + "/latency/latency_data_single_node.csv", "one node"),
            (base + "/latency/latency_data_two_nodes.csv",
             "labelled two nodes, but both ranks ran on the first node (--host N1:24,N2:24 with "
             "-np 2); pairs A,A shared one core")]:
        for line, row in read_csv(os.path.join(raw, rel)):
            a, b = int(row[0]), int(row[1])
            yield {"dataset": name, "op": "latency", "mapping": f"cpus:{a},{b}", "procs": 2,
                   "nodes": 1, "bytes": int(row[2]), "osu_avg_us": row[3], "ompi": sep_run[0],
                   "osu": "unknown (the author's ~/.local build)", "source": f"{rel}:{line}",
                   "note": note + ("; same core: oversubscribed" if a == b else "")}


# --- orfeo-epyc-valentinis: ValentinisAlessio/HPC_final_project, ORFEO EPYC nodes ---------------

def orfeo_epyc_valentinis(raw):
    name = "orfeo-epyc-valentinis"
    ompi, osu = "openMPI/4.1.5/gnu/12.2.1", "7.3"
    base = "raw/exercise1/results_def"
    bcast = [("def", 0), ("linear", 1), ("chain", 2), ("bintree", 5)]
    barrier = [("default", 0), ("linear", 1), ("ring", 2), ("bruck", 4)]
    for mapping in ["core", "socket", "node"]:
        for label, alg in bcast:
            rel = f"{base}/bcast_{label}_results_wu_{mapping}.csv"
            seen = set()
            for line, row in read_csv(os.path.join(raw, rel)):
                procs, size = int(row[2]), int(row[3])
                note = "repeat of an earlier row of the same file" if (procs, size) in seen else ""
                seen.add((procs, size))
                yield {"dataset": name, "op": "bcast", "algorithm": BCAST[alg], "mapping": mapping,
                       "procs": procs, "nodes": nodes_for(mapping, procs, 128, 2), "bytes": size,
                       "osu_avg_us": row[4], "algorithm_id": alg, "ompi": ompi, "osu": osu,
                       "source": f"{rel}:{line}", "note": note}
        for label, alg in barrier:
            rel = f"{base}/barrier_{label}_results_wu_{mapping}.csv"
            for line, row in read_csv(os.path.join(raw, rel)):
                procs = int(row[2])
                yield {"dataset": name, "op": "barrier", "algorithm": BARRIER[alg],
                       "mapping": mapping, "procs": procs,
                       "nodes": nodes_for(mapping, procs, 128, 2), "bytes": 0,
                       "osu_avg_us": row[3], "algorithm_id": alg, "ompi": ompi, "osu": osu,
                       "source": f"{rel}:{line}"}


# --- orfeo-epyc-ruoppolo: eruoppolo/HPC_2023, ORFEO EPYC nodes -----------------------------------

def orfeo_epyc_ruoppolo(raw):
    name = "orfeo-epyc-ruoppolo"
    ompi = "openMPI/4.1.6/gnu/14.2.1"
    osu = "7.4 (the version its osu_latency printed)"
    base = "raw/ex1/results/bcast"
    files = []
    for alg in [0, 1, 3, 5]:
        files.append((f"{base}/var_size/bcast{alg}_core_mapping_epyc.csv", alg, "core"))
    for alg in [0, 1, 3, 5]:
        files.append((f"{base}/fixed_size/bcast{alg}_fixed_core.csv", alg, "core"))
    for alg in [3, 5]:
        files.append((f"{base}/map-by-sock/bcast{alg}_fixed_socket.csv", alg, "socket"))
    for rel, alg, mapping in files:
        for line, row in read_csv(os.path.join(raw, rel)):
            procs, size = int(row[0]), int(row[1])
            yield {"dataset": name, "op": "bcast", "algorithm": BCAST[alg], "mapping": mapping,
                   "procs": procs, "nodes": nodes_for(mapping, procs, 128, 2), "bytes": size,
                   "osu_avg_us": row[2], "algorithm_id": alg, "ompi": ompi, "osu": osu,
                   "source": f"{rel}:{line}"}
    # osu_latency between chosen cores (latency_pt2pt.sh), two runs.
    pairs = {"Testing Same CCX": ("0,1", 1, "same CCX"),
             "Testing Same CCD, Different CCX": ("0,4", 1, "same CCD, other CCX"),
             "Testing Same NUMA": ("0,8", 1, "same NUMA domain, other CCD"),
             "Testing Same SOCKET": ("0,16", 1, "same socket, other NUMA domain"),
             "Testing Different SOCKET": ("0,32", 1, "labelled different socket, but logical "
                                          "core 32 is on socket 0 of a 64-core socket: same "
                                          "socket, other NUMA domain"),
             "Testing Different NODE": ("0,0", 2, "one rank on each node")}
    for rel in ["raw/ex1/scripts/output/slurm-871042.out", "raw/ex1/scripts/output/slurm-871990.out"]:
        for line, marker, size, avg in osu_text(os.path.join(raw, rel), "Testing "):
            cpus, nodes, note = pairs[marker]
            yield {"dataset": name, "op": "latency", "mapping": f"cpus:{cpus}", "procs": 2,
                   "nodes": nodes, "bytes": size, "osu_avg_us": avg, "ompi": ompi,
                   "osu": "7.4", "source": f"{rel}:{line}", "note": note}


# --- excalibur-alaska: ukri-excalibur/excalibur-tests, AlaSKA's IB and RoCE partitions ------------

def excalibur_alaska(raw):
    """OSU 5.6.2 under srun (block distribution: ranks 0-31 on the first node, as map-by core),
    Open MPI 4.0.3 with pml ucx; collectives at Open MPI's default (fixed decision), 2 nodes x 32."""
    name = "excalibur-alaska"
    ompi = "openmpi/4.0.3 (ucx)"
    ops = {"Osu_allreduce": "allreduce", "Osu_allgather": "allgather", "Osu_alltoall": "alltoall",
           "Osu_latency": "latency"}
    for part, fabric in [("ib-gcc9-openmpi4-ucx", "EDR InfiniBand"),
                         ("roce-gcc9-openmpi4-ucx", "RoCE")]:
        for test, op in ops.items():
            rel = f"raw/alaska/{part}/omb/{test}/rfm_{test}_job.out"
            procs, nodes = (2, 2) if op == "latency" else (64, 2)
            for line, _marker, size, avg in osu_text(os.path.join(raw, rel), "# Size"):
                row = {"dataset": name, "op": op, "mapping": "core", "procs": procs,
                       "nodes": nodes, "bytes": size, "osu_avg_us": avg, "ompi": ompi,
                       "osu": "5.6.2", "source": f"{rel}:{line}", "note": fabric}
                if op != "latency":
                    row["algorithm"], row["algorithm_id"] = "default", 0
                else:
                    row["mapping"] = "node"
                yield row


DATASETS = {
    "orfeo-thin-zampar": orfeo_thin_zampar,
    "orfeo-epyc-valentinis": orfeo_epyc_valentinis,
    "orfeo-epyc-ruoppolo": orfeo_epyc_ruoppolo,
    "excalibur-alaska": excalibur_alaska,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raw", default=here, help="directory holding <dataset>/raw/")
    parser.add_argument("--out", help="directory to write <dataset>/points.csv in (default --raw)")
    parser.add_argument("datasets", nargs="*", help="datasets to normalise (default: all)")
    args = parser.parse_args()
    out = args.out or args.raw
    for name in args.datasets or DATASETS:
        if name not in DATASETS:
            sys.exit(f"unknown dataset {name}; known: {', '.join(DATASETS)}")
        rows = list(DATASETS[name](os.path.join(args.raw, name)))
        for row in rows:
            if not re.fullmatch(r"\d+(\.\d+)?", str(row["osu_avg_us"])):
                sys.exit(f"{name}: not a latency: {row['osu_avg_us']!r} at {row['source']}")
        os.makedirs(os.path.join(out, name), exist_ok=True)
        path = os.path.join(out, name, "points.csv")
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS, restval="", lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        print(f"{path}: {len(rows)} points")


if __name__ == "__main__":
    main()
