#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A loaded daemon is not a lost one: dockerd is frozen (SIGSTOP) for 5 s while a script runs (its
# container seen running through the API first, so the freeze never falls on the preflight), so
# every ping of the watchdog times out, and the daemon answers again before the deadline after
# which it counts as lost. The script's own end decides: success, not a retryable runtime_failed
# (which would give the submission a second run). The freeze stops the host's whole dockerd: it
# runs alone (RUN_SERIAL, gvisor_tests.cmake).
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
dir=$(mktemp -d)
dockerd=$(cat /var/run/docker.pid)
# Whatever happens, dockerd is never left stopped.
trap 'kill -CONT "$dockerd" 2>/dev/null || true; rm -rf "$dir"' EXIT
printf 'import json, sys, time\nrows = json.load(sys.stdin)["features"]\ntime.sleep(8)\nprint(json.dumps({"predictions": [r[0] for r in rows]}))\n' > "$dir/model.py"
printf 'a\n1\n2\n' > "$dir/data.csv"
args=(--model "$dir/model.py" --model-sha256 "$(sha256sum "$dir/model.py" | cut -d' ' -f1)" --runtime-image "$image"
  --data "$dir/data.csv" --feature a --task-type regression)
# One run first, so that the gVisor proof is cached and the freeze falls on the scoring run.
"$tool" sandbox-score "${args[@]}" --output "$dir/warm.csv" > /dev/null
"$tool" sandbox-score "${args[@]}" --output "$dir/out.csv" > /dev/null 2> "$dir/err" &
run=$!
# The scoring run's container running (the proof is cached: the only labelled container is the run's).
running() {
  curl -sf --unix-socket /var/run/docker.sock \
    'http://docker/v1.41/containers/json?filters=%7B%22label%22%3A%5B%22plb-sandbox.run%22%5D%2C%22status%22%3A%5B%22running%22%5D%7D' |
    jq -e 'length == 1' >/dev/null
}
wait_until 120 running || fail "the run's container was never seen running"
kill -STOP "$dockerd"
sleep 5
kill -CONT "$dockerd"
rc=0; wait $run || rc=$?
[ $rc = 0 ] || { echo "FAIL: exit $rc after a 5 s daemon freeze: $(cat "$dir/err")"; exit 1; }
[ "$(cat "$dir/out.csv")" = "$(printf 'row,prediction\n0,1\n1,2')" ] || { echo "FAIL: predictions: $(cat "$dir/out.csv")"; exit 1; }
echo "PASS: a daemon frozen for 5 s mid-run is not a second run"
