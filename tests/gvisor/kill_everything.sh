#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kill_everything.sh TOOL STAGE EXAMPLES_DIR: runs sandbox-score in a cgroup of its own and, at
# STAGE, SIGKILLs every process in that cgroup at the same instant (freeze, kill, thaw: what Slurm's
# proctrack/cgroup, a systemd stop or a lost node do), so the tool, its reaper and the docker client
# die together. Then no container of the run may run past its deadline (creation + wall + the
# policy's 10 s grace), and each must be gone within the documented margin after it (SECURITY.md:
# one warden period plus the daemon's removal; the test allows 5 s on a loaded host).
#   preflight   the gVisor probe container exists (the proof cache is emptied first): the warden
#               removes it at its own deadline (creation + 60 s + 10 s)
#   preflight_sweep  the same kill; then a sweep removes the probe as the tool's own at once
#   create      the run's container exists and has not started
#   start       the docker client runs (the container may not exist yet)
#   streaming   the script spins a CPU
#   cleanup     the docker client has exited; the tool is inspecting and removing the container
#   client      SIGKILL of the tool alone as its docker client starts (the reaper may not have the
#               client's PID yet): the reaper, which enforces the name until wall + 5 s whatever it
#               was told, removes any container the orphaned client creates within seconds
#   reaper      SIGKILL of the reaper alone, then SIGSTOP of the tool (the tool is resumed at the
#               end and must report runtime_failed, never a verdict against the script)
#   warden      as streaming, and the warden SIGKILLed at the same instant (issue 33 item 4): its
#               supervisor restarts it, and the new warden removes the sandbox by its deadline
set -euo pipefail
tool=$1
stage=$2
examples=$3
image=${PLB_SANDBOX_RUNTIME_IMAGE:-$(cat /var/lib/plb-sandbox/runtime-image.id)}
readonly wall=4 grace=10 margin=5
fail() { echo "FAIL ($stage): $*"; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/cgroup_kill.sh"

work=$(mktemp -d)
cg=$(cgroup_for_kill "plb-kill-test-$$")
tool_pid=
cleanup() {
  [ -n "$tool_pid" ] && kill -CONT "$tool_pid" 2>/dev/null || true
  if [ -d "$cg" ]; then
    cgroup_thaw "$cg"
    while read -r p; do kill -9 "$p" 2>/dev/null || true; done < "$cg/cgroup.procs"
    for _ in $(seq 1 50); do [ -s "$cg/cgroup.procs" ] || break; sleep 0.1; done
    rmdir "$cg" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

kill_all_at_once() {
  echo "killed $(cgroup_kill_all "$cg") processes of the tool's cgroup at once ($stage)"
}
containers() { tool_containers; }
# The PID of the process named COMM in the cgroup, if any.
pid_named() { while read -r p; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ] && { echo "$p"; return; }; done < "$cg/cgroup.procs"; }
# Waits (10 ms steps, at most 60 s) until CONDITION (a shell function) holds.
wait_for() { for _ in $(seq 1 6000); do "$1" && return 0; sleep 0.01; done; fail "timed out waiting for: $1"; }

[ -z "$(containers)" ] || fail "containers of the tool exist before the test: $(containers)"
mkdir "$cg"
case "$stage" in
  streaming|reaper|warden) body='while True: pass' ;;
  cleanup) body='time.sleep(1.5)' ;;
  *) body='time.sleep(1)' ;;
