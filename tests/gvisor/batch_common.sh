# SPDX-License-Identifier: Apache-2.0
# Sourced by the batch tests (after prelude.sh): the tool, a scratch directory on storage a Slurm task
# could share (never /tmp: the Slurm engine refuses local-only directories), and checks.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
case_name=$2
examples=$3
work=$(mktemp -d -p "$test_root" batch.XXXXXX)
trap 'rm -rf "$work"' EXIT
manifest=$examples/batch/manifest.jsonl
defaults=(--runtime-image "$image" --data "$examples/input.csv" --feature feature_a --feature feature_b
  --id-column sample_id --task-type regression)

# "id,verdict" per line.
verdicts() { cut -d, -f1,3 "$1/batch-summary.csv" | tail -n +2 | tr '\n' ' '; }
# summary_column NAME: an awk program's start that finds the summary's column NAME by its header
# and sets `back` to its place counted from the row's end (a message before it may hold a quoted
# comma; a column added after it must not make a test read something else).
summary_column() { echo 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "'"$1"'") back = NF - i; if (back == "") exit 1; next}'; }
# "id,verdict,predictions_sha256" per line: what must agree between runs and engines.
digests() { awk -F, "$(summary_column predictions_sha256)"' {print $1 "," $3 "," $(NF - back)}' "$1/batch-summary.csv"; }
expect_verdicts() {  # DIR "id,verdict id,verdict ..."
  [ "$(verdicts "$1")" = "$2 " ] ||
    fail "verdicts: $(verdicts "$1"), expected $2; the summary says:
$(cat "$1/batch-summary.csv" 2>&1)"
}
no_containers_left() { expect_nothing_left; }  # prelude.sh: scoped to tools that have exited
readonly example_verdicts="team-sum,success team-mean,success team-crash,script_failed team-wrong-rows,output_rejected"
# Four scripts that each sleep SECONDS, in WORK/slow/manifest.jsonl.
slow_manifest() {
  mkdir -p "$work/slow"
  printf 'import json, sys, time\nrows = json.load(sys.stdin)["features"]\ntime.sleep(%s)\nprint(json.dumps({"predictions": [r[0] for r in rows]}))\n' "$1" > "$work/slow/slow.py"
  local h
  h=$(sha256sum "$work/slow/slow.py" | cut -d' ' -f1)
  : > "$work/slow/manifest.jsonl"
  for i in 1 2 3 4; do printf '{"id": "slow-%s", "model": "slow.py", "model_sha256": "%s"}\n' "$i" "$h" >> "$work/slow/manifest.jsonl"; done
}
