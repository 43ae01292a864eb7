#!/usr/bin/env bash
# `plb-sandbox batch --engine slurm` on the single-node cluster ci/setup-slurm stands up: every
# array task is a real sandbox-score run on the node. One case per property.
#   batch_slurm.sh TOOL CASE EXAMPLES_DIR
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh"
sinfo -h -o %T | grep -qE 'idle|mixed|allocated' || fail "no Slurm node is up (run ci/setup-slurm)"

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
  for _ in $(seq 300); do [ "$(/usr/bin/docker ps -q --filter name=plb-sandbox- | wc -l)" -ge 1 ] && break; sleep 0.1; done
  kill -INT $pid
  rc=0; wait $pid || rc=$?
  [ $rc = 130 ] || fail "exit $rc, expected 130"
  [ -z "$(squeue -h -n plb-sandbox-batch)" ] || fail "the job array is still queued"
  no_containers_left
  [ "$(grep -c ',interrupted,' "$out/batch-summary.csv")" = 4 ] || fail "$(cat "$out/batch-summary.csv")"
  echo "PASS: SIGINT cancels the job array and its sandboxes" ;;
local_only_dir)
  rc=0; "$tool" batch --engine slurm --manifest "$manifest" --output-dir "/tmp/plb-batch-$$" "${defaults[@]}" 2> "$work/err" || rc=$?
  [ $rc = 2 ] && grep -q "under /tmp, which is local to this machine" "$work/err" || fail "rc $rc: $(cat "$work/err")"
  [ ! -e "/tmp/plb-batch-$$" ] || fail "the refused directory was created"
  echo "PASS: a local-only output directory is refused at submission" ;;
*) fail "unknown case" ;;
esac
