#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The real round with weights (examples/bundles/, issue 42 item 7) under gVisor: submissions that
# bring their weights in a digest-pinned bundle (a torchvision ResNet-18, an xgboost model with its
# config.json, a joblib'd forest of 50 MB, a 1 GiB wide MLP), trained at set-up time in a trusted
# runc container of the ML image (ci/host/setup-host --ml-image), scored with `plb-sandbox batch`.
#   bundle_round.sh TOOL SOURCE_DIR ROUND_DIR
# Every real submission is `success` with predictions bit-identical to the trusted run's. The ones
# that fail as real ones do: weights of another architecture (script_failed, as in the trusted
# run), a bundle holding a symlink and one with a byte changed (input_refused, before any
# container), the 1 GiB bundle under a memory limit too small for it (memory_exhausted, as the
# trusted run under runc with the same quota is killed). Nothing is left behind.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
src=$2
round=$3
case_name=bundle_round
image=${PLB_SANDBOX_ML_IMAGE:-$(cat /var/lib/plb-sandbox/runtime-image-ml.id 2>/dev/null || true)}
[ -n "$image" ] || fail "no ML image: run ci/host/setup-host --ml-image (or set PLB_SANDBOX_ML_IMAGE)"
work=$(mktemp -d -p "$test_root" bundles.XXXXXX)
trap 'rm -rf "$work"' EXIT

started=$SECONDS
bash "$src/examples/bundles/make-round" "$tool" "$image" "$round"
echo "bundle_round: round ready in $((SECONDS - started)) s"
out=$work/out
since=$(date +%s.%6N)
started=$SECONDS
rc=0
"$tool" batch --manifest "$round/manifest.jsonl" --output-dir "$out" --runtime-image "$image" \
  > "$work/stdout" 2> "$work/stderr" &
pid=$!
wait $pid || rc=$?
echo "bundle_round: scored in $((SECONDS - started)) s"
[ $rc = 0 ] || fail "batch exit $rc: $(tail -5 "$work/stderr")"
jq -r '.rows[] | [.id, .verdict, .wall_seconds, .memory_peak_bytes, .message] | @tsv' "$out/batch-summary.json"
got=$(jq -r '.rows[] | "\(.id),\(.verdict)"' "$out/batch-summary.json" | tr '\n' ' ')
want="resnet18,success xgboost,success forest,success wide-mlp,success wrong-arch,script_failed"
want="$want symlinked,input_refused changed-byte,input_refused wide-mlp-short,memory_exhausted"
[ "$got" = "$want " ] || fail "verdicts: $got, expected $want"
python3 "$src/examples/models/compare.py" "$round" "$out" || fail "predictions differ from the trusted run"

message() { jq -r --arg id "$1" '.rows[] | select(.id == $id) | .message' "$out/batch-summary.json"; }
# The refused bundles: refused for what they hold, each naming its file, and before any container:
# the daemon created one container a line that ran (six of the eight) and the batch's gVisor probe
# when the host's proof was not cached, none for them.
message symlinked | grep -qi "symlink\|symbolic link" || fail "symlinked: $(message symlinked)"
message symlinked | grep -q "model.ubj" || fail "symlinked names no file: $(message symlinked)"
message changed-byte | grep -qi "digest\|sha-\?256" || fail "changed-byte: $(message changed-byte)"
created=$(created_since "$since" "$pid" | wc -l)
[ "$created" = 6 ] || [ "$created" = 7 ] ||
  fail "$created containers created for the round's 8 lines, expected 6 runs and at most the probe (none for a refused bundle)"
# The trusted run failed where the sandbox did, and for the same reason.
grep -q "Error(s) in loading state_dict for ResNet" "$round/expected/wrong-arch.stderr" ||
  fail "trusted wrong-arch: $(tail -1 "$round/expected/wrong-arch.stderr")"
[ "$(cat "$round/expected/wide-mlp-short.rc")" = 137 ] ||
  fail "trusted wide-mlp-short: exit $(cat "$round/expected/wide-mlp-short.rc"), expected 137 (killed at its memory)"
for id in resnet18 xgboost forest wide-mlp wrong-arch symlinked changed-byte wide-mlp-short; do
  grep -q "$id" "$out/batch-report.html" || fail "the report does not show $id"
done
left=$(/usr/bin/docker ps -aq --filter name=plb-bundles- | wc -l)
[ "$left" = 0 ] || fail "$left trusted-run container(s) left"
expect_nothing_left
echo "PASS: the round with weights: every model succeeds, bit-identical to its trusted run; the failing ones fail as they should"
