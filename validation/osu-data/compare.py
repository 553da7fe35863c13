#!/usr/bin/env python3
"""Set collsim's predictions of OSU collectives beside published measurements (issue 29, item 7).

    validation/osu-data/compare.py --measured POINTS.csv --results RESULTS.csv [--results MORE.csv]
                                   [--op bcast] [--ompi PREFIX] [--note TEXT] [--default ompi-4.0|ompi-4.1]
                                   [--mapping core]
                                   [--markdown OUT.md] [--csv OUT.csv]

POINTS.csv is a dataset's points.csv (normalise.py); RESULTS.csv is what `collsim run` wrote for a
scenario with `map_by:` listing the dataset's mappings and `timing: osu`. A point is (op,
algorithm, mapping, procs, bytes). The prediction of an engine is its `osu_avg_s` (model, sim),
or `time_s` where it has no OSU columns (formula engines: their time is the collective's, which
is the closest they say). The measurement is OSU's Avg Latency. Several measured rows of one point
(two Open MPI builds, two runs) are averaged unless --ompi keeps only one build (or --note one
partition of a dataset).

With --default ompi-4.0 the measured rows are those of Open MPI's default (algorithm "default",
nothing forced), and each is set beside the prediction for the algorithm that Open MPI 3.1-4.0's
fixed decision runs at that point (ompi40_decision below, written from the v4.0.3 source; with
--default ompi-4.1, Open MPI 4.1's, ompi41_decision, for the barrier); the ranking table then has
nothing to rank.

Reported, per engine and per (algorithm, mapping): points, median of predicted/measured, its
inter-quartile range, share of points within 1.25x and 2x (either way). Per engine and mapping,
over the calls (mapping, procs, bytes) where at least 3 forced algorithms were measured: mean
Kendall tau-b between predicted and measured orders, hit rate of the predicted fastest, mean and
worst degradation (measured time of the predicted pick over the measured best). And the map-by
socket / map-by core ratio (median over algorithm, procs, bytes), measured and predicted.

Standard library only. The metrics are computed here from the two files, never by collsim.
"""
import argparse
import csv
import collections
import math
import statistics
import sys

FORCED = ("basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree", "binomial",
          "knomial", "scatter_allgather", "scatter_allgather_ring",
          "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree")


def fail(message):
    print(f"compare.py: {message}", file=sys.stderr)
    sys.exit(2)


def ompi40_decision(op, procs, size):
    """The algorithm Open MPI 3.1-4.0's coll/tuned runs when nothing is forced, with default MCA
    parameters and a commutative operator (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at tag
    v4.0.3, the same as v3.1.6 with alltoall's linear_sync branch off by default): size is what
    OSU prints, the allreduce vector's bytes (floats) or the block per process of an allgather or
    alltoall."""
    if op == "allreduce":
        if size < 10000:
            return "recursive_doubling"
        if size // 4 > procs:  # count > communicator size (commutative)
            return "ring" if procs * (1 << 20) >= size else "segmented_ring"
        return "nonoverlapping"
    if op == "allgather":
        if procs == 2:
            return "two_proc"
        if size * procs < 50000:
            return "recursive_doubling" if procs & (procs - 1) == 0 else "bruck"
        return "ring" if procs % 2 else "neighbor"
    if op == "alltoall":
        if procs == 2:
            return "two_proc"
        if size < 200 and procs > 12:
            return "modified_bruck"
        return "linear" if size < 3000 else "pairwise"
    fail(f"--default ompi-4.0: no decision written here for {op}")


def ompi41_decision(op, procs, size):
    """The algorithm Open MPI 4.1's coll/tuned runs when nothing is forced (its fixed decision,
    ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at v4.1.x; also what it runs under
    coll_tuned_use_dynamic_rules with no rule for the collective): the barrier depends on the
    communicator size only."""
    if op == "barrier":
        for below, algorithm in ((4, "recursive_doubling"), (8, "linear"), (64, "recursive_doubling"),
                                 (256, "bruck"), (512, "tree"), (1024, "bruck"), (4096, "tree")):
            if procs < below:
                return algorithm
        return "bruck"
    fail(f"--default ompi-4.1: no decision written here for {op}")


DECISIONS = {"ompi-4.0": ompi40_decision, "ompi-4.1": ompi41_decision}


