#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `plb-sandbox batch --engine slurm` workers on the two-node cluster `ci/host/setup-slurm --nodes 2
# --max-array-size 4` stands up on this host (n1 and n2, one slurmd -N each). One case per property.
#   batch_slurm_nodes.sh TOOL CASE EXAMPLES_DIR
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
for n in n1 n2; do
  sinfo -h -n $n -o %T 2>/dev/null | grep -qE 'idle|mixed|allocated' || fail "node $n is not up (ci/host/setup-slurm --nodes 2)"
done
[ "$(scontrol show config | awk '$1 == "MaxArraySize" {print $3}')" -le 4 ] || fail "MaxArraySize is not set low"

# N distinct small submissions (each its own digest), like ci/bench/bench-batch's.
small_manifest() {
  mkdir -p "$work/subs"
  : > "$work/subs/manifest.jsonl"
  for i in $(seq -w 1 "$1"); do
    { echo "# submission $i"; cat "$examples/model.py"; } > "$work/subs/s$i.py"
    printf '{"id": "s%s", "model": "s%s.py", "model_sha256": "%s"%s}\n' "$i" "$i" \
      "$(sha256sum "$work/subs/s$i.py" | cut -d' ' -f1)" "${2:-}" >> "$work/subs/manifest.jsonl"
  done
}
queue_empty() {
  for _ in $(seq 100); do [ -z "$(squeue -h -n plb-sandbox-batch)" ] && return 0; sleep 0.2; done
  fail "the workers are still queued: $(squeue -h -n plb-sandbox-batch)"
}
nodes_used() { awk -F, "$(summary_column node)"' {print $(NF - back)}' "$1/batch-summary.csv" | sort -u | tr '\n' ' '; }

case $case_name in
spread)
  small_manifest 40
  "$tool" batch --manifest "$work/subs/manifest.jsonl" --output-dir "$work/local" "${defaults[@]}" --jobs 2 > /dev/null
  rc=0; "$tool" batch --engine slurm --manifest "$work/subs/manifest.jsonl" --output-dir "$work/slurm" "${defaults[@]}" \
    > /dev/null 2> "$work/err" || rc=$?
  [ $rc = 0 ] || fail "exit $rc: $(tail -3 "$work/err")"
  [ "$(digests "$work/local")" = "$(digests "$work/slurm")" ] || fail "engines differ"
  [ "$(grep -c ',success,' "$work/slurm/batch-summary.csv")" = 40 ] || fail "not 40 successes"
  [ "$(nodes_used "$work/slurm")" = "n1 n2 " ] || fail "the lines ran on: $(nodes_used "$work/slurm")"
  jq -e '[.rows[].worker] | all(test("^[0-9]+_[0-9]+$"))' "$work/slurm/batch-summary.json" > /dev/null || fail "workers"
  for f in "$work"/slurm/s*.csv.sandbox.json; do  # each provenance: the node, the worker, the CPUs
    jq -e '(.ran_on.node | test("^n[12]$")) and (.ran_on.worker | test("^[0-9]+_[0-9]+$")) and (.cpuset | type == "string")' \
      "$f" > /dev/null || fail "$f: $(jq -c '[.ran_on, .cpuset]' "$f")"
  done
  queue_empty
  no_containers_left
  echo "PASS: 40 lines spread over n1 and n2 with the local engine's verdicts and predictions digests" ;;
