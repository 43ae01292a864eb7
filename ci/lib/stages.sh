# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# ci/lib/stages.sh, sourced by ci/test: runs CI's stages, times each, and prints on every way out a
# closing table of where the time went (wall and CPU seconds, and which stage failed), the slowest
# ctest tests, and last a line CI's judge reads: ctest's own totals line, or a plain
# "ci/test: N passed, N failed" when a stage other than ctest failed or ctest never ran.
#   stage NAME CMD...      runs CMD in the foreground; a failure ends ci/test (set -e) after the table
#   stage_bg NAME CMD...   starts CMD in its own session beside what follows, its output kept apart
#   stage_wait NAME        waits for it, prints its output, and fails as it failed
#   stage_ctest_files X L  where the ctest stage will write its JUnit XML (read for the slowest
#                          tests) and its output (for its totals line); old ones are removed
# CMD is one command, best a program or a script (GNU time counts its CPU; a function's shows -):
# `set -e` does not reach inside a command whose status is tested.
stage_names=() stage_walls=() stage_cpus=() stage_states=()
declare -A stage_bg_pid=() stage_bg_log=() stage_bg_start=() stage_bg_cpu=()
stage_junit='' stage_ctest_log=''

# CPU seconds (user + system) of a stage's processes, by GNU time when installed (ci/host/setup-host
# installs it; the first stage may run before): the sandboxes' CPU is dockerd's, not counted.
stage_timed() {  # CPUFILE CMD...
  local out=$1
  shift
  if [ -x /usr/bin/time ] && [ "$(type -t "$1")" = file ]; then /usr/bin/time -f 'cpu %U %S' -o "$out" "$@"; else "$@"; fi
}
stage_cpu_of() {  # CPUFILE: the whole seconds it holds, or -
  awk '$1 == "cpu" { printf "%d", $2 + $3; found = 1 } END { if (!found) printf "-" }' "$1" 2>/dev/null || echo -
}

stage_record() {  # NAME WALL CPU STATE
  stage_names+=("$1") stage_walls+=("$2") stage_cpus+=("$3") stage_states+=("$4")
}

stage() {
  local name=$1 start=$SECONDS rc=0 cpu
  shift
  cpu=$(mktemp /tmp/plb-ci-stage.XXXXXX.cpu)
  echo "=== ci/test: $name" >&2
  stage_timed "$cpu" "$@" || rc=$?
  stage_record "$name" $((SECONDS - start)) "$(stage_cpu_of "$cpu")" "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")"
  rm -f "$cpu"
  return $rc
}

stage_bg() {
  local name=$1
  shift
  stage_bg_log[$name]=$(mktemp /tmp/plb-ci-stage.XXXXXX.log)
  stage_bg_cpu[$name]=$(mktemp /tmp/plb-ci-stage.XXXXXX.cpu)
  stage_bg_start[$name]=$SECONDS
  echo "=== ci/test: $name (started beside what follows; its output comes when it ends)" >&2
  # Its own session, so that every way out of ci/test ends all of it.
  setsid bash -c "$(declare -f stage_timed); stage_timed \"\$@\"" stage_bg "${stage_bg_cpu[$name]}" "$@" \
    >"${stage_bg_log[$name]}" 2>&1 &
  stage_bg_pid[$name]=$!
}

stage_wait() {
  local name=$1 rc=0 start=$SECONDS
  echo "=== ci/test: waiting for $name" >&2
  wait "${stage_bg_pid[$name]}" || rc=$?
  cat "${stage_bg_log[$name]}"
  # Wall: from its start; "waited": how much of it ci/test spent doing nothing else.
  stage_record "$name" $((SECONDS - stage_bg_start[$name])) "$(stage_cpu_of "${stage_bg_cpu[$name]}")" \
    "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)") (in the background; waited for $((SECONDS - start)) s)"
  rm -f "${stage_bg_log[$name]}" "${stage_bg_cpu[$name]}"
  unset "stage_bg_pid[$name]"
  [ $rc = 0 ] || echo "ci/test: $name failed (exit $rc)" >&2
  return $rc
}

