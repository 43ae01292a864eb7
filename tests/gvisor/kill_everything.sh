#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kill_everything.sh TOOL STAGE EXAMPLES_DIR MODE: runs sandbox-score in a cgroup of its own and, at
# STAGE, SIGKILLs every process in that cgroup at the same instant (freeze, kill, thaw: what Slurm's
# proctrack/cgroup, a systemd stop or a lost node do), so the tool, its reaper and the docker client
# die together. Then no container of the run may run past its deadline (creation + the start
# allowance + wall + the policy's 10 s grace), and each must be gone within the margin after it
# (SECURITY.md: one warden period plus the daemon's removal; the test allows 15 s on a loaded host).
# Where a stage is a moment inside the tool, the tool stops itself there (a dev build's test-only
# hold point, PLB_SANDBOX_TEST_STOP_AT: test_holds.sh) and the test acts on the stopped tool instead
# of racing it. The run's container is told from the preflight's probe by its name (the --name of
# the docker client that mounts the script), never by a label's value; only at cleanup's hold,
# where the client is gone and the probe removed, is it the one container the tool owns.
#   preflight   the gVisor probe container has started (hold started: with an image of the test's
#               own no proof is cached, so the probe is the first container the tool sees start, and
#               the host's cache is left alone; the probe lives under a second, too short to race):
#               the warden removes it at its own deadline (creation + 30 s + 60 s + 10 s)
#   preflight_sweep  the same kill; then a sweep removes the probe as the tool's own at once
#   create      the daemon has created the run's container (its create event, from a window opened
#               before the tool starts, so a late subscription misses nothing); the script sleeps
#               60 s, so the container is still there however late the loaded test reads the event
#   start       the engine gate has just opened (hold gate-opened): the client's requests are held
#               with the tool, so nothing reaches the daemon but what the gate relayed as it stopped
#   streaming   the script spins a CPU and the tool has seen its container start (hold started)
#   cleanup     the docker client has exited and been reaped; the tool has not yet inspected or
#               removed the container (hold reaped)
#   client      SIGKILL of the tool alone as its docker client starts (the reaper may not have the
#               client's PID yet): the reaper, which enforces the name until start + wall + 5 s
#               whatever it was told, removes any container the orphaned client creates within seconds
#   reaper      SIGKILL of the reaper alone while the tool is stopped (hold started); the tool is
#               resumed at the end and must report runtime_failed, never a verdict against the script
#   warden      as streaming, and the warden SIGKILLed at the same instant (issue 33 item 4): its
#               supervisor restarts it, and the new warden removes the sandbox by its deadline
# MODE is how ctest runs it (gvisor_tests.cmake chooses, and says why): `alone` (RUN_SERIAL) or
# `side_by_side`. Side by side, just before its kill the test takes its own copy of the tool's run
# locks (hold_run_locks.py), so the dead run stays alive to every other test's sweep and only the
# warden's deadline ends it, as the test means; and it watches only its own run's containers.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
stage=$2
examples=$3
mode=$4
# The stages that check the container still runs at the hold get a longer wall: the reaper's
# deadline is the start the tool saw + wall + its grace, with the tool stopped too, and beside other
# tests the check can come seconds after the hold. So does create, whose tool is not stopped: a
# loaded test that reads the create event late must still kill it before its own wall time ends the
# run (with 4 s, one found nothing left to kill).
case "$stage" in streaming|reaper|warden|create) wall=15 ;; *) wall=4 ;; esac
readonly wall start=30 grace=10 margin=15
case_name=$stage
here=$(dirname "${BASH_SOURCE[0]}")
source "$here/cgroup_kill.sh"
source "$here/test_holds.sh"

work=$(mktemp -d)
cg=$(cgroup_for_kill "plb-kill-test-$$")
tool_pid= events_pid= own_image=
case "$mode" in
  alone) side_by_side=false ;;
  side_by_side) side_by_side=true ;;
  *) fail "MODE must be alone or side_by_side, not '$mode'" ;;
