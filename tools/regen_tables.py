"""The tables and data-derived sentences of the validation reports, rendered from their data.

Each function renders one block of a report, `<!-- regen: PRODUCT ID -->` ... `<!-- /regen -->`,
from the product's committed files under ROOT (the repository, or tools/regen's scratch copy of
it), and returns its Markdown. They all go through the helpers at the top (one table layout, one
way to write sizes and times), so that a report's tables read alike and a table can be compared
cell by cell with the one in the report. What a report concludes from them stays hand-written.
Used by tools/regen; standard library only.
"""

import csv
import math
import os
from collections import defaultdict

RENDERERS = {}  # (product, block id) -> function(root) -> Markdown


def renders(product, block):
    def register(function):
        RENDERERS[(product, block)] = function
        return function

    return register


# ---- shared formatting ----


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def size_text(n, space=""):
    """8192 -> '8KiB' (or '8 KiB' with space=' '), 8 -> '8B'."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{space}{unit}"
    return f"{n}{space}B"


def bytes_text(n):
    """collsim's own: '4MiB', '1KiB', '512' (no unit below 1 KiB), as in `collsim compare`."""
    text = size_text(n)
    return text[:-1] if text.endswith("B") and not text.endswith("iB") else text


def ms(seconds, decimals=3):
    return f"{seconds * 1e3:.{decimals}f}"


