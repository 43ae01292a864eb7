#!/usr/bin/env bash
# A daemon whose runsc entry points at runc must fail `doctor` with the reason "not gVisor".
# Rewrites the runsc entry in daemon.json, reloads dockerd (SIGHUP reloads runtimes), and puts
# the operator's file back on every way out.
set -euo pipefail
tool=$1
image=${PLB_SANDBOX_RUNTIME_IMAGE:-$(cat /var/lib/plb-sandbox/runtime-image.id)}
conf=/etc/docker/daemon.json
backup=$(mktemp)
cp -p "$conf" "$backup"

reload() {
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then systemctl reload docker
  else kill -HUP "$(cat /var/run/docker.pid)"; fi
}
runsc_path() { docker info --format '{{json .Runtimes}}' | jq -r '.runsc.path'; }
wait_for_path() {
  for _ in $(seq 1 50); do [ "$(runsc_path)" = "$1" ] && return 0; sleep 0.2; done
  echo "dockerd did not pick up runsc.path=$1" >&2; return 1
}
restore() {
  cp -p "$backup" "$conf"; rm -f "$backup"
  reload
  wait_for_path /usr/bin/runsc
}
trap restore EXIT

jq '.runtimes.runsc = {"path": "/usr/sbin/runc"}' "$backup" > "$conf"
reload
wait_for_path /usr/sbin/runc

set +e
out=$("$tool" doctor --runtime-image "$image")
rc=$?
set -e
echo "$out"
[ "$rc" -eq 3 ] || { echo "FAIL: doctor exited $rc, expected 3 (host_refused)"; exit 1; }
grep -q 'runsc is gVisor  *FAIL  *the runtime named runsc runs containers on the host kernel' <<<"$out" \
  || { echo "FAIL: doctor did not name the reason"; exit 1; }
echo "PASS: doctor refuses a runsc entry that points at runc"
