#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `plb-sandbox verify` against the real daemon and runsc: one case per outcome.
#   verify.sh TOOL CASE EXAMPLES_DIR
# A run is scored once with sandbox-score, then verified: reproduced, differs (a script that reads
# /dev/urandom), changed model, changed data, changed image, changed runtime (a copy of the
# provenance edited and sealed again with the host's key, as only root can), an edited provenance
# (naming /etc/shadow, higher limits, another image: refused before anything it names is read), a
# forged or unsigned provenance, `batch --verify`, rewritten predictions and a swapped provenance,
# a link planted at every recorded path, and verify as another user than root.
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
  expect 15 "^plb-sandbox: verify: model_changed: model $work/model.py differs from the recorded one (the provenance records SHA-256 $(jq -r .model_sha256 "$prov"))"
  ! grep -q -- "$(sha256sum "$work/model.py" | cut -d' ' -f1)" <<<"$out$err" || fail "the changed model's own digest was printed"
  rm "$work/model.py"
  verify runs-nothing "$prov"
  expect 15 "model_changed: model $work/model.py: "
  echo "PASS: a changed or missing model is named, exit 15, nothing runs" ;;
data_changed)
  echo 's-999,1,1,2,late' >> "$work/in.csv"
  verify runs-nothing "$prov"
  expect 16 "^plb-sandbox: verify: data_changed: data $work/in.csv: differs from the recorded one (larger than its recorded"
  # A changed model too: both are named, the first decides the code.
  echo '# edited' >> "$work/model.py"
  verify runs-nothing "$prov"
  expect 15 "data_changed: data $work/in.csv"
  expect 15 "model_changed: model $work/model.py"
  echo "PASS: changed data is named, exit 16, nothing runs" ;;
runtime_changed)
  mkdir "$work/copy"
  cp "$work/out/pred.csv" "$work/copy/pred.csv"
  cp "$work/out/pred.csv" "$work/copy/img.csv"
  # Edited alone it is refused (its MAC); sealed again under the key, it is what another host wrote.
  jq -c '.runtime.release = "20221219" | .runtime.platform = "ptrace"' "$prov" > "$work/copy/pred.csv.sandbox.json"
  verify runs-nothing "$work/copy/pred.csv.sandbox.json"
  expect 14 "provenance_refused: .*its MAC does not verify with this host's key"
  # Sealed for the copy's own predictions: a provenance vouches only for the file it names.
  reseal "$prov" "$work/copy/pred.csv.sandbox.json" \
    '.runtime.release = "20221219" | .runtime.platform = "ptrace" | .predictions_path = "'"$work/copy/pred.csv"'"'
  verify runs-nothing "$work/copy/pred.csv.sandbox.json"
  expect 18 "runtime_changed: this host runs runsc [0-9]\{8\} on systrap, the provenance records runsc 20221219 on ptrace"
  [ ! -e "$work/copy/pred.verify-1.csv" ] || fail "a refused verify published"
  # Allowed: it runs, says what changed, and compares with the copy's predictions.
  verify runs "$work/copy/pred.csv.sandbox.json" --allow-changed-runtime
  expect 0 "^verify: reproduced: $work/copy/pred.verify-1.csv"
  expect 0 "runtime_changed: this host runs"
  # The flag allows nothing else: a changed image still stops it.
  reseal "$work/copy/pred.csv.sandbox.json" "$work/copy/img.csv.sandbox.json" \
    '.runtime_image = "sha256:'"$(printf '%064d' 0)"'" | .predictions_path = "'"$work/copy/img.csv"'"' 
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
predictions_changed)
  # Issue 41: the predictions a leaderboard reads rewritten (999 on every row), the provenance
  # intact; then another run's sealed provenance put beside a team's predictions. Both were
  # "reproduced"; both are refused before anything runs, with no digest of the file printed.
  cp "$work/out/pred.csv" "$work/kept.csv"
  awk -F, 'NR == 1 { print; next } { print $1 ",999" }' "$work/kept.csv" > "$work/out/pred.csv"
  verify runs-nothing "$prov"
  expect 19 "^plb-sandbox: verify: predictions_changed: predictions $work/out/pred.csv differs from the recorded one (the provenance records SHA-256 $(jq -r .predictions_sha256 "$prov"))"
  ! grep -q -- "$(sha256sum "$work/out/pred.csv" | cut -d' ' -f1)" <<<"$out$err" || fail "the edited file's digest was printed"
  cp "$work/kept.csv" "$work/out/pred.csv"
  cp "$examples/batch/mean.py" "$work/other.py"
  "$tool" sandbox-score --model "$work/other.py" --model-sha256 "$(sha256sum "$work/other.py" | cut -d' ' -f1)" \
    --runtime-image "$image" --data "$work/in.csv" --feature feature_a --feature feature_b --id-column sample_id \
    --task-type regression --seconds 20 --memory-mb 256 --output "$work/out/other.csv" > /dev/null || fail "second score"
  mkdir "$work/team"
  cp "$work/out/pred.csv" "$work/team/pred.csv"
  cp "$work/out/other.csv.sandbox.json" "$work/team/pred.csv.sandbox.json"
  verify runs-nothing "$work/team/pred.csv.sandbox.json"
  expect 19 "predictions_changed: predictions $work/team/pred.csv: the provenance beside them was sealed for $work/out/other.csv"
  # Both of the other run's files, copied under the team's name: the digest agrees, the name does not.
  cp "$work/out/other.csv" "$work/team/pred.csv"
  verify runs-nothing "$work/team/pred.csv.sandbox.json"
  expect 19 "sealed for $work/out/other.csv"
  # A provenance from before the binding names no predictions file: refused, with the fix.
  reseal "$prov" "$work/team/old.csv.sandbox.json" 'del(.predictions_path)'
  verify runs-nothing "$work/team/old.csv.sandbox.json"
  expect 14 "names no predictions file (sealed by an older plb-sandbox.*re-score the run"
  echo "PASS: rewritten predictions and a swapped provenance are predictions_changed (exit 19), nothing runs" ;;
