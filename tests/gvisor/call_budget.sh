#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# call_budget.sh TOOL CASE EXAMPLES_DIR: what one successful run costs outside the sandbox, counted
# rather than timed (timings are noise on these machines): every process the tool execs and every
# Docker Engine request made by the tool and by its docker client, from an strace of a real gVisor
# run, against the budget the tool itself prints (`explain --json` .call_budget, from
# src/runner/engine/call_budget.hpp). count_calls.py does the counting and fails on any call over
# budget or outside it.
#   score: one sandbox-score of the bundled example, after a first run has warmed the caches (the
#          gVisor proof and the runsc identity: a warm run execs nothing but the docker client).
#   batch: a batch of three lines at --jobs 1: the preflight's rows once, every other row per line.
# Before PASS, the counter itself must fail on the same trace with one planted extra tool request
# and one planted extra exec: a counter that cannot fail proves nothing.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
case_name=$2
examples=$(cd "$3" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v strace >/dev/null || fail "strace is not installed (ci/host/setup-host installs it)"
work=$(mktemp -d -p "$test_root" budget.XXXXXX)
trap 'rm -rf "$work"' EXIT
model=$examples/model.py
sha=$(sha256sum "$model" | cut -d' ' -f1)
flags=(--runtime-image "$image" --data "$examples/input.csv" --feature feature_a --feature feature_b
  --id-column sample_id --task-type regression)
runtime=$(/usr/bin/docker info --format '{{json .Runtimes}}' | jq -r '.runsc.path')

"$tool" explain --json --model "$model" --model-sha256 "$sha" "${flags[@]}" --output "$work/explain.csv" \
  | jq -e .call_budget >"$work/budget.json" || fail "explain --json prints no call_budget"
traced() {  # TRACE COMMAND...: runs COMMAND under strace, writing TRACE
  local out=$1; shift
  strace -f -Y -yy -tt -q -s 300 -e trace=execve,connect,write,sendto,sendmsg,prctl,wait4 -e signal=none -o "$out" "$@"
}

case $case_name in
  score)
    "$tool" sandbox-score --model "$model" --model-sha256 "$sha" "${flags[@]}" --output "$work/warm.csv" >/dev/null \
      || fail "the warming run failed"
    traced "$work/trace" "$tool" sandbox-score --model "$model" --model-sha256 "$sha" "${flags[@]}" \
      --output "$work/out.csv" >/dev/null || fail "the traced run failed"
    [ -s "$work/out.csv" ] || fail "the traced run wrote no predictions"
    startup=$(jq -er '.usage.startup_seconds' "$work/out.csv.sandbox.json") || fail "no startup_seconds recorded"
    mode=(--lines=1 "--startup=$startup")
    ;;
  batch)
    for id in a b c; do
      printf '{"id": "line-%s", "model": "%s", "model_sha256": "%s"}\n' "$id" "$model" "$sha"
    done >"$work/manifest.jsonl"
    "$tool" sandbox-score --model "$model" --model-sha256 "$sha" "${flags[@]}" --output "$work/warm.csv" >/dev/null \
      || fail "the warming run failed"
    traced "$work/trace" "$tool" batch --manifest "$work/manifest.jsonl" --output-dir "$work/out" "${flags[@]}" \
      --jobs 1 >/dev/null || fail "the traced batch failed"
    [ "$(grep -c ',success,' "$work/out/batch-summary.csv")" = 3 ] \
      || { cat "$work/out/batch-summary.csv"; fail "not every line succeeded"; }
    startup=$(jq -er '[.rows | sort_by(.line)[] | .startup_seconds | tostring] | join(",")' "$work/out/batch-summary.json") \
      || fail "no startup_seconds in the summary"
    mode=(--lines=3 "--startup=$startup")
    ;;
  *) fail "unknown case" ;;
esac

python3 "$here/count_calls.py" "$work/trace" "$work/budget.json" "$runtime" "${mode[@]}" \
  || fail "over the call budget (src/runner/engine/call_budget.hpp)"

# The counter must see a planted extra call: the tool's first request sent twice, and the docker
# client exec'd twice. Each copy is the original line, so nothing else about the trace changes; a
# call strace printed in two halves (another thread's call came between) is copied whole, as the
# call with its result.
twice() {  # PATTERN OUT: the trace with the first line matching PATTERN repeated
  local n
  n=$(grep -n -m1 -E "$1" "$work/trace" | cut -d: -f1) || true
  [ -n "$n" ] || fail "no line to plant: $1"
  sed "${n}{h;s/ <unfinished \.\.\.>\$/) = 0/;p;g}" "$work/trace" >"$2"
}
twice '^[0-9]+<plb-sandbox[^>]*> .*(sendto|write)\([0-9]+<UNIX-STREAM:[^,]*, "GET /' "$work/extra-request"
twice 'execve\("/usr/bin/docker", .*( = 0| <unfinished \.\.\.>)$' "$work/extra-exec"
for planted in extra-request extra-exec; do
  cmp -s "$work/trace" "$work/$planted" && fail "could not plant $planted"
  if python3 "$here/count_calls.py" "$work/$planted" "$work/budget.json" "$runtime" "${mode[@]}" >"$work/$planted.out"; then
    cat "$work/$planted.out"
    fail "the counter accepted a trace with an $planted"
  fi
done
echo "PASS: within the call budget ($case_name)"