bad_node)
  # n2's TaskProlog (ci/host/setup-slurm) points the tool at a daemon that is not there: n2 fails its
  # preflight, takes no line, and says why; every line runs on n1. Nothing on the host is edited.
  install -d -m 0755 /run/plb-slurm-test
  trap 'rm -f /run/plb-slurm-test/bad-n2; rm -rf "$work"' EXIT
  touch /run/plb-slurm-test/bad-n2
  rc=0; "$tool" batch --engine slurm --workers 2 --manifest "$manifest" --output-dir "$work/out" "${defaults[@]}" \
    > /dev/null 2>&1 || rc=$?
  [ $rc = 0 ] || fail "exit $rc"
  expect_verdicts "$work/out" "$example_verdicts"
  [ "$(nodes_used "$work/out")" = "n1 " ] || fail "the lines ran on: $(nodes_used "$work/out")"
  jq -e '.workers | any(.node == "n2" and .state == "refused" and (.message | test("DOCKER_HOST is set")))' \
    "$work/out/batch-summary.json" > /dev/null || fail "n2's refusal is not in the summary: $(jq -c .workers "$work/out/batch-summary.json")"
  # Both nodes bad: no worker can run, and only then the lines are host_refused, naming each node.
  touch /run/plb-slurm-test/bad-n1
  trap 'rm -f /run/plb-slurm-test/bad-n1 /run/plb-slurm-test/bad-n2; rm -rf "$work"' EXIT
  rc=0; "$tool" batch --engine slurm --workers 2 --manifest "$manifest" --output-dir "$work/both" "${defaults[@]}" \
    > /dev/null 2>&1 || rc=$?
  [ $rc = 0 ] || fail "exit $rc (host_refused is a verdict)"
  expect_verdicts "$work/both" "team-sum,host_refused team-mean,host_refused team-crash,host_refused team-wrong-rows,host_refused"
  grep -q 'node n1 (worker [0-9_]*): .*DOCKER_HOST.*node n2' "$work/both/batch-summary.csv" || fail "nodes not named"
  queue_empty
  no_containers_left
  echo "PASS: a node failing its preflight takes no line; all run on the other" ;;
