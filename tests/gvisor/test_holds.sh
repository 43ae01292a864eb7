# SPDX-License-Identifier: Apache-2.0
# Sourced by the tests that stop the tool at an exact stage instead of racing it: a dev build's
# tool run with PLB_SANDBOX_TEST_STOP_AT=<stage> stops itself (SIGSTOP) there (src/support/
# test_hold.hpp). These call `fail` (the sourcing test's) on a problem.

# Waits until process PID is stopped (state T) at its hold point, for at most SECONDS (default 120):
# a tool that exits first, or never gets there, fails the test loudly.
wait_held() {
  local pid=$1 until=$((SECONDS + ${2:-120})) state
  while [ "$SECONDS" -lt "$until" ]; do
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || fail "the tool (pid $pid) ended before its hold point"
    case "$state" in T) return 0 ;; Z|X|"") fail "the tool (pid $pid) ended before its hold point" ;; esac
    sleep 0.05
  done
  fail "the tool (pid $pid) did not reach its hold point within ${2:-120} s"
}
