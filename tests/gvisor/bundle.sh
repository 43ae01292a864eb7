#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A model bundle (--bundle, the manifest's `bundle`) against the real daemon and runsc:
#   bundle.sh TOOL CASE EXAMPLES_DIR
#   score        sandbox-score with a small bundle: the script reads /sandbox/bundle/weights.json and
#                predicts from it; the bundle is read-only inside (a chmod and a write both fail);
#                the provenance records the bundle's digest, bytes, files and path; explain shows the
#                second mount, the bundle cache's entry; a second run mounts the same entry, not a
#                new copy; a run without a bundle still has one mount.
#   changed_byte one byte changed after review: refused before any container exists, though the
#                reviewed bundle's copy is in the bundle cache.
#   verify       verify reproduces a bundle run; one byte changed: bundle_changed, exit 20, nothing
#                runs; --bundle names a good copy elsewhere.
#   batch        a manifest line with a bundle: the summary shows its bytes; a changed bundle (its
#                digest in the line) is a changed request to resume.
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh"

cp "$examples/input.csv" "$work/in.csv"
mkdir -p "$work/bundle/config" "$work/out"
printf '{"a": 2.0, "b": -0.5, "c": 0.25}\n' > "$work/bundle/weights.json"
printf '{"features": ["feature_a", "feature_b"]}\n' > "$work/bundle/config/features.json"
# Predicts from the bundle's weights; exits 3 if it could change the bundle in any way.
cat > "$work/model.py" <<'EOF'
import json, os, sys
w = json.load(open("/sandbox/bundle/weights.json"))
json.load(open("/sandbox/bundle/config/features.json"))
rows = json.load(sys.stdin)["features"]
for attempt in (lambda: os.chmod("/sandbox/bundle", 0o700),
                lambda: open("/sandbox/bundle/new.bin", "w").write("x"),
                lambda: open("/sandbox/bundle/weights.json", "a").write("x")):
    try:
        attempt()
    except OSError:
        continue
    sys.exit(3)
print(json.dumps({"predictions": [w["a"] * r[0] + w["b"] * r[1] + w["c"] for r in rows]}))
EOF
model_sha=$(sha256sum "$work/model.py" | cut -d' ' -f1)
# The bundle's digest by docs/bundles.md's definition, with coreutils only: one line per regular
# file, sorted by path bytes: SHA-256, size, relative path; the digest is the listing's SHA-256.
bundle_digest() {
  (cd "$1" && find . -type f -printf '%P\n' | LC_ALL=C sort | while IFS= read -r p; do
    printf '%s  %s  %s\n' "$(sha256sum < "$p" | cut -d' ' -f1)" "$(stat -c %s "$p")" "$p"
  done) | sha256sum | cut -d' ' -f1
}
bundle_sha=$(bundle_digest "$work/bundle")
bundle_bytes=$(( $(stat -c %s "$work/bundle/weights.json") + $(stat -c %s "$work/bundle/config/features.json") ))
flags=(--model "$work/model.py" --model-sha256 "$model_sha" --runtime-image "$image" --data "$work/in.csv"
  --feature feature_a --feature feature_b --id-column sample_id --task-type regression --seconds 20 --memory-mb 256)
# Runs the tool in the background; sets rc, out and err; with "runs-nothing" first, fails if it
# created a container (created_since: this process's own, whatever else runs beside it).
run() {
  local mode=$1; shift
  local since; since=$(date +%s.%6N)
  "$tool" "$@" > "$work/stdout" 2> "$work/stderr" &
  local pid=$!
  rc=0; wait $pid || rc=$?
  out=$(cat "$work/stdout"); err=$(cat "$work/stderr")
  if [ "$mode" = runs-nothing ]; then
    local created; created=$(created_since "$since" $pid)
    [ -z "$created" ] || fail "container(s) were created, nothing may run: $created"
  fi
}
expect() {  # CODE PATTERN
  [ "$rc" = "$1" ] || fail "exit $rc, expected $1: $out $err"
  grep -q -- "$2" <<<"$out$err" || fail "no '$2' in: $out $err"
}
score() {  # OUTPUT [MODE]
  run "${2:-runs}" sandbox-score "${flags[@]}" --bundle "$work/bundle" --bundle-sha256 "$bundle_sha" --output "$1"
}
trap 'rm -rf "$work"; expect_nothing_left' EXIT

