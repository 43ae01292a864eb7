#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# late_client.sh TOOL: a late docker client is not a late script (run_clock.hpp). On a loaded host
# the client reports the container's exit after the daemon has seen it, sometimes after the wall
# time's end. Here the run's docker client is stopped (SIGSTOP) once the container runs, so the
# script (a 2 s sleep under a 4 s limit) exits while nothing reports it, and is resumed 1.5 s past
# the wall time's end by the daemon's StartedAt: the watchdog's deadline comes first, and the 5 s
# the tool then grants a late client have 3.5 s left. The tool must ask the daemon, find the
# container exited in time, kill nothing, and record success with the script's own 2 s. The build
# before this judged it `timeout`. It runs alone (RUN_SERIAL, gvisor_tests.cmake): it times the run.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
dir=$(mktemp -d)
client=
# Whatever happens, the client is never left stopped, and the run is waited for.
trap '[ -z "$client" ] || kill -CONT "$client" 2>/dev/null || true; [ -z "${run:-}" ] || wait "$run" 2>/dev/null || true; rm -rf "$dir"' EXIT
printf 'import json, sys, time\nrows = json.load(sys.stdin)["features"]\ntime.sleep(2)\nprint(json.dumps({"predictions": [r[0] for r in rows]}))\n' > "$dir/model.py"
printf 'a\n1\n2\n' > "$dir/data.csv"
args=(--model "$dir/model.py" --model-sha256 "$(sha256sum "$dir/model.py" | cut -d' ' -f1)" --runtime-image "$image"
  --data "$dir/data.csv" --feature a --task-type regression --seconds 4)
# One run first, so that the gVisor proof is cached and the only labelled container is the scoring run's.
"$tool" sandbox-score "${args[@]}" --output "$dir/warm.csv" > /dev/null
"$tool" sandbox-score "${args[@]}" --output "$dir/out.csv" --json > "$dir/summary.json" 2> "$dir/err" &
run=$!
api() { curl -sf --unix-socket /var/run/docker.sock "http://docker/v1.41$1"; }
labelled() { sandboxes_of "$run" --filter "status=$1" | wc -l; }  # STATUS: how many of the run's are in it
one_running() { [ "$(labelled running)" = 1 ]; }
wait_until 120 one_running || fail "the run's container was never seen running"
client=$(ps -o pid=,comm= --ppid "$run" | awk '$2 == "docker" {print $1}')
[ -n "$client" ] || fail "no docker client under the tool (pid $run)"
kill -STOP "$client" || fail "the client had exited before it could be stopped"
stopped_at=$SECONDS
# The script ends on its own while its client cannot say so...
while [ $((SECONDS - stopped_at)) -lt 10 ] && [ "$(labelled exited)" != 1 ]; do sleep 0.1; done
[ "$(labelled exited)" = 1 ] || fail "the container did not exit within 10 s of its client's stop"
# ...and the client stays stopped until 1.5 s past the wall time's end, by the daemon's start.
id=$(sandboxes_of "$run" | head -n1)
started=$(date -d "$(api "/containers/$id/json" | jq -r .State.StartedAt)" +%s.%N)
resume_at=$(echo "$started + 4 + 1.5" | bc)
while [ "$(echo "$(date +%s.%N) < $resume_at" | bc)" = 1 ]; do sleep 0.05; done
kill -CONT "$client"
client=
rc=0; wait $run || rc=$?
run=
[ $rc = 0 ] || fail "exit $rc for a script that ended in time: $(cat "$dir/err")"
[ "$(cat "$dir/out.csv")" = "$(printf 'row,prediction\n0,1\n1,2')" ] || fail "predictions: $(cat "$dir/out.csv")"
script=$(jq -r .usage.wall_seconds "$dir/summary.json")
jq -e '.usage.wall_seconds >= 2 and .usage.wall_seconds < 4' "$dir/summary.json" >/dev/null \
  || fail "the recorded script time is $script s, not the 2 s sleep's"
echo "PASS: a client stopped past the wall time did not make a 2 s script a timeout (script $script s)"
