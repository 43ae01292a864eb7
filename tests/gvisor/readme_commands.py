#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""readme_commands.py TOOL SOURCE_DIR [--readme PATH] [--only SECTION] [--self-test]

README.md's command blocks, read from README.md at test time and run as written on real gVisor
(issue 44): an operator copies them, so a block that no longer runs must fail CI.

Every fenced block of README.md is accounted for by PLAN below, by its section's heading: run, read
as the data a run needs, or named as skipped with why. A block the plan does not know fails the
test, so a new README block is either run here or skipped here on purpose. Each ```sh block runs
with `bash -e` (the first failing command fails it) in a fresh temporary directory holding only
the files the README names for it, copied from examples/ as the README says; `plb-sandbox` is the
built TOOL through a PATH entry. Only the README's placeholders are filled in: MODEL_SHA256 and
sha256:REVIEWED_IMAGE_ID in the quick start, and the shortened digests of the batch manifest (each
must be the start of its script's real digest). `report` and `verify` run where the batch ran:
they read its results.

--readme runs another copy of the README (a README broken on purpose must fail); --only runs one
section's blocks; --self-test breaks a flag of the quick start in a copy and passes only if this
script then fails naming that block. Exits non-zero on any failure; the temporary directories
are removed on every way out (SIGTERM included: ctest's timeout).
"""
import argparse
import csv
import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

BLOCK_TIMEOUT = 300  # seconds for one block: a sandbox-score run, or a batch of two

# README sections (the start of their "## " heading) and what each of their blocks is, by language.
SKIPPED = "skipped"
PLAN = {
    "Set-up": {"sh": (SKIPPED, "sets up the host (packages, runsc, dockerd, the image) and builds the tool "
                               "(ci/example), or is the whole of CI (ci/test), which runs this test: CI runs both "
                               "as its own stages")},
    "Another host: the packages": {"sh": ("doctor", "only its `plb-sandbox doctor` line runs here: dpkg -i, apt-get "
                                                   "and plb-sandbox-setup-host install the .deb on a host of its own "
                                                   "(ci/package-test runs them)")},
    "Quick start": {"sh": ("quick_start", None)},
    "Scoring a round": {"json": ("manifest", None), "sh": ("batch", None)},
    "The round at a glance": {"sh": ("report", None)},
    "Re-running a result": {"sh": ("verify", None), "text": ("verify_output", None)},
}
# The files each run's README text says to copy from examples/ (checked to be named there).
QUICK_START_FILES = {"submitted-model.py": "model.py", "local-input.csv": "input.csv"}
BATCH_FILES = {"subs/team-01.py": "batch/sum.py", "subs/team-02.py": "batch/mean.py", "local-input.csv": "input.csv"}


class Failed(Exception):
    pass


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def readme_blocks(path):
    """Yields (section, language, text, line) for every fenced block, in order."""
    section, fence, body = "", None, []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if fence is None and line.startswith("## "):
                section = line[3:].strip()
            elif fence is None and line.startswith("```"):
                fence, body, start = line[3:].strip(), [], number
            elif fence is not None and line.startswith("```"):
                yield section, fence, "".join(body), start
                fence = None
            elif fence is not None:
                body.append(line)
    if fence is not None:
        raise Failed(f"{path}: the block at line {start} is never closed")


def section_text(path, section):
    text = open(path, encoding="utf-8").read()
    start = text.index("## " + section)
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def plan_of(section, language, line):
    for heading, blocks in PLAN.items():
        if section.startswith(heading) and language in blocks:
            return heading, blocks[language]
    raise Failed(f"README line {line}: a ```{language} block in \"{section}\" that this test neither runs nor names "
                 "as skipped: run it in tests/gvisor/readme_commands.py, or skip it there with why")


