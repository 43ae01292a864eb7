#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `plb-sandbox batch --engine slurm` on the single-node cluster ci/host/setup-slurm stands up: every
# array task is a real sandbox-score run on the node. One case per property.
#   batch_slurm.sh TOOL CASE EXAMPLES_DIR
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh"
# A node still ending the job of the case before (state "completing") is up a moment later.
node_up() { sinfo -h -o %T 2>/dev/null | grep -qE 'idle|mixed|allocated'; }
wait_until 60 node_up || fail "no Slurm node is up within 60 s (run ci/host/setup-slurm): $(sinfo -h -o '%N %T' 2>&1)"
# job_gone JOB[,JOB...]: squeue lists nothing of them (what it lists is in $queued). Slurm forgets
# an ended job (MinJobAge), and squeue then fails with "Invalid job id": gone too. Any other failure
# of squeue (slurmctld down, say) fails the test rather than reading as an empty queue.
job_gone() {
  if ! queued=$(squeue -h -j "$1" 2> "$work/squeue.err"); then
    queued=""
    grep -q 'Invalid job id' "$work/squeue.err" || fail "squeue -j $1 failed: $(cat "$work/squeue.err")"
  fi
  [ -z "$queued" ]
}

case $case_name in
same_as_local)
  "$tool" batch --manifest "$manifest" --output-dir "$work/local" "${defaults[@]}" > /dev/null
  rc=0; "$tool" batch --engine slurm --manifest "$manifest" --output-dir "$work/slurm" "${defaults[@]}" > /dev/null 2>&1 || rc=$?
  [ $rc = 0 ] || fail "exit $rc"
  expect_verdicts "$work/slurm" "$example_verdicts"
  [ "$(digests "$work/local")" = "$(digests "$work/slurm")" ] || fail "engines differ: $(digests "$work/local") vs $(digests "$work/slurm")"
  jq -e '.engine == "slurm" and .complete' "$work/slurm/batch-summary.json" > /dev/null || fail "summary json"
  cmp "$work/local/team-sum.csv" "$work/slurm/team-sum.csv" || fail "predictions differ"
  ls "$work/slurm/slurm/"*_0.log > /dev/null || fail "no task log"
  no_containers_left
  echo "PASS: the Slurm engine gives the local engine's verdicts and predictions digests" ;;
node_preflight_fails)
  # A node whose environment points the tool at another daemon: its preflight refuses, for every
  # line it runs; the batch still ends with a verdict per line. Nothing on the host is edited.
  out=$work/out
  rc=0; "$tool" batch --engine slurm --manifest "$manifest" --output-dir "$out" "${defaults[@]}" \
    --sbatch-option=--export=ALL,DOCKER_HOST=tcp://127.0.0.1:9 > /dev/null 2>&1 || rc=$?
  [ $rc = 0 ] || fail "exit $rc (host_refused is a verdict)"
  expect_verdicts "$out" "team-sum,host_refused team-mean,host_refused team-crash,host_refused team-wrong-rows,host_refused"
  grep -q 'DOCKER_HOST is set to tcp://127.0.0.1:9' "$out/batch-summary.csv" || fail "no reason in the summary"
  # Resume keeps the refusals; --retry-failed re-runs them on a good node.
  "$tool" batch --engine slurm --manifest "$manifest" --output-dir "$out" "${defaults[@]}" > /dev/null 2>&1
  expect_verdicts "$out" "team-sum,host_refused team-mean,host_refused team-crash,host_refused team-wrong-rows,host_refused"
  "$tool" batch --engine slurm --manifest "$manifest" --output-dir "$out" "${defaults[@]}" --retry-failed > /dev/null 2>&1
  expect_verdicts "$out" "$example_verdicts"
  no_containers_left
  echo "PASS: a node failing its preflight records host_refused; --retry-failed runs the lines again" ;;
no_wait_collect)
  out=$work/out
  "$tool" batch --engine slurm --no-wait --manifest "$manifest" --output-dir "$out" "${defaults[@]}" > /dev/null 2>&1
  [ -s "$out/slurm/job-id" ] || fail "no job id recorded"
  rc=0; "$tool" batch --engine slurm --collect --manifest "$manifest" --output-dir "$out" "${defaults[@]}" > /dev/null 2>&1 || rc=$?
  [ $rc = 0 ] || fail "collect exit $rc"
  expect_verdicts "$out" "$example_verdicts"
  echo "PASS: --no-wait submits, --collect waits and writes the summary" ;;