def time_text(seconds):
    """'45 us', '2.38 ms', '10.14 s'."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def percent(x, decimals=1):
    return f"{100 * x:.{decimals}f}%"


def short(op):
    return op.split("/", 1)[1]


def read_csv(root, path):
    with open(os.path.join(root, path), newline="") as f:
        return list(csv.DictReader(f))


def ordered(values):
    """Distinct values in order of first appearance."""
    return list(dict.fromkeys(values))


def by_time(times):
    """(name, time) pairs, fastest first; equal times in alphabetical order."""
    return sorted(times.items(), key=lambda kv: (kv[1], kv[0]))


def fastest(times):
    return by_time(times)[0]


# ---- shared tables ----


def results_times(rows, engine, axes=()):
    """{(axes..., procs, bytes): {algorithm: time}} of one engine, algorithms in file order."""
    out = defaultdict(dict)
    for r in rows:
        if r["engine"] == engine:
            out[tuple(r[a] for a in axes) + (int(r["procs"]), int(r["bytes"]))][short(r["op"])] = float(r["time_s"])
    return out


def fastest_table(rows, engines, axes=(), axis_headers=()):
    """engine | axes... | P | m | fastest | time | runner-up (slower by), one row per point."""
    table = []
    for engine in engines:
        for key, times in sorted(results_times(rows, engine, axes).items(),
                                 key=lambda kv: (tuple(float(v) for v in kv[0][:len(axes)]), kv[0][len(axes):])):
            (best, t1), (second, t2) = by_time(times)[:2]
            table.append([engine, *key[:len(axes)], key[-2], size_text(key[-1]), best, f"{ms(t1)} ms",
                          f"{second} (+{100 * (t2 / t1 - 1):.0f}%)"])
    return md_table(["engine", *axis_headers, "P", "m", "fastest", "time", "runner-up (slower by)"], table)


def error_stats(rows, kind):
    """{operation: (points, mean |err|, max |err|)} of one formula kind in a comparison.csv."""
    errors = defaultdict(list)
    for r in rows:
        if r[f"{kind}_rel_err"]:
            errors[r["op"].split("/")[0]].append(abs(float(r[f"{kind}_rel_err"])))
    return {op: (len(e), sum(e) / len(e), max(e)) for op, e in errors.items()}


def selector_stats(rows, where=lambda r: True):
    """{(selector, operation): stats} from a selection.csv, in file order, as `collsim compare`
    summarises it: picks judged, mean and worst degradation, where the worst is, hits (picks of
    the best), calls."""
    out = {}
    for r in rows:
        if not where(r):
            continue
        s = out.setdefault((r["selector"], r["operation"]),
                           {"calls": 0, "picks": 0, "sum": 0.0, "worst": 0.0, "worst_at": "-", "hits": 0})
        s["calls"] += 1
        if r["status"] != "ok":
            continue
        d = float(r["degradation"])
        s["picks"] += 1
        s["sum"] += d
        s["hits"] += d == 1
        if d > s["worst"]:
            s["worst"], s["worst_at"] = d, f"P={r['procs']} m={bytes_text(int(r['bytes']))}"
    for s in out.values():
        s["mean"] = s["sum"] / s["picks"] if s["picks"] else math.nan
    return out


SELECTOR_NAMES = {"textbook": "textbook models", "derived": "derived models", "ompi-4.1": "Open MPI 4.1 fixed",
                  "ompi-3.1": "Open MPI 3.1 fixed", "model": "model engine", "sim": "simulation"}

# ---- validation/paper-grisou.md ----

PAPER = "validation/paper-grisou"


def binomial_binary(root):
    """{(P, m): {source: (binomial, binary)}} for source textbook, derived, sim."""
    pairs = defaultdict(lambda: defaultdict(dict))
    for r in read_csv(root, f"{PAPER}/comparison.csv"):
        if r["op"] in ("bcast/binomial", "bcast/binary_tree"):
            for source in ("textbook", "derived", "sim"):
                pairs[(int(r["procs"]), int(r["bytes"]))][source][short(r["op"])] = float(r[f"{source}_s"])
    return {k: {s: (t["binomial"], t["binary_tree"]) for s, t in v.items()} for k, v in pairs.items()}


@renders("paper-grisou", "figure3")
def paper_figure3(root):
    pairs = binomial_binary(root)
    rows = []
    for procs in (16, 32, 64, 96):
        for m in (32 << 10, 128 << 10, 1 << 20, 4 << 20):
            cells = [procs, f"{m >> 10} KiB"]
            for source in ("textbook", "derived", "sim"):
                binomial, binary = pairs[(procs, m)][source]
                cells.append(f"{ms(binomial)} / {ms(binary)} ({'binomial' if binomial < binary else 'binary'})")
            rows.append(cells)
    return md_table(["P", "m", "textbook binomial / binary", "derived binomial / binary", "sim binomial / binary"],
                    rows)


def sizes_of(points):
    return ", ".join(size_text(m, " ") for m in sorted({m for _, m in points}))


@renders("paper-grisou", "verdict")
def paper_verdict(root):
    pairs = binomial_binary(root)

    def order(t):
        return t[0] < t[1]

    agree = {s: [k for k, v in pairs.items() if order(v[s]) == order(v["sim"])] for s in ("textbook", "derived")}
    binomial_wins = [k for k, v in pairs.items() if order(v["sim"])]
    n = len(pairs)
    holds = len(agree["derived"]) > n / 2 > len(agree["textbook"])
    def points(where):
        return f"{len(where)} point{'s' if len(where) != 1 else ''}" + (f" (m = {sizes_of(where)})" if where else "")

    return (f"**Verdict: the finding {'holds' if holds else 'does not hold'}.** Over the {n} (P, m) points of the "
            f"sweep the textbook models order binomial and binary as the simulation does at "
            f"{points(agree['textbook'])}; the derived models at {len(agree['derived'])}. The simulation's "
            f"binomial is the faster of the two at {points(binomial_wins)}.")


def errors_table(rows, kinds=("textbook", "derived")):
    """formula | operation | points | mean | max: each kind's relative errors in a comparison.csv."""
    stats = {kind: error_stats(rows, kind) for kind in kinds}
    table = []
    for op in ordered(r["op"].split("/")[0] for r in rows):
        for kind in kinds:
            if op in stats[kind]:
                points, mean, worst = stats[kind][op]
                table.append([kind, op, points, percent(mean), percent(worst)])
    return md_table(["formula", "operation", "points", "mean", "max"], table)


@renders("paper-grisou", "errors")
def paper_errors(root):
    return errors_table(read_csv(root, f"{PAPER}/comparison.csv"))


@renders("paper-grisou", "selection")
def paper_selection(root):
    return selection_table(read_csv(root, f"{PAPER}/selection.csv"))


def selection_table(rows):
    """selector | operation | picks | mean | worst | worst at | best picked | coverage, per selector
    and operation of a selection.csv."""
    stats = selector_stats(rows)
    table = []
    for op in ordered(k[1] for k in stats):
        for selector in ordered(k[0] for k in stats if k[1] == op):
            s = stats[(selector, op)]
            if not s["picks"]:  # none of its picks was run (Open MPI's fixed decisions outside the sweep)
                table.append([SELECTOR_NAMES[selector], op, 0, "-", "-", "-", "-", f"0/{s['calls']}"])
                continue
            hits = f"{s['hits']} ({100 * s['hits'] / s['picks']:.0f}%)"
            table.append([SELECTOR_NAMES[selector], op, s["picks"], f"{s['mean']:.3f}", f"{s['worst']:.3f}",
                          s["worst_at"], hits, f"{s['picks']}/{s['calls']}"])
    return md_table(["selector", "operation", "picks", "mean", "worst", "worst at", "best picked", "coverage"], table)


