#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --keep-stderr, the operator's diagnostics file, against the real daemon and runsc.
#   keep_stderr.sh TOOL CASE EXAMPLES_DIR
# sandbox_score: a script that raises at import, one that imports a missing module, one that
#   writes stderr past the tail, one that writes terminal escapes and NUL bytes, one that floods
#   stderr then answers, one past the output cap and one that times out: each <output>.stderr holds
#   the bounded, escaped tail, 0600, and no message or --json holds the marker the scripts wrote.
# default_unchanged: without the flag no file is written, the file set and the predictions' bytes
#   are those of a run with it, --json has no new key; with PLB_SANDBOX_REFERENCE_TOOL (a build of
#   the tool before the flag existed) its run's files, predictions and --json keys are the same.
# batch: <id>.stderr per line, never in the summary, the report (which names the file) or the
#   tool's output; resume keeps them, a retry replaces a line's, verify ignores them, and a batch
#   without the flag writes none.
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh"

marker=MARKER-i43-c0ffee
mkdir -p "$work/m"
cp "$examples/input.csv" "$work/in.csv"
script() { printf '%s\n' "${@:2}" > "$work/m/$1.py"; }
script raise 'import sys' "sys.stderr.write('$marker at import\\n')" "raise ValueError('$marker boom')"
script missing 'import sys' "sys.stderr.write('$marker before the import\\n')" 'import no_such_module_plb_i43'
script past_tail 'import sys' "sys.stderr.write('START-$marker\\n' + ('y' * 99 + '\\n') * 3000 + 'END-$marker\\n')" \
  'sys.exit(3)'
script escapes 'import sys' \
  "sys.stderr.buffer.write(b'$marker \\x1b[2J\\x1b]0;title\\x07 nul:\\x00 high:\\xff\\xfe tab:\\t cr:\\r back:\\\\\\\\x41\\n')" \
  'sys.exit(1)'
script flood_valid 'import json, sys' 'rows = json.load(sys.stdin)["features"]' \
  "sys.stderr.write('$marker early\\n' + 'z' * 1000000 + '\\nEND-$marker\\n')" \
  'print(json.dumps({"predictions": [r[0] + r[1] for r in rows]}))'
script past_cap 'import sys' "sys.stderr.write('$marker\\n' + 'c' * (6 << 20))"
script sleeps 'import sys, time' "sys.stderr.write('$marker then sleeps\\n')" 'sys.stderr.flush()' 'time.sleep(60)'

sha() { sha256sum "$work/m/$1.py" | cut -d' ' -f1; }
# score NAME OUT [FLAG...]: sandbox-score with --json; rc, its stdout and stderr in OUT.stdout/.stderr-tool.
score() {
  local name=$1 out=$2; shift 2
  rc=0
  mkdir -p "$(dirname "$out")"
  "$tool" sandbox-score --model "$work/m/$name.py" --model-sha256 "$(sha "$name")" --runtime-image "$image" \
    --data "$work/in.csv" --feature feature_a --feature feature_b --id-column sample_id --task-type regression \
    --seconds "${seconds:-10}" --output "$out" "$@" > "$out.stdout" 2> "$out.tool-stderr" || rc=$?
}
# The marker never reaches what the tool says or shares.
no_marker() { ! grep -rl -- "$marker" "$@" || fail "the script's bytes reached $(grep -rl -- "$marker" "$@")"; }
# A diagnostics file as the operator gets it: 0600, printable ASCII lines of at most 1024 characters.
check_file() {
  [ -f "$1" ] || fail "no diagnostics file $1"
  [ "$(stat -c %a "$1")" = 600 ] || fail "$1: mode $(stat -c %a "$1")"
  ! LC_ALL=C grep -q '[^ -~]' "$1" || fail "$1: a byte outside printable ASCII"
  [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1")" -le 1024 ] || fail "$1: a line over 1024"
  grep -q "^# run started .*, verdict $2; " "$1" || fail "$1: header $(head -2 "$1")"
}

