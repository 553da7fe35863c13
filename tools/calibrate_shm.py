"""A platform of this machine's shared memory, measured here (platforms/README.md, "This
machine's shared memory").

Open MPI's one-sided shared memory (osc sm) maps the target's window into the origin: a put or a
get is a copy by the origin's core, and a flush has nothing in flight to wait for. The platform
states that with what the sim engine has: no latency inside the node, a copy rate, and a software
overhead o for every put, get and flush (shm/send_overhead). The three measurements, each the
fastest of many runs (other processes share the two cores and only ever delay a run):

  1. many small puts: 10000 blocking DMA puts of 8 B (each a put and its flush) in one segment,
     t_small; each costs 2 o in the sim engine, so o = t_small / 10000 / 2;
  2. one large put: one blocking DMA put of 1.6 MB, t_large = 2 o + 1.6e6 / rate, so the copy rate
     rate = 1.6e6 / (t_large - 2 o), for the put's copy (loopback bandwidth, memory bandwidth)
     and the runtime's local copies into its buffer (memcpy) alike;
  3. the ping-pong of 1 B (collsim-mpi pingpong), one way = min RTT / 2 = o + r: what the
     receiver of a two-sided message spends, r = one way - o, is shm/recv_overhead (one-sided
     operations have no receiver).

Then it writes the platform with collsim platform (the command is in the file's collsim/command
property) and the measurements, with the commands that made them, to FILE.fit.txt.
Bad input (a measurement that failed, or values that give no positive rate) is one line, exit 2.
"""

import argparse
import csv
import io
import os
import shlex
import subprocess
import sys

PUTS = 10000
LARGE = 1600000


def fail(msg):
    print(f"calibrate_shm: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        fail(f"'{cmd[0]}': {e.strerror}")
    if p.returncode != 0:
        said = [line for line in p.stderr.splitlines() if any(c.isalpha() for c in line)]
        fail(f"'{' '.join(cmd)}' exited {p.returncode}{': ' + said[-1].strip() if said else ''}")
    return p.stdout


def coarray_min(binary, args, runs):
    cmd = [f"{binary}/collsim", "coarray", "--engine", "mpi", "--registered", *args, "--statistic", "min",
           "--min-runs", str(runs), "--max-runs", str(runs), "--csv"]
    rows = list(csv.DictReader(io.StringIO(run(cmd))))
    if len(rows) != 1 or rows[0]["data"] != "ok":
        fail(f"'{' '.join(cmd)}' gave no checked row")
    return float(rows[0]["time_s"]), " ".join(cmd)


def main():
    ap = argparse.ArgumentParser(description="a platform of this machine's shared memory")
    ap.add_argument("-o", "--output", default="platforms/this-machine-shm.xml")
    ap.add_argument("--bin", default="build/release/bin")
    ap.add_argument("--launcher", default="mpirun --oversubscribe" + (" --allow-run-as-root" if os.geteuid() == 0 else ""))
    a = ap.parse_args()

    pp_csv = a.output + ".pingpong.csv"
    pp_cmd = [*shlex.split(a.launcher), "-np", "2", f"{a.bin}/collsim-mpi", "pingpong", "--sizes", "1",
              "--min-runs", "20000", "--max-runs", "20000", "--time", "0", "-o", pp_csv]
    run(pp_cmd)
    with open(pp_csv) as f:
        one_way = float(next(csv.DictReader(f))["min_rtt_s"]) / 2
    os.remove(pp_csv)

    t_small, small_cmd = coarray_min(a.bin, ["--local", "1:10000", "--local-shape", "10000", "--remote",
                                             f"1:{2 * PUTS}:2", "--remote-shape", str(2 * PUTS)], 50)
    t_large, large_cmd = coarray_min(a.bin, ["--local", ":", "--local-shape", str(LARGE // 8), "--remote", ":",
                                             "--remote-shape", str(LARGE // 8)], 100)
    o = t_small / PUTS / 2
    if t_large <= 2 * o:
        fail(f"the 1.6 MB put ({t_large:.3e} s) took no longer than two overheads ({2 * o:.3e} s)")
    rate = LARGE / (t_large - 2 * o)
    r = max(0.0, one_way - o)

    ns = lambda s: f"{s * 1e9:.0f}ns"
    gbps = f"{rate / 1e9:.2f}GBps"
    platform_cmd = [f"{a.bin}/collsim", "platform", "--nodes", "1", "--sockets", "1", "--cores", "2",
                    "--protocol", "tcp+shm", "--loopback-latency", "0", "--loopback-bandwidth", gbps,
                    "--memcpy", gbps, "--memory-bandwidth", gbps,
                    "--protocol-option", f"shm/send_overhead:{ns(o)}",
                    "--protocol-option", f"shm/recv_overhead:{ns(r)}", "-o", a.output]
    run(platform_cmd)
    lines = [
        f"# {a.output}: measured here (tools/calibrate_shm), each the fastest run",
        f"small puts: {PUTS} blocking DMA puts of 8 B in {t_small * 1e6:.1f} us (fastest of 50): "
        f"o = {o * 1e9:.1f} ns per put and per flush",
        f"  {small_cmd}",
        f"large put: 1.6 MB in {t_large * 1e6:.1f} us (fastest of 100): rate = {rate / 1e9:.2f} GB/s",
        f"  {large_cmd}",
        f"ping-pong of 1 B: one way {one_way * 1e9:.0f} ns (min RTT / 2 of 20000): "
        f"receiver's r = {r * 1e9:.0f} ns",
        f"  {' '.join(pp_cmd)}",
        f"platform: {' '.join(platform_cmd)}",
    ]
    with open(a.output + ".fit.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
