#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `plb-sandbox verify` against the real daemon and runsc: one case per outcome.
#   verify.sh TOOL CASE EXAMPLES_DIR
# A run is scored once with sandbox-score, then verified: reproduced, differs (a script that reads
# /dev/urandom), changed model, changed data, changed image, changed runtime (a copy of the
# provenance edited and sealed again with the host's key, as only root can), an edited provenance
# (naming /etc/shadow, higher limits, another image: refused before anything it names is read), a
# forged or unsigned provenance, and `batch --verify`.
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh"

mkdir -p "$work/out"
cp "$examples/input.csv" "$work/in.csv"
cp "$examples/batch/sum.py" "$work/model.py"
if [ "$case_name" = differs ]; then
  printf '%s\n' 'import json, os, sys' 'rows = json.load(sys.stdin)["features"]' \
    'print(json.dumps({"predictions": [r[0] + int.from_bytes(os.urandom(4), "big") / 2**32 for r in rows]}))' \
    > "$work/model.py"
fi
score() {
  "$tool" sandbox-score --model "$work/model.py" --model-sha256 "$(sha256sum "$work/model.py" | cut -d' ' -f1)" \
    --runtime-image "$image" --data "$work/in.csv" --feature feature_a --feature feature_b --id-column sample_id \
    --task-type regression --seconds 20 --memory-mb 256 --output "$work/out/pred.csv" > /dev/null
}
prov=$work/out/pred.csv.sandbox.json
# Runs verify; sets rc, out (stdout) and err (stderr); fails if a container was created while
# nothing may run (its first argument is "runs-nothing" then).
verify() {
  local mode=$1; shift
  local since; since=$(date +%s.%6N)
  "$tool" verify "$@" > "$work/stdout" 2> "$work/stderr" &
  local pid=$!
  rc=0; wait $pid || rc=$?
  out=$(cat "$work/stdout"); err=$(cat "$work/stderr")
  if [ "$mode" = runs-nothing ]; then
    local created
    created=$(created_since "$since" $pid)  # this verify's own: other tests run beside it
    [ -z "$created" ] || fail "container(s) were created, nothing may run: $created"
    ! ls "$work"/out/pred.verify-* >/dev/null 2>&1 || fail "a refused verify published $(ls "$work"/out/pred.verify-*)"
  fi
  # Every line the operator sees is printable ASCII.
  ! LC_ALL=C grep -q '[^[:print:]]' "$work/stdout" "$work/stderr" || fail "a non-printable byte in the output"
}
expect() {  # CODE PATTERN: verify's exit code and a line of its output
  [ "$rc" = "$1" ] || fail "exit $rc, expected $1: $out $err"
  grep -q -- "$2" <<<"$out$err" || fail "no '$2' in: $out $err"
}
# reseal IN OUT JQ_FILTER: IN edited by the filter, then sealed under the host's key exactly as the
# tool seals (provenance.hpp): HMAC-SHA256 of the domain and every byte before `,"mac"`.
reseal() {
  local body; body=$(jq -c "del(.mac) | $3" "$1") || fail "jq $3"
  body=${body%\}}
  local mac
  mac=$( { printf 'plb-sandbox/provenance/2 mac\n%s' "$body"; } | openssl dgst -sha256 -r -mac HMAC \
    -macopt "hexkey:$(xxd -p -c 64 /var/lib/plb-sandbox/batch.key)" | cut -d' ' -f1)
  printf '%s,"mac":"%s"}\n' "$body" "$mac" > "$2"
}
score
original=$(sha256sum "$work/out/pred.csv" "$prov")
rows=$(jq .rows "$prov")

case $case_name in
reproduced)
  verify runs "$prov"
  expect 0 "^verify: reproduced: $work/out/pred.verify-1.csv is byte for byte the recorded predictions"
  cmp -s "$work/out/pred.csv" "$work/out/pred.verify-1.csv" || fail "the re-run's predictions differ"
  [ "$(stat -c %a "$work/out/pred.verify-1.csv")" = 600 ] || fail "mode $(stat -c %a "$work/out/pred.verify-1.csv")"
  [ -f "$work/out/pred.verify-1.csv.sandbox.json" ] || fail "no provenance for the re-run"
  verify runs "$prov"
  expect 0 "pred.verify-2.csv is byte for byte"
  echo keep > "$work/taken.csv"
  verify runs "$prov" --output "$work/taken.csv"
  [ "$rc" = 2 ] && [ "$(cat "$work/taken.csv")" = keep ] || fail "an existing --output: exit $rc, $(cat "$work/taken.csv")"
  verify runs "$prov" --output "$work/chosen.csv" --json
  jq -e '.result == "reproduced" and .exit_code == 0' <<<"$out" >/dev/null || fail "--json: $out"
  cmp -s "$work/out/pred.csv" "$work/chosen.csv" || fail "--output differs"
  [ "$original" = "$(sha256sum "$work/out/pred.csv" "$prov")" ] || fail "the original outputs changed"
  echo "PASS: verify reproduces a run byte for byte, at fresh paths only" ;;