esac
cleanup() {
  [ -n "$events_pid" ] && kill "$events_pid" 2>/dev/null || true
  [ -n "$tool_pid" ] && kill -CONT "$tool_pid" 2>/dev/null || true
  if [ -d "$cg" ]; then
    cgroup_thaw "$cg"
    while read -r p; do kill -9 "$p" 2>/dev/null || true; done < "$cg/cgroup.procs"
    for _ in $(seq 1 50); do [ -s "$cg/cgroup.procs" ] || break; sleep 0.1; done
    rmdir "$cg" 2>/dev/null || true
  fi
  release_locks "$tool"  # prelude.sh: the holder's, then a sweep of the dead run it held
  # The preflight's image, once the warden has removed its probe (a failed test may leave the probe).
  [ -z "$own_image" ] || /usr/bin/docker image rm "$own_image" >/dev/null 2>&1 || echo "could not remove the image $own_image"
  rm -rf "$work"
}
trap cleanup EXIT

containers() { tool_containers; }
# The PID of the process named COMM in the cgroup, if any.
pid_named() { while read -r p; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ] && { echo "$p"; return; }; done < "$cg/cgroup.procs"; }
# The run's container name: the --name of the docker client in the cgroup that mounts the script.
run_name() {
  local p args
  while read -r p; do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = docker ] || continue
    args=$(tr '\0' '\n' < "/proc/$p/cmdline" 2>/dev/null) || continue
    grep -q '^--mount=type=bind' <<<"$args" && { sed -n 's/^--name=//p' <<<"$args"; return; }
  done < "$cg/cgroup.procs"
}
# Waits (50 ms steps, at most 420 s) until CONDITION (a shell function) holds. Beside other tests a
# run may first wait minutes for a CPU (the real model rounds hold both for as long).
# A tool that ends first fails the test at once, with its stderr.
readonly reach=420
tool_ended() {
  local state
  state=$(awk '{print $3}' "/proc/$tool_pid/stat" 2>/dev/null) || return 0
  [ "$state" = Z ] || [ "$state" = X ]
}
wait_for() {
  local until=$((SECONDS + reach))
  until "$1"; do
    [ -z "$tool_pid" ] || ! tool_ended || fail "the tool ended before: $1; its stderr: $(tail -c 2000 "$work/err")"
    [ "$SECONDS" -lt "$until" ] || fail "timed out waiting for: $1 ($reach s); the tool's cgroup: $(cgroup_threads "$cg");" \
      "its stderr: $(tail -c 2000 "$work/err")"
    sleep 0.05
  done
}

# Alone, the host must be clean to start with; beside others, their containers come and go.
$side_by_side || [ -z "$(containers)" ] || fail "containers of the tool exist before the test: $(containers)"
case "$stage" in
  streaming|reaper|warden) body='while True: pass' ;;
  create) body='time.sleep(60)' ;;   # idle, and alive until the warden's deadline, not a race
  *) body='time.sleep(1)' ;;
esac
printf 'import json, sys, time\nrows = json.load(sys.stdin)["features"]\n%s\nprint(json.dumps({"predictions": [0.0 for r in rows]}))\n' "$body" > "$work/model.py"
# The preflight's run must prove gVisor again: it gets an image of its own, the reviewed one with a
# label naming this test (a new image ID, so no proof is cached for it: gvisor_proof.hpp keys on the
# image). Emptying the host's proof cache instead would make other tests' runs probe too.
run_image=$image
case "$stage" in
  preflight*)
    made=$(/usr/bin/docker create --pull=never "$image" true) || fail "could not create a container of $image"
    own_image=$(/usr/bin/docker commit --change "LABEL plb-sandbox-test=kill-at-$stage-$$" "$made") || fail "could not commit $made"
    /usr/bin/docker rm "$made" >/dev/null || fail "could not remove $made"
    run_image=$own_image ;;
