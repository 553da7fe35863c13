"""Re-makes the committed results (validation reports' data, figures and tables, the teaching
pictures) from the commands that made them, and says which are stale.

    tools/regen --list
    tools/regen NAME... | --all            re-make these products in place
    tools/regen --check [NAME...|--quick]  re-make them in a scratch copy; say which are stale
    tools/regen --check --docs [NAME...]   only: do the reports' generated blocks match the data?
    tools/regen --render [NAME...]         rewrite the reports' generated blocks from the data
    options: --keep DIR (keep the scratch copies there), --root DIR, --manifest FILE (another tree)

The products, their commands, outputs and generated blocks are listed in tools/regen.yaml. A
product's commands run from the top of a scratch copy of the repository (scenarios/,
platforms/ and validation/ copied, results/ empty, everything else linked), so that they are
written exactly as the report documents them and nothing in the repository changes until they
have all succeeded. A simulated product is re-run whole; a measured one keeps its measured rows
(the `measured` rows of an output) and re-derives the rest. Outputs are compared as data: CSV
cells and YAML values (numbers within a relative 1e-9), text line by line; figures follow their
data and are not compared. A report's blocks between `<!-- regen: PRODUCT ID -->` and
`<!-- /regen -->` are rendered from the data (tools/regen_tables.py, or the block's command).
Exit status: 0 all current, 1 something stale, failed or out of sync, 2 bad usage.
"""

import csv
import difflib
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regen_tables  # noqa: E402

TOLERANCE = 1e-9  # relative: simulated times agree to ~1e-13 between builds, a model change moves them far more
COPIED = ("scenarios", "platforms", "validation")  # real copies in the scratch tree; results/ starts empty
BLOCK = re.compile(r"<!-- regen: (\S+) (\S+) -->(.*?)<!-- /regen -->", re.S)


class UsageError(Exception):
    pass


def say(text):
    print(f"regen: {text}", file=sys.stderr, flush=True)


# ---- the manifest ----


PRODUCT_KEYS = {"kind", "minutes", "doc", "doc_commands", "commands", "outputs", "blocks", "note"}
OUTPUT_KEYS = {"key", "group", "ignore", "measured", "input"}


class Product:
    def __init__(self, name, spec):
        if not isinstance(spec, dict) or set(spec) - PRODUCT_KEYS:
            raise UsageError(f"{name}: not a product (keys: {', '.join(sorted(PRODUCT_KEYS))})")
        self.name = name
        self.kind = spec.get("kind", "simulated")
        self.minutes = float(spec.get("minutes", 1))
        self.doc = spec.get("doc")
        self.doc_commands = spec.get("doc_commands", True)
        self.commands = spec.get("commands", [])
        self.outputs = {pattern: (o or {}) for pattern, o in spec.get("outputs", {}).items()}
        blocks = spec.get("blocks") or {}
        self.blocks = {b: {} for b in blocks} if isinstance(blocks, list) else {b: (v or {}) for b, v in blocks.items()}
        self.note = spec.get("note", "")
        if self.kind not in ("simulated", "measured"):
            raise UsageError(f"{name}: kind '{self.kind}' is neither simulated nor measured")
        for pattern, o in self.outputs.items():
            if not isinstance(o, dict) or set(o) - OUTPUT_KEYS:
                raise UsageError(f"{name}: output {pattern}: options are {', '.join(sorted(OUTPUT_KEYS))}")
            if pattern.split("/")[0] not in COPIED:
                raise UsageError(f"{name}: output {pattern} is outside {', '.join(COPIED)}")

    def duration(self):
        return f"{self.minutes * 60:.0f} s" if self.minutes < 1 else f"{self.minutes:g} min"


def load_manifest(path):
    try:
        with open(path) as f:
            spec = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise UsageError(f"{path}: {e}")
    if not isinstance(spec, dict) or not isinstance(spec.get("products"), dict):
        raise UsageError(f"{path}: no 'products:' mapping")
    return {name: Product(name, p) for name, p in spec["products"].items()}


# ---- the scratch tree ----


def scratch_tree(root, keep=None):
    tree = keep or tempfile.mkdtemp(prefix="collsim-regen-")
    os.makedirs(tree, exist_ok=True)
    for entry in os.listdir(root):
        if entry in (".git", "results"):
            continue
        source, target = os.path.join(root, entry), os.path.join(tree, entry)
        if entry in COPIED:
            shutil.copytree(source, target, symlinks=True)
        else:
            os.symlink(source, target)
    os.makedirs(os.path.join(tree, "results"))
    return tree