differs)
  verify runs "$prov"
  expect 13 "^plb-sandbox: verify: differs: $rows of $rows rows differ from $work/out/pred.csv"
  expect 13 "^verify: $rows differing row(s), largest absolute difference 0\.[0-9]"
  [ -f "$work/out/pred.verify-1.csv" ] || fail "the re-run's predictions were not kept"
  [ "$original" = "$(sha256sum "$work/out/pred.csv" "$prov")" ] || fail "the original outputs changed"
  echo "PASS: a script that reads /dev/urandom differs, with the rows and the largest difference" ;;
model_changed)
  echo '# edited after scoring' >> "$work/model.py"
  verify runs-nothing "$prov"
  expect 15 "^plb-sandbox: verify: model_changed: model $work/model.py has SHA-256 [0-9a-f]\{64\}, the provenance records"
  rm "$work/model.py"
  verify runs-nothing "$prov"
  expect 15 "model_changed: model $work/model.py: "
  echo "PASS: a changed or missing model is named, exit 15, nothing runs" ;;
data_changed)
  echo 's-999,1,1,2,late' >> "$work/in.csv"
  verify runs-nothing "$prov"
  expect 16 "^plb-sandbox: verify: data_changed: data $work/in.csv has SHA-256"
  # A changed model too: both are named, the first decides the code.
  echo '# edited' >> "$work/model.py"
  verify runs-nothing "$prov"
  expect 15 "data_changed: data $work/in.csv"
  expect 15 "model_changed: model $work/model.py"
  echo "PASS: changed data is named, exit 16, nothing runs" ;;
runtime_changed)
  mkdir "$work/copy"
  # Edited alone it is refused (its MAC); sealed again under the key, it is what another host wrote.
  jq -c '.runtime.release = "20221219" | .runtime.platform = "ptrace"' "$prov" > "$work/copy/pred.csv.sandbox.json"
  verify runs-nothing "$work/copy/pred.csv.sandbox.json"
  expect 14 "provenance_refused: .*its MAC does not verify with this host's key"
  reseal "$prov" "$work/copy/pred.csv.sandbox.json" '.runtime.release = "20221219" | .runtime.platform = "ptrace"'
  verify runs-nothing "$work/copy/pred.csv.sandbox.json"
  expect 18 "runtime_changed: this host runs runsc [0-9]\{8\} on systrap, the provenance records runsc 20221219 on ptrace"
  [ ! -e "$work/copy/pred.verify-1.csv" ] || fail "a refused verify published"
  # Allowed: it runs, says what changed, and compares by the recorded digest (no original beside the copy).
  verify runs "$work/copy/pred.csv.sandbox.json" --allow-changed-runtime
  expect 0 "^verify: reproduced: $work/copy/pred.verify-1.csv"
  expect 0 "runtime_changed: this host runs"
  # The flag allows nothing else: a changed image still stops it.
  reseal "$work/copy/pred.csv.sandbox.json" "$work/copy/img.csv.sandbox.json" '.runtime_image = "sha256:'"$(printf '%064d' 0)"'"' 
  verify runs-nothing "$work/copy/img.csv.sandbox.json" --allow-changed-runtime
  expect 17 "image_changed: image sha256:0\{64\} is not on this host"
  echo "PASS: a changed runtime stops verify (exit 18) unless allowed; a changed image always does" ;;
edited)
  # Whoever can write the provenance (root's, 0600) but has no key: each edit is refused by its MAC
  # before anything it names is opened. /etc/shadow's digest is never printed, nothing runs.
  mkdir "$work/edited"
  f=$work/edited/pred.csv.sandbox.json
  shadow=$(sha256sum /etc/shadow | cut -d' ' -f1)
  for edit in '.model_path = "/etc/shadow"' '.data_path = "/etc/shadow"' \
      '.model_path = "/etc/shadow" | .model_sha256 = "'"$shadow"'"' \
      '.limits.memory_mib = 4096 | .limits.cpu_millicores = 2000' '.runtime_image = "sha256:'"$(printf '%064d' 0)"'"'; do
    jq -c "$edit" "$prov" > "$f"
    verify runs-nothing "$f"
    expect 14 "^plb-sandbox: verify: provenance_refused: $f: its MAC does not verify with this host's key /var/lib/plb-sandbox/batch.key"
    expect 14 "re-score the run"
    ! grep -q -- "$shadow" <<<"$out$err" || fail "$edit: /etc/shadow's digest was printed: $out $err"
    ! grep -q -- "SHA-256\|/etc/shadow" <<<"$out$err" || fail "$edit: a path or digest it names was read: $out $err"
  done
  # Given the digest back on the command line, the file is still not run: the seal stops it first.
  jq -c '.model_path = "/etc/shadow" | .model_sha256 = "'"$shadow"'"' "$prov" > "$f"
  verify runs-nothing "$f" --model /etc/shadow
  expect 14 "its MAC does not verify"
  # One byte inside what the MAC covers: a space that changes no value.
  sed 's/"rows":/"rows": /' "$prov" > "$f"
  cmp -s "$prov" "$f" && fail "the edit changed nothing"
  verify runs-nothing "$f"
  expect 14 "its MAC does not verify"
  echo "PASS: an edited provenance (/etc/shadow as model or data, higher limits, another image) is refused by its MAC, nothing it names is read" ;;