esac
score_args=(--model "$work/model.py" --model-sha256 "$(sha256sum "$work/model.py" | cut -d' ' -f1)"
  --runtime-image "$run_image" --data "$examples/input.csv" --feature feature_a --feature feature_b
  --task-type regression --seconds "$wall")
case "$stage" in
  preflight*) ;;  # its own image (above): nothing to warm
  *) # A warm proof cache: no probe container can be mistaken for the run's. The bundled example
     # warms it (the stage's own script may spin past its wall time).
     "$tool" sandbox-score --model "$examples/model.py" --model-sha256 "$(sha256sum "$examples/model.py" | cut -d' ' -f1)" \
       --runtime-image "$image" --data "$examples/input.csv" --feature feature_a --feature feature_b \
       --task-type regression --output "$work/warm.csv" >/dev/null 2>"$work/warm.err" \
       || fail "the warming run failed: $(cat "$work/warm.err")"
     $side_by_side || [ -z "$(containers)" ] || fail "the warming run left containers: $(containers)" ;;
esac
hold=
case "$stage" in start) hold=gate-opened ;; preflight*|streaming|reaper|warden) hold=started ;; cleanup) hold=reaped ;; esac
# The daemon's create events for the create stage, from a stamp taken before the tool starts: the
# daemon replays what came after it, however late the subscription (CI missed one under load).
if [ "$stage" = create ]; then
  docker events --since "$(date +%s.%6N)" --filter event=create --filter label=plb-sandbox.run --format '{{.Actor.Attributes.name}}' \
    > "$work/events" &
  events_pid=$!
fi
$side_by_side && start_lock_holder "$work"  # prelude.sh: before the tool, so its start cannot delay the kill
mkdir "$cg"
# The tool enters the cgroup before it execs, so every process it starts is born inside it.
PLB_SANDBOX_TEST_STOP_AT=$hold bash -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' _ "$cg" "$tool" sandbox-score \
  "${score_args[@]}" --output "$work/out.csv" >"$work/out" 2>"$work/err" &
tool_pid=$!

name=
named() { name=$(run_name); [ -n "$name" ]; }
# The probe: a container of this tool's (its owner label) other than the run's; beside other tests
# theirs come and go.
probe_listed() { [ -n "$name" ] && sandbox_names_of "$tool_pid" | grep -vqx "$name"; }
created_seen() { grep -qx "$name" "$work/events"; }
client_runs() { [ -n "$(pid_named docker)" ]; }
running_listed() { containers | awk -v n="$name" '$1 == n && $2 == "running"' | grep -q .; }
listed() { containers | awk -v n="$name" '$1 == n' | grep -q .; }
case "$stage" in
  # At the hold the run's client waits at its own gate for the proof, and the probe is listed.
  preflight|preflight_sweep) wait_held "$tool_pid" "$reach"; wait_for named
    probe_listed || fail "the hold was not the probe's: no container of the tool's but the run's ($name): $(containers)" ;;
  create) wait_for named; wait_for created_seen ;;
  client) wait_for client_runs ;;
  start) wait_held "$tool_pid" "$reach"; wait_for named ;;
  streaming|reaper|warden) wait_held "$tool_pid" "$reach"; wait_for named; running_listed || fail "the run's container $name is not running at the hold: $(containers)" ;;
  # The client lives a second or two and is reaped before the hold: a loaded test can miss it. At the
  # hold the run's container is the only one the tool owns (its probe, if any, is removed).
  cleanup) wait_held "$tool_pid" "$reach"
    name=$(sandbox_names_of "$tool_pid")
    [ "$(wc -w <<<"$name")" = 1 ] || fail "not one container of the tool's at the hold: '$name'"
    listed || fail "the run's container $name is not listed at the hold: $(containers)" ;;
  *) fail "unknown stage" ;;
