#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# hold_run_locks.py PIDFILE OUT: when told (SIGUSR1; OUT.ready exists once it may be told), takes
# this process's own copy of every run lock (/var/lib/plb-sandbox/runs/<run id>/lock) held by each
# tool process whose PID is in PIDFILE (one or more, separated by white space: a Slurm job's
# workers), writes the run IDs to OUT (one a line, written whole by a rename) and keeps the locks
# until it is killed. Each of the processes must hold at least one. Started before the tool and told late, it takes them within milliseconds of
# the moment the test chooses: Python's start, slow on a loaded host, is over before the tool runs.
# prelude.sh's start_lock_holder and hold_locks_of drive it.
#
# Why: a kill test (kill_everything.sh, and batch_slurm*.sh's lost workers) kills the tool and times the warden against the run's
# deadline. Run beside other tests, their preflights would sweep the dead run first. pidfd_getfd(2)
# copies a descriptor that shares the tool's open file description, so its flock outlives the tool:
# to every sweep the run is alive, as it would be with its tool stopped, and only the warden's
# deadline can end it. The CPU leases (/var/lib/plb-sandbox/cpus/) are left to die with the tool,
# as they do on a real host: held here, they would stall every other test's run for a minute.
import ctypes
import os
import signal
import sys

SYS_PIDFD_GETFD = 438  # the same number on every architecture Linux gives it
STATE = "/var/lib/plb-sandbox/"
KEPT = []  # the copied descriptors: open until this process dies, so their locks stay held


def copy_run_locks(libc, pid: int):
    """The run IDs whose lock files PID holds open, each descriptor copied into this process and
    kept open (a module-level list: they must outlive this call); None after a failed copy."""
    pidfd = os.pidfd_open(pid)
    runs = []
    for name in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue  # closed meanwhile
        parts = target[len(STATE):].split("/") if target.startswith(STATE) else []
        if not (len(parts) == 3 and parts[0] == "runs" and parts[2] == "lock"):
            continue
        fd = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(name), 0)
        if fd < 0:
            print(f"hold_run_locks: pidfd_getfd({pid}, {name}) for {target}: "
                  f"{os.strerror(ctypes.get_errno())}", file=sys.stderr)
            return None
        KEPT.append(fd)
        runs.append(parts[1])
    os.close(pidfd)
    return runs


def main() -> int:
    pid_file, out = sys.argv[1], sys.argv[2]
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    open(out + ".ready", "w").close()
    signal.sigwait({signal.SIGUSR1})
    with open(pid_file) as f:
        pids = [int(word) for word in f.read().split()]
    if not pids:
        print(f"hold_run_locks: {pid_file} names no process", file=sys.stderr)
        return 1
    libc = ctypes.CDLL(None, use_errno=True)
    runs = []
    for pid in pids:
        found = copy_run_locks(libc, pid)
        if found is None:
            return 1
        if not found:
            print(f"hold_run_locks: process {pid} holds no run's lock", file=sys.stderr)
            return 1
        runs += found
    with open(out + ".partial", "w") as f:
        f.write("".join(r + "\n" for r in sorted(set(runs))))
    os.rename(out + ".partial", out)
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main())