interrupt)
  slow_manifest 20
  out=$work/out
  "$tool" batch --engine slurm --manifest "$work/slow/manifest.jsonl" --output-dir "$out" "${defaults[@]}" > /dev/null 2>&1 &
  pid=$!
  # A sandbox of this batch's job array runs. Other tests' sandboxes run beside it, and its line may
  # first wait minutes for a CPU (the real model rounds hold both for as long).
  one_running() { [ -s "$out/slurm/job-id" ] && job_sandboxes "$(cat "$out/slurm/job-id")" | awk '$2 == "running"' | grep -q .; }
  wait_until 420 one_running || fail "no sandbox of the batch ever ran"
  kill -INT $pid
  rc=0; wait $pid || rc=$?
  [ $rc = 130 ] || fail "exit $rc, expected 130"
  job=$(cat "$out/slurm/job-id")
  job_gone "$job" || fail "the job array $job is still queued: $queued"
  no_containers_left
  [ "$(grep -c ',interrupted,' "$out/batch-summary.csv")" = 4 ] || fail "$(cat "$out/batch-summary.csv")"
  echo "PASS: SIGINT cancels the job array and its sandboxes" ;;
cancel|node_lost)
  # Two submissions that outlive a 30 s wall time, each in its own array task (neither tool's own
  # watchdog can end its run in the seconds before the kill). They sleep rather than spin: a dead
  # tool's lease on its CPU goes with it, but its sandbox keeps that CPU set until the warden ends
  # it, so a spinning one loaded a CPU the allocator had handed to another test's run (measured:
  # a batch line's start took 33 s, and came the moment these two were removed). Then the
  # job is ended the way a cluster ends one: `scancel --full --signal=KILL` (cancel), or every
  # process of each task's job cgroup SIGKILLed at the same instant, as when its node is lost
  # (node_lost: freeze, kill, thaw). Cancelled, every process of the job gets SIGCONT and SIGTERM at
  # once (Slurm 22.05 ends a job so even for --signal=KILL; SIGKILL follows after KillWait, 30 s),
  # and the tools mostly remove their own sandboxes; lost, the tool, its reaper and the docker
  # client die together, and only the deadline warden can end them. Either way each sandbox must be
  # gone by its deadline.
  # Beside other tests: just before the kill this test takes its own copy of both workers' run
  # locks (prelude.sh's hold_locks_of), so that no other test's sweep ends the dead runs first and
  # none of their checks takes them for leaks; and it watches only those runs' containers.
  source "$(dirname "${BASH_SOURCE[0]}")/cgroup_kill.sh"
  start_lock_holder "$work"
  trap 'release_locks "$tool"; rm -rf "$work"' EXIT
  mkdir -p "$work/sleeper"
  printf 'import json, sys, time\nrows = json.load(sys.stdin)["features"]\nwhile True: time.sleep(1)\n' > "$work/sleeper/sleeper.py"
  h=$(sha256sum "$work/sleeper/sleeper.py" | cut -d' ' -f1)
  for i in 1 2; do printf '{"id": "sleeper-%s", "model": "sleeper.py", "model_sha256": "%s", "seconds": 30}\n' "$i" "$h"; done > "$work/sleeper/manifest.jsonl"
  workers_running() { running_owners "$array"; }
  # True once both run, or once one has run for 15 s of its 30 (then the try is over: killed
  # later, its own watchdog could end it first). Timed from the first sight, not from a sandbox
  # missing from one listing: a listing can miss one that still runs.
  first_seen=
  both_or_over() {
    local running
    running=$(workers_running | wc -l)
    [ "$running" -ge 2 ] && return 0
    [ "$running" -ge 1 ] && [ -z "$first_seen" ] && first_seen=$SECONDS
    [ -n "$first_seen" ] && [ $((SECONDS - first_seen)) -ge 15 ]
  }
  two_running() { [ "$(workers_running | wc -l)" -ge 2 ]; }
  # Each task's worker is bound to a CPU of its own (ConstrainCores). Beside other tests, one may
  # wait for its CPU until the other's run has timed out: then the try is cancelled (its tools
  # remove their own runs) and made again, at most 3 times (LOCKS both_cpus keeps away the tests
  # that hold a CPU for a minute or more).
  for try in 1 2 3; do
    out=$work/out.$try first_seen=
    "$tool" batch --engine slurm --no-wait --manifest "$work/sleeper/manifest.jsonl" --output-dir "$out" "${defaults[@]}" > /dev/null 2>&1
    array=$(cat "$out/slurm/job-id")
    wait_until 240 both_or_over && two_running && break
    echo "try $try: the two sandboxes did not run at once: $(job_sandboxes "$array"); cancelled"
    scancel "$array"
    wait_until 60 job_gone "$array" || true  # the next try starts either way
    [ "$try" != 3 ] || fail "the two sandboxes never ran at once in 3 tries"
  done
  # shellcheck disable=SC2046  # one argument per worker
  hold_locks_of $(workers_running)
  # The held runs are all there is to watch: both containers listed before the kill (after it, the
  # cancelled tools may already have removed theirs), and every process that could create another
  # dies with the job. Watched until the later of their deadlines (creation + start allowance + wall
  # + grace) has passed and both are gone, each at most the margin past its own.
  held=$(tool_containers)
  [ "$(wc -l <<<"$held")" -ge 2 ] || fail "the held runs' two sandboxes are not listed: $held;" \
    "the tool's containers: $(/usr/bin/docker ps -a --filter label=plb-sandbox.run --format '{{.Names}} {{.State}} {{.Label "plb-sandbox.owner"}}' | tr '\n' ';')" \
    "run directories: $(ls /var/lib/plb-sandbox/runs | tr '\n' ' ')"
  latest=$(awk '{print $3 + $4}' <<<"$held" | sort -n | tail -n1)
  if [ "$case_name" = cancel ]; then
    scancel --full --signal=KILL "$array"
  else
    for job in $(squeue -h -j "$array" -t R -o %A); do
      cg=$(slurm_job_cgroup "$job")
      [ -n "$cg" ] || fail "no cgroup for job $job (is ProctrackType=proctrack/cgroup?)"
      cgroup_kill_all_or_fail "job-$job" "$cg"
    done
    scancel "$array"
  fi
  # Lost, only the warden removes them: it must ask within the margin, and the daemon's removal
  # after that gets 45 s more (cgroup_kill.sh).
  removal=0
  [ "$case_name" = node_lost ] && removal=45
  expect_bounded_by_deadlines 15 $((latest - $(date +%s))) "$removal"
  # After a node is lost nothing of the tool's is left on it: only the warden can have removed them.
  # (Cancelled, the same holds beside others: the held locks keep every sweep off them.)
  [ "$case_name" = node_lost ] && expect_removed_by_warden
  wait_until 20 job_gone "$array" || fail "the job is still queued: $queued"
  release_locks "$tool"
  no_containers_left
  echo "PASS: no sandbox outlived its deadline after the job was ended ($case_name)" ;;
