#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# warden_clock_stepped.sh TOOL HOST_SCRIPTS (ci/host): issue 33 item 5 on the real daemon, the
# machine's clock untouched: the warden runs with its own view of the wall clock an hour behind
# (libfaketime, the Debian package faketime: CLOCK_REALTIME only, the monotonic clocks left alone),
# as after a backward step. A running container of the tool's, due 3 s after its creation, must still be
# removed by the warden within MARGIN of that (by the monotonic bound: first seen + label); by the
# wall clock alone it would live an hour. The build's supervised warden is started again on every
# way out.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
host_scripts=$2
readonly margin=5 preload=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
api() { curl -sf --unix-socket /var/run/docker.sock "$@"; }
[ -f "$preload" ] || fail "no $preload: install the faketime package (ci/host/setup-host does)"
work=$(mktemp -d)
stepped= name=
cleanup() {
  [ -n "$name" ] && docker rm -f "$name" >/dev/null 2>&1
  [ -n "$stepped" ] && kill "$stepped" 2>/dev/null && wait "$stepped" 2>/dev/null
  bash "$host_scripts/start-warden" "$tool" >/dev/null 2>&1 || echo "could not start the warden again"
  rm -rf "$work"
}
trap cleanup EXIT

behind=$(FAKETIME=-1h LD_PRELOAD=$preload date +%s)
[ $(($(date +%s) - behind)) -ge 3590 ] || fail "libfaketime does not step the wall clock here"
# Whichever warden answers is stopped (SIGTERM: its supervisor, if any, stops with it).
running=$("$tool" warden --status 2>/dev/null | sed -n 's/^plb-sandbox-warden pid=\([0-9]*\) .*/\1/p' || true)
if [ -n "$running" ]; then
  kill -TERM "$running"
  for _ in $(seq 1 50); do [ -e "/proc/$running" ] || break; sleep 0.1; done
fi
[ -z "$("$tool" warden --status 2>/dev/null)" ] || fail "a warden still answers after SIGTERM"
FAKETIME=-1h FAKETIME_DONT_FAKE_MONOTONIC=1 LD_PRELOAD=$preload setsid "$tool" warden >"$work/warden.log" 2>&1 </dev/null &
stepped=$!
for _ in $(seq 1 100); do "$tool" warden --status >/dev/null 2>&1 && break; sleep 0.1; done
"$tool" warden --status >/dev/null || fail "the stepped warden does not answer: $(cat "$work/warden.log")"

name=plb-sandbox-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
create_labelled_sleeper "$name" 3
api -X POST "http://docker/v1.41/containers/$name/start" >/dev/null || fail "could not start $name"
created=$(date -d "$(docker inspect -f '{{.Created}}' "$name")" +%s)
while docker container inspect "$name" >/dev/null 2>&1; do
  [ "$(date +%s)" -le $((created + 3 + margin)) ] ||
    fail "$name still exists $(($(date +%s) - created - 3)) s past its deadline under a wall clock an hour behind: $(cat "$work/warden.log")"
  sleep 0.1
done
logged_soon "$work/warden.log" 1 "plb-sandbox warden: removed $name: " || fail "$name went, but not by the warden: $(cat "$work/warden.log")"
name=
echo "the warden, its wall clock an hour behind, removed the container $(($(date +%s) - created - 3)) s past its deadline"
echo "PASS: a backward clock step postpones no deadline"