case $case_name in
score)
  score "$work/out/p.csv"
  expect 0 ""
  prov=$work/out/p.csv.sandbox.json
  jq -e --arg d "$bundle_sha" --arg p "$work/bundle" --argjson b "$bundle_bytes" \
    '.bundle_sha256 == $d and .bundle_bytes == $b and .bundle_files == 2 and .bundle_path == $p' "$prov" >/dev/null ||
    fail "the provenance does not record the bundle: $(jq -c '{bundle_sha256, bundle_bytes, bundle_files, bundle_path}' "$prov")"
  # The predictions are the weights' (a script that could not read them, or could write, fails).
  python3 - "$work/out/p.csv" <<'EOF' || fail "the predictions are not the bundle's weights'"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
src = {r["sample_id"]: r for r in csv.DictReader(open(sys.argv[1].rsplit("/", 2)[0] + "/in.csv"))}
for r in rows:
    s = src[r["sample_id"]]
    want = 2.0 * float(s["feature_a"]) - 0.5 * float(s["feature_b"]) + 0.25
    assert abs(float(r["prediction"]) - want) < 1e-9, (r, want)
assert len(rows) == len(src)
EOF
  # explain names the bundle and shows the second, read-only mount; without --bundle, one mount.
  run runs-nothing explain "${flags[@]}" --bundle "$work/bundle" --bundle-sha256 "$bundle_sha" \
    --output "$work/out/e.csv" --json
  [ "$rc" = 0 ] || fail "explain: exit $rc: $err"
  jq -e --arg d "$bundle_sha" '.bundle.sha256 == $d and .bundle.files == 2 and .bundle.target == "/sandbox/bundle"
    and ([.docker_argv[] | select(startswith("--mount="))] | length == 2)
    and ([.docker_argv[] | select(test("^--mount=type=bind,source=/var/cache/plb-sandbox/bundles/" + $d + "/tree,target=/sandbox/bundle,readonly$"))] | length == 1)' \
    <<<"$out" >/dev/null || fail "explain --json: $(jq -c '{bundle, docker_argv}' <<<"$out")"
  run runs-nothing explain "${flags[@]}" --output "$work/out/e.csv" --json
  jq -e '.bundle == null and ([.docker_argv[] | select(startswith("--mount="))] | length == 1)' <<<"$out" >/dev/null ||
    fail "explain without a bundle: $(jq -c '.docker_argv' <<<"$out")"
  # The bundle cache: the run left its verified copy under the digest, and a second run mounts that
  # same copy (its inode unchanged: nothing copied again) and predicts the same.
  entry=/var/cache/plb-sandbox/bundles/$bundle_sha/tree
  [ "$(stat -c %u:%a "$entry")" = 65534:500 ] || fail "the cached copy: $(stat -c %u:%a "$entry" 2>&1)"
  inode=$(stat -c %i "$entry")
  score "$work/out/again.csv"
  expect 0 ""
  [ "$(stat -c %i "$entry")" = "$inode" ] || fail "the second run copied the bundle again"
  cmp -s "$work/out/p.csv" "$work/out/again.csv" || fail "the second run predicted otherwise"
  # Half of the pair is a usage error naming the flag; nothing runs.
  run runs-nothing sandbox-score "${flags[@]}" --bundle "$work/bundle" --output "$work/out/half.csv"
  expect 2 "--bundle $work/bundle: given without --bundle-sha256"
  echo "PASS: a bundle run reads its weights read-only at /sandbox/bundle and its provenance records them" ;;
changed_byte)
  # The reviewed bundle runs first: the refusal below is the byte's, and the host's gVisor proof is
  # cached, so the preflight's probe cannot pass for a container the refused run created.
  score "$work/out/reviewed.csv"
  expect 0 ""
  printf '{"a": 2.0, "b": -0.5, "c": 0.35}\n' > "$work/bundle/weights.json"  # one byte, after review
  score "$work/out/p.csv" runs-nothing
  expect 4 "^plb-sandbox: input_refused: --bundle $work/bundle has SHA-256 .*, not the reviewed $bundle_sha given by --bundle-sha256"
  [ ! -e "$work/out/p.csv" ] && [ ! -e "$work/out/p.csv.sandbox.json" ] || fail "a refused run published"
  echo "PASS: a bundle changed by one byte is refused before any container exists" ;;