workers_lost)
  # The batch's only worker is lost while it runs a line (every process of its job's cgroup SIGKILLed
  # at once, then the job cancelled), so no worker is left to take the rest. The submitter hands
  # the held line back once its sandbox's deadline has passed, submits a new array for the open
  # lines, and the batch ends with every line run once. Beside other tests, the lost worker's run
  # lock is this test's from just before the kill, as in cancel's case.
  source "$(dirname "${BASH_SOURCE[0]}")/cgroup_kill.sh"
  start_lock_holder "$work"
  trap 'release_locks "$tool"; rm -rf "$work"' EXIT
  # Lines of 6 s under a 12 s limit: the kill lands well inside a running line.
  slow_manifest 6
  sed -i 's/}$/, "seconds": 12}/' "$work/slow/manifest.jsonl"
  out=$work/out
  "$tool" batch --engine slurm --workers 1 --manifest "$work/slow/manifest.jsonl" --output-dir "$out" "${defaults[@]}" \
    > "$work/stdout" 2> "$work/err" &
  pid=$!
  worker_running() { [ -s "$out/slurm/job-id" ] && running_owners "$(cat "$out/slurm/job-id")"; }
  line_held() { [ -n "$(ls "$out/queue/claims" 2>/dev/null)" ] && [ -n "$(worker_running)" ]; }
  wait_until 240 line_held || fail "the worker never ran a line with its claim held"
  first=$(cat "$out/slurm/job-id")
  job=$(squeue -h -j "$first" -t R -o %A | head -n1)
  [ -n "$job" ] || fail "the worker is not running"
  cg=$(slurm_job_cgroup "$job")
  [ -n "$cg" ] || fail "no cgroup for job $job"
  # shellcheck disable=SC2046  # the one worker
  hold_locks_of $(worker_running)
  cgroup_kill_all_or_fail "job-$job" "$cg"
  scancel "$first"
  rc=0; wait $pid || rc=$?
  [ $rc = 0 ] || fail "exit $rc: $(tail -3 "$work/err")"
  [ "$(grep -c ',success,' "$out/batch-summary.csv")" = 4 ] || fail "$(cat "$out/batch-summary.csv")"
  [ "$(ls "$out"/*.result.json | wc -l)" = 4 ] || fail "$(ls "$out")"
  [ "$(cat "$out/slurm/job-id")" != "$first" ] || fail "no new job array was submitted"
  [ "$(grep -c 'submitted Slurm job' "$work/err")" = 2 ] || fail "$(cat "$work/err")"
  [ -n "$(ls "$out/queue/lost")" ] || fail "the lost worker's claim was not handed back"
  [ -z "$(ls "$out/queue/claims")" ] || fail "claims left: $(ls "$out/queue/claims")"
  # The killed run's directory (its tool could not remove it): the held lock let go, then a sweep
  # removes it, as README says (release_locks runs `sweep`).
  release_locks "$tool"
  jobs="$first,$(cat "$out/slurm/job-id")"
  wait_until 20 job_gone "$jobs" || fail "still queued: $queued"
  no_containers_left
  echo "PASS: the batch's only worker lost; a new array ran the lines it left, each once" ;;
