#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# unsafe_state_dirs.sh TOOL EXAMPLES_DIR: each state directory made writable by others (and the
# cache replaced by a symlink) must make both sandbox-score and doctor refuse the host (exit 3)
# with the directory and the fix named. Every mode and path is put back on every way out.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
examples=$2
dirs=(/var/lib/plb-sandbox /var/lib/plb-sandbox/runs /var/cache/plb-sandbox)
"$tool" doctor >/dev/null 2>&1 || true   # creates any that is missing, with its mode
declare -A modes
for d in "${dirs[@]}"; do modes[$d]=$(stat -c %a "$d"); done
work=$(mktemp -d)
moved=/var/cache/plb-sandbox.moved-by-test.$$
restore() {
  if [ -L /var/cache/plb-sandbox ] && [ -d "$moved" ]; then rm -f /var/cache/plb-sandbox; mv "$moved" /var/cache/plb-sandbox; fi
  for d in "${dirs[@]}"; do chmod "${modes[$d]}" "$d"; done
}
# What restore() must have achieved, read back from the file system: each directory real (not a
# symlink) with the mode it had at the start, and the moved cache gone.
restored() {
  local d ok=0
  for d in "${dirs[@]}"; do
    if [ -L "$d" ] || [ ! -d "$d" ]; then echo "FAIL: $d is not a real directory after the restore"; ok=1
    elif [ "$(stat -c %a "$d")" != "${modes[$d]}" ]; then
      echo "FAIL: $d has mode $(stat -c %a "$d") after the restore, expected ${modes[$d]}"; ok=1
    fi
  done
  [ ! -e "$moved" ] || { echo "FAIL: $moved is still there"; ok=1; }
  return $ok
}
# Every way out restores; one that does not hold makes the exit status non-zero whatever it was.
on_exit() {
  local rc=$?
  set +e
  restore; restored || { [ "$rc" -ne 0 ] || rc=1; }
  rm -rf "$work"
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM

model=$examples/model.py
score() {
  "$tool" sandbox-score --model "$model" --model-sha256 "$(sha256sum "$model" | cut -d' ' -f1)" \
    --runtime-image "$image" --data "$examples/input.csv" --feature feature_a --feature feature_b \
    --task-type regression --output "$work/out-$RANDOM.csv"
}
expect_refused() {  # expect_refused WHAT PATTERN
  local out rc
  set +e; out=$(score 2>&1); rc=$?; set -e
  [ "$rc" -eq 3 ] || { echo "FAIL ($1): sandbox-score exited $rc, expected 3: $out"; exit 1; }
  grep -q "$2" <<<"$out" || { echo "FAIL ($1): sandbox-score did not say: $2; said: $out"; exit 1; }
  set +e; out=$("$tool" doctor 2>&1); rc=$?; set -e
  [ "$rc" -eq 3 ] || { echo "FAIL ($1): doctor exited $rc, expected 3"; exit 1; }
  grep -q "state directories  *FAIL  *$2" <<<"$out" || { echo "FAIL ($1): doctor did not say: $2; said: $out"; exit 1; }
  echo "refused ($1)"
}

for d in "${dirs[@]}"; do
  chmod o+w "$d"
  expect_refused "$d world-writable" "$d is writable by group or others"
  restore
  restored || exit 1
done
mv /var/cache/plb-sandbox "$moved"
ln -s "$moved" /var/cache/plb-sandbox
expect_refused "cache is a symlink" "/var/cache/plb-sandbox is not a real directory"
restore
restored || exit 1
# And the host is accepted again once they are mended.
score >/dev/null 2>&1 || { echo "FAIL: a run after restoring the directories failed"; exit 1; }
echo "PASS: unsafe state directories are refused"
