#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# warden_supervised.sh TOOL HOST_SCRIPTS (ci/host): issue 33 item 4 without systemd, what kills
# what and what an operator sees (the status line, doctor, the log):
#   1. SIGKILL of the warden alone: its supervisor starts a new one (new PID, same supervisor);
#   2. SIGKILL of the supervisor alone: the warden execs itself into a supervisor (same PID) and
#      starts a new warden;
#   3. doctor names the supervisor;
#   4. SIGTERM of the warden (an operator's stop): both stop, and say so;
#   5. a warden started without a supervisor is refused by doctor, with the fix.
# (gvisor.deadline.kill_everything_at_warden kills the warden with a run's whole cgroup.) On every
# way out the build's warden is started again, supervised (ci/host/start-warden).
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
host_scripts=$2
readonly log=/var/log/plb-sandbox-warden.log
restore() { bash "$host_scripts/start-warden" "$tool" >/dev/null 2>&1 || echo "could not start the warden again: see $log"; }
trap restore EXIT
bash "$host_scripts/start-warden" "$tool"
log_from=$(($(stat -c %s "$log") + 1))
status() { "$tool" warden --status 2>/dev/null || true; }
field() { sed -n "s/.* $1=\\([0-9-]*\\).*/\\1/p" <<<"$2"; }
# Waits (0.1 s steps, at most 10 s) until CONDITION (a shell function) holds.
wait_for() { for _ in $(seq 1 100); do "$1" && return 0; sleep 0.1; done; fail "timed out waiting for: $1 (status: $(status))"; }
# Read without a pipe: under pipefail, grep -q's early exit would fail a `tail |` that still writes.
logged() { grep -qF "$1" < <(tail -c +"$log_from" "$log") || fail "the log does not say: $1"; }

s=$(status)
warden=$(field pid "$s") supervisor=$(field supervisor "$s")
[ -n "$warden" ] && [ "${supervisor:-0}" -gt 1 ] || fail "not supervised after ci/host/start-warden: $s"

kill -9 "$warden"
restarted() { s=$(status); [ -n "$s" ] && [ "$(field pid "$s")" != "$warden" ] && [ "$(field supervisor "$s")" = "$supervisor" ]; }
wait_for restarted
logged "supervisor: the warden (pid $warden) died (killed by SIGKILL); restarting it"
echo "1. warden $warden SIGKILLed: supervisor $supervisor started warden $(field pid "$s")"

warden=$(field pid "$s")
kill -9 "$supervisor"
took_over() { s=$(status); [ -n "$s" ] && [ "$(field supervisor "$s")" = "$warden" ] && [ "$(field pid "$s")" != "$warden" ]; }
wait_for took_over
logged "the supervisor (pid $supervisor) is gone: this process becomes the supervisor of a new warden"
echo "2. supervisor $supervisor SIGKILLed: warden $warden became the supervisor of warden $(field pid "$s")"
supervisor=$warden warden=$(field pid "$s")

doctor=$("$tool" doctor 2>&1 || true)
grep -q "deadline warden .*pid $warden (supervisor pid $supervisor)" <<<"$doctor" || fail "doctor does not name the supervisor: $doctor"
echo "3. doctor: $(grep 'deadline warden' <<<"$doctor")"

kill -TERM "$warden"
both_gone() { [ -z "$(status)" ] && [ ! -e "/proc/$warden" ] && [ ! -e "/proc/$supervisor" ]; }
wait_for both_gone
logged "supervisor: the warden (pid $warden) stopped cleanly; stopping too"
echo "4. SIGTERM to warden $warden: it and supervisor $supervisor stopped"

bash "$host_scripts/daemonize" "$log" "$tool" warden
answers() { [ -n "$(status)" ]; }
wait_for answers
s=$(status)
[ "$(field supervisor "$s")" = 0 ] || fail "a warden started alone claims a supervisor: $s"
set +e
doctor=$("$tool" doctor 2>&1); rc=$?
set -e
[ "$rc" = 3 ] || fail "doctor exited $rc with an unsupervised warden, expected 3 (host_refused): $doctor"
grep -q "deadline warden .*runs unsupervised" <<<"$doctor" || fail "doctor does not say the warden is unsupervised: $doctor"
grep -q "fix: restart it supervised: .*start-warden" <<<"$doctor" || fail "doctor gives no fix: $doctor"
echo "5. an unsupervised warden is refused: $(grep 'deadline warden' <<<"$doctor")"

bash "$host_scripts/start-warden" "$tool"
s=$(status)
[ "$(field supervisor "$s")" -gt 1 ] || fail "ci/host/start-warden did not replace the unsupervised warden: $s"
trap - EXIT
echo "PASS: the warden is supervised, and an unsupervised one is refused"