def matches(base, pattern):
    return sorted(os.path.relpath(p, base) for p in glob.glob(os.path.join(base, pattern)) if os.path.isfile(p))


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        return header, [row for row in reader if row]


def write_rows(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def prepare(product, tree):
    """Removes what the commands make; of a measured output, keeps only the measured rows."""
    for pattern, spec in product.outputs.items():
        if spec.get("input"):
            continue
        for path in matches(tree, pattern):
            full = os.path.join(tree, path)
            if "measured" in spec:
                column, values = spec["measured"]["column"], set(spec["measured"]["values"])
                header, rows = read_rows(full)
                i = header.index(column)
                write_rows(full, header, [r for r in rows if r[i] in values])
            else:
                os.remove(full)


def run_commands(product, tree, log):
    for i, command in enumerate(product.commands, 1):
        say(f"{product.name} [{i}/{len(product.commands)}] {' '.join(command.split())}")
        result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=tree, stdout=log)
        if result.returncode != 0:
            return f"command {i} exited with status {result.returncode}: {' '.join(command.split())}"
    return None


# ---- comparing data ----


def number(text):
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def digits(text):
    """Significant digits written in a number's text."""
    mantissa = re.split(r"[eE]", text.strip().lstrip("+-"))[0].replace(".", "").lstrip("0")
    return len(mantissa)


def moved(old, new):
    """None if equal; else the relative change (new - old) / |old| for numbers, or the text 'text'.
    Numbers are equal within TOLERANCE, or to the digits the committed file wrote (older files
    have 9 or 12)."""
    a, b = number(old), number(new)
    if a is None or b is None:
        return None if old == new else "text"
    if a == b or abs(a - b) <= TOLERANCE * max(abs(a), abs(b)):
        return None
    written = min(digits(old), digits(new))
    if written < 15 and float(f"{a:.{written}g}") == float(f"{b:.{written}g}"):
        return None
    return (b - a) / abs(a) if a else math.inf


def change_text(x):
    if math.isinf(x):
        return "from 0"
    return f"{100 * x:+.1f}%" if abs(x) >= 5e-4 else f"{x:+.1e} relative"


def compare_csv(old_path, new_path, spec):
    """(changed, lines) for one CSV output: rows added or removed, rows whose values moved
    (per group, e.g. engine), the largest relative change, text cells that changed."""
    old_header, old_rows = read_rows(old_path)
    new_header, new_rows = read_rows(new_path)
    key_columns = spec.get("key")
    ignore = set(spec.get("ignore", []))

    def keyed(header, rows):
        if not key_columns:
            return {(str(i),): dict(zip(header, r)) for i, r in enumerate(rows)}
        missing = [c for c in key_columns if c not in header]
        if missing:
            raise UsageError(f"{old_path}: no column {missing[0]} (its key in tools/regen.yaml)")
        return {tuple(r[header.index(c)] for c in key_columns): dict(zip(header, r)) for r in rows}

    old, new = keyed(old_header, old_rows), keyed(new_header, new_rows)
    lines = []
    # New or dropped columns alone are the file's format, not its data: said, but not stale.
    layout = [f"columns {what}: {', '.join(columns)}" for what, columns in
              (("added", [c for c in new_header if c not in old_header]),
               ("removed", [c for c in old_header if c not in new_header])) if columns]
    added, removed = [k for k in new if k not in old], [k for k in old if k not in new]
    if added or removed:
        lines.append(f"{len(added)} rows added, {len(removed)} removed (of {len(old)})")
    group = spec.get("group")
    per_group = {}
    text_changes = {}
    measured = spec.get("measured")
    measured_moved = 0
    for k in old:
        if k not in new:
            continue
        o, n = old[k], new[k]
        stats = per_group.setdefault(o.get(group, "") if group else "", {"rows": 0, "moved": 0, "columns": {}})
        stats["rows"] += 1
        row_moved = False
        for column in o:
            if column in ignore or column in (key_columns or ()) or column not in n:
                continue
            m = moved(o[column], n[column])
            if m is None:
                continue
            row_moved = True
            if m == "text":
                text_changes.setdefault(column, []).append(f"{o[column]} -> {n[column]}")
                continue
            c = stats["columns"].setdefault(column, {"moved": 0, "largest": (0, None)})
            c["moved"] += 1
            if abs(m) > abs(c["largest"][0]):
                c["largest"] = (m, k)
        if row_moved:
            stats["moved"] += 1
            if measured and o.get(measured["column"]) in measured["values"]:
                measured_moved += 1
    for g, s in per_group.items():
        if not s["moved"]:
            continue
        # Columns that moved alike (time_s, mean_s, median_s, ... of one run) are named together.
        alike = {}
        for column, c in s["columns"].items():
            alike.setdefault((c["moved"], c["largest"]), []).append(column)
        parts = [f"{', '.join(columns)} {count} (largest {change_text(m)} at {' '.join(k)})"
                 for (count, (m, k)), columns in sorted(alike.items(), key=lambda kv: -kv[0][0])]
        lines.append(f"{g + ': ' if g else ''}{s['moved']} of {s['rows']} rows moved" +
                     (": " + "; ".join(parts[:4]) + ("; ..." if len(parts) > 4 else "") if parts else ""))
    for column, changes in text_changes.items():
        examples = "; ".join(changes[:3]) + ("; ..." if len(changes) > 3 else "")
        lines.append(f"{len(changes)} '{column}' cells changed ({examples})")
    if measured_moved:
        lines.append(f"ERROR: {measured_moved} measured rows differ: they must come back unchanged")
    if not lines and layout:
        return False, [f"{'; '.join(layout)} (values unchanged; a re-make writes the new layout)"]
    return bool(lines), layout + lines


