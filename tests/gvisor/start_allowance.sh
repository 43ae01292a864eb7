#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# start_allowance.sh TOOL EXAMPLES_DIR: a container that does not start within its start allowance
# (limits.start_seconds, 30 s by default) is the host's fault: runtime_failed (exit 11, which
# --retry-failed retries), never a timeout charged to the script, and nothing is left or published.
# The slow start is made exactly: the tool stops itself as its engine gate opens (the test-only hold
# point gate-opened, in the gate's relay thread before it relays anything), so the docker client's
# create waits at the gate for as long as the tool is stopped; it is resumed past the allowance.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
examples=$2
here=$(dirname "${BASH_SOURCE[0]}")
readonly allowance=30
source "$here/test_holds.sh"
work=$(mktemp -d)
tool_pid=
trap '[ -n "$tool_pid" ] && kill -CONT "$tool_pid" 2>/dev/null; rm -rf "$work"' EXIT
model=$examples/model.py
args=(--model "$model" --model-sha256 "$(sha256sum "$model" | cut -d' ' -f1)" --runtime-image "$image"
  --data "$examples/input.csv" --feature feature_a --feature feature_b --task-type regression --seconds 5)
# A warm proof cache first: the preflight's probe has an engine gate of its own, and must not be the one held.
"$tool" sandbox-score "${args[@]}" --output "$work/warm.csv" >/dev/null 2>"$work/warm.err" \
  || fail "the warming run failed: $(cat "$work/warm.err")"
PLB_SANDBOX_TEST_STOP_AT=gate-opened "$tool" sandbox-score "${args[@]}" --output "$work/out.csv" \
  >"$work/stdout" 2>"$work/stderr" &
tool_pid=$!
wait_held "$tool_pid" 420  # beside other tests its run may first wait minutes for a CPU
held_at=$SECONDS
# Held past the allowance, by the clock, with a second to spare.
while [ $((SECONDS - held_at)) -le $allowance ]; do sleep 0.5; done
kill -CONT "$tool_pid"
rc=0; wait "$tool_pid" || rc=$?
tool_pid=
[ $rc = 11 ] || fail "exit $rc after a start past its allowance, expected 11 (runtime_failed): $(cat "$work/stderr")"
grep -q "did not start within its $allowance s start allowance" "$work/stderr" || fail "stderr: $(cat "$work/stderr")"
grep -q timeout "$work/stderr" && fail "a slow start was reported as a timeout: $(cat "$work/stderr")"
[ ! -e "$work/out.csv" ] && [ ! -e "$work/out.csv.sandbox.json" ] || fail "a run that never started published outputs"
expect_nothing_left
echo "PASS: a start past its ${allowance} s allowance is runtime_failed, and nothing is left"
