#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# warden_stopped.sh TOOL HOST_SCRIPTS (ci/host): issue 41 item 5 on the real daemon. A SIGSTOPped
# warden is alive: it holds its lock and its socket, its supervisor saw no death, and it removed
# nothing until someone sent SIGCONT. Here the build's supervised warden is SIGSTOPped as a running
# container of the tool's, due 3 s after its creation, waits: the supervisor must find it silent,
# SIGKILL it and start a new warden, which removes the container by its deadline + MARGIN; the log
# says why. The stopped warden is resumed (if it still exists), the container removed and the
# warden that ran before restored (its binary, or this build's if that is gone) on every way out.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
host_scripts=$2
readonly log=/var/log/plb-sandbox-warden.log margin=20
api() { curl -sf --unix-socket /var/run/docker.sock "$@"; }
status() { "$tool" warden --status 2>/dev/null || true; }
field() { sed -n "s/.* $1=\\([0-9-]*\\).*/\\1/p" <<<"$2"; }
pid_of() { sed -n 's/^plb-sandbox-warden pid=\([0-9]*\) .*/\1/p' <<<"$1"; }

host_tool=$tool
if before=$(pid_of "$(status)") && [ -n "$before" ]; then
  exe=$(readlink "/proc/$before/exe" || true)
  exe=${exe% (deleted)}  # rebuilt since it started: the binary now at its path
  [ -x "$exe" ] && host_tool=$exe
fi
work=$(mktemp -d)
stopped= name=
cleanup() {
  set +e  # every step runs, whatever the one before it did
  [ -n "$stopped" ] && kill -CONT "$stopped" 2>/dev/null
  [ -n "$name" ] && docker rm -f "$name" >/dev/null 2>&1
  bash "$host_scripts/start-warden" "$host_tool" >/dev/null 2>&1 || echo "could not start the warden again: see $log"
  rm -rf "$work"
}
trap cleanup EXIT

bash "$host_scripts/start-warden" "$tool"
s=$(status)
warden=$(pid_of "$s") supervisor=$(field supervisor "$s")
[ -n "$warden" ] && [ "${supervisor:-0}" -gt 1 ] || fail "not supervised after ci/host/start-warden: $s"
log_from=$(($(stat -c %s "$log") + 1))

name=plb-sandbox-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
create_labelled_sleeper "$name" 3
kill -STOP "$warden"
stopped=$warden
stopped_at=$(date +%s.%N)
api -X POST "http://docker/v1.41/containers/$name/start" >/dev/null || fail "could not start $name"
created=$(date -d "$(docker inspect -f '{{.Created}}' "$name")" +%s.%N)
echo "warden $warden SIGSTOPped; $name created, due at creation + 3 s"

while docker container inspect "$name" >/dev/null 2>&1; do
  late=$(echo "$(date +%s.%N) - $created - 3" | bc)
  [ "$(echo "$late <= $margin" | bc)" = 1 ] ||
    fail "$name still exists $late s past its deadline with the warden stopped (state $(sed 's/.*) //' "/proc/$warden/stat" 2>/dev/null | cut -c1)): $(tail -c +"$log_from" "$log" | tail -n 3)"
  sleep 0.1
done
late=$(echo "$(date +%s.%N) - $created - 3" | bc)
name_gone=$name name=
logged_soon "$log" "$log_from" "plb-sandbox warden: removed $name_gone: " ||
  fail "$name_gone went, but the warden's log does not say it removed it: $(tail -c +"$log_from" "$log")"
new=$(tail -c +"$log_from" "$log")
grep -q "supervisor: the warden (pid $warden, stopped (T)) has not answered on /run/plb-sandbox/warden.sock for [0-9]* s; killing it" <<<"$new" ||
  fail "the log does not say the stopped warden was killed: $new"
[ ! -e "/proc/$warden" ] || fail "the stopped warden (pid $warden) is still there"
stopped=
s=$(status)
[ -n "$s" ] && [ "$(pid_of "$s")" != "$warden" ] && [ "$(field supervisor "$s")" = "$supervisor" ] ||
  fail "no new warden under supervisor $supervisor answers: $s"
replaced=$(grep -m1 "has not answered" <<<"$new" | cut -c1-20)
echo "the supervisor killed the stopped warden (logged at $replaced, $(date -d "@${stopped_at%.*}" -u +%H:%M:%S) stop) and started warden $(pid_of "$s")"
echo "the new warden removed $name_gone $late s past its deadline"
echo "PASS: a SIGSTOPped warden is replaced and the bound holds"
