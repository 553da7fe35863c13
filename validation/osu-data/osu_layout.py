#!/usr/bin/env python3
"""Write a `collsim calibrate --from-osu` layout from a dataset's points.csv (normalise.py).

    validation/osu-data/osu_layout.py --points POINTS.csv --out DIR \\
        --socket A,B [--sockets A,B] [--ompi PREFIX] [--bcast-algorithm NAME]

The 2-process points only, each in the text format OSU 7.3 prints:
  DIR/socket/osu_latency.txt    osu_latency between cores A,B of one socket (--socket)
  DIR/sockets/osu_latency.txt   the same for two cores of two sockets (--sockets)
  DIR/socket/osu_bcast.txt      osu_bcast -f on 2 processes, --map-by core   (avg, min, max)
  DIR/sockets/osu_bcast.txt     the same with --map-by socket
(a folder only when its osu_latency is in the set). --ompi keeps the rows whose Open MPI module
starts with PREFIX (one build's runs; a set may hold two); --bcast-algorithm the rows of one forced
algorithm (on 2 processes every broadcast is one message; default binomial). Standard library only.
"""
import argparse
import csv
import os
import sys

ITERATIONS = {"latency": 10000, "bcast": 1000}  # printed only; collsim reads but does not use them


def write(path, title, header, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(f"\n# {title} v7.3\n# Datatype: MPI_CHAR.\n{header}\n")
        for r in rows:
            f.write(r + "\n")
    print(f"{path}: {len(rows)} sizes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--socket", required=True, help="cores A,B of one socket")
    ap.add_argument("--sockets", help="cores A,B on two sockets")
    ap.add_argument("--ompi", default="", help="keep rows whose ompi column starts with this")
    ap.add_argument("--bcast-algorithm", default="binomial")
    a = ap.parse_args()
    with open(a.points, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["ompi"].startswith(a.ompi)]
    for folder, cores, mapping in (("socket", a.socket, "core"), ("sockets", a.sockets, "socket")):
        if not cores:
            continue
        first = {}  # a pair measured twice (two files): the first file's rows, as points.csv orders them
        for r in rows:
            if r["op"] == "latency" and r["mapping"] == "cpus:" + cores:
                first.setdefault(int(r["bytes"]), float(r["osu_avg_us"]))
        lat = sorted(first.items())
        if not lat:
            sys.exit(f"{a.points}: no osu_latency rows for cpus:{cores}")
        write(os.path.join(a.out, folder, "osu_latency.txt"), "OSU MPI Latency Test",
              "# Size       Avg Latency(us)", [f"{n:<10d}{t:20.2f}" for n, t in lat])
        bc = sorted((int(r["bytes"]), float(r["osu_avg_us"]), float(r["osu_min_us"]), float(r["osu_max_us"]))
                    for r in rows if r["op"] == "bcast" and r["procs"] == "2" and r["mapping"] == mapping
                    and r["algorithm"] == a.bcast_algorithm and r["osu_min_us"])
        if bc:
            write(os.path.join(a.out, folder, "osu_bcast.txt"), "OSU MPI Broadcast Latency Test",
                  "# Size         Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations",
                  [f"{n:<10d}{v:20.2f}{lo:20.2f}{hi:20.2f}{ITERATIONS['bcast']:12d}" for n, v, lo, hi in bc])


if __name__ == "__main__":
    main()