esac
printf 'import json, sys, time\nrows = json.load(sys.stdin)["features"]\n%s\nprint(json.dumps({"predictions": [0.0 for r in rows]}))\n' "$body" > "$work/model.py"
case "$stage" in preflight*) rm -f /var/cache/plb-sandbox/*/*.json ;; esac   # the next run must prove gVisor again
# The tool enters the cgroup before it execs, so every process it starts is born inside it.
bash -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' _ "$cg" "$tool" sandbox-score \
  --model "$work/model.py" --model-sha256 "$(sha256sum "$work/model.py" | cut -d' ' -f1)" \
  --runtime-image "$image" --data "$examples/input.csv" --feature feature_a --feature feature_b \
  --task-type regression --seconds "$wall" --output "$work/out.csv" >"$work/out" 2>"$work/err" &
tool_pid=$!

probe_listed() { containers | awk '$4 == 70' | grep -q .; }
created_listed() { containers | awk '$2 == "created"' | grep -q .; }
client_runs() { [ -n "$(pid_named docker)" ]; }
running_listed() { containers | awk '$2 == "running" && $4 != 70' | grep -q .; }
case "$stage" in
  preflight|preflight_sweep) wait_for probe_listed ;;
  create) wait_for created_listed ;;
  start|client) wait_for client_runs ;;
  streaming|reaper|warden) wait_for running_listed; sleep 0.5 ;;
  cleanup)
    wait_for running_listed
    client=$(pid_named docker)
    [ -n "$client" ] || fail "no docker client in the cgroup while the container runs"
    while [ -e "/proc/$client" ]; do :; done   # reaped by the tool: it is inspecting and removing
    cgroup_freeze "$cg"
    [ -n "$(containers)" ] || { cgroup_thaw "$cg"; echo "SKIP: the tool removed the container before the cgroup froze; run again"; exit 1; }
    ;;
  *) fail "unknown stage" ;;
esac
echo "at $stage: $(containers)"

if [ "$stage" = reaper ]; then
  reaper=$(pid_named plb-sandbox-rip)
  [ -n "$reaper" ] || fail "no reaper in the tool's cgroup"
  kill -9 "$reaper"
  kill -STOP "$tool_pid"
elif [ "$stage" = client ]; then
  kill -9 "$tool_pid"
  # No container of the run may live more than 3 s (the reaper polls the name every second);
  # watched for about wall + grace (each look takes about 0.1 s).
  for _ in $(seq 1 70); do
    now=$(date +%s)
    while read -r name state created after; do
      [ -n "$name" ] && [ "$((now - created))" -gt 3 ] && fail "$name ($state) lived $((now - created)) s with its tool dead"
    done <<<"$(containers)"
    sleep 0.1
  done
elif [ "$stage" = warden ]; then
  status=$("$tool" warden --status) || fail "no warden answers before the kill"
  warden=$(sed -n 's/^plb-sandbox-warden pid=\([0-9]*\) .*/\1/p' <<<"$status")
  supervisor=$(sed -n 's/.* supervisor=\([0-9]*\).*/\1/p' <<<"$status")
  [ -n "$warden" ] && [ "${supervisor:-0}" != 0 ] || fail "the warden runs unsupervised: $status"
  cgroup_freeze "$cg"
  kill -9 "$warden"
  kill_all_at_once
  echo "SIGKILLed the warden (pid $warden) with the tool's cgroup"
else
  kill_all_at_once
fi

if [ "$stage" = preflight_sweep ]; then
  # The probe is a run of the tool's like any other (its own run directory and lock): a sweep
  # after its tool died removes it, rather than listing it as not ours.
  probe=$(containers | awk '$4 == 70 {print $1}')
  [ -n "$probe" ] || fail "the probe container is not listed after the kill"
  swept=$("$tool" sweep) || fail "sweep failed: $swept"
  grep -q "removed container $probe" <<<"$swept" || fail "sweep did not remove the probe: $swept"
fi

# Watched for at least the longest deadline a container of this run can have, plus the margin.
# (After the sweep removed the probe nothing of the run is left to appear: a short watch.)
case "$stage" in
  preflight) watch=$((60 + grace + margin)) ;;
  preflight_sweep) watch=$margin ;;
  *) watch=$((wall + grace + margin)) ;;
esac
expect_bounded_by_deadlines "$margin" "$watch"
echo "containers seen after the kill:${bounded_seen:- none}"
case "$stage" in preflight|create|start|streaming|cleanup|warden) expect_removed_by_warden ;; esac
if [ "$stage" = warden ]; then
  status=$("$tool" warden --status) || fail "no warden answers after the kill"
  now=$(sed -n 's/^plb-sandbox-warden pid=\([0-9]*\) .*/\1/p' <<<"$status")
  [ "$now" != "$warden" ] && grep -q " supervisor=$supervisor" <<<"$status" ||
    fail "expected a new warden under supervisor $supervisor, got: $status"
  grep -q "supervisor: the warden (pid $warden) died (killed by SIGKILL); restarting it" /var/log/plb-sandbox-warden.log ||
    fail "the supervisor's log does not record the restart"
  echo "the supervisor (pid $supervisor) restarted the warden: pid $warden is now $now"
fi
if [ "$stage" = reaper ]; then
  kill -CONT "$tool_pid"
  set +e; wait "$tool_pid"; rc=$?; set -e
  tool_pid=
  [ "$rc" = 11 ] || fail "the tool exited $rc after its reaper died, expected 11 (runtime_failed): $(cat "$work/err")"
  grep -q "runtime_failed" "$work/err" || fail "no runtime_failed line: $(cat "$work/err")"
fi
[ -e "$work/out.csv" ] && fail "predictions were published by a killed run"
echo "PASS: nothing of the run outlived its deadline ($stage)"