case $case_name in
sandbox_score)
  o=$work/o
  score raise "$o/raise.csv" --json --keep-stderr
  [ $rc = 8 ] || fail "raise: exit $rc"
  check_file "$o/raise.csv.stderr" script_failed
  grep -q "ValueError: $marker boom" "$o/raise.csv.stderr" || fail "raise: $(cat "$o/raise.csv.stderr")"
  jq -e --arg f "$o/raise.csv.stderr" '.stderr_file == $f' "$o/raise.csv.stdout" >/dev/null || fail "--json: $(cat "$o/raise.csv.stdout")"
  grep -q "the script's stderr (operator only): $o/raise.csv.stderr" "$o/raise.csv.tool-stderr" || fail "no path said"
  score missing "$o/missing.csv" --keep-stderr
  check_file "$o/missing.csv.stderr" script_failed
  grep -q "ModuleNotFoundError: No module named 'no_such_module_plb_i43'" "$o/missing.csv.stderr" || fail "missing"
  score past_tail "$o/tail.csv" --keep-stderr
  check_file "$o/tail.csv.stderr" script_failed
  grep -q "^# .* 300046 bytes of stderr arrived within the output cap, the last 65536 shown" "$o/tail.csv.stderr" ||
    fail "tail: $(sed -n 2p "$o/tail.csv.stderr")"
  grep -q "^END-$marker\$" "$o/tail.csv.stderr" && ! grep -q "START-$marker" "$o/tail.csv.stderr" || fail "not the tail"
  score escapes "$o/esc.csv" --keep-stderr
  check_file "$o/esc.csv.stderr" script_failed
  grep -qF "$marker \\x1b[2J\\x1b]0;title\\x07 nul:\\x00 high:\\xff\\xfe tab:\\x09 cr:\\x0d back:\\x5c\\x5cx41" \
    "$o/esc.csv.stderr" || fail "escapes: $(tail -1 "$o/esc.csv.stderr")"
  score flood_valid "$o/flood.csv" --json --keep-stderr
  [ $rc = 0 ] || fail "flood: exit $rc $(cat "$o/flood.csv.tool-stderr")"
  check_file "$o/flood.csv.stderr" success
  grep -q "^END-$marker\$" "$o/flood.csv.stderr" || fail "flood: no end"
  [ "$(stat -c %s "$o/flood.csv.stderr")" -lt $((4 * 65536 + 1024)) ] || fail "flood: $(stat -c %s "$o/flood.csv.stderr") bytes"
  grep -q "^stderr (operator only)" "$o/flood.csv.stdout" && fail "a --json run printed the path line"
  score past_cap "$o/cap.csv" --keep-stderr
  [ $rc = 7 ] || fail "past the output cap: exit $rc $(cat "$o/cap.csv.tool-stderr")"
  check_file "$o/cap.csv.stderr" output_cap_exceeded
  seconds=2 score sleeps "$o/sleep.csv" --keep-stderr
  [ $rc = 5 ] || fail "timeout: exit $rc"
  check_file "$o/sleep.csv.stderr" timeout
  grep -q "$marker then sleeps" "$o/sleep.csv.stderr" || fail "timeout: $(cat "$o/sleep.csv.stderr")"
  no_marker "$o"/*.stdout "$o"/*.tool-stderr "$o"/*.sandbox.json "$o"/flood.csv
  # A diagnostics path that is taken is refused before anything runs, naming it.
  score raise "$o/raise.csv" --keep-stderr
  [ $rc = 2 ] && grep -q "already exists" "$o/raise.csv.tool-stderr" || fail "taken: rc $rc"
  no_containers_left
  echo "PASS: each verdict the script reached leaves its bounded, escaped tail, and nothing else holds it" ;;
default_unchanged)
  on=$work/on off=$work/off
  score flood_valid "$on/p.csv" --json --keep-stderr
  score flood_valid "$off/p.csv" --json
  [ $rc = 0 ] || fail "exit $rc"
  score raise "$off/r.csv" --json
  [ "$(cd "$off" && ls -A | grep -v -e '\.stdout$' -e '\.tool-stderr$' | tr '\n' ' ')" = "p.csv p.csv.sandbox.json " ] ||
    fail "files without the flag: $(ls -A "$off")"
  cmp -s "$on/p.csv" "$off/p.csv" || fail "the predictions differ with the flag"
  [ "$(jq -cS 'del(.started_at, .usage, .mac, .cpuset, .predictions_path)' "$on/p.csv.sandbox.json")" = \
    "$(jq -cS 'del(.started_at, .usage, .mac, .cpuset, .predictions_path)' "$off/p.csv.sandbox.json")" ] || fail "the provenance differs"
  [ "$(jq -c 'keys' "$off/p.csv.stdout")" = '["exit_code","message","phases","predictions","provenance","total_seconds","usage","verdict"]' ] ||
    fail "--json keys: $(jq -c keys "$off/p.csv.stdout")"
  no_marker "$off"
  if [ -n "${PLB_SANDBOX_REFERENCE_TOOL:-}" ]; then  # the tool as it was before --keep-stderr
    ref=$work/ref
    tool=$PLB_SANDBOX_REFERENCE_TOOL score flood_valid "$ref/p.csv" --json
    tool=$PLB_SANDBOX_REFERENCE_TOOL score raise "$ref/r.csv" --json
    [ "$(ls -A "$ref")" = "$(ls -A "$off")" ] || fail "files: $(ls -A "$ref") before, $(ls -A "$off") now"
    cmp -s "$ref/p.csv" "$off/p.csv" || fail "the predictions differ from the reference tool's"
    for f in p r; do
      [ "$(jq -c 'keys' "$ref/$f.csv.stdout")" = "$(jq -c 'keys' "$off/$f.csv.stdout")" ] || fail "--json keys ($f)"
    done
    [ "$(jq -c .message "$ref/r.csv.stdout")" = "$(jq -c .message "$off/r.csv.stdout")" ] || fail "the failure's message"
    echo "compared with $PLB_SANDBOX_REFERENCE_TOOL"
  fi
  no_containers_left
  echo "PASS: without --keep-stderr the run's files are the spec's" ;;
batch)
  for n in raise missing escapes flood_valid; do
    printf '{"id": "k-%s", "model": "%s.py", "model_sha256": "%s"}\n' "${n//_/-}" "$n" "$(sha "$n")"
  done > "$work/m/manifest.jsonl"
  b=(--manifest "$work/m/manifest.jsonl" --runtime-image "$image" --data "$work/in.csv" --feature feature_a
    --feature feature_b --id-column sample_id --task-type regression)
  out=$work/out
  rc=0; "$tool" batch "${b[@]}" --output-dir "$out" --keep-stderr --jobs 2 > "$work/b.stdout" 2> "$work/b.stderr" || rc=$?
  [ $rc = 0 ] || fail "batch exit $rc: $(cat "$work/b.stderr")"
  expect_verdicts "$out" "k-raise,script_failed k-missing,script_failed k-escapes,script_failed k-flood-valid,success"
  check_file "$out/k-raise.stderr" script_failed
  check_file "$out/k-missing.stderr" script_failed
  check_file "$out/k-escapes.stderr" script_failed
  check_file "$out/k-flood-valid.stderr" success
  [ ! -e "$out/k-raise.csv.stderr" ] || fail "the batch's file is <id>.stderr"
  no_marker "$out"/*.csv "$out"/*.json "$out"/batch-report.html "$work/b.stdout" "$work/b.stderr"
  for id in k-raise k-missing k-escapes k-flood-valid; do
    grep -q "<span class=\"diag\"[^>]*>$id.stderr</span>" "$out/batch-report.html" || fail "the report does not name $id.stderr"
  done
  before=$(sha256sum "$out"/*.stderr)
  # Resume keeps every line, without reading or rewriting a diagnostics file.
  "$tool" batch "${b[@]}" --output-dir "$out" --keep-stderr > /dev/null
  expect_verdicts "$out" "k-raise,script_failed k-missing,script_failed k-escapes,script_failed k-flood-valid,success"
  grep -q '^k-flood-valid,4,success,0,kept from an earlier run' "$out/batch-summary.csv" || fail "resume ran a line again"
  [ "$before" = "$(sha256sum "$out"/*.stderr)" ] || fail "resume rewrote a diagnostics file"
  # A file that is not the tool's beside a line decides nothing: resume still keeps it.
  echo planted > "$out/k-flood-valid.stderr.extra"
  # A retry replaces a failed line's file with its own run's. Told by a line planted in the old file
  # (the tool never reads it back), not by its inode: the retry unlinks the old file before its run,
  # and the filesystem may give the new file the number just freed (stop 53's CI did).
  echo "planted before the retry" >> "$out/k-raise.stderr"
  "$tool" batch "${b[@]}" --output-dir "$out" --keep-stderr --retry-failed=all > /dev/null
  check_file "$out/k-raise.stderr" script_failed
  ! grep -q "planted before the retry" "$out/k-raise.stderr" || fail "the retry did not replace k-raise.stderr"
  grep -q '^k-flood-valid,4,success,0,kept from an earlier run' "$out/batch-summary.csv" || fail "flood-valid not kept"
  # verify re-runs the success without a diagnostics file of its own, and reproduces it.
  rc=0; "$tool" verify "$out/k-flood-valid.csv.sandbox.json" > "$work/v.out" 2>&1 || rc=$?
  [ $rc = 0 ] && grep -q "verify: reproduced" "$work/v.out" || fail "verify: rc $rc $(cat "$work/v.out")"
  [ -z "$(ls "$out"/*verify*.stderr 2>/dev/null)" ] || fail "verify wrote a diagnostics file"
  no_marker "$work/v.out"
  # Without the flag: no file at all.
  "$tool" batch "${b[@]}" --output-dir "$work/plain" > /dev/null
  [ -z "$(ls "$work/plain"/*.stderr 2>/dev/null)" ] || fail "a batch without --keep-stderr wrote $(ls "$work/plain"/*.stderr)"
  ! grep -q 'class="diag"' "$work/plain/batch-report.html" || fail "the report names a file that is not there"
  no_containers_left
  echo "PASS: batch --keep-stderr: <id>.stderr per line, named by the report, ignored by resume and verify" ;;
*) fail "unknown case" ;;
esac