forged)
  mkdir "$work/forged"
  f=$work/forged/x.csv.sandbox.json
  # Unsigned: an older plb-sandbox's /1, and the MAC taken off.
  jq -c 'del(.mac) | .schema = "plb-sandbox/provenance/1"' "$prov" > "$f"
  verify runs-nothing "$f"
  expect 14 "provenance_refused: $f: a plb-sandbox/provenance/1 record, written by an older plb-sandbox without a MAC: .*re-score the run"
  jq -c 'del(.mac)' "$prov" > "$f"
  verify runs-nothing "$f"
  expect 14 "provenance_refused: $f: it carries no MAC"
  # Behind the seal the strict read still stands: sealed again under the key, each is still refused.
  reseal "$prov" "$f" '.runtime.platform = "systrap\u001b[31m"'
  verify runs-nothing "$f"
  expect 14 "provenance_refused: $f: runtime.platform: a value this tool does not write"
  # A duplicated key (jq would drop it, so the body is made by hand and sealed the same way).
  body=$(jq -c 'del(.mac)' "$prov" | sed 's/^{"schema":"plb-sandbox\/provenance\/2",/&"rows":1,/; s/}$//')
  mac=$( { printf 'plb-sandbox/provenance/2 mac\n%s' "$body"; } | openssl dgst -sha256 -r -mac HMAC \
    -macopt "hexkey:$(xxd -p -c 64 /var/lib/plb-sandbox/batch.key)" | cut -d' ' -f1)
  printf '%s,"mac":"%s"}\n' "$body" "$mac" > "$f"
  verify runs-nothing "$f"
  expect 14 "a key appears twice (byte"
  reseal "$prov" "$f" '.limits.wall_seconds = 100000'
  verify runs-nothing "$f"
  expect 14 "limits.wall_seconds: a value this tool does not write"
  reseal "$prov" "$f" '.verdict = "timeout"'
  verify runs-nothing "$f"
  expect 14 "not a scored run's provenance"
  head -c 100 "$prov" > "$f"
  verify runs-nothing "$f"
  expect 14 "it carries no MAC"
  verify runs-nothing "$work/forged/absent.csv.sandbox.json"
  expect 14 "provenance_refused"
  echo "PASS: an unsigned or broken provenance is refused (exit 14), named, and nothing runs" ;;
batch_verify)
  rc=0; "$tool" batch --manifest "$manifest" --output-dir "$work/batch" "${defaults[@]}" --jobs 2 --verify 2 \
    --verify-by cpu_seconds > "$work/stdout" 2> "$work/stderr" || rc=$?
  [ $rc = 0 ] || fail "batch exit $rc: $(cat "$work/stderr")"
  v=$work/batch/batch-verify.csv
  [ "$(head -1 "$v")" = "id,result,differing_rows,max_abs_difference,selected_by,message" ] || fail "$(cat "$v")"
  [ "$(tail -n +2 "$v" | cut -d, -f2 | sort | uniq -c | tr -s ' ')" = " 2 reproduced" ] || fail "$(cat "$v")"
  [ "$(tail -n +2 "$v" | cut -d, -f1 | sort | tr '\n' ' ')" = "team-mean team-sum " ] || fail "$(cat "$v")"
  grep -q ',top 2 successes by cpu_seconds,' "$v" || fail "$(cat "$v")"
  [ "$(stat -c %a "$v")" = 600 ] && [ "$(stat -c %a "$work/batch/verify")" = 700 ] || fail "modes"
  [ -f "$work/batch/verify/team-sum.verify-1.csv" ] || fail "no re-run outputs: $(ls "$work/batch/verify")"
  grep -q '<table id="verify">' "$work/batch/batch-report.html" || fail "the report does not show batch-verify.csv"
  [ "$(grep -c '<tr class="r-reproduced">' "$work/batch/batch-report.html")" = 2 ] || fail "report verify rows"
  # Again with a sample: everything is kept, two more re-runs, the seed recorded.
  rc=0; "$tool" batch --manifest "$manifest" --output-dir "$work/batch" "${defaults[@]}" --verify 1 \
    --verify-seed 7 > /dev/null 2>&1 || rc=$?
  [ $rc = 0 ] || fail "second batch exit $rc"
  grep -q ',random sample of 1 successes; seed 7,' "$v" || fail "$(cat "$v")"
  no_containers_left
  echo "PASS: batch --verify re-runs the chosen lines, writes batch-verify.csv, and the report shows it" ;;
*) fail "unknown case" ;;
esac
no_containers_left
