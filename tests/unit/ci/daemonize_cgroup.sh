#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# daemonize_cgroup.sh DAEMONIZE: issue 33 item 9. ci/host/daemonize's own cgroup on trees shaped as the
# kernel mounts them, built in a temporary directory (this VM is cgroup v1 and cannot switch):
#   - v2 (unified): one plb-sandbox-daemons at the top, and none inside system.slice or any
#     other child cgroup (they are cgroups, not hierarchies), no cpuset copying;
#   - v1 (hybrid, as here): one in each hierarchy, the unified one too, a cpuset given its
#     parent's CPUs and memory nodes, a symlinked hierarchy entered once.
set -euo pipefail
daemonize=$1
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

v2=$work/v2
mkdir -p "$v2/system.slice/docker.service" "$v2/user.slice" "$v2/init.scope"
echo "cpuset cpu io memory pids" > "$v2/cgroup.controllers"
for d in "$v2" "$v2/system.slice" "$v2/system.slice/docker.service" "$v2/user.slice" "$v2/init.scope"; do
  : > "$d/cgroup.procs"
done
echo 0-3 > "$v2/cpuset.cpus.effective"
bash "$daemonize" --join-cgroup "$v2" 4242
[ "$(cat "$v2/plb-sandbox-daemons/cgroup.procs" 2>/dev/null)" = 4242 ] || fail "v2: the daemon is not in $v2/plb-sandbox-daemons"
made=$(find "$v2" -name plb-sandbox-daemons | sort)
[ "$made" = "$v2/plb-sandbox-daemons" ] || fail "v2: cgroups made besides the top one: $made"
[ ! -e "$v2/plb-sandbox-daemons/cpuset.cpus" ] || fail "v2: a cpuset was written (v2's empty cpuset inherits)"

v1=$work/v1
for h in blkio cpu,cpuacct cpuset freezer memory pids systemd unified; do mkdir -p "$v1/$h"; : > "$v1/$h/cgroup.procs"; done
ln -s cpu,cpuacct "$v1/cpu"
echo 0-1 > "$v1/cpuset/cpuset.cpus"
echo 0 > "$v1/cpuset/cpuset.mems"
echo "" > "$v1/unified/cgroup.controllers"   # the hybrid's unified tree, no controllers
bash "$daemonize" --join-cgroup "$v1" 4242
for h in blkio cpu,cpuacct cpuset freezer memory pids systemd unified; do
  [ "$(cat "$v1/$h/plb-sandbox-daemons/cgroup.procs" 2>/dev/null)" = 4242 ] || fail "v1: not in $h's plb-sandbox-daemons"
done
[ "$(cat "$v1/cpuset/plb-sandbox-daemons/cpuset.cpus")" = 0-1 ] || fail "v1: the cpuset has no CPUs"
[ "$(cat "$v1/cpuset/plb-sandbox-daemons/cpuset.mems")" = 0 ] || fail "v1: the cpuset has no memory nodes"
[ "$(find "$v1" -name plb-sandbox-daemons | wc -l)" = 8 ] || fail "v1: $(find "$v1" -name plb-sandbox-daemons)"
echo "PASS: ci/host/daemonize joins one cgroup on v2 and one per hierarchy on v1"
