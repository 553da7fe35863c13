"""The layers of src/, bottom first, and a check that every #include points down or sideways.

A folder may include its own files and those of any lower layer. Folders on one layer
(engines and selection) do not include each other. Run by the ctest `layers`; `tools/layers
--list` prints every arrow between folders with its count.
"""
import argparse
import collections
import pathlib
import re
import sys

# (layer, folders): what each layer may build on is everything above it in this list.
LAYERS = [
    ("support", ["support"]),        # units, errors: no collsim dependency
    ("comm", ["comm"]),              # the messaging contract
    ("algorithms", ["algorithms"]),  # collective and coarray algorithms, trees, operation descriptors
    ("models", ["models"]),          # closed-form formulas, placement
    ("registry", ["registry"]),      # the catalogue: algorithm entries, nested collectives
    ("engines", ["engines", "selection"]),
    ("experiment", ["experiment"]),  # scenarios, results, sweeps, traces, analysis
    ("cli", ["cli"]),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=str(pathlib.Path(__file__).resolve().parent.parent / "src"))
    parser.add_argument("--list", action="store_true", help="print every arrow between folders")
    args = parser.parse_args()
    level = {folder: i for i, (_, folders) in enumerate(LAYERS) for folder in folders}
    src = pathlib.Path(args.src)
    include = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
    arrows = collections.Counter()
    upward = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".hpp", ".cpp", ".h"):
            continue
        folder = path.relative_to(src).parts[0]
        if folder not in level:
            print(f"{path}: folder {folder} is in no layer (tools/layers.py)", file=sys.stderr)
            return 2
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = include.match(line)
            if not m or m.group(1) not in level or m.group(1) == folder:
                continue
            target = m.group(1)
            arrows[(folder, target)] += 1
            if level[target] > level[folder] or (level[target] == level[folder]):
                upward.append(f"{path.relative_to(src.parent)}:{number}: {folder} includes {target}")
    if args.list:
        for (a, b), n in sorted(arrows.items(), key=lambda kv: (level[kv[0][0]], kv[0])):
            print(f"{a} -> {b}: {n}")
    for line in upward:
        print(line)
    print(f"{len(upward)} include(s) pointing up or across a layer")
    return 1 if upward else 0


if __name__ == "__main__":
    sys.exit(main())