# ---- validation/whatif-*.md ----


def fastest_grid(rows, engine):
    """One row per cluster (bandwidth, latency), one column per (P, m): the fastest and its time."""
    times = results_times(rows, engine, ("bandwidth", "latency"))
    networks = ordered(k[:2] for k in times)
    points = sorted({k[2:] for k in times})
    table = []
    for bw, lat in networks:
        cells = [f"{bw}, {lat}/link"]
        for p in points:
            name, t = fastest(times[(bw, lat) + p])
            cells.append(f"{name} {t * 1e3:.3g}")
        table.append(cells)
    return md_table(["network"] + [f"P={p} {size_text(m)}" for p, m in points], table)


@renders("whatif-grisou-faster", "fastest-sim")
def grisou_faster_sim(root):
    return fastest_grid(read_csv(root, "validation/whatif/grisou-faster/results.csv"), "sim")


@renders("whatif-grisou-faster", "fastest-model")
def grisou_faster_model(root):
    return fastest_grid(read_csv(root, "validation/whatif/grisou-faster/results.csv"), "model")


@renders("whatif-grisou-faster", "agreement")
def grisou_faster_agreement(root):
    rows = read_csv(root, "validation/whatif/grisou-faster/results.csv")
    sim, model = (results_times(rows, e, ("bandwidth", "latency")) for e in ("sim", "model"))
    same = sum(fastest(sim[k])[0] == fastest(model[k])[0] for k in sim)
    return f"The model engine picks the simulation's fastest algorithm at {same} of the {len(sim)} points."


@renders("whatif-fat-tree-taper", "contention")
def fat_tree_contention(root):
    times = results_times(read_csv(root, "validation/whatif/fat-tree-taper/results.csv"), "sim", ("taper",))
    table = []
    for procs, m in sorted({k[1:] for k in times}):
        full, tapered = times[("1", procs, m)], times[("4", procs, m)]
        for name, _ in by_time(full):
            table.append([name, procs, size_text(m), f"{ms(full[name])} ms", f"{ms(tapered[name])} ms",
                          f"{tapered[name] / full[name]:.2f}"])
    return md_table(["algorithm", "P", "m", "1:1", "4:1", "4:1 / 1:1"], table)


@renders("whatif-fat-tree-taper", "fastest")
def fat_tree_fastest(root):
    rows = read_csv(root, "validation/whatif/fat-tree-taper/results.csv")
    return fastest_table(rows, ("model", "sim"), ("taper",), ("taper",))


DRAGONFLY = "validation/whatif/dragonfly-scaling/results.csv"


@renders("whatif-dragonfly-scaling", "fastest")
def dragonfly_fastest(root):
    return fastest_table(read_csv(root, DRAGONFLY), ("model", "sim"))


def every_algorithm(root, engine, m):
    rows = read_csv(root, DRAGONFLY)
    times = results_times(rows, engine)
    procs = sorted({k[0] for k in times})
    table = []
    for name in ordered(short(r["op"]) for r in rows):
        table.append([name] + [ms(times[(p, m)][name]) if name in times[(p, m)] else "not run" for p in procs])
    return md_table(["algorithm"] + [f"P={p}" for p in procs], table)


for _m in (8 << 10, 128 << 10, 2 << 20):
    renders("whatif-dragonfly-scaling", f"sim-{size_text(_m)}")(lambda root, m=_m: every_algorithm(root, "sim", m))
renders("whatif-dragonfly-scaling", "model-2MiB")(lambda root: every_algorithm(root, "model", 2 << 20))

# ---- validation/grisou-allreduce.md ----

ALLREDUCE = "validation/grisou-allreduce"


@renders("grisou-allreduce", "fastest")
def allreduce_fastest(root):
    rows = read_csv(root, f"{ALLREDUCE}/results.csv")
    sim, model = results_times(rows, "sim"), results_times(rows, "model")
    sizes = sorted({k[1] for k in sim})
    table = []
    for procs in sorted({k[0] for k in sim}):
        cells = [procs]
        for m in sizes:
            a, b = fastest(sim[(procs, m)])[0], fastest(model[(procs, m)])[0]
            cells.append(a if a == b else f"{a} ({b})")
        table.append(cells)
    return md_table(["P"] + [size_text(m) for m in sizes], table)


