#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The real example round (examples/models/, issue 31) under gVisor at the spec's defaults (30 s,
# 512 MiB, one CPU): scikit-learn and PyTorch models trained at set-up time in a trusted runc
# container of the ML image (ci/host/setup-host --ml-image), scored with `plb-sandbox batch`.
#   models_round.sh TOOL SOURCE_DIR ROUND_DIR
# Every real submission is `success` with predictions bit-identical to the trusted run's; the two
# that fail as real ones do (a missing module, a shape mismatch) are script_failed; the round's
# report shows every line; no container or run directory is left.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
src=$2
round=$3
case_name=models_round
image=${PLB_SANDBOX_ML_IMAGE:-$(cat /var/lib/plb-sandbox/runtime-image-ml.id 2>/dev/null || true)}
[ -n "$image" ] || fail "no ML image: run ci/host/setup-host --ml-image (or set PLB_SANDBOX_ML_IMAGE)"
work=$(mktemp -d -p "$test_root" models.XXXXXX)
trap 'rm -rf "$work"' EXIT

bash "$src/examples/models/make-round" "$image" "$round"
out=$work/out
rc=0
"$tool" batch --manifest "$round/manifest.jsonl" --output-dir "$out" --runtime-image "$image" \
  --seconds 30 --memory-mb 512 > "$work/stdout" 2> "$work/stderr" || rc=$?
[ $rc = 0 ] || fail "batch exit $rc: $(tail -5 "$work/stderr")"
cut -d, -f1,3,4,6-8 "$out/batch-summary.csv"
want="forest,success gboost,success logreg,success regression,success torch-mlp,success torchscript,success"
want="$want missing-module,script_failed shape-mismatch,script_failed"
got=$(cut -d, -f1,3 "$out/batch-summary.csv" | tail -n +2 | tr '\n' ' ')
[ "$got" = "$want " ] || fail "verdicts: $got, expected $want"
python3 "$src/examples/models/compare.py" "$round" "$out" || fail "predictions differ from the trusted run"
# The trusted run failed where the sandbox did, and for the same reason.
grep -q "No module named 'lightgbm'" "$round/expected/missing-module.stderr" || fail "trusted missing-module: $(cat "$round/expected/missing-module.stderr")"
grep -q "X has 30 features" "$round/expected/shape-mismatch.stderr" || fail "trusted shape-mismatch: $(tail -1 "$round/expected/shape-mismatch.stderr")"
for id in forest gboost logreg regression torch-mlp torchscript missing-module shape-mismatch; do
  grep -q "$id" "$out/batch-report.html" || fail "the report does not show $id"
done
left=$(/usr/bin/docker ps -aq --filter name=plb-models- | wc -l)
[ "$left" = 0 ] || fail "$left trusted-run container(s) left"
expect_nothing_left
echo "PASS: the real round: every model succeeds, bit-identical to its trusted run; the failing ones are script_failed"