def read_measured(path, op, ompi, note="", default=""):
    """{(algorithm, mapping, procs, bytes): avg seconds} of the forced algorithms of op (with
    --default, of its default rows, keyed by the algorithm the decision runs)."""
    sums = collections.defaultdict(list)
    try:
        with open(path, newline="") as f:
            for line, row in enumerate(csv.DictReader(f), start=2):
                wanted = row["algorithm"] == "default" if default else row["algorithm"] in FORCED
                if row["op"] != op or not wanted or not row["osu_avg_us"]:
                    continue
                if (ompi and not row["ompi"].startswith(ompi)) or (note and row["note"] != note):
                    continue
                try:
                    procs, size = int(row["procs"]), int(row["bytes"])
                    algorithm = DECISIONS[default](op, procs, size) if default else row["algorithm"]
                    key = (algorithm, row["mapping"], procs, size)
                    sums[key].append(float(row["osu_avg_us"]) * 1e-6)
                except ValueError as e:
                    fail(f"{path}:{line}: {e}")
    except (OSError, KeyError) as e:
        fail(f"{path}: {e}")
    return {k: statistics.fmean(v) for k, v in sums.items()}


def read_predicted(paths, op, mapping_default=""):
    """{engine: {(algorithm, mapping, procs, bytes): seconds}}; rows without a map_by value (a
    scenario with one mapping) take mapping_default when it is given."""
    out = collections.defaultdict(dict)
    for path in paths:
        try:
            with open(path, newline="") as f:
                for line, row in enumerate(csv.DictReader(f), start=2):
                    name = row["op"]
                    if not name.startswith(op + "/"):
                        continue
                    mapping = row.get("map_by", "") or mapping_default
                    if not mapping:
                        fail(f"{path}:{line}: no map_by column value (run the scenario with map_by: [...], "
                             "or say --mapping)")
                    value = row.get("osu_avg_s") or row["time_s"]
                    key = (name.split("/", 1)[1], mapping, int(row["procs"]), int(row["bytes"]))
                    out[row["engine"]][key] = float(value)
        except (OSError, KeyError, ValueError) as e:
            fail(f"{path}: {e}")
    return out


def quantile(sorted_values, q):
    if not sorted_values:
        return math.nan
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def kendall_tau_b(xs, ys):
    """Kendall's tau-b of two equally long sequences (ties in either count as neither)."""
    concordant = discordant = ties_x = ties_y = 0
    n = len(xs)
    for i in range(n):
        for j in range(i + 1, n):
            dx = xs[i] - xs[j]
            dy = ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denominator if denominator else math.nan


def accuracy_rows(measured, predicted):
    rows = []
    for engine, pred in sorted(predicted.items()):
        groups = collections.defaultdict(list)
        for key, m in measured.items():
            if key in pred and m > 0:
                groups[(key[0], key[1])].append(pred[key] / m)
                groups[("all", "all")].append(pred[key] / m)
        for (algorithm, mapping), ratios in sorted(groups.items(), key=lambda kv: (kv[0] == ("all", "all"), kv[0])):
            ratios.sort()
            within = lambda f: sum(1 for r in ratios if 1 / f <= r <= f) / len(ratios)
            rows.append({"engine": engine, "algorithm": algorithm, "mapping": mapping, "points": len(ratios),
                         "median": statistics.median(ratios), "q1": quantile(ratios, 0.25),
                         "q3": quantile(ratios, 0.75), "within_1.25": within(1.25), "within_2": within(2.0)})
    return rows


