#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fair_clock.sh TOOL EXAMPLES_DIR: the wall limit is the script's own time (run_clock.hpp). Six
# lines whose script sleeps 3 s, 60 % of a 5 s limit, run as a batch at --jobs 2 while the machine
# is loaded: both CPUs busy with burners outside the CPU allocator, and the daemon creating and
# removing other containers all along. Every line must succeed: the daemon's slowness and gVisor's
# boot are the host's start-up, never charged to the script. Each line's record must show its
# start-up apart from the script's own time, and that time must hold the whole sleep.
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh" "$1" loaded "$2"
readonly lines=6 sleep_s=3 limit_s=5
burners=() churn_pid=
stop_load() {
  for p in "${burners[@]}" $churn_pid; do kill "$p" 2>/dev/null || true; done
  for p in "${burners[@]}" $churn_pid; do wait "$p" 2>/dev/null || true; done
  /usr/bin/docker ps -aq --filter name=plb-fair-clock-churn- | xargs -r /usr/bin/docker rm -f >/dev/null 2>&1 || true
}
trap 'stop_load; rm -rf "$work"' EXIT

mkdir -p "$work/round"
printf 'import json, sys, time\nrows = json.load(sys.stdin)["features"]\ntime.sleep(%s)\nprint(json.dumps({"predictions": [r[0] for r in rows]}))\n' \
  "$sleep_s" > "$work/round/sleeper.py"
h=$(sha256sum "$work/round/sleeper.py" | cut -d' ' -f1)
for i in $(seq 1 $lines); do
  printf '{"id": "sleep-%s", "model": "sleeper.py", "model_sha256": "%s", "seconds": %s}\n' "$i" "$h" "$limit_s"
done > "$work/round/manifest.jsonl"

# The load: a burner per CPU (plain host processes, outside the allocator), and a loop that keeps
# the daemon creating and removing containers (runc, not the tool's: no run label) meanwhile.
for _ in $(seq 1 "$(nproc)"); do timeout 600 sh -c 'while :; do :; done' & burners+=($!); done
timeout 600 bash -c 'i=0; while :; do i=$((i + 1)); /usr/bin/docker create --name "plb-fair-clock-churn-$$-$i" "$1" /bin/true >/dev/null 2>&1;
  /usr/bin/docker rm -f "plb-fair-clock-churn-$$-$i" >/dev/null 2>&1; done' _ "$image" &
churn_pid=$!

rc=0
"$tool" batch --manifest "$work/round/manifest.jsonl" --output-dir "$work/out" "${defaults[@]}" --jobs 2 \
  > "$work/stdout" 2> "$work/stderr" || rc=$?
stop_load
summary=$work/out/batch-summary.json
[ -s "$summary" ] || fail "no summary (exit $rc): $(cat "$work/stderr")"
jq -r '.rows[] | "\(.id) \(.verdict) start-up \(.startup_seconds) s, script \(.wall_seconds) s of \(.wall_limit_seconds) s"' "$summary"
[ $rc = 0 ] || fail "the batch exited $rc under load: $(jq -r '.rows[] | select(.verdict != "success") | "\(.id): \(.message)"' "$summary")"
[ "$(jq '[.rows[] | select(.verdict == "success")] | length' "$summary")" = $lines ] || fail "not every line succeeded under load"
# The record: the script's own time holds its whole sleep and stays under the limit; the start-up is apart.
jq -e --argjson s "$sleep_s" --argjson l "$limit_s" \
  'all(.rows[]; .wall_seconds >= $s and .wall_seconds < $l and .startup_seconds > 0)' "$summary" >/dev/null \
  || fail "a line's recorded times do not separate the start-up from the script's own run"
no_containers_left
echo "PASS: $lines/$lines lines sleeping ${sleep_s} s under a ${limit_s} s limit succeeded on a loaded machine"
