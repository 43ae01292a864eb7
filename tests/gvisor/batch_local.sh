#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `plb-sandbox batch` on this host, against the real daemon and runsc: one case per property.
#   batch_local.sh TOOL CASE EXAMPLES_DIR
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh"

case $case_name in
verdicts)
  out=$work/out
  rc=0; "$tool" batch --manifest "$manifest" --output-dir "$out" "${defaults[@]}" --jobs 2 > "$work/stdout" || rc=$?
  [ $rc = 0 ] || fail "exit $rc (every line reached a verdict)"
  expect_verdicts "$out" "$example_verdicts"
  [ "$(stat -c %a "$out")" = 700 ] || fail "output directory mode $(stat -c %a "$out")"
  for f in "$out"/*.csv "$out"/*.json; do [ "$(stat -c %a "$f")" = 600 ] || fail "$f mode $(stat -c %a "$f")"; done
  [ -f "$out/team-sum.csv" ] && [ -f "$out/team-sum.csv.sandbox.json" ] || fail "no outputs for team-sum"
  [ ! -e "$out/team-crash.csv" ] || fail "a failed line has predictions"
  jq -e '.complete and .lines == 4 and .counts.success == 2' "$out/batch-summary.json" >/dev/null || fail "summary json"
  grep -q '^team-sum,1,success,0,predictions and provenance written,[0-9.]*,[0-9.]*,[0-9.]*,[0-9]*,[A-Za-z0-9._-]*,local,[0-9a-f]\{64\},$' \
    "$out/batch-summary.csv" || fail "summary row: $(grep team-sum "$out/batch-summary.csv")"
  before=$(sha256sum "$out"/team-*.csv* | sha256sum)
  # The same command again: everything is kept, nothing runs, nothing is rewritten.
  rc=0; "$tool" batch --manifest "$manifest" --output-dir "$out" "${defaults[@]}" > /dev/null || rc=$?
  [ $rc = 0 ] || fail "resume exit $rc"
  expect_verdicts "$out" "$example_verdicts"
  grep -q '^team-sum,1,success,0,kept from an earlier run' "$out/batch-summary.csv" || fail "team-sum not kept"
  [ "$before" = "$(sha256sum "$out"/team-*.csv* | sha256sum)" ] || fail "resume rewrote an output"
  no_containers_left
  echo "PASS: batch verdicts, files and resume" ;;
conflict)
  out=$work/out
  "$tool" batch --manifest "$manifest" --output-dir "$out" "${defaults[@]}" > /dev/null
  before=$(sha256sum "$out"/team-*.csv* "$out"/*.result.json | sha256sum)
  rc=0; "$tool" batch --manifest "$manifest" --output-dir "$out" "${defaults[@]}" --seconds 10 > /dev/null 2> "$work/err" || rc=$?
  [ $rc = 12 ] || fail "exit $rc, expected 12 (lines that could not run)"
  grep -q "could not be run" "$work/err" || fail "stderr: $(cat "$work/err")"
  grep -q '^team-sum,1,not_run,,earlier outputs were made for a different request (limits.wall_seconds differs)' \
    "$out/batch-summary.csv" || fail "team-sum: $(grep team-sum "$out/batch-summary.csv")"
  # team-mean sets its own seconds: its outputs still match the line.
  grep -q '^team-mean,2,success,0,kept' "$out/batch-summary.csv" || fail "team-mean: $(grep team-mean "$out/batch-summary.csv")"
  [ "$before" = "$(sha256sum "$out"/team-*.csv* "$out"/*.result.json | sha256sum)" ] || fail "an output was overwritten"
  echo "PASS: outputs of a different request are never overwritten" ;;
bad_manifest)
  printf '{"id": "a", "model": "m.py", "model_sha256": "%s"}\n{"id": "a", "model": "n.py", "model_sha256": "%s"}\n' \
    "$(printf '%064d' 0)" "$(printf '%064d' 0)" > "$work/dup.jsonl"
  rc=0; "$tool" batch --manifest "$work/dup.jsonl" --output-dir "$work/out" "${defaults[@]}" 2> "$work/err" || rc=$?
  [ $rc = 4 ] || fail "exit $rc, expected 4 (input_refused)"
  grep -q "dup.jsonl: line 2 (id): the ID was already used on an earlier line" "$work/err" || fail "$(cat "$work/err")"
  [ ! -e "$work/out" ] || fail "a refused manifest created the output directory"
  printf '{"id": "../escape", "model": "m.py", "model_sha256": "%s"}\n' "$(printf '%064d' 0)" > "$work/esc.jsonl"
  rc=0; "$tool" batch --manifest "$work/esc.jsonl" --output-dir "$work/out" "${defaults[@]}" 2> "$work/err" || rc=$?
  [ $rc = 4 ] && grep -q "line 1, column 8 (id): an ID is 1 to 128 bytes" "$work/err" || fail "rc $rc: $(cat "$work/err")"
  # A worker whose manifest was edited after submission runs nothing.
  rc=0; "$tool" batch --manifest "$manifest" --output-dir "$work/task" "${defaults[@]}" --worker \
    --manifest-sha256 "$(printf '%064d' 0)" 2> "$work/err" || rc=$?
  [ $rc = 4 ] && grep -q "changed since the job was submitted" "$work/err" || fail "rc $rc: $(cat "$work/err")"
  [ -z "$(ls -A "$work/task" 2>/dev/null)" ] || fail "a worker of an edited manifest left files"
  echo "PASS: a bad manifest is refused before anything runs" ;;
interrupt)
  slow_manifest 5
  out=$work/out
  "$tool" batch --manifest "$work/slow/manifest.jsonl" --output-dir "$out" "${defaults[@]}" --jobs 2 > /dev/null 2> "$work/err" &
  pid=$!
  two_running() { [ "$(sandboxes_of $pid --filter status=running | wc -l)" -ge 2 ]; }
  wait_until 120 two_running || fail "two sandboxes never ran at once"
  kill -INT $pid
  rc=0; wait $pid || rc=$?
  [ $rc = 130 ] || fail "exit $rc, expected 130 (SIGINT)"
  no_containers_left
  [ "$(grep -c ',interrupted,' "$out/batch-summary.csv")" = 2 ] || fail "$(cat "$out/batch-summary.csv")"
  [ "$(grep -c ',pending,' "$out/batch-summary.csv")" = 2 ] || fail "$(cat "$out/batch-summary.csv")"
  [ -z "$(ls "$out"/*.csv.sandbox.json 2>/dev/null)" ] || fail "a stopped run published"
  # The report of the stopped batch is written, and says it is incomplete.
  grep -q 'data-state="interrupted" data-count="2"' "$out/batch-report.html" && grep -q 'incomplete' "$out/batch-report.html" \
    || fail "no report of the interrupted batch"
  # The same command finishes the batch: interrupted and pending lines run.
  "$tool" batch --manifest "$work/slow/manifest.jsonl" --output-dir "$out" "${defaults[@]}" --jobs 2 > /dev/null
  expect_verdicts "$out" "slow-1,success slow-2,success slow-3,success slow-4,success"
  echo "PASS: SIGINT removes running sandboxes and the summary says so" ;;
progress)
  slow_manifest 1.5
  script -q -e -c "$tool batch --manifest $work/slow/manifest.jsonl --output-dir $work/out ${defaults[*]} --jobs 1" \
    "$work/typescript" > /dev/null
  grep -q 'plb-sandbox batch: [0-9]/4 done, 1 running, 0 failed, 0:0[0-9] elapsed, ETA' "$work/typescript" \
    || fail "no progress line: $(cat -v "$work/typescript" | head -c 600)"
  grep -q $'\r\e\[K' "$work/typescript" || fail "the progress line was not cleared"
  # Without a terminal: nothing but the closing lines, and one line per run with --verbose.
  rm -rf "$work/out"
  "$tool" batch --manifest "$work/slow/manifest.jsonl" --output-dir "$work/out" "${defaults[@]}" --verbose \
    > /dev/null 2> "$work/err"
  [ "$(grep -c '^plb-sandbox: slow-[1-4]: success (exit 0)' "$work/err")" = 4 ] || fail "verbose: $(cat "$work/err")"
  echo "PASS: one progress line on a terminal, one line per run with --verbose" ;;
forged)
  # Genuine outputs first: a forged pair is the real provenance with other predictions and their
  # digest, which anyone can build from public facts (the manifest, the data digest, the limits).
  "$tool" batch --manifest "$manifest" --output-dir "$work/ref" "${defaults[@]}" > /dev/null
  expect_verdicts "$work/ref" "$example_verdicts"
  printf 'sample_id,prediction\nS-001,999\nS-002,999\nS-003,999\n' > "$work/forged.csv"
  forged_digest=$(sha256sum "$work/forged.csv" | cut -d' ' -f1)
  jq -c --arg d "$forged_digest" '.predictions_sha256 = $d' "$work/ref/team-sum.csv.sandbox.json" > "$work/forged.json"
  plant() { cp "$work/forged.csv" "$1/team-sum.csv"; cp "$work/forged.json" "$1/team-sum.csv.sandbox.json"; }
  # A world-writable directory, and one another user owns: refused before anything runs or is read.
  for kind in open foreign; do
    dir=$work/$kind; mkdir "$dir"; plant "$dir"
    if [ $kind = open ]; then chmod 0777 "$dir"; why="writable by group or others (mode 0777)"; fix="chmod go-w $dir"
    else chown 65534:65534 "$dir"; why="owned by uid 65534, not by this user"; fix="chown 0 $dir"; fi
    rc=0; "$tool" batch --manifest "$manifest" --output-dir "$dir" "${defaults[@]}" > /dev/null 2> "$work/err" || rc=$?
    [ $rc = 2 ] || fail "$kind: exit $rc, expected 2 (usage_error): $(cat "$work/err")"
    grep -qF -- "--output-dir $dir: $why" "$work/err" || fail "$kind: $(cat "$work/err")"
    grep -qF -- "$fix" "$work/err" || fail "$kind: no fix in: $(cat "$work/err")"
    [ "$(ls -A "$dir" | sort | tr '\n' ' ')" = "team-sum.csv team-sum.csv.sandbox.json " ] || fail "$kind: $(ls -A "$dir")"
  done
  # A proper directory: a forged pair without a record, a forged failure record whose fields would
  # inject into the summary, and a symlink at a record path. Only those lines fail; the fourth runs.
  dir=$work/proper; mkdir -m 0700 "$dir"; plant "$dir"
  printf '{"schema":"plb-sandbox/batch-record/2","id":"team-mean","line":2,"verdict":"script_failed","exit_code":8,"message":"\\u001b[2J=HYPERLINK(\\"x\\")","usage":null,"predictions_sha256":"%s\\nevil,9,success","provenance_sha256":null,"request":{},"mac":"%s"}\n' \
    "$forged_digest" "$(printf '%064d' 0)" > "$dir/team-mean.result.json"
  ln -s /etc/passwd "$dir/team-crash.result.json"
  before=$(cd "$dir" && sha256sum team-sum.csv team-sum.csv.sandbox.json team-mean.result.json)
  rc=0; "$tool" batch --manifest "$manifest" --output-dir "$dir" "${defaults[@]}" > /dev/null 2> "$work/err" || rc=$?
  [ $rc = 12 ] || fail "proper: exit $rc, expected 12 (lines that could not run): $(cat "$work/err")"
  expect_verdicts "$dir" "team-sum,not_run team-mean,not_run team-crash,not_run team-wrong-rows,output_rejected"
  grep -qF "team-sum.csv exists without a record of a run of this tool" "$dir/batch-summary.csv" || fail "$(cat "$dir/batch-summary.csv")"
  grep -qF "team-mean.result.json: its MAC does not verify with this host's key" "$dir/batch-summary.csv" || fail "$(cat "$dir/batch-summary.csv")"
  grep -qF "team-crash.result.json is a symbolic link" "$dir/batch-summary.csv" || fail "$(cat "$dir/batch-summary.csv")"
  [ "$(wc -l < "$dir/batch-summary.csv")" = 5 ] || fail "rows: $(cat -v "$dir/batch-summary.csv")"
  ! grep -q $'\e' "$dir/batch-summary.csv" || fail "an ESC byte in the summary"
  ! grep -qE '(^|,)[=+@-]' "$dir/batch-summary.csv" || fail "a formula cell: $(grep -E '(^|,)[=+@-]' "$dir/batch-summary.csv")"
  ! grep -q "evil\|$forged_digest" "$dir/batch-summary.csv" "$dir/batch-summary.json" || fail "a forged field reached the summary"
  [ "$before" = "$(cd "$dir" && sha256sum team-sum.csv team-sum.csv.sandbox.json team-mean.result.json)" ] \
    || fail "a planted file was overwritten"
  [ "$(readlink "$dir/team-crash.result.json")" = /etc/passwd ] || fail "the symlink was replaced"
  # The fix the messages give: move the files away, and the lines run for real.
  rm "$dir"/team-sum.csv* "$dir"/team-mean.result.json "$dir"/team-crash.result.json
  "$tool" batch --manifest "$manifest" --output-dir "$dir" "${defaults[@]}" > /dev/null
  expect_verdicts "$dir" "$example_verdicts"
  cmp -s "$dir/team-sum.csv" "$work/ref/team-sum.csv" || fail "team-sum's real predictions differ from the reference run"
  no_containers_left
  echo "PASS: forged outputs and records are never kept; a junk record fails its own line" ;;
*) fail "unknown case" ;;
esac
