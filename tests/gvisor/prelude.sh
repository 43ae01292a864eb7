# SPDX-License-Identifier: Apache-2.0
# Sourced first by every gVisor shell test: strict mode, the reviewed image, `fail`, a bounded poll,
# and the checks of what a test left behind, scoped so that tests can run side by side (ctest -j).
#
# Scoping: every container the tool creates carries plb-sandbox.owner="<boot id>:<pid>:<start
# time>" of the tool process that made it (src/runner/container/owner.cpp), and every run holds
# the lock of its run directory while it lives. When a test checks what is left, its own tools
# have exited; a container whose owner has exited, or a run directory whose lock nobody holds, is
# a leak, whoever left it. Another test's live run is neither. A test that leaves a dead run on
# purpose (killing the tool, for the warden) beside others holds that run's lock itself until it is
# done (start_lock_holder below), or is registered RUN_SERIAL, so that no other test's check or
# sweep takes it for a leak.
set -euo pipefail

image=${PLB_SANDBOX_RUNTIME_IMAGE:-$(cat /var/lib/plb-sandbox/runtime-image.id)}
# Where the tests keep their work (never /tmp: the Slurm engine refuses local-only directories);
# ci/host/setup-slurm cancels a batch job whose directory here is gone.
readonly test_root=/var/lib/plb-sandbox-tests
install -d -m 0700 "$test_root"
# The tests' lock around their leak checks (release_locks says why). On the run directories' own
# filesystem: run_lock_held reads /proc/locks by inode number, which a file elsewhere could share.
readonly leak_check_lock=$test_root/leak-check.lock

# The failing test's one line; a script names its case in case_name when it has several.
fail() { echo "FAIL${case_name:+ ($case_name)}: $*"; exit 1; }

# wait_until SECONDS COMMAND...: runs COMMAND every 0.05 s until it succeeds (true) or SECONDS
# have passed (false, after one last try).
wait_until() {
  local until=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$until" ] || { "$@"; return; }
    sleep 0.05
  done
}

boot_id=$(cat /proc/sys/kernel/random/boot_id)

# The start time (field 22 of /proc/PID/stat, after the parenthesised name), empty once it is gone.
process_start() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $20}'; }

# The owner label the tool process PID puts on its containers.
owner_of() { echo "$boot_id:$1:$(process_start "$1")"; }

# The IDs of the containers the tool process PID created (docker ps arguments may follow, e.g.
# --filter status=running); read while it lives.
sandboxes_of() {
  local owner
  owner=$(owner_of "$1")
  shift
  /usr/bin/docker ps -aq --filter "label=plb-sandbox.owner=$owner" "$@"
}

# The names of the containers the tool process PID created; read while it lives.
sandbox_names_of() {
  local owner
  owner=$(owner_of "$1")
  /usr/bin/docker ps -a --filter "label=plb-sandbox.owner=$owner" --format '{{.Names}}'
}

# "name state pid" of each container of the tool whose owner process (pid) runs in Slurm job JOB:
# the worker of one of its array tasks (SLURM_ARRAY_JOB_ID) or the job itself (SLURM_JOB_ID), as
# the owner's environment says. Read while the owners live; another test's sandboxes are not listed.
# Its status is 0 whatever the last container listed: callers pipe it under pipefail, and a loop
# that ended on another test's live sandbox (`grep` false) would fail their whole pipeline. The
# environment (NUL-separated: grep -z) is read without a pipe, whose writer grep -q could cut off.
job_sandboxes() {
  local name state owner boot pid start
  /usr/bin/docker ps -a --filter label=plb-sandbox.run --format '{{.Names}} {{.State}} {{.Label "plb-sandbox.owner"}}' |
    while read -r name state owner; do
      IFS=: read -r boot pid start <<<"$owner"
      { [ "$boot" = "$boot_id" ] && [ "$(process_start "$pid")" = "$start" ]; } || continue
      if grep -qzxE "SLURM_(ARRAY_)?JOB_ID=$1" "/proc/$pid/environ" 2>/dev/null; then
        echo "$name $state $pid"
      fi
    done
}