def flatten(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from flatten(v, f"{path}[{i}]")
    else:
        yield path, str(value)


def compare_yaml(old_path, new_path):
    with open(old_path) as f:
        old = dict(flatten(yaml.safe_load(f)))
    with open(new_path) as f:
        new = dict(flatten(yaml.safe_load(f)))
    changes = [(k, moved(old[k], new[k])) for k in old if k in new]
    changes = [(k, m) for k, m in changes if m is not None]
    lines = []
    if set(old) != set(new):
        lines.append(f"keys changed: {sorted(set(old) ^ set(new))[:5]}")
    if changes:
        numeric = [(k, m) for k, m in changes if m != "text"]
        largest = max(numeric, key=lambda km: abs(km[1])) if numeric else None
        lines.append(f"{len(changes)} of {len(old)} values moved" +
                     (f", largest {change_text(largest[1])} ({largest[0]})" if largest else ""))
    return bool(lines), lines


def compare_text(old_path, new_path):
    with open(old_path) as f:
        old = f.read().splitlines()
    with open(new_path) as f:
        new = f.read().splitlines()
    differing = sum(1 for d in difflib.ndiff(old, new) if d.startswith("+ "))
    return (True, [f"{differing} of {len(new)} lines differ"]) if old != new else (False, [])


def compare_outputs(product, root, tree):
    """(stale, lines) comparing the repository's outputs (root) with the scratch tree's."""
    stale, lines = False, []
    for pattern, spec in product.outputs.items():
        old, new = matches(root, pattern), matches(tree, pattern)
        if not new:
            lines.append(f"{pattern}: the commands made no such file")
            stale = True
            continue
        for path in sorted(set(old) ^ set(new)):
            data = path.endswith((".csv", ".yaml", ".yml", ".txt", ".md"))
            lines.append(f"{path}: " + ("no longer made" if path not in new else
                                        "new: no committed data to compare with" if data else "new"))
            stale = True
        for path in new:
            if path not in old:
                continue
            a, b = os.path.join(root, path), os.path.join(tree, path)
            if path.endswith(".csv"):
                changed, detail = compare_csv(a, b, spec)
            elif path.endswith((".yaml", ".yml")):
                changed, detail = compare_yaml(a, b)
            elif path.endswith((".txt", ".md")):
                changed, detail = compare_text(a, b)
            else:
                continue  # figures, run.json (times of day, paths): they follow the data
            stale |= changed
            if detail:
                lines.append(f"{path}: " + "; ".join(detail))
    return stale, lines


# ---- generated blocks in the reports ----


def render_block(product, block, root):
    spec = product.blocks[block]
    if "command" in spec:
        result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", spec["command"]], cwd=root,
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{product.name} block {block}: '{spec['command']}' exited with status "
                               f"{result.returncode}: {result.stderr.strip().splitlines()[-1:]}")
        return result.stdout.strip("\n")
    renderer = regen_tables.RENDERERS.get((product.name, block))
    if not renderer:
        raise UsageError(f"{product.name}: block {block} has no command and no renderer in tools/regen_tables.py")
    try:
        return renderer(root)
    except OSError as e:
        raise RuntimeError(f"{product.name} block {block}: {os.path.relpath(e.filename, root)}: {e.strerror}")
    except (KeyError, ValueError, IndexError, ZeroDivisionError) as e:
        raise RuntimeError(f"{product.name} block {block}: the data lacks what it needs ({type(e).__name__}: {e})")


