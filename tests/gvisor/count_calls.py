#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""count_calls.py TRACE BUDGET RUNTIME --lines=N --startup=S1,...,SN: counts what one traced run (or
a batch of N lines run with --jobs 1) cost outside the sandbox against the tool's call budget
(src/runner/engine/call_budget.hpp, as `explain --json` prints it under "call_budget"), prints
every count against its allowance, and exits 1 when any count exceeds it, a call matches no row, or a fixed call (one whose count does
not grow with the run) is missing: a budget that no longer describes the run, or a tracer that
stopped seeing the calls, must not pass.

TRACE comes from `strace -f -Y -yy -tt -q -s 300 -e trace=execve,connect,write,sendto,sendmsg
-e signal=none` plus prctl and wait4: -Y names each process (the docker client is "docker", the tool
and its reaper "plb-sandbox..."), -yy names each socket's inode, so a request is an HTTP request
line written to a socket that was connected to the daemon's or to a run's engine gate (the tool's
relay splices the client's bytes through unchanged, so the client's requests are counted where it
writes them, once). The client is launched before the preflight, held at its gate; the gate's relay
thread names itself (prctl PR_SET_NAME "plb-engine-gate") as it opens, and that opening to the
client's exit splits the tool's requests into preflight, run and cleanup; each line of a batch is
one client. For the tool's own requests the run lasts until it reaps the client (the wait4 that
returns the client's PID): the watchdog samples until it learns of the exit, and a sample already
under way when the client exits is still the run's, not a cleanup request.

