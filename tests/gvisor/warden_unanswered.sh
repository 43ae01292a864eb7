#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# warden_unanswered.sh TOOL: a removal whose answer is lost is still a removal the log records. In a
# label run during one of this VM's stalls the warden's DELETE of an overdue container timed out
# ("could not remove NAME (cannot talk to the Docker daemon ...)"), the daemon removed it anyway,
# and the container's end was never logged. Here the same on purpose: a running container of the
# tool's, due 3 s after its creation, has its processes frozen (its freezer cgroup), so the daemon's
# forced removal cannot finish and the warden's DELETE times out after its 10 s. Thawed, the daemon
# completes that removal. The warden's log must record the failure, then "removed NAME" once it
# sees the container gone. SERIAL (gvisor_tests.cmake): a pass that waits 10 s on one DELETE
# delays every other container's removal and makes the warden stale to every preflight.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
source "$(dirname "${BASH_SOURCE[0]}")/cgroup_kill.sh"
tool=$1
readonly log=/var/log/plb-sandbox-warden.log
api() { curl -sf --unix-socket /var/run/docker.sock "$@"; }
name= cg=
cleanup() {
  set +e  # every step runs, whatever the one before it did
  [ -n "$cg" ] && [ -d "$cg" ] && cgroup_thaw "$cg"
  [ -n "$name" ] && timeout 60 docker rm -f "$name" >/dev/null 2>&1
}
trap cleanup EXIT

status=$("$tool" warden --status) || fail "no warden answers: $status"
pid=$(sed -n 's/^plb-sandbox-warden pid=\([0-9]*\) .*/\1/p' <<<"$status")
[ "$(readlink -f "/proc/$pid/exe")" = "$(readlink -f "$tool")" ] || fail "the warden (pid $pid) is not $tool's: ci/host/start-warden $tool"
log_from=$(($(stat -c %s "$log") + 1))
logged() { tail -c +"$log_from" "$log"; }

name=plb-sandbox-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
create_labelled_sleeper "$name" 3
api -X POST "http://docker/v1.41/containers/$name/start" >/dev/null || fail "could not start $name"
id=$(timeout 30 docker inspect -f '{{.Id}}' "$name") || fail "cannot inspect $name"
cg=$CGROUP_ROOT/freezer/docker/$id
[ -d "$cg" ] || cg=$CGROUP_ROOT/system.slice/docker-$id.scope  # cgroup v2, systemd driver
[ -d "$cg" ] || cg=$CGROUP_ROOT/docker/$id                      # cgroup v2, cgroupfs driver
[ -d "$cg" ] || fail "no cgroup of $name's processes found (docker/$id)"
cgroup_freeze "$cg"
echo "$name started, due 3 s after its creation; its processes frozen ($cg)"

# Whether the daemon still has it, from its list: an inspection waits on the container's lock,
# which the removal in flight holds.
listed() {
  api -m 10 "http://docker/v1.41/containers/json?all=1&filters=%7B%22name%22%3A%5B%22%5E%2F$name%24%22%5D%7D" | jq -e 'length == 1' >/dev/null
}
failed_removal() { logged | grep -q "plb-sandbox warden: could not remove $name ("; }
# Due at 3 s, the DELETE then waits 10 s; allowed 20 s more on a loaded host.
wait_until 33 failed_removal || fail "the warden logged no failed removal of $name: $(logged | tail -n 5)"
listed || fail "$name was removed while its processes were frozen"
logged | grep -m1 "could not remove $name"
cgroup_thaw "$cg"

gone() { ! listed; }
wait_until 30 gone || fail "$name remains 30 s after its processes were thawed"
recorded() { logged | grep -q "plb-sandbox warden: removed $name: "; }
wait_until 10 recorded || fail "$name is gone, but the warden's log does not record its end: $(logged | tail -n 5)"
logged | grep -m1 "removed $name: "
name=
echo "PASS: a removal whose answer was lost is logged once the container is gone"
