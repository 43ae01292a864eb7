#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# doctor_refuses.sh TOOL CASE: rewrites the runsc entry in daemon.json into one the tool must
# refuse, reloads dockerd (SIGHUP reloads runtimes), checks that `doctor` fails with the reason and
# the fix, and puts the operator's file back byte for byte on every way out.
#   runc-in-disguise  a wrapper that reports a current runsc release but runs runc: only the
#                     gVisor proof (guest kernel == host kernel) can catch it
#   old-release       a wrapper that reports gVisor 20221219
#   ptrace-platform   the real runsc with --platform=ptrace
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
case_name=$2
conf=/etc/docker/daemon.json
# The operator's file as found: its bytes and its mode and owner, checked after the restore
# against these (not against the backup, which a broken copy would match just as well).
want_sum=$(sha256sum < "$conf")
want_stat=$(stat -c '%a %U %G' "$conf")
backup=$(mktemp)
cp -p "$conf" "$backup"
fake_dir=$(mktemp -d /tmp/plb-fake-runsc.XXXXXX)
chmod 755 "$fake_dir"

reload() {
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then systemctl reload docker
  else kill -HUP "$(cat /var/run/docker.pid)"; fi
}
runsc_entry() { docker info --format '{{json .Runtimes}}' | jq -c '.runsc'; }
wait_for_entry() {
  local want; want=$(jq -c . <<<"$1")
  for _ in $(seq 1 50); do [ "$(runsc_entry)" = "$want" ] && return 0; sleep 0.2; done
  echo "dockerd did not pick up runsc=$want" >&2; return 1
}
# Puts the operator's file back, reloads, and proves both: the bytes, mode and owner are the
# original's and dockerd runs the original runsc entry. The backup is kept if any of it fails.
restored=no
restore() {
  cp -p "$backup" "$conf" || return 1
  [ "$(sha256sum < "$conf")" = "$want_sum" ] || { echo "FAIL: $conf differs from the operator's (backup: $backup)"; return 1; }
  [ "$(stat -c '%a %U %G' "$conf")" = "$want_stat" ] || { echo "FAIL: $conf mode/owner changed (backup: $backup)"; return 1; }
  reload || return 1
  wait_for_entry "$(jq -c '.runtimes.runsc' "$conf")" || { echo "FAIL: dockerd did not reload the operator's runsc"; return 1; }
  rm -f "$backup"; rm -rf "$fake_dir"
  restored=yes
}
# Every way out restores; a restore that fails makes the exit status non-zero whatever it was.
on_exit() {
  local rc=$?
  set +e
  if [ "$restored" != yes ]; then restore || { echo "FAIL: the restore on exit failed"; [ "$rc" -ne 0 ] || rc=1; }; fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM

fake() {  # fake VERSION DELEGATE: answers --version with VERSION, runs DELEGATE for everything else
  cat > "$fake_dir/runsc" <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo "runsc version $1"; echo "spec: 1.0.2-dev"; exit 0; }
exec $2 "\$@"
SH
  chmod 755 "$fake_dir/runsc"
}

case "$case_name" in
  runc-in-disguise)
    fake 0.0~20240729.0 /usr/sbin/runc
    entry="{\"path\": \"$fake_dir/runsc\"}"
    want_line='runsc is gVisor  *FAIL  *the runtime named runsc runs containers on the host kernel'
    want_fix='fix: point the runsc entry in /etc/docker/daemon.json at the gVisor runsc binary';;
  old-release)
    fake 0.0~20221219.0 /usr/bin/runsc
    entry="{\"path\": \"$fake_dir/runsc\", \"runtimeArgs\": [\"--network=none\"]}"
    want_line='runsc release  *FAIL  *runsc 20221219 is older than the oldest gVisor plb-sandbox supports (20240729)'
    want_fix='fix: install runsc 20240729 or later (Debian 12: apt-get install -t bookworm-backports runsc'
    ;;
  ptrace-platform)
    entry='{"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none", "--platform=ptrace"]}'
    want_line="runsc release  *FAIL  *the runsc runtime uses gVisor's ptrace platform"
    want_fix='fix: set "runtimeArgs": \["--network=none", "--platform=systrap"\]';;
  *) echo "unknown case $case_name" >&2; exit 2;;
esac

jq ".runtimes.runsc = $entry" "$backup" > "$conf"
reload
wait_for_entry "$entry"

set +e
out=$("$tool" doctor --runtime-image "$image")
rc=$?
set -e
echo "$out"
[ "$rc" -eq 3 ] || { echo "FAIL: doctor exited $rc, expected 3 (host_refused)"; exit 1; }
grep -q "$want_line" <<<"$out" || { echo "FAIL: doctor did not name the reason"; exit 1; }
grep -q "$want_fix" <<<"$out" || { echo "FAIL: doctor did not give the fix"; exit 1; }
# The operator's daemon.json and runtime are back before the test may pass.
restore || { echo "FAIL: the operator's daemon.json was not restored"; exit 1; }
echo "PASS: doctor refuses $case_name"