symlinks)
  # Issue 41: a link planted at every recorded path. verify printed /etc/shadow's digest, hashed its
  # own environment and read a 1 GiB sparse file whole; now each is refused unread, nothing runs.
  shadow=$(sha256sum /etc/shadow | cut -d' ' -f1)
  link_words="a symbolic link on its path is refused"
  mv "$work/model.py" "$work/model.orig" && ln -s /etc/shadow "$work/model.py"
  verify runs-nothing "$prov"
  expect 15 "model_changed: model $work/model.py: $link_words"
  ! grep -q -- "$shadow" <<<"$out$err" || fail "/etc/shadow's digest was printed"
  rm "$work/model.py" && mv "$work/model.orig" "$work/model.py"
  mv "$work/in.csv" "$work/in.orig" && ln -s /proc/self/environ "$work/in.csv"
  verify runs-nothing "$prov"
  expect 16 "data_changed: data $work/in.csv: $link_words"
  rm "$work/in.csv" && mv "$work/in.orig" "$work/in.csv"
  # The predictions: a link to a 1 GiB sparse file, then the file itself; neither is read.
  mv "$work/out/pred.csv" "$work/kept.csv"
  truncate -s 1G "$work/big.csv" && ln -s "$work/big.csv" "$work/out/pred.csv"
  verify runs-nothing "$prov"
  expect 19 "predictions_changed: predictions $work/out/pred.csv: $link_words"
  rm "$work/out/pred.csv" && mv "$work/big.csv" "$work/out/pred.csv"
  /usr/bin/time -f %M -o "$work/rss" "$tool" verify "$prov" > /dev/null 2>&1 || true
  rss=$(tail -1 "$work/rss")
  [ -n "$rss" ] && [ "$rss" -lt 65536 ] || fail "verify of a 1 GiB predictions file peaked at ${rss:-?} KiB"
  verify runs-nothing "$prov"
  expect 19 "predictions $work/out/pred.csv: differs from the recorded one (larger than its"
  rm "$work/out/pred.csv" && mv "$work/kept.csv" "$work/out/pred.csv"
  # A directory on the path of the provenance itself.
  ln -s "$work/out" "$work/outlink"
  verify runs-nothing "$work/outlink/pred.csv.sandbox.json"
  expect 14 "provenance_refused: $work/outlink/pred.csv.sandbox.json: $link_words"
  # The run itself: a linked model, data or output directory is refused before anything runs.
  ln -s "$work/model.py" "$work/link.py"
  rc=0; "$tool" sandbox-score --model "$work/link.py" --model-sha256 "$(sha256sum "$work/model.py" | cut -d' ' -f1)" \
    --runtime-image "$image" --data "$work/in.csv" --feature feature_a --feature feature_b \
    --task-type regression --output "$work/out/l1.csv" > /dev/null 2> "$work/stderr" || rc=$?
  [ $rc = 4 ] && grep -q -- "--model $work/link.py: $link_words" "$work/stderr" || fail "linked model: $rc $(cat "$work/stderr")"
  rc=0; "$tool" sandbox-score --model "$work/model.py" --model-sha256 "$(sha256sum "$work/model.py" | cut -d' ' -f1)" \
    --runtime-image "$image" --data "$work/in.csv" --feature feature_a --feature feature_b \
    --task-type regression --output "$work/outlink/l2.csv" > /dev/null 2> "$work/stderr" || rc=$?
  [ $rc = 2 ] && grep -q -- "directory $work/outlink: $link_words" "$work/stderr" || fail "linked output: $rc $(cat "$work/stderr")"
  [ "$original" = "$(sha256sum "$work/out/pred.csv" "$prov")" ] || fail "the original outputs changed"
  echo "PASS: a link at the model, the data, the predictions, the provenance's directory or the output is refused unread" ;;
not_root)
  # Issue 41: as another user, the key's refusal names the permission and who may run verify.
  rc=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$tool" verify "$prov" > "$work/stdout" 2> "$work/stderr" || rc=$?
  err=$(cat "$work/stderr")
  [ $rc = 3 ] || fail "exit $rc: $err"
  grep -q "permission denied to uid 65534 (the key is root's, mode 0400): only root may seal or check a seal" <<<"$err" || fail "$err"
  ! grep -q "file system" <<<"$err" || fail "still blames the file system: $err"
  echo "PASS: verify as another user names the permission and who may run it" ;;
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
