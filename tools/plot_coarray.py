"""Plots of a coarray scenario's results.csv, one PNG per sweep (the `sweep` column).

What each sweep varies decides the plot:
  - statements (PUTs per segment): time against statements, blocking (solid) against
    non-blocking (dashed: safe, dotted: nowait, dash-dot: double), one colour per engine;
  - registered: DMA (case 0, dashed) against buffering (solid), time against the contiguous
    length that varies (NL or NR), one colour per engine;
  - the runtime's rule (packing, or GET behaviour): Table 1's (solid) against Omni's (dashed);
  - else time against the one varying parameter of NR, NL and B, one colour per engine.
Every point carries its Table 1 case number, and a vertical dotted line marks where the case
changes (at the first point of the new case), so the case boundaries can be read off the plot.
Time and the swept parameter are on log scales.
"""

import csv
import math
import os
import sys
from collections import defaultdict



def pyplot():
    """matplotlib's pyplot, imported for the plots only: --tables and --ratios need none."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on the machines that run scenarios
    import matplotlib.pyplot as plt

    return plt

AXES = {"nr_bytes": "NR (bytes)", "nl_bytes": "NL (bytes)", "buffer": "B (bytes)", "statements": "PUTs per segment"}
# PUTs per segment: the put mode of each op, and its line (non-blocking modes broken).
MODES = {"coarray/put": "blocking", "coarray/put-nb": "non-blocking", "coarray/put-nb-nowait": "nowait",
         "coarray/put-nb-double": "double"}
LINES = {"blocking": "-", "non-blocking": "--", "nowait": ":", "double": "-."}
COLOURS = {"model": "tab:blue", "sim": "tab:orange", "mpi": "tab:green", "caf-native": "tab:red"}


# The columns the plots and tables read; the numeric ones must hold finite numbers, times >= 0.
COLUMNS = ["sweep", "engine", "op", "case", "registered", "unit_bytes", "transfers", "copies"]
# Columns added later: a results file from before them reads as their default.
LATER_COLUMNS = {"packing": "table1", "get_behaviour": "table1"}
NUMBERS = ["time_s", "nl_bytes", "nr_bytes", "buffer", "statements"]


def refuse(message):
    """Bad input: one line on stderr, exit status 2 (as collsim's own refusals)."""
    print(f"plot_coarray: {message}", file=sys.stderr)
    sys.exit(2)


def read_rows(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        refuse(f"{path}: {e.strerror}")
    except (csv.Error, UnicodeDecodeError) as e:
        refuse(f"{path}: not a CSV file ({e})")
    if not rows or "sweep" not in rows[0]:
        refuse(f"{path}: not a coarray scenario's results.csv (no sweep column)")
    missing = [c for c in COLUMNS + NUMBERS if c not in rows[0]]
    if missing:
        refuse(f"{path}:1: no {missing[0]} column")
    for line, r in enumerate(rows, start=2):
        for c in NUMBERS:
            try:
                v = float(r[c])
            except (TypeError, ValueError):
                v = math.nan
            if not math.isfinite(v) or (c == "time_s" and v < 0):
                refuse(f"{path}:{line}: {c} is '{r[c]}'")
        for c, default in LATER_COLUMNS.items():
            if not r.get(c):
                r[c] = default
    return rows


def rule(r):
    """How the runtime fills its buffer: Table 1's packing, Omni's, or (GET) Omni's piece by piece."""
    if r["op"] == "coarray/get" and r["get_behaviour"] == "omni":
        return "omni-get"
    return r["packing"]


def varying(rows, column):
    return len({r[column] for r in rows}) > 1


def swept_axis(rows):
    for column in ("statements", "nr_bytes", "nl_bytes", "buffer"):
        if varying(rows, column):
            return column
    return "nr_bytes"


def mark_cases(ax, xs, ys, cases, colour):
    for x, y, c in zip(xs, ys, cases):
        ax.annotate(c, (x, y), textcoords="offset points", xytext=(3, 4), fontsize=7, color=colour)


def case_boundaries(ax, points):
    """Dotted vertical lines where the case changes along x (points: (x, case), one series)."""
    points = sorted(points)
    for (x0, c0), (x1, c1) in zip(points, points[1:]):
        if c0 != c1:
            ax.axvline(x1, color="grey", linestyle=":", linewidth=1)
            ax.text(x1, 1.0, f" {c0}\u2192{c1}", transform=ax.get_xaxis_transform(), fontsize=7, color="grey",
                    va="top")


def plot_sweep(name, rows, out_dir):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    by_registered = varying(rows, "registered")
    by_rule = len({rule(r) for r in rows}) > 1
    if by_registered:
        axis = swept_axis([r for r in rows if r["registered"] == rows[0]["registered"]])
    elif by_rule:
        axis = swept_axis([r for r in rows if rule(r) == rule(rows[0])])
    else:
        axis = swept_axis(rows)
    series = defaultdict(list)
    for r in rows:
        if axis == "statements":
            style = MODES.get(r["op"], r["op"])
        elif by_registered:
            style = "DMA" if r["registered"] == "1" else "buffered"
        elif by_rule:
            style = rule(r)
        else:
            style = r["op"].split("/")[1]
        series[(r["engine"], style)].append((float(r[axis]), float(r["time_s"]), r["case"]))
    boundaries_drawn = False
    for (engine, style), pts in sorted(series.items()):
        pts.sort()
        xs, ys, cases = zip(*pts)
        colour = COLOURS.get(engine, "black")
        line = LINES.get(style, "--" if style in ("DMA", "put-nb", "omni", "omni-get") else "-")
        dashed = line != "-"
        # The model as hollow squares under the other engines' dots: where they agree, both show.
        hollow = engine == "model"
        ax.plot(xs, ys, marker="s" if hollow else "o", markersize=8 if hollow else 4,
                markerfacecolor="none" if hollow else colour, color=colour, linestyle=line,
                label=f"{engine} {style}")
        mark_cases(ax, xs, ys, cases, colour)
        if not boundaries_drawn and not dashed:
            case_boundaries(ax, [(x, c) for x, _, c in pts])
            boundaries_drawn = True
    ax.set_xscale("log", base=2 if axis == "statements" else 10)
    ax.set_yscale("log")
    ax.set_xlabel(AXES[axis])
    ax.set_ylabel("time of the segment (s)")
    first = rows[0]
    fixed = {a: first[a] for a in ("nl_bytes", "nr_bytes", "buffer") if a != axis and not varying(rows, a)}
    ax.set_title(f"{name}: " + ", ".join(f"{k.split('_')[0].upper() if k != 'buffer' else 'B'} = {v}"
                                          for k, v in fixed.items()) + "  (numbers: Table 1 case)", fontsize=9)
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{name}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def tables(sweeps):
    """Markdown: one table per sweep, one row per point, one time column (ms) per engine."""
    engines = []
    for group in sweeps.values():
        for r in group:
            if r["engine"] not in engines:
                engines.append(r["engine"])
    key_columns = ("op", "case", "nl_bytes", "nr_bytes", "buffer", "rule", "statements", "registered", "unit_bytes",
                   "transfers", "copies")
    out = []
    for name, group in sweeps.items():
        points, times = [], {}
        for r in group:
            key = tuple(rule(r) if c == "rule" else r[c] for c in key_columns)
            if key not in times:
                points.append(key)
                times[key] = {}
            times[key][r["engine"]] = float(r["time_s"]) * 1e3
        out.append(f"### {name}\n")
        out.append("| op | case | NL (B) | NR (B) | B | rule | statements | registered | unit (B) | puts | copies | " +
                   " | ".join(f"{e} (ms)" for e in engines) + " |")
        out.append("|" + "---|" * (len(key_columns) + len(engines)))
        for key in points:
            op = key[0].replace("coarray/", "")
            cells = [op] + list(key[1:7]) + ["yes" if key[7] == "1" else "no"] + list(key[8:])
            cells += [f"{times[key][e]:.3f}" if e in times[key] else "-" for e in engines]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


TIE = 0.10  # two measured times closer than this share are no order (the runs' spread here)


def ratios(rows, engine="sim", reference="mpi"):
    """Markdown: per point (and images) the engine's time over the reference's, flagged outside
    0.67-1.5x; then per pair of schemes (DMA against buffering, non-blocking against blocking)
    whether the engine orders them as the reference does (a tie when the reference's two are within
    TIE of each other)."""
    key_columns = ("sweep", "op", "case", "nl_bytes", "nr_bytes", "buffer", "registered", "statements", "images")
    times = defaultdict(dict)
    for r in rows:
        times[tuple(r[c] for c in key_columns)][r["engine"]] = float(r["time_s"])
    points = [k for k, t in times.items() if engine in t and reference in t]
    if not points:
        refuse(f"no point has both {engine} and {reference} rows")
    out = [f"| sweep | op | case | NL (B) | NR (B) | B | DMA | statements | images | {engine} (us) | {reference} (us) | "
           f"{engine} / {reference} |", "|" + "---|" * 12]
    inside = defaultdict(lambda: [0, 0])
    for k in points:
        t = times[k]
        q = t[engine] / t[reference]
        ok = 0.67 <= q <= 1.5
        inside[k[8]][0] += ok
        inside[k[8]][1] += 1
        cells = [k[0], k[1].replace("coarray/", ""), *k[2:6], "yes" if k[6] == "1" else "no", k[7], k[8],
                 f"{t[engine] * 1e6:.1f}", f"{t[reference] * 1e6:.1f}", f"{q:.2f}" if ok else f"**{q:.2f}**"]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append(f"Within 0.67-1.5x: " + "; ".join(f"{n} images {a} of {b}" for n, (a, b) in sorted(inside.items())) + ".")
    out.append("")
    # The pairs: the same section and images, DMA (registered) against buffered, non-blocking
    # (put-nb) against blocking (put).
    # DMA is case 0 whatever the buffered case: match without the case.
    by_section = {k[:2] + k[3:]: k for k in points}
    pairs = []
    for k in points:
        if k[6] == "1":
            other = by_section.get(k[:2] + k[3:6] + ("0",) + k[7:])
            pairs.append(("DMA / buffered", k, other))
        if k[1] == "coarray/put-nb":
            other = by_section.get(k[:1] + ("coarray/put",) + k[3:])
            pairs.append(("non-blocking / blocking", k, other))
    out.append(f"| pair | sweep | NL (B) | NR (B) | statements | images | {reference} | {engine} | same order |")
    out.append("|" + "---|" * 9)
    same = defaultdict(lambda: [0, 0])
    for what, a, b in pairs:
        if b is None:
            continue
        m = times[a][reference] / times[b][reference]
        e = times[a][engine] / times[b][engine]
        tie = abs(m - 1) < TIE
        agree = tie or (m < 1) == (e < 1)
        same[a[8]][0] += agree
        same[a[8]][1] += 1
        verdict = "tie" if tie else ("yes" if agree else "**no**")
        out.append(f"| {what} | {a[0]} | {a[3]} | {a[4]} | {a[7]} | {a[8]} | {m:.2f} | {e:.2f} | {verdict} |")
    out.append("")
    out.append("Same order (measured within 10% counts as a tie): " +
               "; ".join(f"{n} images {a} of {b}" for n, (a, b) in sorted(same.items())) + ".")
    return "\n".join(out)


def main(argv):
    if len(argv) == 3 and argv[1] == "--tables":
        rows = read_rows(argv[2])
        sweeps = defaultdict(list)
        for r in rows:
            sweeps[r["sweep"]].append(r)
        print(tables(sweeps))
        return 0
    if len(argv) == 3 and argv[1] == "--ratios":
        print(ratios(read_rows(argv[2])))
        return 0
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(__doc__ + "\nusage: tools/plot_coarray RESULTS.csv OUTDIR\n       tools/plot_coarray --tables RESULTS.csv"
              "   (the report's Markdown tables)\n"
              "       tools/plot_coarray --ratios RESULTS.csv   (sim / mpi per point, and the order of the schemes)", file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 else 2
    rows = read_rows(argv[1])
    os.makedirs(argv[2], exist_ok=True)
    sweeps = defaultdict(list)
    for r in rows:
        sweeps[r["sweep"]].append(r)
    for name, group in sweeps.items():
        print(plot_sweep(name, group, argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
