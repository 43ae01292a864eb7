#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gvisor.kill_on_time_under_load: a run that times out while a sandbox of 60 busy processes spins
# every CPU (each pinned to its CPU, in the runs' own parent cgroup at the set-up's weight, which
# outweighs a host process tenfold) is still killed on time: its script's own time, as the daemon
# records it, ends at most 1 s past its 2 s wall limit in each of 3 runs, and the median at most
# 300 ms past it. The processes that enforce the bound keep their timing through their own cgroup's
# weight (the daemons', raised by ci/host/setup-host; the tool's watchdog threads', joined by the
# tool): measured 106-144 ms past the wall with them, 419-516 ms without (the issue saw up to
# 2,036 ms), so the median fails without them. Loads the host on purpose: RUN_SERIAL.
#   kill_on_time.sh TOOL [--bench RUNS]: with --bench, RUNS runs quiet and RUNS loaded, printing
#   each figure, asserting nothing (ci/bench/bench-kill-latency).
source "$(dirname "$0")/prelude.sh"
tool=$1
bench_runs=
[ "${2:-}" != --bench ] || bench_runs=${3:-8}
runs=3
bound_ms=1000
median_bound_ms=300
wall=2
work=$(mktemp -d -p "$test_root" kill-on-time.XXXXXX 2>/dev/null || mktemp -d)
chmod 755 "$work"
spinners=()
cleanup() {
  for s in "${spinners[@]}"; do /usr/bin/docker rm -f "$s" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

printf 'while True:\n    pass\n' > "$work/model.py"
printf 'a\n1\n' > "$work/data.csv"
# 60 processes spinning; each ends on its own after 300 s should this script be killed outright.
cat > "$work/spin.py" <<'PY'
import os, time
end = time.monotonic() + 300
for _ in range(59):
    if os.fork() == 0:
        break
while time.monotonic() < end:
    pass
PY
chmod 644 "$work"/*.py "$work/data.csv"
digest=$(sha256sum "$work/model.py" | cut -c1-64)

# One timed-out run: prints how many ms past the wall the daemon recorded the script's end.
late_ms() {
  local out verdict seconds
  out=$("$tool" sandbox-score --model "$work/model.py" --model-sha256 "$digest" --runtime-image "$image" \
    --data "$work/data.csv" --feature a --task-type regression --seconds "$wall" --output "$work/out.csv" --json \
    2>/dev/null || true)
  verdict=$(jq -r .verdict <<<"$out")
  [ "$verdict" = timeout ] || fail "verdict $verdict, expected timeout: $out" >&2  # out of $(...)
  seconds=$(jq -r .usage.wall_seconds <<<"$out")
  awk -v s="$seconds" -v w="$wall" 'BEGIN { printf "%d\n", (s - w) * 1000 + 0.5 }'
}

spin_every_cpu() {
  local cpu name
  for cpu in $(seq 0 $(($(nproc) - 1))); do
    name=plb-test-spinner-$$-$cpu
    /usr/bin/docker run -d --name "$name" --runtime=runsc --pull=never --network=none --read-only \
      --user=65534:65534 --cap-drop=ALL --memory=256m --cpus=1 --cpuset-cpus="$cpu" --pids-limit=1024 \
      --ulimit=nproc=64:64 --mount "type=bind,source=$work/spin.py,target=/spin.py,readonly" \
      --entrypoint=/usr/bin/env "$image" -i /usr/local/bin/python -I -B /spin.py >/dev/null
    spinners+=("$name")
  done
  sleep 3  # every process spinning
}

# Prints the figures of N runs on one line, then their median and worst.
measure() {
  local label=$1 n=$2 figures=()
  for _ in $(seq 1 "$n"); do figures+=("$(late_ms)"); done
  printf '%-8s ms past the wall: %s; median %s, worst %s\n' "$label" "${figures[*]}" \
    "$(printf '%s\n' "${figures[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
    "$(printf '%s\n' "${figures[@]}" | sort -n | tail -n1)"
  worst=$(printf '%s\n' "${figures[@]}" | sort -n | tail -n1)
  median=$(printf '%s\n' "${figures[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
}

echo "runs' weight $(cat /sys/fs/cgroup/cpu/docker/cpu.shares 2>/dev/null || echo '?'), daemons' weight" \
  "$(cat /sys/fs/cgroup/cpu/plb-sandbox-daemons/cpu.shares 2>/dev/null || echo '?'), $(nproc) CPUs"
if [ -n "$bench_runs" ]; then
  measure quiet "$bench_runs"
  spin_every_cpu
  measure loaded "$bench_runs"
  exit 0
fi
spin_every_cpu
measure loaded "$runs"
[ "$worst" -le "$bound_ms" ] || fail "the kill landed $worst ms past the wall under load (bound: $bound_ms ms)"
[ "$median" -le "$median_bound_ms" ] ||
  fail "the kill landed a median $median ms past the wall under load (bound: $median_bound_ms ms)"
expect_nothing_left
echo "PASS: killed a median $median ms, at most $worst ms past the wall with every CPU spun"
