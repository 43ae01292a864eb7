# SPDX-License-Identifier: Apache-2.0
# Sourced by the tests that kill a whole cgroup at once, as Slurm's proctrack/cgroup, a systemd
# stop or a lost node do: freeze it (no process can react or fork), SIGKILL every process in it,
# thaw it. cgroup v1's freezer controller or cgroup v2's cgroup.freeze, whichever the host has.
# Each function takes the cgroup's directory; they call `fail` (the sourcing test's) on a problem.
# CGROUP_ROOT (default /sys/fs/cgroup) is where the hierarchies are mounted: tests/unit/ci/
# cgroup_kill_v2.sh runs these against v1- and v2-shaped trees in a temporary directory.
CGROUP_ROOT=${CGROUP_ROOT:-/sys/fs/cgroup}

# Where a test makes a cgroup NAME it can freeze: v1's freezer hierarchy, else v2's unified tree.
cgroup_for_kill() {
  if [ -d "$CGROUP_ROOT/freezer" ]; then echo "$CGROUP_ROOT/freezer/$1"; else echo "$CGROUP_ROOT/$1"; fi
}

# A v1 freeze can stay FREEZING for a while on a loaded host: asked again every 10 ms, for 30 s.
# Every 50th try the cgroup is thawed for 10 ms first, as runc's and CRIU's v1 freezers do
# (runc#2791): asking again alone can stay FREEZING for good (seen here with a docker client's
# thread runnable in __refrigerator for the whole 30 s), a thaw and a new freeze then succeed.
# Given up, the cgroup is thawed before the test fails: a freeze that completes late would
# otherwise leave the job's processes (slurmstepd among them) frozen for good, and the node with it.
cgroup_freeze() {
  local cg=$1 until=$((SECONDS + 30)) try=0
  while [ "$SECONDS" -lt "$until" ]; do
    if [ -f "$cg/freezer.state" ]; then
      try=$((try + 1))
      [ $((try % 50)) != 0 ] || { echo THAWED > "$cg/freezer.state"; sleep 0.01; }
      echo FROZEN > "$cg/freezer.state"
      [ "$(cat "$cg/freezer.state")" = FROZEN ] && return 0
    else
      echo 1 > "$cg/cgroup.freeze"
      grep -q 'frozen 1' "$cg/cgroup.events" && return 0
    fi
    sleep 0.01
  done
  local stuck
  stuck=$(cgroup_threads "$cg")
  cgroup_thaw "$cg"
  fail "the cgroup $cg did not freeze within 30 s (thawed again); its threads: $stuck"
}

# "pid/tid comm state wchan" of each thread of the cgroup, for a freeze that did not complete. A
# frozen thread reads as state D where it slept (Linux 6.1's freezer), so a thread in R or S is one
# the freeze has not reached; its kernel stack's first frames say where it is.
cgroup_threads() {
  local p t state
  for p in $(cgroup_procs "$1"); do
    for t in /proc/"$p"/task/*; do
      state=$(sed 's/.*) //' "$t/stat" 2>/dev/null | cut -d' ' -f1)
      printf '%s/%s %s %s %s' "$p" "${t##*/}" "$(cat "$t/comm" 2>/dev/null)" "$state" "$(cat "$t/wchan" 2>/dev/null)"
      [ "$state" = D ] || printf ' [%s]' "$(head -n 3 "$t/stack" 2>/dev/null | awk '{print $2}' | tr '\n' ' ')"
      printf '; '
    done
  done
}

cgroup_thaw() { if [ -f "$1/freezer.state" ]; then echo THAWED > "$1/freezer.state"; else echo 0 > "$1/cgroup.freeze"; fi; }

# Every process of the cgroup and its children, once each.
cgroup_procs() { find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -un; }

# Freezes (unless already frozen), SIGKILLs every process, thaws, and waits until none is left (up
# to 30 s: this VM's stalls, `workqueue lockup` in dmesg, have held both CPUs for 40 s and more).
# Prints how many it killed; a cgroup with none left to kill fails (what the test meant to kill had
# ended first). Inside $(...) its failure is its output: tests call cgroup_kill_all_or_fail.
cgroup_kill_all() {
  local cg=$1 n=0 p
  [ "$(cat "$cg/freezer.state" 2>/dev/null)" = FROZEN ] || grep -q 'frozen 1' "$cg/cgroup.events" 2>/dev/null || cgroup_freeze "$cg"
  for p in $(cgroup_procs "$cg"); do kill -9 "$p" 2>/dev/null && n=$((n + 1)); done
  cgroup_thaw "$cg"
  [ "$n" -gt 0 ] || fail "no process of $cg was left to kill"
  local until=$((SECONDS + 30))
  while [ -n "$(cgroup_procs "$cg")" ] && [ "$SECONDS" -lt "$until" ]; do sleep 0.05; done
  [ -z "$(cgroup_procs "$cg")" ] || fail "processes survived the cgroup kill: $(cgroup_threads "$cg")"
  echo "$n"
}

# cgroup_kill_all CG, with WHAT (one word) before its count: "WHAT: killed N processes of CG at
# once". Called directly, never in $(...): its failure must end the test, not become its output.
cgroup_kill_all_or_fail() {
  local n
  n=$(cgroup_kill_all "$2") || { echo "$n"; exit 1; }
  echo "$1: killed $n processes of $2 at once"
}

