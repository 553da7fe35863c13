#!/usr/bin/env python3
"""Runs the commands the documentation shows, as written, so that they cannot rot.

Reads the fenced code blocks of the documents named in tools/doc_commands.yaml, takes every
command of collsim, collsim-mpi, collsim-caf, mpirun and tools/ (a line ending in a backslash
goes on), and runs them in document order in one scratch folder that has the checkout's
scenarios/, platforms/, validation/ and tools/ and build/release/bin, so that a command that
reads what an earlier one wrote finds it. The manifest says which commands are only shown (a
placeholder, an install, hours of work) and which are slow (skipped unless --all); any command
not named there is run, so a new command in a document is tested from the day it is written.

  tools/doc_commands --bin build/release/bin            # the fast ones; exit 1 if any fails
  tools/doc_commands --bin build/release/bin --all      # also the slow ones
  tools/doc_commands --list                             # what would run, and why the rest would not
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The lab writes $B for build/release/bin/collsim (it says so).
COMMAND = re.compile(r"^(build/release/bin/|collsim(-mpi|-caf|-caf-counted)? |\$B |mpirun |tools/[\w./-]+(\s|$))")


def commands_of(path):
    """(line number, command) of every command in the fenced blocks of `path`."""
    found, block, pending, start = [], False, "", 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.rstrip("\n")
            if text.lstrip().startswith("```"):
                block, pending = not block, ""
                continue
            if not block:
                continue
            text = text.strip()
            if text.startswith("$ "):
                text = text[2:]
            if not pending:
                if not COMMAND.match(text):
                    continue
                start = number
            if text.endswith("\\"):
                pending += text[:-1].rstrip() + " "
                continue
            found.append((start, without_comment(pending + text)))
            pending = ""
    return found


def without_comment(command):
    """The command without a trailing `# ...` remark (a # that starts a word outside quotes)."""
    quote = None
    for i, c in enumerate(command):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or command[i - 1] == " "):
            return command[:i].rstrip()
    return command


def verdict(command, manifest):
    """("run" | "slow" | "shown", reason) for `command`."""
    for kind in ("shown", "slow"):
        for entry in manifest.get(kind, []):
            if command.startswith(entry["command"]):
                return kind, entry["why"]
    return "run", ""


def scratch_folder(bin_dir):
    """A folder with links to what the documented commands read; what they write stays in it."""
    work = tempfile.mkdtemp(prefix="collsim-doc-commands-")
    for name in ("scenarios", "platforms", "tools", "tests"):
        os.symlink(os.path.join(ROOT, name), os.path.join(work, name))
    # Copied: commands write there (validation/paper-grisou/parameters.yaml), not into the checkout.
    shutil.copytree(os.path.join(ROOT, "validation"), os.path.join(work, "validation"))
    os.makedirs(os.path.join(work, "build", "release"))
    os.symlink(os.path.abspath(bin_dir), os.path.join(work, "build", "release", "bin"))
    return work


def environment(bin_dir):
    env = dict(os.environ)
    # `collsim ...` as the documents write it is the built one.
    env["PATH"] = os.path.abspath(bin_dir) + os.pathsep + env.get("PATH", "")
    env["B"] = "build/release/bin/collsim"
    # mpirun as written, also as root and on fewer cores than ranks (CI).
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    return env


def main():
    parser = argparse.ArgumentParser(
        prog="tools/doc_commands", description="Runs the commands the documentation shows, as written."
    )
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "release", "bin"), help="the built programs")
    parser.add_argument("--all", action="store_true", help="also the slow commands")
    parser.add_argument("--list", action="store_true", help="say what would run and why the rest would not")
    parser.add_argument("--timeout", type=float, default=300, help="seconds a command may take (default 300)")
    parser.add_argument(
        "--manifest", default=os.path.join(ROOT, "tools", "doc_commands.yaml"), help="the documents and exceptions"
    )
    args = parser.parse_args()
    with open(args.manifest, encoding="utf-8") as f:
        manifest = yaml.safe_load(f)

    plan, names = [], set()
    documents = [d for pattern in manifest["documents"] for d in sorted(glob.glob(pattern, root_dir=ROOT))]
    for document in documents:
        for line, command in commands_of(os.path.join(ROOT, document)):
            kind, why = verdict(command, manifest)
            if kind == "slow" and args.all:
                kind = "run"
            plan.append((f"{document}:{line}", command, kind, why))
            names.add(command)
    # An exception that names no documented command is stale: the document changed under it.
    for kind in ("shown", "slow"):
        for entry in manifest.get(kind, []):
            if not any(c.startswith(entry["command"]) for c in names):
                print(f"{args.manifest}: {kind} entry '{entry['command']}' matches no documented command", file=sys.stderr)
                return 2

    if args.list:
        for place, command, kind, why in plan:
            print(f"{kind:5}  {place}  {command}" + (f"   ({why})" if why else ""))
        return 0

    if not os.path.isfile(os.path.join(args.bin, "collsim")):
        print(f"tools/doc_commands: no collsim in {args.bin} (build first, or give --bin)", file=sys.stderr)
        return 2
    work, env = scratch_folder(args.bin), environment(args.bin)
    failed, ran = [], 0
    try:
        for place, command, kind, why in plan:
            if kind != "run":
                continue
            ran += 1
            began = time.monotonic()
            try:
                done = subprocess.run(
                    ["bash", "-o", "pipefail", "-c", command],
                    cwd=work,
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    timeout=args.timeout,
                    text=True,
                    errors="replace",
                )
                status, output = done.returncode, done.stdout
            except subprocess.TimeoutExpired as e:
                # What it printed before the timeout comes back as bytes even in text mode.
                partial = e.stdout or b""
                status = f"timeout after {args.timeout:g} s"
                output = partial.decode(errors="replace") if isinstance(partial, bytes) else partial
            seconds = time.monotonic() - began
            print(f"{'ok' if status == 0 else 'FAIL':4}  {seconds:6.1f} s  {place}  {command}", flush=True)
            if status != 0:
                failed.append(place)
                tail = "\n".join(output.rstrip().splitlines()[-15:])
                print(f"      status {status}; the end of its output:\n" + "\n".join("      " + l for l in tail.splitlines()))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    skipped = sum(1 for p in plan if p[2] != "run")
    print(f"{ran} documented commands run, {len(failed)} failed, {skipped} not run (tools/doc_commands --list says why)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