@renders("grisou-allreduce", "at-96")
def allreduce_at_96(root):
    rows = read_csv(root, f"{ALLREDUCE}/results.csv")
    names = ordered(short(r["op"]) for r in rows)
    table = []
    for engine in ("sim", "model"):
        times = results_times(rows, engine)
        for m in (8, 4 << 10, 1 << 20, 64 << 20):
            t = times[(96, m)]
            best = min(t.values())
            table.append([engine, size_text(m, " ")] +
                         [f"**{time_text(t[a])}**" if t[a] == best else time_text(t[a]) for a in names])
    return md_table(["engine", "m"] + names, table)


ALLREDUCE_BANDS = (("8-512 B: mean (worst)", 0, 512), ("4-256 KiB", 4 << 10, 256 << 10), ("1-64 MiB", 1 << 20, 64 << 20))


@renders("grisou-allreduce", "selectors")
def allreduce_selectors(root):
    rows = read_csv(root, f"{ALLREDUCE}/selection.csv")
    label = {"model": "model engine (two-level Hockney, one port)", "ompi-4.1": "Open MPI 4.1 fixed decision"}
    table = []
    for selector in label:
        cells = [label[selector]]
        for _, low, high in ALLREDUCE_BANDS:
            s = selector_stats(rows, lambda r: r["selector"] == selector and low <= int(r["bytes"]) <= high)
            s = s[(selector, "allreduce")]
            cells.append(f"{s['mean']:.3f} ({s['worst']:.3f})")
        s = selector_stats(rows, lambda r: r["selector"] == selector)[(selector, "allreduce")]
        cells.append(f"{s['mean']:.3f}, {s['worst']:.3f}, {s['hits']} of {s['picks']}")
        table.append(cells)
    return md_table(["selector"] + [b[0] for b in ALLREDUCE_BANDS] + ["all: mean, worst, hits"], table)


@renders("grisou-allreduce", "coverage")
def allreduce_coverage(root):
    s = selector_stats(read_csv(root, f"{ALLREDUCE}/selection.csv"))[("ompi-4.1", "allreduce")]
    return (f"Open MPI 4.1's decision is covered at {s['picks']} of the {s['calls']} calls; at the other "
            f"{s['calls'] - s['picks']}")


# ---- validation/testbed.md, the seed's method on the testbed ----

SEED = "validation/testbed/seed"


def seed_calibrated_procs(root):
    """The process counts the formulas were calibrated at (parameters.yaml's procs: [2, 3, 4])."""
    with open(os.path.join(root, SEED, "parameters.yaml")) as f:
        for line in f:
            if line.startswith("procs:"):
                return {int(p) for p in line.split("[", 1)[1].split("]", 1)[0].split(",")}
    raise ValueError(f"{SEED}/parameters.yaml: no procs")


# tools/testbed's shaper bucket at 100 Mbit/s: one frame of MTU 1500 on the wire (1538 B). A message
# that fits in it passes at memory speed after an idle period (tools/README.md, "How the links are
# shaped"), so those points do not test the network.
SEED_BUCKET = 1538


def seed_above_bucket(rows):
    return [r for r in rows if int(r["bytes"]) > SEED_BUCKET]


@renders("testbed-seed", "errors")
def seed_errors(root):
    rows = read_csv(root, f"{SEED}/comparison.csv")
    kinds = ("textbook", "derived", "sim")
    every, above = ({kind: error_stats(r, kind) for kind in kinds} for r in (rows, seed_above_bucket(rows)))
    table = []
    for op in ordered(r["op"].split("/")[0] for r in rows):
        for kind in kinds:
            if op in every[kind]:
                cells = [kind, op]
                for stats in (every, above):
                    points, mean, worst = stats[kind].get(op, (0, math.nan, math.nan))
                    cells += [points, percent(mean), percent(worst)]
                table.append(cells)
    return md_table(["formula", "operation", "points", "mean", "max", f"points above {SEED_BUCKET} B", "mean",
                     "max"], table)