def doc_blocks(text):
    """{(product, block): (start, end, content)} of a report's generated blocks."""
    return {(m.group(1), m.group(2)): (m.start(3), m.end(3), m.group(3)) for m in BLOCK.finditer(text)}


def rendered(product, root, doc_text):
    """{block: new content} of the product's blocks, laid out as the report has them (a block
    that starts on its own line stays a block, an inline one stays inline)."""
    found = doc_blocks(doc_text)
    out = {}
    for block in product.blocks:
        if (product.name, block) not in found:
            raise UsageError(f"{product.doc}: no block <!-- regen: {product.name} {block} -->")
        content = render_block(product, block, root)
        out[block] = f"\n{content}\n" if found[(product.name, block)][2].startswith("\n") else content
    return out


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def is_separator(line):
    return line.startswith("|") and all(set(c) <= set("-:") for c in cells(line))


UNITS = {"B", "KiB", "MiB", "GiB", "ns", "us", "ms", "s", "P", "m", "x"}


def names(cell):
    """The words of a table cell that are not numbers or units: an algorithm, a selector."""
    return [w for w in re.findall(r"(?<![\w.])[A-Za-z_][A-Za-z_0-9]*", cell) if w not in UNITS]


def block_changes(old, new):
    """What changed in one generated block: the cells of its tables (and which of them change a
    name, such as the fastest algorithm), other lines, or the sentence it now says."""
    if old == new:
        return None
    a, b = old.strip().splitlines(), new.strip().splitlines()
    if len(a) == 1 and len(b) == 1:
        return f"now: {b[0]}"
    if len(a) != len(b):
        return f"{sum(1 for d in difflib.ndiff(a, b) if d.startswith('+ '))} lines differ"
    header, changed, named, total, other = [], 0, [], 0, 0
    firsts = [cells(y)[0] for y in b if y.startswith("|")]
    for i, (x, y) in enumerate(zip(a, b)):
        if is_separator(y):
            continue
        if y.startswith("|") and i + 1 < len(b) and is_separator(b[i + 1]):
            header = cells(y)
            other += x != y
            continue
        cx, cy = cells(x), cells(y)
        if not (x.startswith("|") and y.startswith("|") and len(cx) == len(cy) == len(header)):
            other += x != y
            continue
        total += len(cy)
        for column, (u, v) in enumerate(zip(cx, cy)):
            if u != v:
                changed += 1
                if names(u) != names(v):
                    row = " ".join(cy[:2]) if firsts.count(cy[0]) > 1 and column > 1 else cy[0]
                    named.append(f"{row} {header[column]}: {u} -> {v}")
    text = f"{changed} of {total} cells changed" if total else ""
    if named:
        text += f", {len(named)} of them change a name: " + "; ".join(named[:6]) + ("; ..." if len(named) > 6 else "")
    if other:
        text += f"{'; ' if text else ''}{other} other lines differ"
    return text


def check_doc(product, data_root, doc_root):
    """Lines saying which of the product's blocks in its report differ from what data_root's data
    renders."""
    if not product.doc:
        return []
    with open(os.path.join(doc_root, product.doc)) as f:
        text = f.read()
    found = doc_blocks(text)
    lines = []
    try:
        new = rendered(product, data_root, text)
    except RuntimeError as e:
        return [f"{product.doc}: cannot render: {e}"]
    for block, content in new.items():
        change = block_changes(found[(product.name, block)][2], content)
        if change:
            lines.append(f"{product.doc} [{block}]: {change}")
    return lines


def write_doc(product, root):
    if not product.doc:
        return False
    path = os.path.join(root, product.doc)
    with open(path) as f:
        text = f.read()
    new = rendered(product, root, text)

    def replace(m):
        if m.group(1) != product.name or m.group(2) not in new:
            return m.group(0)
        return f"<!-- regen: {m.group(1)} {m.group(2)} -->{new[m.group(2)]}<!-- /regen -->"

    result = BLOCK.sub(replace, text)
    if result != text:
        with open(path + ".tmp", "w") as f:
            f.write(result)
        os.replace(path + ".tmp", path)
    return result != text