stage_kill_background() {  # every background stage still running: its whole session, then reaped
  local name
  for name in "${!stage_bg_pid[@]}"; do
    kill -- -"${stage_bg_pid[$name]}" 2>/dev/null || true
    wait "${stage_bg_pid[$name]}" 2>/dev/null || true
    stage_record "$name" $((SECONDS - stage_bg_start[$name])) - "stopped: ci/test ended first"
    echo "--- the output of $name until it was stopped:"
    tail -n 40 "${stage_bg_log[$name]}"
    rm -f "${stage_bg_log[$name]}" "${stage_bg_cpu[$name]}"
  done
  stage_bg_pid=()
}

stage_slowest_tests() {  # the 10 slowest tests of ctest's JUnit XML
  [ -s "$stage_junit" ] || return 0
  echo "ci/test: the 10 slowest tests (s)"
  python3 - "$stage_junit" <<'EOF'
import sys, xml.etree.ElementTree as ET
cases = [(float(c.get("time") or 0), c.get("name")) for c in ET.parse(sys.argv[1]).iter("testcase")]
for t, name in sorted(cases, reverse=True)[:10]:
    print(f"  {t:8.1f}  {name}")
EOF
}

stage_table() {
  local i
  echo
  echo "ci/test: where the time went"
  printf '  %-44s %7s %7s  %s\n' stage "wall s" "CPU s" result
  for i in "${!stage_names[@]}"; do
    printf '  %-44s %7s %7s  %s\n' "${stage_names[$i]}" "${stage_walls[$i]}" "${stage_cpus[$i]}" "${stage_states[$i]}"
  done
  printf '  %-44s %7s\n' "total (wall)" "$SECONDS"
  stage_slowest_tests || echo "ci/test: (the slowest tests could not be read from $stage_junit)"
}

# The last line: ctest's own totals line when ctest ran and no other stage failed; otherwise a plain
# count that shows the failure (ctest's passed tests, and the failed stage counted as one failure).
stage_last_line() {  # RC
  local rc=$1 totals failed_stage='' i passed=0 failed=0
  totals=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$stage_ctest_log" 2>/dev/null | tail -n1 || true)
  for i in "${!stage_names[@]}"; do
    [[ "${stage_states[$i]}" == ok* || "${stage_states[$i]}" == stopped* ]] || failed_stage=${failed_stage:-${stage_names[$i]}}
  done
  if [ -n "$totals" ]; then
    failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$totals")
    passed=$(($(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$totals") - failed))
  fi
  if [ -n "$totals" ] && { [ "$failed" -gt 0 ] || { [ -z "$failed_stage" ] && [ "$rc" = 0 ]; }; }; then
    echo "$totals"
  elif [ -n "$failed_stage" ] || [ "$rc" != 0 ]; then
    local why="exit $rc outside any stage"
    [ -z "$failed_stage" ] || why="the stage '$failed_stage' failed"
    # Never ctest's totals verbatim here: a reader of "N% tests passed" would take it for the result.
    local of_ctest="; ctest did not run"
    [ -z "$totals" ] || of_ctest="; every one of ctest's $passed tests passed"
    echo "ci/test: $passed passed, $((failed + 1)) failed ($why$of_ctest)"
  else
    echo "ci/test: ${#stage_names[@]} passed, 0 failed (stages; ctest did not run)"
  fi
}

stage_finish() {  # the EXIT trap: background stages stopped, the table, the judge's line
  local rc=$1
  trap - EXIT INT TERM
  # A background stage still running at a clean exit is one ci/test forgot to wait for: a failure.
  if [ "$rc" = 0 ] && [ ${#stage_bg_pid[@]} != 0 ]; then
    rc=1
    echo "ci/test: a background stage was never waited for (a mistake in ci/test)"
  fi
  stage_kill_background
  stage_table
  [ "$rc" = 0 ] || echo "ci/test: FAILED (exit $rc)"
  stage_last_line "$rc"
  exit "$rc"
}

stage_ctest_files() {  # JUNIT LOG: where the ctest stage leaves its XML and its output
  stage_junit=$1 stage_ctest_log=$2
  rm -f "$stage_junit" "$stage_ctest_log"   # an earlier run's would be read as this one's
}

trap 'stage_finish $?' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