esac
# Side by side: the run's locks are this test's too from here, and its containers are the ones watched.
$side_by_side && hold_locks_of "$tool_pid"
echo "at $stage: $(containers)"

killed_at=$SECONDS
if [ "$stage" = reaper ]; then
  reaper=$(pid_named plb-sandbox-rip)
  [ -n "$reaper" ] || fail "no reaper in the tool's cgroup"
  kill -9 "$reaper"
elif [ "$stage" = warden ]; then
  status=$("$tool" warden --status) || fail "no warden answers before the kill"
  warden=$(sed -n 's/^plb-sandbox-warden pid=\([0-9]*\) .*/\1/p' <<<"$status")
  supervisor=$(sed -n 's/.* supervisor=\([0-9]*\).*/\1/p' <<<"$status")
  [ -n "$warden" ] && [ "${supervisor:-0}" != 0 ] || fail "the warden runs unsupervised: $status"
  cgroup_freeze "$cg"
  kill -9 "$warden"
  cgroup_kill_all_or_fail "$stage" "$cg"
  echo "SIGKILLed the warden (pid $warden) with the tool's cgroup"
elif [ "$stage" = client ]; then
  kill -9 "$tool_pid"
  # No container of the run may live more than 3 s (the reaper polls the name every second);
  # watched for the reaper's whole window (start + wall + 5 s), by the clock.
  watch_until=$((SECONDS + start + wall + 5 + 2))
  while [ "$SECONDS" -lt "$watch_until" ]; do
    now=$(date +%s)
    while read -r cname state created after; do
      [ -n "$cname" ] && [ "$((now - created))" -gt 3 ] && fail "$cname ($state) lived $((now - created)) s with its tool dead"
    done <<<"$(containers)"
    sleep 0.1
  done
else
  cgroup_kill_all_or_fail "$stage" "$cg"
fi

if [ "$stage" = preflight_sweep ]; then
  # The probe is a run of the tool's like any other (its own run directory and lock): a sweep
  # after its tool died removes it, rather than listing it as not ours.
  probe=$(containers | awk -v n="$name" '$1 != n {print $1}')
  [ -n "$probe" ] || fail "the probe container is not listed after the kill"
  swept=$("$tool" sweep) || fail "sweep failed: $swept"
  grep -q "removed container $probe" <<<"$swept" || fail "sweep did not remove the probe: $swept"
fi

# Watched for at least the longest deadline a container of this run can have, plus the margin,
# counted from the kill (the client's stage has watched part of it above). After the sweep removed
# the probe nothing of the run is left to appear: a short watch. Where the run's container was
# there at the hold, nothing of the run can appear later (every process that could create one is
# dead, or stopped at the hold): watched until that container's own deadline, and until it is gone.
case "$stage" in
  preflight) watch=$((start + 60 + grace + margin)) ;;
  preflight_sweep) watch=$margin ;;
  streaming|cleanup|reaper|warden)
    deadline=$(containers | awk -v n="$name" '$1 == n {print $3 + $4}')
    watch=$((${deadline:-0} - $(date +%s)))
    [ "$watch" -ge 0 ] || watch=0 ;;
  *) watch=$((start + wall + grace + margin - (SECONDS - killed_at))) ;;
esac
# Where only the warden can remove what is left, it must ask within the margin, and the daemon's
# removal after that gets 45 s more (cgroup_kill.sh); the others' removals are the tool's or a sweep's.
case "$stage" in preflight_sweep|client) removal=0 ;; *) removal=45 ;; esac
expect_bounded_by_deadlines "$margin" "$watch" "$removal"
echo "containers seen after the kill:${bounded_seen:- none}"
case "$stage" in
  preflight|create|streaming|cleanup|reaper|warden)
    [ -n "$bounded_seen" ] || fail "no container of the run was seen after the kill: the stage was not reached"
    expect_removed_by_warden ;;
  start) [ -z "$bounded_seen" ] || expect_removed_by_warden ;;  # a create relayed as the hold began
esac
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