# running_owners JOB: the PIDs (one a line, once each) of the tool processes whose sandbox of Slurm
# job JOB runs (job_sandboxes): a job's live workers.
running_owners() { job_sandboxes "$1" | awk '$2 == "running" {print $3}' | sort -u; }

# created_since SINCE PID...: names of the tool's containers the daemon created from SINCE (a Unix
# time) until now whose owner is one of the tool processes PID (which may have exited since).
created_since() {
  local since=$1 name owner pid
  shift
  /usr/bin/docker events --since "$since" --until "$(date +%s.%6N)" --filter type=container --filter event=create \
    --filter label=plb-sandbox.run --format '{{.Actor.Attributes.name}} {{index .Actor.Attributes "plb-sandbox.owner"}}' |
    while read -r name owner; do
      for pid in "$@"; do [[ "$owner" != "$boot_id:$pid:"* ]] || echo "$name"; done
    done
}

# Containers of the tool whose owner process has exited (one without an owner label is not the
# tool's: tests plant such look-alikes). The list is read before the owners are looked at, so a
# container that another test's tool removed and then exited in between is listed with a dead
# owner: each one is looked up again once its owner is known dead, and only one still there is left.
# A run whose lock a process still holds is not left: a kill test beside this one holds its killed
# tool's locks until the warden's deadline (kill_everything.sh), as every sweep sees too.
orphan_sandboxes() {
  local name owner run boot pid start lk
  exec {lk}>>"$leak_check_lock"
  flock -s "$lk"  # not between another test's release_locks and its sweep
  # Fields split at "|": an empty owner (a look-alike's) must not shift the run ID into its place.
  /usr/bin/docker ps -a --filter label=plb-sandbox.run --format '{{.Names}}|{{.Label "plb-sandbox.owner"}}|{{.Label "plb-sandbox.run"}}' |
    while IFS='|' read -r name owner run; do
      [ -n "$owner" ] || continue
      IFS=: read -r boot pid start <<<"$owner"
      [ "$boot" = "$boot_id" ] && [ "$(process_start "$pid")" = "$start" ] && continue
      run_lock_held "/var/lib/plb-sandbox/runs/$run" && continue
      /usr/bin/docker container inspect --format '{{.Name}}' "$name" >/dev/null 2>&1 || continue
      echo "$name"
    done
  exec {lk}>&-
}

# Whether a process holds the lock of the run directory DIR (read from /proc/locks, never by
# taking it: a run that cannot take its own lock fails).
run_lock_held() {
  local inode
  inode=$(stat -c %i "$1/lock" 2>/dev/null) && grep -qE " [0-9a-f]+:[0-9a-f]+:$inode " /proc/locks
}

