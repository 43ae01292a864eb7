#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ci/lib/tidy_cache.py BUILD FILE...: clang-tidy-16 on each FILE (against BUILD's compile commands),
as many at once as there are CPUs, skipping a file whose clang-tidy passed before on exactly the same
input. ci/lint tidy runs it.

A pass is remembered by a key of everything that can change clang-tidy's verdict on a file:
.clang-tidy, clang-tidy's version, the file's compile command, and the content of every file the
compilation read (the file, the project's headers and the system's, as the build's depfile lists
them). Paths under the checkout and the build directory are written relative to them, so a fresh
clone in another folder finds the passes of the last one. Only passes are kept; a file that fails is
checked again every time. Without a depfile (no build yet) a file is always checked.
The cache: $PLB_SANDBOX_LINT_CACHE, else ~/.cache/plb-sandbox/tidy (outside the checkout, and
outside /var/cache/plb-sandbox, which the package's purge removes).
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("PLB_SANDBOX_LINT_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "plb-sandbox", "tidy")
_content = {}


def content_hash(path):
    if path not in _content:
        try:
            with open(path, "rb") as f:
                _content[path] = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            _content[path] = "missing"
    return _content[path]


def depfile_inputs(entry):
    """The files the last build of this entry read, from its depfile (None when there is none)."""
    args = shlex.split(entry["command"])
    if "-o" not in args:
        return None
    depfile = os.path.join(entry["directory"], args[args.index("-o") + 1] + ".d")
    try:
        with open(depfile) as f:
            text = f.read().replace("\\\n", " ")
    except OSError:
        return None
    deps = text.split(":", 1)[1].split() if ":" in text else []
    return sorted({os.path.normpath(os.path.join(entry["directory"], d)) for d in deps})


def key_of(entry, build, config):
    inputs = depfile_inputs(entry)
    if inputs is None:
        return None

    def relative(text):
        return text.replace(build, "<build>").replace(ROOT, "<root>")

    h = hashlib.sha256(config.encode())
    h.update(relative(entry["command"] + "\0" + entry["directory"]).encode())
    for path in inputs:
        h.update(f"\0{relative(path)}\0{content_hash(path)}".encode())
    return h.hexdigest()


def tidy(build, path, key):
    r = subprocess.run(["clang-tidy-16", "-p", build, "--quiet", path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode == 0 and key:
        os.makedirs(CACHE, exist_ok=True)
        with open(os.path.join(CACHE, key), "w") as f:
            f.write(os.path.relpath(path, ROOT) + "\n")
    return r.returncode, r.stdout


def main():
    build, files = os.path.abspath(sys.argv[1]), [os.path.abspath(f) for f in sys.argv[2:]]
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = {os.path.abspath(e["file"]): e for e in json.load(f)}
    version = subprocess.run(["clang-tidy-16", "--version"], stdout=subprocess.PIPE, text=True).stdout
    with open(os.path.join(ROOT, ".clang-tidy")) as f:
        config = f.read() + "\0" + version
    todo, cached = [], 0
    for path in files:
        key = key_of(entries[path], build, config) if path in entries else None
        if key and os.path.exists(os.path.join(CACHE, key)):
            cached += 1
        else:
            todo.append((path, key))
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for (path, _), (rc, out) in zip(todo, pool.map(lambda t: tidy(build, *t), todo)):
            if rc != 0:
                failed += 1
                found = [line for line in out.splitlines() if "error:" in line or "warning:" in line]
                print("\n".join(f"lint: {line}" for line in found) or f"lint: {os.path.relpath(path, ROOT)}: clang-tidy exited {rc}\n{out}")
    checked = len(todo)
    if failed:
        print(f"lint: tidy found problems in {failed} of {len(files)} files")
        return 1
    print(f"lint: tidy ok ({len(files)} files: {checked} checked, {cached} unchanged since a pass)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
