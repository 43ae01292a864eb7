#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The host-wide CPU allocator with real sandboxes: one more sandbox-score process than this host
# has CPUs, at once, each a 1-CPU run of ~3 s. Never more sandboxes run than CPUs, those running
# at the same time have disjoint --cpuset-cpus, the extra run waits for a CPU and still succeeds,
# and every provenance names the CPUs.
#   cpu_pinning.sh TOOL CASE EXAMPLES_DIR
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh"
cpus=$(nproc)
runs=$((cpus + 1))
printf 'import json, sys, time\nrows = json.load(sys.stdin)["features"]\ntime.sleep(3)\nprint(json.dumps({"predictions": [r[0] for r in rows]}))\n' > "$work/slow.py"
h=$(sha256sum "$work/slow.py" | cut -d' ' -f1)
pids=()
for i in $(seq "$runs"); do
  "$tool" sandbox-score --model "$work/slow.py" --model-sha256 "$h" "${defaults[@]}" --seconds 20 \
    --output "$work/out$i.csv" > "$work/log$i" 2>&1 &
  pids+=($!)
done
max=0
clients=0
for _ in $(seq 150); do
  sets=$(/usr/bin/docker ps -q --filter name=plb-sandbox- | xargs -r /usr/bin/docker inspect --format '{{.HostConfig.CpusetCpus}}' 2>/dev/null || true)
  n=$(printf '%s' "$sets" | grep -c . || true)
  [ "$n" -gt "$max" ] && max=$n
  [ "$n" -le "$cpus" ] || fail "$n sandboxes at once on $cpus CPUs: $sets"
  if [ "$n" -ge 1 ]; then
    printf '%s\n' "$sets" | grep -qx '' && fail "a sandbox without --cpuset-cpus"
    # Each CPU at most once among the sandboxes running now.
    dup=$(printf '%s\n' "$sets" | tr ',' '\n' | awk -F- '{lo = $1; hi = ($2 == "" ? $1 : $2); for (c = lo; c <= hi; c++) print c}' | sort | uniq -d)
    [ -z "$dup" ] || fail "CPU $dup pinned to two sandboxes at once: $(echo $sets)"
  fi
  # Each run's docker client runs on its run's CPUs, not on those of the others.
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/exe" 2>/dev/null)" = /usr/bin/docker ] || continue
    args=$(tr '\0' '\n' < "$p/cmdline" 2>/dev/null) || continue
    grep -q '^--name=plb-sandbox-' <<<"$args" || continue
    want=$(sed -n 's/^--cpuset-cpus=//p' <<<"$args")
    got=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$p/status" 2>/dev/null) || continue
    [ -z "$got" ] || [ "$got" = "$want" ] || fail "the docker client ${p#/proc/} runs on CPUs $got, its run on $want"
    clients=$((clients + 1))
  done
  all_done=1
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && all_done=0; done
  [ $all_done = 1 ] && break
  sleep 0.1
done
for i in $(seq "$runs"); do
  rc=0; wait "${pids[$((i - 1))]}" || rc=$?
  [ $rc = 0 ] || fail "run $i: exit $rc: $(cat "$work/log$i")"
  jq -e '.cpuset | type == "string" and test("^[0-9]+([-,][0-9]+)*$")' "$work/out$i.csv.sandbox.json" > /dev/null \
    || fail "run $i: provenance cpuset $(jq -c .cpuset "$work/out$i.csv.sandbox.json")"
done
[ "$max" -ge 1 ] || fail "no sandbox was seen running"
[ "$clients" -ge 1 ] || fail "no docker client of a run was seen"
no_containers_left
echo "PASS: $runs runs on $cpus CPUs: at most $max at once, on disjoint CPUs (their docker clients on the same), each named in its provenance"
