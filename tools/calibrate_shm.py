"""A platform of this machine's shared memory, measured here (platforms/README.md, "This
machine's shared memory").

Open MPI's one-sided shared memory (osc sm) maps the target's window into the origin: a put or a
get is a copy by the origin's core, and a flush has nothing in flight to wait for. The platform
states that with what the sim engine has: no latency inside the node, a copy rate, a software
overhead o for every put and flush (shm/send_overhead) and o_get for every get
(shm/get_overhead), a cost F of the segment's end, its win_sync (shm/sync_overhead; the
flush_all before it goes by the tcp profile, free here), and a per-call cost c0 of every local
copy (collsim/copy_overhead: a copy of n bytes is c0 + n / rate).
The ten measurements, each the fastest of many runs in the fastest of 3 launches (other
processes share the two cores and only ever delay a run, and a whole launch can run slow), and
the fastest of --rounds rounds (default 3) that run every measurement one after another, so that
each spans minutes (this VM's cache runs slow in some of them):

  1. one small put: one blocking DMA put of 8 B (a put and its flush) and the segment's end,
     t_one = 2 o + F;
  2. many small puts: 10000 of them in one segment, t_small = 10000 x 2 o + F; with 1,
     o = (t_small - t_one) / (2 x 10000 - 2) and F = t_one - 2 o (clamped at 0, then o =
     t_small / 20000, as the fit file says). The 8 B of each put (0.3 ns here) go into o;
  3. one large put: one blocking DMA put of 1.6 MB, t_large = 2 o + 1.6e6 / rate + F, so the copy
     rate = 1.6e6 / (t_large - 2 o - F), for the put's copy (loopback bandwidth, memory
     bandwidth) and the runtime's local copies into its buffer (memcpy) alike;
  4. many small copies: one buffered statement whose local section is 20000 pieces of 8 B apart
     and whose remote is contiguous (remote(1:20000) = local(1:40000:2), B = 400000: case 2, each
     unit packed from its 8-byte pieces and put at once), t_copies = copies x c0 + bytes / rate
     (the copies' bytes) + puts x (2 o + unit / rate) + F, the counts the plan's own (the csv's
     copies and transfers), so c0 = (t_copies - puts x 2 o - F - 2 x bytes / rate) / copies
     (clamped at 0);
  5. the ping-pong of 1 B (collsim-mpi pingpong), one way = min RTT / 2 = o + r: what the
     receiver of a two-sided message spends, r = one way - o, is shm/recv_overhead (one-sided
     operations have no receiver);
  6. one very large put: one blocking DMA put of 25.6 MB, whose 51.2 MB of source and window no
     cache here holds between runs: the rate of a copy from and to memory,
     uncached = 25.6e6 / (t - 2 o - F) (collsim/uncached_copy_bandwidth);
  7. the cache a copy sees: blocking DMA puts of 0.8 to 12.8 MB, each touching twice its bytes,
     each's time per byte x = (t - 2 o - F) / n. The sweep is split where a step from 1 / rate
     (the puts below) to 1 / uncached (the puts from there on) fits the x best, in least squares:
     one put that a slow minute delayed does not move the split, where taking the first put
     slower than halfway did (the sweep of 2026-12-05 20:30 UTC had the 2.8 MB put at 14.7 GB/s
     between 3.2 and 4 MB ones at 17-21 GB/s). The node's cache (collsim/shared_cache) is then
     what the last put before the split and the first after it touch, halfway: s_lo + s_hi, for
     the sim engine's LRU cache of 64-byte lines (src/engines/sim/copy_cache.hpp);
  8. the yield: the 10000 small puts again with --mca mpi_yield_when_idle 1, which Open MPI
     sets itself when a node runs more processes than cores (ompi_info); its 10000 flushes and
     the end's flush_all each yield (osc sm's MPI_Rput, MPI_Rget, MPI_Wait and MPI_Win_sync do not
     here), y = (t_yield - t_small) / 10001 (shm/yield_overhead: what an oversubscribed node's
     flushes add);
  9. many small gets: 10000 DMA gets of 8 B in one segment (MPI_Rget and its MPI_Wait each, no
     flush), t_gets = 10000 o_get(8) + F, so o_get(8) = (t_gets - F) / 10000 (shm/get_overhead:
     a get costs the origin more than a put here, validation/coarray-cases.md finding 15). The
     8 B of each get go into o_get, as a put's into o;
 10. gets of 8000 B: 200 DMA gets of 8000-byte runs in one segment, t = 200 (o_get(8000) + 8000
     / rate) + F. A get reads lines another core wrote, and short reads of them wait on each
     line (2026-12-05 20:45 UTC: 516.6 ns a get of 8000 B, where o_get(8) and the bytes at the
     copy rate give 382.6 ns), while long ones stream (the 1.6 MB GET of the scenario runs at
     least at the copy rate).
     So shm/get_overhead is a table, as SimGrid's SMPI calibrates its overheads: o_get(8) at 0
     bytes, rising linearly to o_get(8000) at 8000 B and holding there (when o_get(8000) is
     below o_get(8), o_get(8) for every size).

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
SMALL_GETS = 10000
LARGE = 1600000
PIECES = 20000  # 8-byte pieces of the copies' statement
GETS = 200  # gets of 8000 B, each a run of 1000 elements
HUGE = 25600000  # the uncached put: 51.2 MB touched, beyond this VM's 32 MiB L3
# The cache sweep's puts (bytes): 0.8 to 12.8 MB, finer where this VM's puts turn uncached.
SWEEP = [800000, 1200000, 1600000, 2000000, 2400000, 2800000, 3200000, 4000000, 4800000, 6400000, 8000000,
         9600000, 12800000]
# Each coarray measurement is the fastest of its runs in the fastest of this many mpirun launches:
# here a whole launch sometimes runs 2-3x slow (the same 1.6 MB put: 70-82 us in 11 launches of
# 12, 201 us in one), which more runs inside it do not undo.
LAUNCHES = 3


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


def coarray_row(binary, args, runs, registered=True, launcher=None):
    cmd = [f"{binary}/collsim", "coarray", "--engine", "mpi", *(["--launcher", launcher] if launcher else []),
           *(["--registered"] if registered else []), *args,
           "--statistic", "min", "--min-runs", str(runs), "--max-runs", str(runs), "--launches", str(LAUNCHES),
           "--csv"]
    rows = list(csv.DictReader(io.StringIO(run(cmd))))
    if len(rows) != 1 or rows[0]["data"] != "ok":
        fail(f"'{' '.join(cmd)}' gave no checked row")
    return rows[0], shlex.join(cmd)


def main():
    ap = argparse.ArgumentParser(description="a platform of this machine's shared memory")
    ap.add_argument("-o", "--output", default="platforms/this-machine-shm.xml")
    ap.add_argument("--bin", default="build/release/bin")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds of every measurement, one after another; each keeps its fastest (default 3)")
    ap.add_argument("--launcher", default="mpirun --oversubscribe" + (" --allow-run-as-root" if os.geteuid() == 0 else ""))
    a = ap.parse_args()
    if a.rounds < 1:
        fail(f"--rounds {a.rounds}: give 1 or more")

    pp_csv = a.output + ".pingpong.csv"
    pp_cmd = [*shlex.split(a.launcher), "-np", "2", f"{a.bin}/collsim-mpi", "pingpong", "--sizes", "1",
              "--min-runs", "20000", "--max-runs", "20000", "--time", "0", "-o", pp_csv]
    run(pp_cmd)
    with open(pp_csv) as f:
        one_way = float(next(csv.DictReader(f))["min_rtt_s"]) / 2
    os.remove(pp_csv)

    whole = lambda n: ["--local", ":", "--local-shape", str(n // 8), "--remote", ":", "--remote-shape", str(n // 8)]
    # n elements of 8 B into every other element of the coarray: n transfers of 8 B.
    apart = lambda n: ["--local", f"1:{n}", "--local-shape", str(n), "--remote", f"1:{2 * n}:2", "--remote-shape",
                       str(2 * n)]
    # name: (section, runs, registered[, launcher])
    yielding = a.launcher + " --mca mpi_yield_when_idle 1"
    plan = {
        "one": (["--local", "1:1", "--local-shape", "1", "--remote", "1:1", "--remote-shape", "1"], 200, True),
        "small": (apart(PUTS), 50, True),
        "large": (whole(LARGE), 100, True),
        "copies": (["--local", f"1:{2 * PIECES}:2", "--local-shape", str(2 * PIECES), "--remote", ":", "--remote-shape",
                    str(PIECES)], 50, False),
        "huge": (whole(HUGE), 10, True),
        "gets": (["--get", *apart(SMALL_GETS)], 50, True),
        "gets8000": (["--get", "--local", ":,:", "--local-shape", f"1000,{GETS}", "--remote", "1:1000,:",
                      "--remote-shape", f"2000,{GETS}"], 50, True),
        "yield": (apart(PUTS), 50, True, yielding),
        **{f"sweep{n}": (whole(n), 20, True) for n in SWEEP},
    }
    # Every measurement once a round, the rounds one after another: each keeps its fastest row, so
    # a minute in which this VM's cache runs slow (finding 19) decides none alone.
    best = {}
    for _ in range(a.rounds):
        for name, (section, runs, registered, *launcher) in plan.items():
            row, cmd = coarray_row(a.bin, section, runs, registered, *launcher)
            if name not in best or float(row["time_s"]) < float(best[name][0]["time_s"]):
                best[name] = (row, cmd)
    t = lambda name: float(best[name][0]["time_s"])
    t_one, one_cmd = t("one"), best["one"][1]
    t_small, small_cmd = t("small"), best["small"][1]
    t_large, large_cmd = t("large"), best["large"][1]
    copies_row, copies_cmd = best["copies"]
    t_huge, huge_cmd = t("huge"), best["huge"][1]
    t_yield, yield_cmd = t("yield"), best["yield"][1]
    t_gets, gets_cmd = t("gets"), best["gets"][1]
    t_gets8000, gets8000_cmd = t("gets8000"), best["gets8000"][1]
    sweep = [(n, t(f"sweep{n}"), best[f"sweep{n}"][1]) for n in SWEEP]
    o = (t_small - t_one) / (2 * PUTS - 2)
    if o <= 0:
        fail(f"{PUTS} puts ({t_small:.3e} s) took no longer than one ({t_one:.3e} s)")
    f = t_one - 2 * o
    f_note = ""
    if f < 0:
        f_note = f" (t_one - 2 o = {f * 1e9:.0f} ns, clamped at 0; o = t_small / {2 * PUTS} instead)"
        f, o = 0.0, t_small / PUTS / 2
    if t_large <= 2 * o + f:
        fail(f"the 1.6 MB put ({t_large:.3e} s) took no longer than two overheads and F ({2 * o + f:.3e} s)")
    rate = LARGE / (t_large - 2 * o - f)
    if t_huge <= 2 * o + f:
        fail(f"the 25.6 MB put ({t_huge:.3e} s) took no longer than two overheads and F ({2 * o + f:.3e} s)")
    uncached = HUGE / (t_huge - 2 * o - f)
    if uncached >= rate:
        fail(f"the 25.6 MB put ran at {uncached / 1e9:.2f} GB/s, no slower than the 1.6 MB one ({rate / 1e9:.2f} GB/s): "
             "no cache to model (run again on an idle machine)")
    # The split k (puts 0..k-1 cached, k.. uncached) whose step fits the puts' times per byte best.
    per_byte = [(tn - 2 * o - f) / n for n, tn, _ in sweep]
    misfit = lambda k: (sum((x - 1 / rate) ** 2 for x in per_byte[:k]) +
                        sum((x - 1 / uncached) ** 2 for x in per_byte[k:]))
    first_uncached = min(range(len(SWEEP) + 1), key=misfit)
    if first_uncached == len(SWEEP):
        fail(f"puts of {SWEEP[0] / 1e6:g} to {SWEEP[-1] / 1e6:g} MB were all cached: the cache is beyond the sweep")
    if first_uncached == 0:
        fail(f"the smallest put, {SWEEP[0] / 1e6:g} MB, was already uncached: the cache is below the sweep "
             "(run again on an idle machine)")
    cache = SWEEP[first_uncached - 1] + SWEEP[first_uncached]
    t_copies = float(copies_row["time_s"])
    copies, puts, moved = (int(copies_row[k]) for k in ("copies", "transfers", "bytes"))
    if copies_row["case"] not in ("2", "3") or copies == 0:
        fail(f"'{copies_cmd}' is case {copies_row['case']} with {copies} copies, not a statement packing pieces")
    c0 = (t_copies - puts * 2 * o - f - 2 * moved / rate) / copies
    c0_note = ""
    if c0 < 0:
        c0_note = f" ({c0 * 1e9:.1f} ns, clamped at 0)"
        c0 = 0.0
    r = max(0.0, one_way - o)
    # The yielding segment's 10000 flushes and its flush_all each yield once.
    y = (t_yield - t_small) / (PUTS + 1)
    y_note = ""
    if y < 0:
        y_note = f" ({y * 1e9:.0f} ns, clamped at 0)"
        y = 0.0
    og = (t_gets - f) / SMALL_GETS
    if og <= 0:
        fail(f"{SMALL_GETS} gets ({t_gets:.3e} s) took no longer than the segment's end F ({f:.3e} s)")
    ns = lambda s: f"{s * 1e9:.0f}ns"
    og8000 = (t_gets8000 - f) / GETS - 8000 / rate
    # The table: o_get(8) at 0 bytes, rising to o_get(8000) at 8000 B, held from there.
    if og8000 > og:
        get_table = f"0:{og:.4g}:{(og8000 - og) / 8000:.4g};8000:{og8000:.4g}:0"
    else:
        get_table = ns(og)

    gbps = f"{rate / 1e9:.2f}GBps"
    platform_cmd = [f"{a.bin}/collsim", "platform", "--nodes", "1", "--sockets", "1", "--cores", "2",
                    "--protocol", "tcp+shm", "--loopback-latency", "0", "--loopback-bandwidth", gbps,
                    "--memcpy", gbps, "--memory-bandwidth", gbps, "--copy-overhead", ns(c0),
                    "--shared-cache", str(cache), "--uncached-copy-bandwidth", f"{uncached / 1e9:.2f}GBps",
                    "--protocol-option", f"shm/send_overhead:{ns(o)}",
                    "--protocol-option", f"shm/get_overhead:{get_table}",
                    "--protocol-option", f"shm/recv_overhead:{ns(r)}",
                    "--protocol-option", f"shm/sync_overhead:{ns(f)}",
                    "--protocol-option", f"shm/yield_overhead:{ns(y)}", "-o", a.output]
    run(platform_cmd)
    lines = [
        f"# {a.output}: measured here (tools/calibrate_shm), each the fastest run",
        f"one small put: one blocking DMA put of 8 B and sync memory in {t_one * 1e6:.3f} us (fastest of 200 runs in 3 launches, in {a.rounds} rounds): "
        f"t_one = 2 o + F",
        f"  {one_cmd}",
        f"small puts: {PUTS} blocking DMA puts of 8 B in {t_small * 1e6:.1f} us (fastest of 50 runs in 3 launches, in {a.rounds} rounds): "
        f"o = (t_small - t_one) / {2 * PUTS - 2} = {o * 1e9:.1f} ns per put and per flush",
        f"  {small_cmd}",
        f"segment end: F = t_one - 2 o = {f * 1e9:.0f} ns{f_note}",
        f"large put: 1.6 MB in {t_large * 1e6:.1f} us (fastest of 100 runs in 3 launches, in {a.rounds} rounds): rate = 1.6e6 / (t_large - 2 o - F) = "
        f"{rate / 1e9:.2f} GB/s",
        f"  {large_cmd}",
        f"small copies: {copies} copies of 8 B into the buffer and {puts} put(s) of {moved} B in all, case "
        f"{copies_row['case']}, in {t_copies * 1e6:.1f} us (fastest of 50 runs in 3 launches, in {a.rounds} rounds): c0 = (t - {puts} x 2 o - F - 2 x "
        f"{moved} / rate) / {copies} = {c0 * 1e9:.1f} ns per copy{c0_note}",
        f"  {copies_cmd}",
        f"ping-pong of 1 B: one way {one_way * 1e9:.0f} ns (min RTT / 2 of 20000): "
        f"receiver's r = {r * 1e9:.0f} ns",
        f"  {' '.join(pp_cmd)}",
        f"uncached put: 25.6 MB in {t_huge * 1e6:.1f} us (fastest of 10 runs in 3 launches, in {a.rounds} rounds): uncached = 25.6e6 / "
        f"(t - 2 o - F) = {uncached / 1e9:.2f} GB/s",
        f"  {huge_cmd}",
        f"yield: the {PUTS} small puts with mpi_yield_when_idle on (as Open MPI sets it on an oversubscribed node) in "
        f"{t_yield * 1e6:.1f} us (fastest of 50 runs in 3 launches, in {a.rounds} rounds): y = (t - t_small) / "
        f"{PUTS + 1} = {y * 1e9:.1f} ns per flush and flush_all{y_note}",
        f"  {yield_cmd}",
        f"small gets: {SMALL_GETS} DMA gets of 8 B in {t_gets * 1e6:.1f} us (fastest of 50 runs in 3 launches, in {a.rounds} rounds): "
        f"o_get(8) = (t_gets - F) / {SMALL_GETS} = {og * 1e9:.1f} ns per get",
        f"  {gets_cmd}",
        f"gets of 8000 B: {GETS} DMA gets in {t_gets8000 * 1e6:.1f} us (fastest of 50 runs in 3 launches, in {a.rounds} "
        f"rounds): o_get(8000) = (t - F) / {GETS} - 8000 / rate = {og8000 * 1e9:.1f} ns per get; "
        f"shm/get_overhead {get_table}",
        f"  {gets8000_cmd}",
        f"cache: the step from 1 / rate = {1e12 / rate:.2f} ps/B to 1 / uncached = {1e12 / uncached:.2f} ps/B that "
        f"fits x = (t - 2 o - F) / n best in least squares (fastest of 20 runs in 3 launches, in {a.rounds} rounds, "
        f"each):",
        *[f"  {n / 1e6:g} MB: {tn * 1e6:.1f} us, {n / (tn - 2 * o - f) / 1e9:.2f} GB/s, "
          f"{'cached' if k < first_uncached else 'uncached'}" for k, (n, tn, _) in enumerate(sweep)],
        f"  shared cache = {SWEEP[first_uncached - 1] / 1e6:g} MB + {SWEEP[first_uncached] / 1e6:g} MB touched = "
        f"{cache} B",
        f"  {sweep[0][2]} (and the other sizes)",
        f"platform: {shlex.join(platform_cmd)}",
    ]
    with open(a.output + ".fit.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
