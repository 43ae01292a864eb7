#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# warden_log_full.sh TOOL: issue 41 item 6. The warden logged through std::cerr, whose error state
# is sticky: one write refused by a full disk silenced every line after it, for good. Here a warden
# of this build (its own socket and lock, beside the host's, judging what the host's judges) logs
# to a small tmpfs mounted for the test; the file system is filled, lines are asked for (SIGHUP
# logs one) until the log refuses one, the space is freed, and every line asked for must then be
# in the log, whole, in order, with a line saying what the outage cost, and `--status` must count
# the refused lines. The warden is stopped and the tmpfs unmounted on every way out.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
work=$(mktemp -d)
mnt=$work/logfs
sockdir=$(mktemp -d /run/plb-warden-log-test.XXXXXX)  # root's, 0700: the warden's directory rules
sock=$sockdir/warden.sock
warden=
mkdir "$mnt"
cleanup() {
  set +e  # every step runs, whatever the one before it did
  if [ -n "$warden" ]; then kill -TERM "$warden" 2>/dev/null; wait "$warden" 2>/dev/null; fi
  mountpoint -q "$mnt" && { umount "$mnt" || umount -l "$mnt"; }
  rm -rf "$work" "$sockdir"
}
trap cleanup EXIT
mount -t tmpfs -o size=64k,mode=0700 plb-warden-log-test "$mnt"
log=$mnt/warden.log
"$tool" warden --socket "$sock" </dev/null >/dev/null 2>>"$log" &
warden=$!
status() { "$tool" warden --status --socket "$sock" 2>/dev/null || true; }
# Generous bounds, never a race: under CI's load (gVisor tests side by side, a build beside them)
# the tool can take seconds to start and a pass seconds to list, and SIGHUP waits for the pass.
answers() { [ -n "$(status)" ]; }  # a function: wait_until runs it anew each time
wait_until 60 answers || fail "the test's warden does not answer: $("$tool" warden --status --socket "$sock" 2>&1); log: $(cat "$log")"
refused() { sed -n 's/.* log-failed=\([0-9]*\).*/\1/p' <<<"$(status)"; }
asked=0
# Asks for one more line (SIGHUP: "still watching") and waits until it reached the log (true) or
# the warden counted a refused line (false): decided by the warden's own count, not by a timer.
ask() {
  asked=$((asked + 1))
  local before
  before=$(refused)
  kill -HUP "$warden"
  wait_until 30 written_or_refused "$asked" "${before:-0}" || fail "line $asked was neither written nor counted as refused within 30 s"
  written "$asked"
}
written() { [ "$(grep -c 'plb-sandbox warden: SIGHUP: still watching$' "$log")" -ge "$1" ]; }
written_or_refused() { written "$1" || [ "$(refused)" -gt "$2" ] 2>/dev/null; }
ask || fail "the first line never reached the log: $(cat "$log")"

dd if=/dev/zero of="$mnt/filler" bs=1k 2>/dev/null || true  # until the file system is full
[ "$(df --output=avail -k "$mnt" | tail -n 1 | tr -d ' ')" = 0 ] || fail "the tmpfs is not full"
while ask; do
  [ "$asked" -lt 200 ] || fail "200 lines reached a full file system's log"
done
echo "the log refused line $asked (the file system full, $(stat -c %s "$log") bytes of log)"
sleep 2  # the warden retries once a pass: still refused
written "$asked" && fail "line $asked reached a full file system's log"

rm "$mnt/filler"
wait_until 30 written "$asked" || fail "the refused line was not written within 30 s of the space coming back: $(tail -n 3 "$log")"
ask || fail "a new line did not reach the log after the space came back: $(tail -n 3 "$log")"
wait_until 30 grep -q 'plb-sandbox warden: the log refused [1-9][0-9]* line(s) (No space left on device): [1-9][0-9]* held back and written above, 0 dropped' "$log" ||
  fail "no line says what the outage cost: $(tail -n 3 "$log")"
bad=$(grep -cv '^[0-9-]*T[0-9:]*Z plb-sandbox warden: ' "$log" || true)
[ "$bad" = 0 ] || fail "$bad line(s) of the log are cut or joined: $(cat "$log")"
[ "$(grep -c 'SIGHUP: still watching$' "$log")" = "$asked" ] || fail "not every line asked for is in the log once: $(cat "$log")"
s=$(status)
failed=$(sed -n 's/.* log-failed=\([0-9]*\).*/\1/p' <<<"$s")
[ "${failed:-0}" -ge 1 ] || fail "--status does not count the refused line(s): $s"
echo "after the space came back: all $asked lines in the log, whole; --status: $s"
echo "PASS: the warden's log resumes after a full disk, and --status counts what it refused"