def shell_blocks(text):
    """The commands of a report's ```sh blocks, continuation lines joined, comments dropped."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s#.*$", "", line).strip()
            if line and not line.startswith("#"):
                commands.append(" ".join(line.split()))
    return commands


def check_doc_commands(product, root):
    if not product.doc or not product.doc_commands:
        return []
    with open(os.path.join(root, product.doc)) as f:
        documented = shell_blocks(f.read())
    return [f"{product.doc}: its ```sh blocks lack the command `{' '.join(c.split())}`"
            for c in product.commands if " ".join(c.split()) not in documented]


# ---- what the command line asks ----


def remake(product, root, check, keep):
    """Runs the product's commands in a scratch tree; with check, reports against the repository,
    else copies the outputs back and re-renders the report. True if current (check) or done."""
    started = time.monotonic()
    say(f"{product.name}: {product.kind}, about {product.duration()}")
    tree = scratch_tree(root, keep and os.path.join(keep, product.name))
    try:
        prepare(product, tree)
        with open(os.path.join(tree, "results", "regen-stdout.log"), "w") as log:
            failure = run_commands(product, tree, log)
        if failure:
            print(f"{product.name}: FAILED: {failure}")
            return False
        stale, lines = compare_outputs(product, root, tree)
        doc_lines = check_doc(product, tree, root) if check else []
        took = f"{time.monotonic() - started:.0f} s"
        if check:
            state = "stale" if stale or doc_lines else "current"
            print(f"{product.name}: {state} ({took})")
        else:
            for pattern in product.outputs:
                new = matches(tree, pattern)
                for path in matches(root, pattern):
                    if path not in new:
                        os.remove(os.path.join(root, path))
                for path in new:
                    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                    shutil.copy2(os.path.join(tree, path), os.path.join(root, path))
            rewrote = write_doc(product, root)
            print(f"{product.name}: re-made ({took}){'; ' + product.doc + ' re-rendered' if rewrote else ''}"
                  f"{'; what moved:' if lines else '; nothing moved'}")
        for line in lines + doc_lines:
            print(f"  {line}")
        return not (check and (stale or doc_lines))
    finally:
        if not keep:
            shutil.rmtree(tree, ignore_errors=True)


def main(argv):
    args = list(argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    manifest, keep = None, None
    flags, names = set(), []
    while args:
        a = args.pop(0)
        if a in ("--root", "--manifest", "--keep"):
            if not args:
                raise UsageError(f"{a} needs a value")
            value = os.path.abspath(args.pop(0))
            root, manifest, keep = (value, manifest, keep) if a == "--root" else \
                (root, value, keep) if a == "--manifest" else (root, manifest, value)
        elif a in ("--list", "--all", "--check", "--docs", "--quick", "--render"):
            flags.add(a)
        elif a.startswith("-"):
            raise UsageError(f"unknown option '{a}' (see --help)")
        else:
            names.append(a)
    products = load_manifest(manifest or os.path.join(root, "tools", "regen.yaml"))
    for n in names:
        if n not in products:
            raise UsageError(f"no product '{n}' (tools/regen --list names them)")
    if "--list" in flags:
        for p in products.values():
            print(f"{p.name:26} {p.kind:9} about {p.duration():7} {p.doc or ''}")
            if p.note:
                print(f"{'':26} ({p.note})")
            for pattern in p.outputs:
                print(f"{'':26} {pattern}")
        return 0
    if "--docs" in flags and "--check" not in flags:
        raise UsageError("--docs goes with --check (tools/regen --check --docs)")
    chosen = [products[n] for n in names] or \
        [p for p in products.values() if "--quick" not in flags or p.minutes <= 1]
    if not names and not ({"--all", "--check", "--render"} & flags):
        raise UsageError("name the products to re-make, or --all (tools/regen --list names them)")
    if "--render" in flags:
        for p in chosen:
            if write_doc(p, root):
                print(f"{p.name}: {p.doc} re-rendered from the data")
        return 0
    ok = True
    if "--check" in flags:
        for p in chosen:
            lines = check_doc(p, root, root) + check_doc_commands(p, root)
            if lines:
                ok = False
                print(f"{p.name}: the report is out of sync with the committed data or commands")
                for line in lines:
                    print(f"  {line}")
        if "--docs" in flags:
            if ok:
                print(f"{len(chosen)} product{'s' if len(chosen) != 1 else ''}: every generated block matches the "
                      "committed data")
            return 0 if ok else 1
    total = sum(p.minutes for p in chosen)
    say(f"{len(chosen)} product{'s' if len(chosen) != 1 else ''}, about {total:.0f} min in all")
    for p in chosen:
        ok &= remake(p, root, "--check" in flags, keep)
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"tools/regen: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