never_scheduled)
  # Workers that ask for more CPUs than any node has: sbatch takes the array, and Slurm would keep
  # it pending for ever (reason PartitionConfig). The submitter gives up on it, cancels it, and the
  # lines end host_refused with Slurm's reason, rather than the batch waiting without end.
  out=$work/out
  began=$(date +%s)
  rc=0; timeout --signal=INT 90 "$tool" batch --engine slurm --manifest "$manifest" --output-dir "$out" "${defaults[@]}" \
    --sbatch-option=--cpus-per-task=64 > /dev/null 2> "$work/err" || rc=$?
  [ $rc = 0 ] || fail "exit $rc (host_refused is a verdict; 124: still waiting after 90 s): $(tail -3 "$work/err")"
  expect_verdicts "$out" "team-sum,host_refused team-mean,host_refused team-crash,host_refused team-wrong-rows,host_refused"
  grep -q 'would never start the workers of job [0-9]* (pending: PartitionConfig)' "$out/batch-summary.csv" \
    || fail "no reason in the summary: $(cat "$out/batch-summary.csv")"
  echo "gave up after $(( $(date +%s) - began )) s"
  # Its own job only: the case before may still be ending its own (Slurm lists a job until it is done).
  job=$(cat "$out/slurm/job-id")
  job_gone "$job" || fail "the job $job is still queued: $queued"
  no_containers_left
  echo "PASS: a job array the cluster would never start ends host_refused, with Slurm's reason" ;;
orphaned_job)
  # ci/host/setup-slurm cancels a batch job that a killed test left queued (its directory is gone),
  # and keeps one whose directory is still there. Both are held, so neither ever starts.
  submit_held() {
    mkdir -p "$1" && printf '#!/bin/sh\nexit 0\n' > "$1/job.sh"
    sbatch --parsable --hold --job-name plb-sandbox-batch --output /dev/null "$1/job.sh"
  }
  orphan=$(submit_held "$work/gone") && kept=$(submit_held "$work/kept") || fail "sbatch refused a held job"
  trap 'scancel "$orphan" "$kept" 2>/dev/null; rm -rf "$work"' EXIT
  rm -rf "$work/gone"
  bash "$(dirname "${BASH_SOURCE[0]}")/../../ci/host/setup-slurm" 2> "$work/setup.err" ||
    fail "setup-slurm failed: $(cat "$work/setup.err")"
  grep -q "cancelling the batch jobs of killed tests (.*): $orphan \$" "$work/setup.err" ||
    fail "setup-slurm did not name the one orphan $orphan: $(cat "$work/setup.err")"
  wait_until 20 job_gone "$orphan" || fail "the orphan $orphan is still queued: $queued"
  ! job_gone "$kept" || fail "the job $kept, whose directory is there, was cancelled"
  scancel "$kept"
  wait_until 20 job_gone "$kept" || fail "the job $kept is still queued: $queued"
  echo "PASS: setup-slurm cancels only the batch job whose test directory is gone" ;;
local_only_dir)
  rc=0; "$tool" batch --engine slurm --manifest "$manifest" --output-dir "/tmp/plb-batch-$$" "${defaults[@]}" 2> "$work/err" || rc=$?
  [ $rc = 2 ] && grep -q "under /tmp, which is local to this machine" "$work/err" || fail "rc $rc: $(cat "$work/err")"
  [ ! -e "/tmp/plb-batch-$$" ] || fail "the refused directory was created"
  echo "PASS: a local-only output directory is refused at submission" ;;
*) fail "unknown case" ;;
esac