# Run directories whose lock no process holds. One without a lock file yet is being made, unless
# it is older than 10 s.
orphan_run_dirs() {
  local dir lk
  exec {lk}>>"$leak_check_lock"
  flock -s "$lk"  # not between another test's release_locks and its sweep
  for dir in /var/lib/plb-sandbox/runs/*/; do
    [ -d "$dir" ] || continue
    if [ -e "$dir/lock" ]; then
      run_lock_held "$dir" && continue
    elif [ $(($(date +%s) - $(stat -c %Y "$dir" 2>/dev/null || date +%s))) -lt 10 ]; then
      continue
    fi
    [ ! -d "$dir" ] || echo "${dir%/}"  # a run that ended meanwhile removed it under its lock
  done
  exec {lk}>&-
}

# A test that kills a tool and leaves its runs to the warden, beside other tests, holds the runs'
# locks itself (hold_run_locks.py says why): start_lock_holder WORK starts the holder (before the
# tool, so its slow start cannot delay the kill) and sets holder_pid; hold_locks_of PID... hands it
# the tool processes' PIDs (a Slurm job's workers: several), waits until it holds their run locks,
# and scopes tool_containers (cgroup_kill.sh) to those runs; release_locks lets them go.
holder_pid= holder_dir=
start_lock_holder() {
  holder_dir=$1
  python3 "$(dirname "${BASH_SOURCE[0]}")/hold_run_locks.py" "$holder_dir/holder.pid" "$holder_dir/holder.runs" \
    2>"$holder_dir/holder.err" &
  holder_pid=$!
  wait_until 120 test -e "$holder_dir/holder.runs.ready" || fail "the lock holder did not start: $(cat "$holder_dir/holder.err")"
}
hold_locks_of() {
  [ $# -gt 0 ] || fail "hold_locks_of: no tool process named"
  echo "$*" > "$holder_dir/holder.pid"
  kill -USR1 "$holder_pid"
  until [ -s "$holder_dir/holder.runs" ]; do
    kill -0 "$holder_pid" 2>/dev/null || fail "the tool's run locks were not taken: $(cat "$holder_dir/holder.err")"
    sleep 0.005
  done
  TOOL_CONTAINERS_OF_RUNS=$(tr '\n' ' ' < "$holder_dir/holder.runs")
  echo "holding the locks of run(s) $TOOL_CONTAINERS_OF_RUNS"
}
# release_locks TOOL: the holder killed, and the dead runs it held swept at once (TOOL sweep), so
# no other test's check finds their directories. Both under leak_check_lock, held exclusive: the
# leak checks (orphan_sandboxes, orphan_run_dirs) hold it shared, so none lands in the moment the
# dead runs have no holder and are not swept yet (a label run's workers_lost once failed on a run
# directory that kill_everything_at_start, ending beside it, was about to sweep).
release_locks() {
  local lk
  [ -n "$holder_pid" ] || return 0
  exec {lk}>>"$leak_check_lock"
  flock -x "$lk"  # no other test's leak check sees the dead runs between the release and the sweep
  kill "$holder_pid" 2>/dev/null || true
  wait "$holder_pid" 2>/dev/null || true
  holder_pid=
  "$1" sweep >/dev/null 2>&1 || echo "the sweep after letting the locks go failed"
  exec {lk}>&-
}

# Fails when a tool that has exited left a container or a run directory.
expect_nothing_left() {
  local left
  left=$(orphan_sandboxes)
  [ -z "$left" ] || fail "container(s) left by a tool that has exited: $left"
  left=$(orphan_run_dirs)
  [ -z "$left" ] || fail "run directories left: $left"
}

# logged_soon FILE FROM TEXT: FILE, read from byte FROM, holds a line with TEXT (fixed) within 5 s.
# The warden logs a removal when the daemon's answer lands, a moment after the daemon stops listing
# the container: a test that saw it go waits for the line rather than racing it.
logged_soon() {
  local until=$((SECONDS + 5))
  until grep -qF -- "$3" <(tail -c +"$2" "$1"); do [ "$SECONDS" -lt "$until" ] || return 1; sleep 0.05; done
}

# create_labelled_sleeper NAME SECONDS: a container labelled as the tool labels a run (NAME is
# plb-sandbox-<run id>; due SECONDS after its creation) that sleeps, created through the Engine
# API (the docker CLI adds nothing the warden reads) and not started: for the warden's tests.
create_labelled_sleeper() {
  local id=${1#plb-sandbox-}
  printf '{"Image":"%s","Cmd":["sleep","600"],"Labels":{"plb-sandbox.run":"%s","plb-sandbox.expires-after":"%s"},"HostConfig":{"Runtime":"runsc","NetworkMode":"none"}}' \
    "$image" "$id" "$2" |
    curl -sf --unix-socket /var/run/docker.sock -X POST -H 'Content-Type: application/json' --data-binary @- \
      "http://docker/v1.41/containers/create?name=$1" >/dev/null || fail "could not create $1"
}
