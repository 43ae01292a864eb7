#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# warden_unanswered.sh TOOL: removals the daemon is slow to answer neither hold up each other nor
# go unrecorded. In a label run during one of this VM's stalls the warden's DELETE of an overdue
# container timed out ("could not remove NAME (cannot talk to the Docker daemon ...)"), the daemon
# removed it anyway, and the container's end was never logged; and the warden, asking one removal
# after another inside its pass, asked the second container 10 s after the first. Here the same on
# purpose: two running containers of the tool's, due 20 s after their creation, have their
# processes frozen (their freezer cgroups), so the daemon's forced removals cannot finish and each
# DELETE times out after 10 s. The warden must ask both in one pass (their failures logged within
# 4 s of each other, not 10 s apart), answer its status as fresh meanwhile, and, once they are
# thawed and the daemon completes those removals, log "removed NAME" for each.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
source "$(dirname "${BASH_SOURCE[0]}")/cgroup_kill.sh"
tool=$1
readonly log=/var/log/plb-sandbox-warden.log due=20
api() { curl -sf --unix-socket /var/run/docker.sock "$@"; }
names=() cgs=() created=()
cleanup() {
  set +e  # every step runs, whatever the one before it did
  local cg name
  for cg in "${cgs[@]}"; do [ -d "$cg" ] && cgroup_thaw "$cg"; done
  for name in "${names[@]}"; do timeout 60 docker rm -f "$name" >/dev/null 2>&1; done
}
trap cleanup EXIT

status=$("$tool" warden --status) || fail "no warden answers: $status"
pid=$(sed -n 's/^plb-sandbox-warden pid=\([0-9]*\) .*/\1/p' <<<"$status")
[ "$(readlink -f "/proc/$pid/exe")" = "$(readlink -f "$tool")" ] || fail "the warden (pid $pid) is not $tool's: ci/host/start-warden $tool"
log_from=$(($(stat -c %s "$log") + 1))
# The log since the test began; `|| true`: a reader that stops early (grep -q, -m1) must not turn
# tail's SIGPIPE into a failed pipeline under pipefail.
logged() { tail -c +"$log_from" "$log" || true; }

for i in 0 1; do
  names[i]=plb-sandbox-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  create_labelled_sleeper "${names[i]}" "$due"
done
for i in 0 1; do
  api -X POST "http://docker/v1.41/containers/${names[i]}/start" >/dev/null || fail "could not start ${names[i]}"
  # Read before the freeze: once a removal hangs, an inspection waits on the container's lock.
  inspected=$(timeout 30 docker inspect -f '{{.Id}} {{.Created}}' "${names[i]}") || fail "cannot inspect ${names[i]}"
  read -r id made <<<"$inspected"
  [ -n "$id" ] && [ -n "$made" ] || fail "no ID and creation time for ${names[i]}: '$inspected'"
  created[i]=$(date -d "$made" +%s)
  cg=$CGROUP_ROOT/freezer/docker/$id
  [ -d "$cg" ] || cg=$CGROUP_ROOT/system.slice/docker-$id.scope  # cgroup v2, systemd driver
  [ -d "$cg" ] || cg=$CGROUP_ROOT/docker/$id                      # cgroup v2, cgroupfs driver
  [ -d "$cg" ] || fail "no cgroup of ${names[i]}'s processes found (docker/$id)"
  cgs[i]=$cg
  cgroup_freeze "$cg"
done
echo "${names[*]} started, due $due s after their creation; their processes frozen"
for i in 0 1; do
  [ "$(logged | grep -c "${names[i]}")" = 0 ] || fail "the warden acted on ${names[i]} before its deadline: $(logged | tail -n 3)"
done

# How many containers named NAME the daemon lists (0 or 1), from its list: an inspection waits on
# the container's lock, which the removal in flight holds. A list that does not answer fails.
count_listed() {
  api -m 10 "http://docker/v1.41/containers/json?all=1&filters=%7B%22name%22%3A%5B%22%5E%2F$1%24%22%5D%7D" | jq -e length
}
# The first failed removal of NAME the warden logged: its timestamp, for a lost answer only (a
# timed-out DELETE: the transport's error, not a status the daemon answered).
asked_at() { logged | grep -m1 "plb-sandbox warden: could not remove $1 (cannot talk to the Docker daemon" | cut -c1-20; }
both_failed() { [ -n "$(asked_at "${names[0]}")" ] && [ -n "$(asked_at "${names[1]}")" ]; }
# The status while both DELETEs hang: the passes go on.
last_pass_ms=
watch_status() {
  local s ms
  s=$("$tool" warden --status 2>/dev/null) && ms=$(sed -n 's/.* last-pass-ms=\([0-9-]*\).*/\1/p' <<<"$s")
  [ -n "$ms" ] && { [ -z "$last_pass_ms" ] || [ "$ms" -gt "$last_pass_ms" ]; } && last_pass_ms=$ms
  both_failed
}
# Due at 20 s, each DELETE then waits 10 s; 30 s more on a loaded host.
wait_until $((due + 40)) watch_status || fail "the warden did not log two removals that timed out: $(logged | tail -n 5)"
for i in 0 1; do
  n=$(count_listed "${names[i]}") || fail "the daemon does not list its containers"
  [ "$n" = 1 ] || fail "${names[i]} was removed while its processes were frozen"
done
logged | grep "could not remove" || true
# Each failure comes 10 s after its ask, and each ask within a pass of its deadline: the failures
# are as far apart as the creations, and a second or two more (passes, the log's whole seconds).
# One after another, the second came 10 s after the first.
a=$(date -d "$(asked_at "${names[0]}")" +%s) b=$(date -d "$(asked_at "${names[1]}")" +%s)
gap=$((a > b ? a - b : b - a)) apart=$((created[0] > created[1] ? created[0] - created[1] : created[1] - created[0]))
[ "$gap" -le $((apart + 3)) ] || fail "the two removals failed $gap s apart (created $apart s apart): asked one after the other"
(( a - created[0] >= due + 8 )) || fail "the first removal failed $((a - created[0] - due)) s after its deadline: not a DELETE that waited its 10 s"
[ -n "$last_pass_ms" ] && [ "$last_pass_ms" -lt 5000 ] ||
  fail "the warden's passes stalled behind the removals: last-pass-ms reached ${last_pass_ms:-none}"
echo "both removals asked together (failed $gap s apart, created $apart s apart); the oldest pass while they hung: $last_pass_ms ms"
for cg in "${cgs[@]}"; do cgroup_thaw "$cg"; done

for i in 0 1; do
  name=${names[i]}
  gone() { [ "$(count_listed "$name")" = 0 ]; }
  wait_until 30 gone || fail "$name remains 30 s after its processes were thawed"
  recorded() { logged | grep -q "plb-sandbox warden: removed $name: "; }
  wait_until 10 recorded || fail "$name is gone, but the warden's log does not record its end: $(logged | tail -n 5)"
  logged | grep -m1 "removed $name: "
done
names=()
echo "PASS: slow removals are asked together, and a removal whose answer was lost is logged once it is gone"
