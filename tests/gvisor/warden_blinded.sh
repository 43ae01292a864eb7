#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# warden_blinded.sh TOOL EXAMPLES_DIR: issue 33 item 3 on the real daemon. The warden listed the
# tool's containers in one answer capped at 4 MiB: four containers with 1.1 MB labels (the Engine
# API's POST /containers/create takes them; the docker CLI cannot pass a label over 128 KiB), or a
# few thousand leftovers, made every pass fail, and it removed nothing. Here, each time with a
# container of the tool's past its deadline (running under runsc):
#   A. many stopped containers carrying the run label and a 7 KB label, so the answer is larger
#      than 4 MiB by their number alone;
#   B. those, and four containers with 1.1 MB labels;
# the warden must remove the tool's container by its deadline + MARGIN, log no failed pass, and
# the sweep and a real run's preflight (the same typed call) must read the same list. Every
# container the test makes carries its own label and is removed on every way out.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
examples=$2
readonly many=${PLB_BLINDED_MANY:-600} margin=5 tag=plb-blinded-test
readonly log=/var/log/plb-sandbox-warden.log
api() { curl -sf --unix-socket /var/run/docker.sock "$@"; }
work=$(mktemp -d)
cleanup() {
  docker ps -aq --filter "label=$tag=$$" | xargs -r -n 64 docker rm -f >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

status=$("$tool" warden --status) || fail "no warden answers: $status"
pid=$(sed -n 's/^plb-sandbox-warden pid=\([0-9]*\) .*/\1/p' <<<"$status")
[ "$(readlink -f "/proc/$pid/exe")" = "$(readlink -f "$tool")" ] || fail "the warden (pid $pid) is not $tool's: ci/host/start-warden $tool"
log_from=$(($(stat -c %s "$log") + 1))

# A create request's body: LABELS (a JSON object's members) and CMD (a JSON array).
body() {
  printf '{"Image":"%s","Cmd":%s,"Labels":{"%s":"%s",%s},"HostConfig":{"Runtime":"runsc","NetworkMode":"none"}}' \
    "$image" "$2" "$tag" "$$" "$1"
}
create() {  # NAME BODY_FILE
  api -X POST -H 'Content-Type: application/json' --data-binary "@$2" \
    "http://docker/v1.41/containers/create?name=$1" >/dev/null || fail "could not create $1"
}
export -f create api fail
listed_bytes() {
  api 'http://docker/v1.41/containers/json?all=1&filters=%7B%22label%22%3A%5B%22plb-sandbox.run%22%5D%7D' | wc -c
}

# One container of the tool's (name and run label agree), running, due 3 s after its creation;
# the warden must remove it by then + MARGIN.
expect_overdue_removed() {  # PHASE
  local id name created
  id=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  name=plb-sandbox-$id
  body "\"plb-sandbox.run\":\"$id\",\"plb-sandbox.expires-after\":\"3\"" '["sleep","600"]' > "$work/ours.json"
  create "$name" "$work/ours.json"
  api -X POST "http://docker/v1.41/containers/$name/start" >/dev/null || fail "$1: could not start $name"
  created=$(date -d "$(docker inspect -f '{{.Created}}' "$name")" +%s)
  while docker container inspect "$name" >/dev/null 2>&1; do
    [ "$(date +%s)" -le "$((created + 3 + margin))" ] ||
      fail "$1: $name still exists $(($(date +%s) - created - 3)) s past its deadline: $(tail -c +"$log_from" "$log" | tail -n 3)"
    sleep 0.1
  done
  logged_soon "$log" "$log_from" "plb-sandbox warden: removed $name: " ||
    fail "$1: $name went, but the warden's log does not say it removed it"
  echo "$1: the warden removed $name within $(($(date +%s) - created - 3)) s of its deadline"
}

printf '"plb-sandbox.run":"stranger","pad":"%s"' "$(head -c 7000 /dev/zero | tr '\0' p)" > "$work/labels"
body "$(cat "$work/labels")" '["true"]' > "$work/stranger.json"
started=$(date +%s)
seq 1 "$many" | xargs -P 4 -I{} bash -c 'create "$0-{}" "$1"' "plb-blinded-$$" "$work/stranger.json"
echo "created $many labelled containers in $(($(date +%s) - started)) s"
bytes=$(listed_bytes)
[ "$bytes" -gt $((4 << 20)) ] || fail "the list is $bytes bytes: raise PLB_BLINDED_MANY past the old 4 MiB answer"
echo "A: the daemon's list of labelled containers is $bytes bytes"
expect_overdue_removed A

printf '"plb-sandbox.run":"huge","huge":"%s"' "$(head -c 1100000 /dev/zero | tr '\0' h)" > "$work/labels"
body "$(cat "$work/labels")" '["true"]' > "$work/huge.json"
for i in 1 2 3 4; do create "plb-blinded-$$-huge-$i" "$work/huge.json"; done
echo "B: the daemon's list is $(listed_bytes) bytes, four labels of 1.1 MB among them"
expect_overdue_removed B

if tail -c +"$log_from" "$log" | grep -E "cannot be read|does not answer|refuses to list"; then
  fail "a pass of the warden failed while the list was large"
fi
swept=$("$tool" sweep) || fail "sweep failed: $swept"
not_ours=$(grep -c '^not ours, left alone: container plb-blinded-' <<<"$swept" || true)
[ "$not_ours" = $((many + 4)) ] || fail "the sweep listed $not_ours of the $((many + 4)) strangers: $(tail -n 3 <<<"$swept")"
echo "the sweep read the same list: $not_ours strangers left alone"
model=$examples/model.py
"$tool" sandbox-score --model "$model" --model-sha256 "$(sha256sum "$model" | cut -d' ' -f1)" \
  --runtime-image "$image" --data "$examples/input.csv" --feature feature_a --feature feature_b \
  --task-type regression --output "$work/out.csv" >"$work/score.out" 2>&1 || fail "a run beside them failed: $(tail -n 3 "$work/score.out")"
echo "a real run's preflight (and its sweep) read the same list and scored"

cleanup
trap - EXIT
left=$(docker ps -aq --filter "label=$tag=$$")
[ -z "$left" ] || fail "containers left behind: $left"
echo "PASS: neither labels nor numbers blind the warden, the sweep or the preflight"