@renders("testbed-seed", "algorithms")
def seed_algorithms(root):
    """Per algorithm, the mean and worst |relative error| of the derived formula and of the
    simulation against the measurement, at the calibrated process counts and beyond them, over the
    sizes above the shaper's bucket."""
    rows = seed_above_bucket(read_csv(root, f"{SEED}/comparison.csv"))
    calibrated = seed_calibrated_procs(root)
    groups = (("at", lambda p: p in calibrated), ("beyond", lambda p: p not in calibrated))

    def cell(op, kind, where):
        errors = [abs(float(r[f"{kind}_rel_err"])) for r in rows
                  if r["op"] == op and where(int(r["procs"])) and r[f"{kind}_rel_err"]]
        return f"{percent(sum(errors) / len(errors))} / {percent(max(errors))}" if errors else "-"

    table = [[op] + [cell(op, kind, where) for kind in ("derived", "sim") for _, where in groups]
             for op in ordered(r["op"] for r in rows)]
    at = ", ".join(str(p) for p in sorted(calibrated))
    beyond = ", ".join(str(p) for p in sorted({int(r["procs"]) for r in rows} - calibrated))
    return md_table(["algorithm", f"derived, P = {at}", f"derived, P = {beyond}", f"sim, P = {at}",
                     f"sim, P = {beyond}"], table)


@renders("testbed-seed", "noise")
def seed_noise(root):
    """How noisy the measured points were, per operation and size: how many met the CI target, and
    how far the median of a point's runs was above its fastest (the time taken)."""
    groups = defaultdict(list)
    for r in read_csv(root, f"{SEED}/run/results.csv"):
        if r["engine"] == "mpi":
            groups[(r["op"].split("/")[0], int(r["bytes"]))].append(r)
    table = []
    for (op, m), rows in sorted(groups.items()):
        ratios = sorted(float(r["median_s"]) / float(r["min_s"]) for r in rows)
        runs = sorted(int(r["runs"]) for r in rows)
        met = sum(r["ci_target_met"] == "1" for r in rows)
        table.append([op, size_text(m, " "), len(rows), f"{met}", f"{runs[0]}-{runs[-1]}",
                      f"{ratios[len(ratios) // 2]:.2f}", f"{ratios[-1]:.2f}"])
    return md_table(["operation", "m", "points", "CI within 5%", "runs", "median / fastest, median",
                     "median / fastest, worst"], table)


@renders("testbed-seed", "selection")
def seed_selection(root):
    return selection_table(read_csv(root, f"{SEED}/selection.csv"))


# ---- validation/measured.md ----

MEASURED_ENGINES = ("mpi", "mpi-native")


@renders("measured", "errors")
def measured_errors(root):
    table = []
    for engine in MEASURED_ENGINES:
        rows = read_csv(root, f"validation/measured/{engine}/comparison.csv")
        for kind in ("textbook", "derived"):
            stats = error_stats(rows, kind)
            table.append([engine, kind] + [f"{percent(stats[op][1])} / {percent(stats[op][2])}"
                                           for op in ("bcast", "gather")])
    return md_table(["engine", "formula", "bcast mean / max", "gather mean / max"], table)


@renders("measured", "selection")
def measured_selection(root):
    table = []
    for engine in MEASURED_ENGINES:
        stats = selector_stats(read_csv(root, f"validation/measured/{engine}/selection.csv"))
        for selector in ordered(k[0] for k in stats):
            cells = [engine, SELECTOR_NAMES[selector].replace(" models", "")]
            for op in ("bcast", "gather"):
                s = stats[(selector, op)]
                cell = f"{s['mean']:.3f} / {s['worst']:.3f}"
                if s["picks"] < s["calls"]:
                    cell += f" ({s['picks']} of {s['calls']} run)"
                cells.append(cell)
            table.append(cells)
    return md_table(["engine", "selector", "bcast mean / worst", "gather mean / worst"], table)


# ---- validation/coarray-cases.md ----


@renders("coarray", "agreement")
def coarray_agreement(root):
    times = defaultdict(dict)
    for r in read_csv(root, "validation/coarray/results.csv"):
        if r["engine"] in ("model", "sim"):
            point = tuple(v for k, v in r.items() if k not in ("engine", "key") and not k.endswith("_s"))
            times[point][r["engine"]] = float(r["time_s"])
    diffs = [abs(t["sim"] - t["model"]) / t["model"] for t in times.values()]
    worst = max(diffs)
    if worst <= 1e-9:  # rounding: the last digits of a sum of many steps
        return f"**Model and sim agree to 1e-9 (relative) or better on all {len(diffs)} points.**"
    if worst < 1e-6:
        return f"**Model and sim agree to {worst:.0e} (relative) on all {len(diffs)} points.**"
    apart = sum(d >= 1e-6 for d in diffs)
    return f"**Model and sim differ at {apart} of the {len(diffs)} points, by up to {percent(worst)}.**"