verify)
  score "$work/out/p.csv"
  expect 0 ""
  prov=$work/out/p.csv.sandbox.json
  run runs verify "$prov"
  expect 0 "^verify: reproduced: "
  cp -a "$work/bundle" "$work/moved"
  printf '{"a": 2.0, "b": -0.5, "c": 0.35}\n' > "$work/bundle/weights.json"
  run runs-nothing verify "$prov"
  expect 20 "^plb-sandbox: verify: bundle_changed: bundle $work/bundle differs from the recorded one (the provenance records SHA-256 $bundle_sha)"
  ! grep -q -- "$(bundle_digest "$work/bundle")" <<<"$out$err" || fail "the changed bundle's own digest was printed"
  run runs verify "$prov" --bundle "$work/moved" --output "$work/out/moved.csv"
  expect 0 "^verify: reproduced: "
  echo "PASS: verify holds the bundle to its digest before anything runs (exit 20), and re-runs with it" ;;
batch)
  mkdir -p "$work/round/models"
  cp -a "$work/bundle" "$work/round/models/b1"
  cp "$work/model.py" "$work/round/model.py"
  printf '{"id": "with-bundle", "model": "model.py", "model_sha256": "%s", "bundle": "models/b1", "bundle_sha256": "%s"}\n{"id": "without", "model": "plain.py", "model_sha256": "%s"}\n' \
    "$model_sha" "$bundle_sha" "$(sha256sum "$examples/batch/sum.py" | cut -d' ' -f1)" > "$work/round/manifest.jsonl"
  cp "$examples/batch/sum.py" "$work/round/plain.py"
  batch() { run runs batch --manifest "$work/round/manifest.jsonl" --output-dir "$work/round/out" \
    --runtime-image "$image" --data "$work/in.csv" --feature feature_a --feature feature_b --id-column sample_id \
    --task-type regression "$@"; }
  batch
  [ "$rc" = 0 ] || fail "batch: exit $rc: $err"
  expect_verdicts "$work/round/out" "with-bundle,success without,success"
  head -1 "$work/round/out/batch-summary.csv" | grep -q ',bundle_bytes$' || fail "no bundle_bytes column"
  [ "$(awk -F, '$1 == "with-bundle" {print $NF}' "$work/round/out/batch-summary.csv")" = "$bundle_bytes" ] ||
    fail "the summary's bundle bytes: $(cat "$work/round/out/batch-summary.csv")"
  [ -z "$(awk -F, '$1 == "without" {print $NF}' "$work/round/out/batch-summary.csv")" ] || fail "bytes for a line without a bundle"
  jq -e --argjson b "$bundle_bytes" '.rows[] | select(.id == "with-bundle") | .bundle_bytes == $b' \
    "$work/round/out/batch-summary.json" >/dev/null || fail "the JSON summary's bundle bytes"
  # Resumed as it is: both kept. The bundle changed and its line given the new digest: a changed
  # request, as a changed model is (its earlier outputs are not the new request's).
  batch
  [ "$rc" = 0 ] || fail "resume: exit $rc: $err"
  grep -q 'kept from an earlier run' "$work/round/out/batch-summary.csv" || fail "resume kept nothing"
  printf '{"a": 1.0, "b": 1.0, "c": 0.0}\n' > "$work/round/models/b1/weights.json"
  sed -i "s/$bundle_sha/$(bundle_digest "$work/round/models/b1")/" "$work/round/manifest.jsonl"
  batch
  [ "$(awk -F, '$1 == "with-bundle" {print $3}' "$work/round/out/batch-summary.csv")" = not_run ] ||
    fail "a changed bundle was taken for the same request: $(cat "$work/round/out/batch-summary.csv")"
  grep -q 'made for a different request (bundle_sha256 differs)' "$work/round/out/batch-summary.csv" ||
    fail "the conflict does not name the bundle: $(cat "$work/round/out/batch-summary.csv")"
  [ "$(awk -F, '$1 == "without" {print $3}' "$work/round/out/batch-summary.csv")" = success ] || fail "the other line"
  # Its files moved away, the line runs again with the new bundle.
  mkdir "$work/round/old"
  mv "$work/round/out/with-bundle".* "$work/round/old/"
  batch
  expect_verdicts "$work/round/out" "with-bundle,success without,success"
  jq -e --arg d "$(bundle_digest "$work/round/models/b1")" '.bundle_sha256 == $d' \
    "$work/round/out/with-bundle.csv.sandbox.json" >/dev/null || fail "the re-run did not record the new bundle"
  echo "PASS: a batch line's bundle: its bytes in the summary, a changed bundle a changed request" ;;
*) fail "unknown case" ;;
esac