# The cgroup directory of Slurm job JOB (proctrack/cgroup), under node NODE's tree when given
# (several slurmd on one host); empty when there is none. v1: freezer/slurm_<node>/uid_<u>/job_<id>;
# v2 (Slurm's cgroup/v2): system.slice/[<node>_]slurmstepd.scope/job_<id>.
slurm_job_cgroup() {  # JOB [NODE]
  local roots=("$CGROUP_ROOT")
  [ -d "$CGROUP_ROOT/freezer" ] && roots=("$CGROUP_ROOT/freezer" "$CGROUP_ROOT")
  find "${roots[@]}" -maxdepth 4 -type d -name "job_$1" \
    \( -path "*${2:+slurm_$2}/*" -o -path "*/${2:+${2}_}slurmstepd.scope/*" \) 2>/dev/null | head -n1
}

# The tool's containers as "name state created expires-after", from the Engine API: every one, or
# when TOOL_CONTAINERS_OF_RUNS names run IDs (space-separated), those runs' only (a test run beside
# others watches its own).
TOOL_CONTAINERS_OF_RUNS=${TOOL_CONTAINERS_OF_RUNS:-}
tool_containers() {
  curl -sf --retry 5 --retry-all-errors --retry-delay 1 --unix-socket /var/run/docker.sock \
    'http://docker/v1.41/containers/json?all=1&filters=%7B%22label%22%3A%5B%22plb-sandbox.run%22%5D%7D' |
    jq -r --arg runs "$TOOL_CONTAINERS_OF_RUNS" '.[] | . as $c
      | select($runs == "" or ([$runs | splits(" +")] | any(. == $c.Labels["plb-sandbox.run"])))
      | "\(.Names[0][1:]) \(.State) \(.Created) \(.Labels["plb-sandbox.expires-after"] // "none")"'
}

# expect_bounded_by_deadlines MARGIN WATCH [REMOVAL]: watches the tool's containers for at least
# WATCH seconds and until none is left (one whose create was in flight at the kill may appear
# late, and counts too). Fails if any still exists MARGIN + REMOVAL seconds past its deadline
# (creation + its expires-after label) or carries no deadline, or if any is still there 60 s after
# that. REMOVAL (default 0) is the daemon's removal time, allowed on top for a test that then
# proves from the warden's log that the warden asked within MARGIN (expect_removed_by_warden): the
# warden's part of the bound is its ask, and the daemon's removal after it is the daemon's
# (SECURITY.md). Under one of this VM's stalls containerd took 26 s to complete two asked removals.
# Leaves the names it saw in $bounded_seen, MARGIN in $bounded_margin, and in bounded_late[NAME]
# how many seconds past its deadline each was last seen.
bounded_seen= bounded_margin=
declare -gA bounded_late=()
expect_bounded_by_deadlines() {
  local allowed=$(($1 + ${3:-0})) until=$(( $(date +%s) + $2 )) give_up=$((SECONDS + $2 + $1 + ${3:-0} + 60)) listed now name state created after
  bounded_margin=$1
  bounded_seen= bounded_late=()
  while [ "$SECONDS" -lt "$give_up" ]; do
    # The clock read first: a listing slow to answer (a stalled daemon) shows what was there at some
    # moment after it, so a container is at least now - deadline late, never less.
    now=$(date +%s)
    listed=$(tool_containers)
    [ -z "$listed" ] && [ "$now" -ge "$until" ] && return 0
    while read -r name state created after; do
      [ -n "$name" ] || continue
      grep -qw "$name" <<<"$bounded_seen" || bounded_seen="$bounded_seen $name"
      [ "$after" = none ] && fail "$name carries no deadline label"
      bounded_late[$name]=$((now - created - after))
      [ "$now" -gt "$((created + after + allowed))" ] && fail "$name ($state) still exists $((now - created - after)) s past its deadline"
    done <<<"$listed"
    sleep 0.1
  done
  fail "containers of the tool remain: $(tool_containers)"
}

# Each container in $bounded_seen was removed by the warden (its log says so, within 5 s of its
# going): nothing else of the tool was left to do it. And the warden asked within $bounded_margin
# of its deadline (its line's "X s past its deadline" is when it first asked); a removal the daemon
# confirmed must also have been gone within it: only one whose answer was lost ("did not confirm")
# had the daemon's removal time on top (expect_bounded_by_deadlines' REMOVAL).
expect_removed_by_warden() {
  local name line past log=/var/log/plb-sandbox-warden.log
  for name in $bounded_seen; do
    for _ in $(seq 50); do line=$(grep -m1 "plb-sandbox warden: removed $name: " "$log") && break; sleep 0.1; done
    [ -n "$line" ] || fail "the warden's log does not record removing $name: $(tail -n 3 "$log")"
    past=$(sed -n 's/.*: removed [^:]*: \([0-9.]*\) s past its deadline.*/\1/p' <<<"$line")
    [ -n "$past" ] && awk -v p="$past" -v m="$bounded_margin" 'BEGIN { exit !(p <= m) }' ||
      fail "the warden asked to remove $name ${past:-?} s past its deadline, more than $bounded_margin: $line"
    case "$line" in
      *"did not confirm"*) ;;
      *) [ "${bounded_late[$name]:-0}" -le "$bounded_margin" ] ||
           fail "$name was still there ${bounded_late[$name]} s past its deadline, though the daemon confirmed its removal: $line" ;;
    esac
  done
}