def ranking_rows(measured, predicted):
    calls = collections.defaultdict(dict)
    for (algorithm, mapping, procs, size), m in measured.items():
        calls[(mapping, procs, size)][algorithm] = m
    rows = []
    for engine, pred in sorted(predicted.items()):
        per_mapping = collections.defaultdict(lambda: {"tau": [], "hit": 0, "degradation": [], "calls": 0})
        for (mapping, procs, size), algs in calls.items():
            names = [a for a in sorted(algs) if (a, mapping, procs, size) in pred]
            if len(names) < 3:
                continue
            meas = [algs[a] for a in names]
            guess = [pred[(a, mapping, procs, size)] for a in names]
            for group in (mapping, "all"):
                g = per_mapping[group]
                g["calls"] += 1
                tau = kendall_tau_b(guess, meas)
                if not math.isnan(tau):
                    g["tau"].append(tau)
                pick = names[guess.index(min(guess))]
                g["hit"] += algs[pick] == min(meas)
                g["degradation"].append(algs[pick] / min(meas))
        for mapping, g in sorted(per_mapping.items(), key=lambda kv: (kv[0] == "all", kv[0])):
            rows.append({"engine": engine, "mapping": mapping, "calls": g["calls"],
                         "tau": statistics.fmean(g["tau"]) if g["tau"] else math.nan,
                         "hit_rate": g["hit"] / g["calls"],
                         "mean_degradation": statistics.fmean(g["degradation"]),
                         "worst_degradation": max(g["degradation"])})
    return rows


def socket_core_ratio(values):
    ratios = [values[(a, "socket", p, s)] / values[(a, "core", p, s)]
              for (a, mapping, p, s) in values if mapping == "core" and (a, "socket", p, s) in values
              and values[(a, "core", p, s)] > 0]
    return statistics.median(ratios) if ratios else math.nan, len(ratios)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--measured", required=True)
    parser.add_argument("--results", required=True, action="append")
    parser.add_argument("--op", default="bcast")
    parser.add_argument("--ompi", default="", help="keep measured rows whose ompi column starts with this")
    parser.add_argument("--mapping", default="", help="the mapping of result rows without a map_by value")
    parser.add_argument("--note", default="", help="keep measured rows whose note column is this")
    parser.add_argument("--default", choices=sorted(DECISIONS), help="compare Open MPI's default rows (see above)")
    parser.add_argument("--markdown", help="write the tables as Markdown here (else to standard output)")
    parser.add_argument("--csv", help="write the per-point comparison here")
    args = parser.parse_args()

    measured = read_measured(args.measured, args.op, args.ompi, args.note, args.default)
    predicted = read_predicted(args.results, args.op, args.mapping)
    if not measured:
        fail(f"{args.measured}: no measured {args.op} rows of " + ("the default" if args.default else "a forced algorithm"))
    # Only the points every engine predicted, so the engines are judged on the same points.
    common = set(measured)
    for pred in predicted.values():
        common &= set(pred)
    if not common:
        fail("no point is both measured and predicted by every engine (algorithms, map_by, procs, bytes)")
    measured = {k: v for k, v in measured.items() if k in common}

    out = []
    out.append(f"Points compared: {len(measured)} ({args.op}; engines {', '.join(sorted(predicted))}).\n")
    out.append("| engine | algorithm | mapping | points | median pred/meas | IQR | within 1.25x | within 2x |")
    out.append("|---|---|---|---:|---:|---|---:|---:|")
    for r in accuracy_rows(measured, predicted):
        out.append(f"| {r['engine']} | {r['algorithm']} | {r['mapping']} | {r['points']} | {r['median']:.2f} | "
                   f"{r['q1']:.2f}-{r['q3']:.2f} | {r['within_1.25']:.0%} | {r['within_2']:.0%} |")
    ranking = ranking_rows(measured, predicted)
    if ranking:
        out.append("")
        out.append("| engine | mapping | calls | mean Kendall tau | hit rate | mean degradation | worst degradation |")
        out.append("|---|---|---:|---:|---:|---:|---:|")
        for r in ranking:
            out.append(f"| {r['engine']} | {r['mapping']} | {r['calls']} | {r['tau']:.2f} | {r['hit_rate']:.0%} | "
                       f"{r['mean_degradation']:.2f} | {r['worst_degradation']:.2f} |")
    ratio, n = socket_core_ratio(measured)
    if n:
        line = f"map-by socket / map-by core (median over {n} points): measured {ratio:.2f}"
        for engine, pred in sorted(predicted.items()):
            line += f", {engine} {socket_core_ratio({k: pred[k] for k in measured})[0]:.2f}"
        out.append("")
        out.append(line + ".")
    text = "\n".join(out) + "\n"
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["algorithm", "mapping", "procs", "bytes", "measured_s"] + sorted(predicted))
            for key in sorted(measured):
                w.writerow(list(key) + [repr(measured[key])] + [repr(predicted[e][key]) for e in sorted(predicted)])


if __name__ == "__main__":
    main()
