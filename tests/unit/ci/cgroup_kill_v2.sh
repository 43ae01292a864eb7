#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cgroup_kill_v2.sh CGROUP_KILL_SH: issue 33 item 9. The tests' whole-cgroup kill (tests/gvisor/
# cgroup_kill.sh: freeze, SIGKILL every process, thaw) against cgroup v2- and v1-shaped trees in a
# temporary directory, since this VM cannot switch to v2. A stand-in for the kernel keeps each
# tree's files as the kernel would (cgroup.events' "frozen", freezer.state, the live PIDs in
# cgroup.procs) and logs what it saw; real processes (sleep) are the cgroup's members. Checked:
# where the cgroup is made, that the freeze is written and seen before the first kill, that every
# member (a child cgroup's too) dies, that it is thawed after, and where a Slurm job's cgroup is found.
set -euo pipefail
lib=$1
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
kernel= members=()
cleanup() {
  [ -n "$kernel" ] && kill "$kernel" 2>/dev/null && wait "$kernel" 2>/dev/null
  for p in "${members[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trace=$work/trace killing=

# The kernel's part for cgroup CG (v2 or v1): every 5 ms, the state files follow what was written.
fake_kernel() {
  local cg=$1 version=$2 f
  while true; do
    for f in "$cg/cgroup.procs" "$cg/child/cgroup.procs"; do
      [ -f "$f" ] || continue
      local live=
      while read -r p; do [ -n "$p" ] && [ -e "/proc/$p" ] && [ "$(cut -d" " -f3 "/proc/$p/stat" 2>/dev/null)" != Z ] && live+="$p"$'\n'; done < "$f"
      printf '%s' "$live" > "$f.new"; mv "$f.new" "$f"
    done
    # v2: cgroup.events follows cgroup.freeze a moment later, as the kernel's does. (v1's
    # freezer.state reads back what was written: FROZEN once frozen.)
    if [ "$version" = 2 ]; then
      if [ "$(cat "$cg/cgroup.freeze")" = 1 ]; then
        grep -q 'frozen 1' "$cg/cgroup.events" || printf 'populated 1\nfrozen 1\n' > "$cg/cgroup.events"
      else
        grep -q 'frozen 0' "$cg/cgroup.events" || printf 'populated 1\nfrozen 0\n' > "$cg/cgroup.events"
      fi
    fi
    sleep 0.005
  done
}

# Each SIGKILL is logged with the cgroup's state at that moment, as the kernel reports it.
state_of() {
  if [ -f "$1/freezer.state" ]; then [ "$(cat "$1/freezer.state")" = FROZEN ] && echo frozen || echo thawed
  else grep -q 'frozen 1' "$1/cgroup.events" && echo frozen || echo thawed; fi
}
kill() { [ "${1:-}" = -9 ] && echo "kill-while-$(state_of "$killing")" >> "$trace"; builtin kill "$@"; }

run_case() {  # VERSION
  local version=$1 root=$work/v$1 cg
  mkdir -p "$root"
  if [ "$version" = 2 ]; then echo "cpu memory pids" > "$root/cgroup.controllers"; else mkdir -p "$root/freezer" "$root/memory"; fi
  CGROUP_ROOT=$root
  source "$lib"
  cg=$(cgroup_for_kill plb-kill-test)
  if [ "$version" = 2 ]; then [ "$cg" = "$root/plb-kill-test" ] || fail "v2: the cgroup would be $cg"
  else [ "$cg" = "$root/freezer/plb-kill-test" ] || fail "v1: the cgroup would be $cg"; fi
  mkdir -p "$cg/child"
  if [ "$version" = 2 ]; then echo 0 > "$cg/cgroup.freeze"; printf 'populated 1\nfrozen 0\n' > "$cg/cgroup.events"
  else echo THAWED > "$cg/freezer.state"; fi
  members=()
  for _ in 1 2; do sleep 300 & members+=($!); done
  sleep 300 & members+=($!)
  printf '%s\n' "${members[0]}" "${members[1]}" > "$cg/cgroup.procs"
  echo "${members[2]}" > "$cg/child/cgroup.procs"
  : > "$trace"
  killing=$cg
  fake_kernel "$cg" "$version" & kernel=$!
  local n
  n=$(cgroup_kill_all "$cg")
  builtin kill "$kernel"; wait "$kernel" 2>/dev/null || true; kernel=
  [ "$n" = 3 ] || fail "v$version: killed $n processes, expected 3 (the child cgroup's too)"
  for p in "${members[@]}"; do
    wait "$p" 2>/dev/null || true
    [ -e "/proc/$p" ] && fail "v$version: process $p survived"
  done
  [ "$(sort -u "$trace")" = kill-while-frozen ] || fail "v$version: a process was killed while the cgroup was not frozen: $(tr '\n' ' ' < "$trace")"
  if [ "$version" = 2 ]; then [ "$(cat "$cg/cgroup.freeze")" = 0 ] || fail "v2: left frozen"
  else [ "$(cat "$cg/freezer.state")" = THAWED ] || fail "v1: left frozen"; fi
  echo "v$version: $(tr '\n' ' ' < "$trace")"
}

run_case 2
run_case 1

# A Slurm job's cgroup: v2 (Slurm's cgroup/v2 plugin, one slurmd and two on one host) and v1.
v2=$work/slurm-v2
mkdir -p "$v2/system.slice/slurmstepd.scope/job_41/step_batch" "$v2/system.slice/n2_slurmstepd.scope/job_42"
echo "cpu memory pids" > "$v2/cgroup.controllers"
CGROUP_ROOT=$v2; source "$lib"
[ "$(slurm_job_cgroup 41)" = "$v2/system.slice/slurmstepd.scope/job_41" ] || fail "v2: job 41 found at '$(slurm_job_cgroup 41)'"
[ "$(slurm_job_cgroup 42 n2)" = "$v2/system.slice/n2_slurmstepd.scope/job_42" ] || fail "v2: job 42 of n2 at '$(slurm_job_cgroup 42 n2)'"
[ -z "$(slurm_job_cgroup 42 n1)" ] || fail "v2: job 42 found under n1"
v1=$work/slurm-v1
mkdir -p "$v1/freezer/slurm_n1/uid_0/job_43/step_batch" "$v1/cpuset/slurm_n1/uid_0/job_43"
CGROUP_ROOT=$v1; source "$lib"
[ "$(slurm_job_cgroup 43 n1)" = "$v1/freezer/slurm_n1/uid_0/job_43" ] || fail "v1: job 43 at '$(slurm_job_cgroup 43 n1)'"
echo "PASS: the whole-cgroup kill freezes, kills every member and thaws on v2 and v1 trees"