class Runner:
    def __init__(self, tool, source, readme):
        self.source, self.readme = source, readme
        self.examples = os.path.join(source, "examples")
        self.root = tempfile.mkdtemp(prefix="plb-readme-")  # 0700, this user's: a fresh directory's parent
        bin_dir = os.path.join(self.root, "bin")
        os.mkdir(bin_dir)
        os.symlink(os.path.abspath(tool), os.path.join(bin_dir, "plb-sandbox"))
        self.env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"))
        self.image = open("/var/lib/plb-sandbox/runtime-image.id").read().strip()
        self.batch_dir = None
        self.failures = []

    def fresh_dir(self, name, files):
        d = os.path.join(self.root, name)
        os.mkdir(d)
        for target, example in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, target)), exist_ok=True)
            shutil.copyfile(os.path.join(self.examples, example), os.path.join(d, target))
        return d

    def run_block(self, name, text, cwd):
        """Runs `text` with bash -e in `cwd`; returns its stdout. Raises Failed on a non-zero exit."""
        script = os.path.join(self.root, name + ".sh")  # beside, not in, the block's directory
        with open(script, "w") as f:
            f.write(text)
        print(f"--- {name}, in {cwd}:\n{text.rstrip()}", flush=True)
        # Its own process group: a block past its time (or this test stopped) is sent SIGTERM,
        # on which plb-sandbox removes its sandbox before it exits.
        p = subprocess.Popen(["bash", "-e", "-o", "pipefail", script], cwd=cwd, env=self.env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = p.communicate(timeout=BLOCK_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise Failed(f"{name}: still running after {BLOCK_TIMEOUT} s")
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                p.communicate(timeout=30)
        sys.stdout.write(out + err)
        if p.returncode != 0:
            raise Failed(f"{name}: exit {p.returncode}: the README's block does not run as written")
        return out

    def named_in_readme(self, section, files):
        text = section_text(self.readme, section)
        for target, example in files.items():
            if os.path.basename(example) not in text:
                raise Failed(f"{section}: the README no longer says that {target} can be examples/{example}")

    def fill(self, text, placeholder, value, section):
        if text.count(placeholder) != 1:
            raise Failed(f"{section}: the placeholder {placeholder} appears {text.count(placeholder)} times, not once")
        return text.replace(placeholder, value)

    # Each block, by its plan's name.
    def doctor(self, text, _):
        lines = [line for line in text.splitlines() if line.startswith("plb-sandbox doctor ")]
        if len(lines) != 1:
            raise Failed(f"the packages' block has {len(lines)} `plb-sandbox doctor` lines, not one")
        self.run_block("doctor", lines[0] + "\n", self.fresh_dir("doctor", {}))

    def quick_start(self, text, _):
        self.named_in_readme("Quick start", QUICK_START_FILES)
        d = self.fresh_dir("quick-start", QUICK_START_FILES)
        text = self.fill(text, "MODEL_SHA256", sha256_of(os.path.join(d, "submitted-model.py")), "Quick start")
        text = self.fill(text, "sha256:REVIEWED_IMAGE_ID", self.image, "Quick start")
        before = set(os.listdir(d))
        self.run_block("quick-start", text, d)
        out = os.path.join(d, "outputs")
        published = ["sandbox-predictions.csv", "sandbox-predictions.csv.sandbox.json"]
        if not os.path.isdir(out) or sorted(os.listdir(out)) != published:
            raise Failed(f"quick start: outputs/ does not hold exactly its two files: {os.listdir(d)}")
        if set(os.listdir(d)) - before != {"outputs"}:
            raise Failed(f"quick start: wrote more than outputs/: {sorted(set(os.listdir(d)) - before)}")
        modes = [stat.S_IMODE(os.stat(os.path.join(out, p)).st_mode) for p in ["."] + published]
        if modes != [0o700, 0o600, 0o600]:
            raise Failed(f"quick start: modes {[oct(m) for m in modes]}, not outputs/ 0700 and its files 0600")
        print("ok: the quick start published outputs/ (0700) and its two files (0600)")

    def manifest(self, text, _):
        self.named_in_readme("Scoring a round", BATCH_FILES)
        self.batch_dir = self.fresh_dir("batch", BATCH_FILES)
        lines = []
        for line in text.splitlines():
            entry = json.loads(line)
            real = sha256_of(os.path.join(self.batch_dir, entry["model"]))
            shown = entry["model_sha256"].removesuffix("...")
            if not real.startswith(shown):
                raise Failed(f"the manifest's {entry['id']}: {shown}... is not the start of {entry['model']}'s "
                             f"digest {real}: the README's example and its copy instruction disagree")
            lines.append(line.replace(entry["model_sha256"], real))
        with open(os.path.join(self.batch_dir, "round-7.jsonl"), "w") as f:
            f.write("\n".join(lines) + "\n")
        self.manifest_ids = [json.loads(line)["id"] for line in lines]

    def batch(self, text, _):
        if self.batch_dir is None:
            raise Failed("the batch's block comes before its manifest's")
        self.run_block("batch", text, self.batch_dir)
        with open(os.path.join(self.batch_dir, "round-7", "batch-summary.csv"), newline="") as f:
            verdicts = {row["id"]: row["verdict"] for row in csv.DictReader(f)}
        if verdicts != {i: "success" for i in self.manifest_ids}:
            raise Failed(f"batch: verdicts {verdicts}, not a success for each manifest line")
        print(f"ok: the batch scored {len(verdicts)} lines, each a success")

    def report(self, text, _):
        if self.batch_dir is None:
            raise Failed("report runs on the batch's results: its block comes before the batch's")
        page = os.path.join(self.batch_dir, "round-7", "batch-report.html")
        os.remove(page)  # the batch wrote one: the report must write it again
        self.run_block("report", text, self.batch_dir)
        if not os.path.isfile(page):
            raise Failed("report: no round-7/batch-report.html")
        print("ok: report wrote the round's page again")

    def verify(self, text, _):
        if self.batch_dir is None:
            raise Failed("verify runs on the batch's results: its block comes before the batch's")
        self.verify_stdout = self.run_block("verify", text, self.batch_dir)

    def verify_output(self, text, _):
        # What the README shows verify printing: its words as written, each "..." standing for anything.
        shown = text.strip()
        pattern = ".*".join(re.escape(part) for part in shown.split("..."))
        got = getattr(self, "verify_stdout", "").strip()
        if not re.fullmatch(pattern, got):
            raise Failed(f"verify printed\n  {got}\nnot what the README shows:\n  {shown}")
        print("ok: verify printed what the README shows")


def run(args):
    runner = Runner(args.tool, args.source, args.readme)
    try:
        for section, language, text, line in readme_blocks(args.readme):
            heading, (action, why) = plan_of(section, language, line)
            if args.only and heading != args.only:
                continue
            if action == SKIPPED:
                print(f"--- skipped: the ```{language} block of \"{heading}\" (line {line}): {why}")
                continue
            if why:
                print(f"--- partly skipped: \"{heading}\" (line {line}): {why}")
            try:
                getattr(runner, action)(text, line)
            except (Failed, OSError, ValueError, KeyError) as e:
                runner.failures.append(f"README line {line} ({heading}): {e}")
                print(f"FAIL: {runner.failures[-1]}", flush=True)
                if action in ("manifest", "batch"):  # report and verify need the batch's results
                    runner.batch_dir = None
    finally:
        shutil.rmtree(runner.root, ignore_errors=True)
    if runner.failures:
        print(f"FAIL: {len(runner.failures)} README block(s) do not run as written")
        return 1
    print("PASS: README.md's commands run as written")
    return 0


def self_test(args):
    """Breaks the quick start's --memory-mb flag in a copy of the README: this test must then fail."""
    text = open(args.readme, encoding="utf-8").read()
    good, broken = "--memory-mb 512 --output outputs/", "--memory-mib 512 --output outputs/"
    if text.count(good) != 1:
        raise Failed(f"the quick start no longer holds `{good}` to break")
    with tempfile.TemporaryDirectory(prefix="plb-readme-self-test-") as d:
        copy = os.path.join(d, "README.md")
        with open(copy, "w", encoding="utf-8") as f:
            f.write(text.replace(good, broken))
        r = subprocess.run([sys.executable, __file__, args.tool, args.source, "--readme", copy, "--only", "Quick start"],
                           text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=BLOCK_TIMEOUT + 60)
    sys.stdout.write(r.stdout)
    if r.returncode == 0 or "(Quick start): quick-start: exit 2" not in r.stdout:
        print(f"FAIL: a README whose quick start has {broken} did not fail its block (exit {r.returncode})")
        return 1
    print(f"PASS: a README whose quick start has {broken} fails this test, naming the block")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("tool")
    p.add_argument("source")
    p.add_argument("--readme")
    p.add_argument("--only", choices=list(PLAN))
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    args.readme = args.readme or os.path.join(args.source, "README.md")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # ctest's timeout: the finally still cleans up
    try:
        return self_test(args) if args.self_test else run(args)
    except Failed as e:
        print(f"FAIL: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