node_killed)
  # Six lines of ~6 s under a 15 s limit, a worker per node. Once n2 runs one, n2 is lost the way a node is: every
  # process of its job's cgroup SIGKILLed at once (freeze, kill, thaw), its slurmd and the job's
  # slurmstepd SIGKILLed. n1 must finish every line; the line n2 held is handed to n1 once its
  # sandbox's deadline has passed (the warden removes that sandbox), so nothing runs twice at once.
  # Beside other tests, n2's worker's run lock is this test's from just before the kill
  # (prelude.sh's hold_locks_of), so no other test's sweep removes that sandbox first.
  source "$(dirname "${BASH_SOURCE[0]}")/cgroup_kill.sh"
  start_lock_holder "$work"
  trap 'release_locks "$tool"; bash "$root/ci/host/setup-slurm" --nodes 2 --max-array-size 4 > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
  slow_manifest 6
  for i in 5 6; do sed -n 1p "$work/slow/manifest.jsonl" | sed "s/slow-1/slow-$i/" >> "$work/slow/manifest.jsonl"; done
  sed -i 's/}$/, "seconds": 15}/' "$work/slow/manifest.jsonl"
  out=$work/out
  "$tool" batch --engine slurm --workers 2 --manifest "$work/slow/manifest.jsonl" --output-dir "$out" "${defaults[@]}" \
    > "$work/stdout" 2> "$work/err" &
  pid=$!
  job="" cg=""
  # This batch's sandboxes: "name state owner-pid" (another test's are not listed).
  own_sandboxes() { [ -s "$out/slurm/job-id" ] && job_sandboxes "$(cat "$out/slurm/job-id")"; }
  both_lines_run() {
    job=$(squeue -h -r -n plb-sandbox-batch -w n2 -t R -o %A 2>/dev/null | head -n1)
    [ -n "$job" ] && grep -lqs 'node=n2' "$out"/queue/claims/* && [ "$(own_sandboxes | wc -l)" -ge 2 ]
  }
  wait_until 240 both_lines_run || true
  [ "$(own_sandboxes | wc -l)" -ge 2 ] || fail "the two workers never ran a line each at once: $(own_sandboxes)"
  grep -lqs 'node=n2' "$out"/queue/claims/* || fail "n2 never held a line"
  cg=$(slurm_job_cgroup "$job" n2)
  [ -n "$cg" ] || fail "no freezer cgroup for n2's job $job"
  # n2's worker: the owner of one of this batch's sandboxes that is in n2's job cgroup.
  n2_worker=$(own_sandboxes | awk '{print $3}' | sort -u | grep -xF -f <(cgroup_procs "$cg") | head -n1) ||
    fail "no sandbox of n2's job $job runs: $(own_sandboxes)"
  hold_locks_of "$n2_worker"
  cgroup_kill_all_or_fail n2 "$cg"
  kill -KILL "$(cat /run/slurmd-n2.pid)"
  for p in /proc/[0-9]*; do
    grep -qas "slurmstepd: \[$job\." "$p/cmdline" && kill -KILL "${p#/proc/}" 2>/dev/null || true
  done
  rc=0; wait $pid || rc=$?
  [ $rc = 0 ] || fail "exit $rc: $(tail -3 "$work/err")"
  [ "$(grep -c ',success,' "$out/batch-summary.csv")" = 6 ] || fail "$(cat "$out/batch-summary.csv")"
  [ "$(ls "$out"/*.result.json | wc -l)" = 6 ] && [ "$(ls "$out"/*.csv.sandbox.json | wc -l)" = 6 ] || fail "files"
  [ -n "$(ls "$out/queue/lost")" ] || fail "no claim was handed back"
  [ -z "$(ls "$out/queue/claims")" ] || fail "claims left: $(ls "$out/queue/claims")"
  for _ in $(seq 100); do [ "$(tool_containers | wc -l)" = 0 ] && break; sleep 0.2; done  # n2's, held
  [ "$(tool_containers | wc -l)" = 0 ] || fail "n2's sandbox outlived the batch: $(tool_containers)"
  # The killed run's directory (its tool could not remove it): the held lock let go, then a sweep
  # removes it, as README says (release_locks runs `sweep`).
  release_locks "$tool"
  queue_empty
  no_containers_left
  echo "PASS: n2 lost mid-batch; n1 finished every line, none lost or duplicated, no sandbox left" ;;
submitter_killed)
  # The submitter SIGKILLed while its workers run: the same command again waits on the same job
  # (it submits no other) and writes every line's verdict.
  slow_manifest 2
  out=$work/out
  "$tool" batch --engine slurm --manifest "$work/slow/manifest.jsonl" --output-dir "$out" "${defaults[@]}" > /dev/null 2>&1 &
  pid=$!
  claimed() { [ -n "$(ls "$out/queue/claims" 2>/dev/null)" ]; }
  wait_until 120 claimed || fail "no worker ever claimed a line"
  kill -0 $pid 2>/dev/null || fail "the submitter finished before it could be killed"
  kill -KILL $pid
  wait $pid 2>/dev/null || true
  job=$(cat "$out/slurm/job-id")
  rc=0; "$tool" batch --engine slurm --manifest "$work/slow/manifest.jsonl" --output-dir "$out" "${defaults[@]}" \
    > /dev/null 2> "$work/err" || rc=$?
  [ $rc = 0 ] || fail "exit $rc: $(tail -3 "$work/err")"
  [ "$(cat "$out/slurm/job-id")" = "$job" ] && ! grep -q 'submitted Slurm job' "$work/err" || fail "a second job was submitted"
  expect_verdicts "$out" "slow-1,success slow-2,success slow-3,success slow-4,success"
  queue_empty
  no_containers_left
  echo "PASS: a killed submitter's batch is finished by the same command, on the same job" ;;
max_array)
  # MaxArraySize is 4: 10 lines and --workers 9 still run, as 4 workers.
  small_manifest 10
  rc=0; "$tool" batch --engine slurm --workers 9 --manifest "$work/subs/manifest.jsonl" --output-dir "$work/out" \
    "${defaults[@]}" > /dev/null 2> "$work/err" || rc=$?
  [ $rc = 0 ] || fail "exit $rc: $(tail -3 "$work/err")"
  [ "$(grep -c ',success,' "$work/out/batch-summary.csv")" = 10 ] || fail "$(cat "$work/out/batch-summary.csv")"
  [ "$(ls "$work/out/queue/workers" | wc -l)" -le 4 ] || fail "more workers than MaxArraySize"
  queue_empty
  no_containers_left
  echo "PASS: 10 lines past a MaxArraySize of 4" ;;
*) fail "unknown case" ;;
esac