The watchdog looks for its container's start until it has seen it; the start is not in the trace,
so each line's start-up (its recorded startup_seconds, the daemon's start after the gate opened:
S1..SN in line order) bounds that window. The window before the container exists ends at the
client's attach request, which it sends once the daemon has answered its create.
"""
import json
import math
import re
import sys
from collections import Counter

DOCKER_SOCKET = "/var/run/docker.sock"
GATE_SOCKET = re.compile(r"^/var/lib/plb-sandbox/runs/[0-9a-f]{32}/docker-config/engine\.sock$")
GATE_OPENS = re.compile(r'^prctl\(PR_SET_NAME, "plb-engine-gate"')
LINE = re.compile(r"^(\d+)<([^>]*)> (\d\d):(\d\d):(\d\d\.\d+) (.*)$")
CONNECT = re.compile(r'^connect\(\d+<UNIX-STREAM:\[(\d+)\]>, \{sa_family=AF_UNIX, sun_path="([^"]*)"')
SEND = re.compile(r'^(?:write|sendto|sendmsg)\(\d+<UNIX-STREAM:\[(\d+)(?:->\d+)?\]>, (?:\{msg_name=.*?iov_base=)?"([A-Z]+) (/[^ "]*) HTTP/1\.1')
REAPED = re.compile(r"^(?:wait4\(|<\.\.\. wait4 resumed>).*\) = (\d+)$")
EXECVE = re.compile(r'^execve\("([^"]+)", \[(.*?)\](?:, 0x[0-9a-f]+ /\* \d+ vars? \*/)?')
PLACEHOLDER = {"{name}": r"[A-Za-z0-9_.-]+", "{id}": r"[0-9a-f]{64}", "{image}": r"sha256:[0-9a-f]{64}",
               "{query}": r"[^ ]*"}


def template_regex(path):
    out = ""
    for part in re.split(r"(\{[a-z]+\})", path):
        out += PLACEHOLDER.get(part, re.escape(part))
    return re.compile("^" + out + "$")


class Client:
    def __init__(self, pid, launched, name):
        self.pid, self.launched, self.name = pid, launched, name
        self.start = None  # when its gate opened: its run phase begins there
        self.end = None  # when it exited
        self.reaped = None  # when the tool learnt it had: the end of the tool's run phase
        self.created = None  # when it sent its create request
        self.attached = None  # when it sent its attach request: the create had been answered
        self.startup = None  # the run's recorded start-up: its container started at start + this


def parse(trace_path, api_prefix):
    execs, requests, clients, docker_inodes, openings = [], [], [], set(), []
    pending_exec, exits, reaps = {}, {}, {}
    for raw in open(trace_path, encoding="utf-8", errors="replace"):
        m = LINE.match(raw.rstrip("\n"))
        if not m:
            continue
        pid, comm, rest = int(m.group(1)), m.group(2), m.group(6)
        t = int(m.group(3)) * 3600 + int(m.group(4)) * 60 + float(m.group(5))
        if rest.startswith("+++ exited") or rest.startswith("+++ killed"):
            exits.setdefault(pid, t)
            continue
        r = REAPED.match(rest)
        if r:
            reaps.setdefault(int(r.group(1)), t)
            continue
        if rest.startswith("<... execve resumed>"):
            if pid in pending_exec and re.search(r"\) = 0$", rest):
                execs.append(pending_exec.pop(pid))
            continue
        e = EXECVE.match(rest)
        if e:
            if comm == "strace":  # strace starting the tool itself
                continue
            argv = re.findall(r'"((?:[^"\\]|\\.)*)"', e.group(2))
            entry = (t, pid, e.group(1), argv)
            if rest.endswith("<unfinished ...>"):
                pending_exec[pid] = entry
            elif re.search(r"\) = 0$", rest):
                execs.append(entry)
            continue
        if GATE_OPENS.match(rest):
            openings.append(t)
            continue
        c = CONNECT.match(rest)
        if c:
            if c.group(2) == DOCKER_SOCKET or GATE_SOCKET.match(c.group(2)):
                docker_inodes.add(c.group(1))
            continue
        s = SEND.match(rest)
        if s and s.group(1) in docker_inodes:
            target = s.group(3)
            if target.startswith(api_prefix + "/"):
                target = target[len(api_prefix):]
            requests.append((t, pid, comm, s.group(2), target))
    for t, pid, program, argv in execs:
        if program == "/usr/bin/docker":
            name = next((a.split("=", 1)[1] for a in argv if a.startswith("--name=")), "")
            clients.append(Client(pid, t, name))
            clients[-1].end = exits.get(pid)
            clients[-1].reaped = reaps.get(pid, clients[-1].end)
    clients.sort(key=lambda c: c.launched)
    for t in sorted(openings):  # each opening belongs to the latest client launched before it
        owner = [c for c in clients if c.launched <= t]
        if owner and owner[-1].start is None:
            owner[-1].start = t
    return execs, requests, clients


def where(t, comm, target, clients):
    """(line index or None for the batch's preflight, phase) of one request."""
    if comm == "docker":
        for i, c in enumerate(clients):
            if c.launched <= t <= (c.end or math.inf):
                return i, "run"
        return None, "unattributed"
    for i, c in enumerate(clients):
        if c.name and c.name in target:
            if t < c.start:
                return i, "preflight"
            return i, "run" if t <= (c.reaped or math.inf) else "cleanup"
    for i, c in enumerate(clients):
        if t < c.start:
            return (None if i == 0 else i), "preflight"
        if t <= (c.reaped or math.inf):
            return i, "run"
        if i + 1 == len(clients) or t < clients[i + 1].start:
            return i, "cleanup"
    return None, "preflight"


def allowance(rows, client, period_ms):
    total = 0
    for r in rows:
        total += r["count"]
        span = None
        if r["extra"] == "run" and client is not None and client.reaped is not None:
            span = client.reaped - client.start
        elif r["extra"] == "until_created" and client is not None and client.attached is not None:
            span = client.attached - client.start + period_ms / 1000.0  # one period for the look under way
        elif r["extra"] == "until_started" and client is not None and client.startup is not None:
            # From the gate to the start, one look's period to see it, and one period for the answer.
            span = client.startup + (r["per_samples"] + 1) * period_ms / 1000.0
        if span is not None and r["per_samples"]:
            total += int(span * 1000 // (r["per_samples"] * period_ms))
    return total


def check(trace_path, budget, runtime, expected_lines, startups):
    period = budget["sample_period_ms"]
    execs, requests, clients = parse(trace_path, budget["api_prefix"])
    problems, lines = [], []
    if len(clients) != expected_lines:
        problems.append(f"{len(clients)} docker client(s) for {expected_lines} run(s)")
    if len(startups) != expected_lines:
        problems.append(f"{len(startups)} start-up time(s) for {expected_lines} run(s)")
    for c, s in zip(clients, startups):
        c.startup = s
    for c in clients:
        if c.start is None:  # no opening seen: the phases cannot be told apart
            problems.append(f"no engine gate opened for the client of {c.name or c.pid}")
            c.start = c.launched
    rows = {}
    for r in budget["engine"]:
        rows.setdefault((r["who"], r["phase"], r["method"], r["path"]), []).append(r)
    patterns = {key: template_regex(key[3]) for key in rows}
    counts = Counter()
    by_who = Counter()
    for t, pid, comm, method, target in requests:
        who = "client" if comm == "docker" else "tool" if comm.startswith("plb-sandbox") else comm
        by_who[who] += 1
        line, phase = where(t, comm, target, clients)
        if who == "client" and method == "POST" and target.startswith("/containers/create") and line is not None:
            if clients[line].created is None:
                clients[line].created = t
        if who == "client" and method == "POST" and "/attach" in target and line is not None:
            if clients[line].attached is None:
                clients[line].attached = t
        key = next((k for k in rows if k[:3] == (who, phase, method) and patterns[k].match(target)), None)
        if key is None:
            problems.append(f"{who} request in {phase} matches no row of the budget: {method} {target}")
            continue
        # A batch pays the preflight once; every other row once per line.
        counts[(None if phase == "preflight" and line in (None, 0) else line, key)] += 1

    # Every exec: the docker client once per line; anything else only as the budget says.
    exec_rows = {x["program"].replace("{runtime}", runtime): x for x in budget["execs"]}
    exec_counts = Counter(program for _, _, program, _ in execs)
    for program, n in sorted(exec_counts.items()):
        row = exec_rows.get(program)
        allowed = 0 if row is None else row["count"]
        if program == "/usr/bin/docker":
            allowed *= expected_lines  # one client per line
        lines.append(f"exec {program}: {n} (budget {allowed})")
        if n > allowed:
            problems.append(f"exec {program}: {n}, budget {allowed}")
    if exec_counts.get("/usr/bin/docker", 0) == 0:
        problems.append("the trace shows no exec of the docker client")
    for (scope, key), n in counts.items():
        if scope is not None and key[1] == "preflight":
            problems.append(f"line {scope + 1} repeats the preflight's {key[2]} {key[3]} ({n})")

    scopes = [None] + list(range(len(clients)))
    for scope in scopes:
        client = None if scope is None else clients[scope]
        label = "preflight" if scope is None else f"line {scope + 1} ({client.name})"
        for key, rs in rows.items():
            if (scope is None) != (key[1] == "preflight"):
                continue
            n = counts.get((scope, key), 0)
            allowed = allowance(rs, client, period)
            if n or allowed:
                lines.append(f"{label}: {key[0]} {key[1]} {key[2]} {key[3]}: {n} (budget {allowed})")
            if n > allowed:
                problems.append(f"{label}: {key[0]} {key[2]} {key[3]} in {key[1]}: {n}, budget {allowed}")
            elif n < allowed and all(r["extra"] == "none" for r in rs):
                # A fixed call the trace does not show: the budget is stale, or the tracer went
                # blind (a count of nothing proves nothing).
                problems.append(f"{label}: {key[0]} {key[2]} {key[3]} in {key[1]}: {n}, expected {allowed}")
    lines.append(f"totals: execs {sum(exec_counts.values())}, engine requests by the tool {by_who['tool']}, "
                 f"by the docker client {by_who['client']}")
    return lines, problems


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    expected = [int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--lines=")]
    startups = [[float(s) for s in a.split("=", 1)[1].split(",") if s] for a in sys.argv[1:]
                if a.startswith("--startup=")]
    if len(args) != 3 or len(expected) != 1 or len(startups) != 1:
        sys.exit(__doc__)
    trace_path, budget_path, runtime = args
    budget = json.load(open(budget_path, encoding="utf-8"))
    lines, problems = check(trace_path, budget, runtime, expected[0], startups[0])
    print("\n".join(lines))
    for p in problems:
        print("over budget: " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
