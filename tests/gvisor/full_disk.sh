#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# full_disk.sh TOOL EXAMPLES_DIR (issue 33 item 7): an output directory on a file system with no
# free blocks, or no free inodes, is refused before the run (exit 2, the directory, the bytes or
# inodes needed and free, and the fix named): no container is created and nothing is written
# there. The same run with room succeeds. Each file system is a real tmpfs, unmounted on every
# way out.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
examples=$2
work=$(mktemp -d)
mounts=()
on_exit() {
  local rc=$? m
  set +e
  for m in "${mounts[@]}"; do umount "$m" || { echo "FAIL: cannot unmount $m"; [ "$rc" -ne 0 ] || rc=1; }; done
  for m in "${mounts[@]}"; do ! mountpoint -q "$m" || { echo "FAIL: $m is still mounted"; [ "$rc" -ne 0 ] || rc=1; }; done
  rm -rf "$work"
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM

tmpfs() {  # tmpfs NAME OPTIONS: a fresh tmpfs at $work/NAME
  mkdir "$work/$1"
  mount -t tmpfs -o "$2" "plb-full-disk-test" "$work/$1"
  mounts+=("$work/$1")
}
model=$examples/model.py
score_args=(sandbox-score --model "$model" --model-sha256 "$(sha256sum "$model" | cut -d' ' -f1)"
  --runtime-image "$image" --data "$examples/input.csv" --feature feature_a --feature feature_b --task-type regression)
score() { "$tool" "${score_args[@]}" --output "$1"; }  # score OUTPUT
expect_refused() {  # expect_refused WHAT DIR PATTERN
  local out rc since before
  since=$(date +%s)
  before=$(ls -A "$2")
  "$tool" "${score_args[@]}" --output "$2/out.csv" >"$work/said" 2>&1 &  # its PID is the tool's
  local pid=$!
  rc=0; wait $pid || rc=$?
  out=$(cat "$work/said")
  [ "$rc" -eq 2 ] || { echo "FAIL ($1): sandbox-score exited $rc, expected 2: $out"; exit 1; }
  for p in "output directory $2" "$3" "free space there"; do
    grep -qF "$p" <<<"$out" || { echo "FAIL ($1): sandbox-score did not say: $p; said: $out"; exit 1; }
  done
  [ "$(ls -A "$2")" = "$before" ] || { echo "FAIL ($1): something was written in $2: $(ls -A "$2")"; exit 1; }
  local made; made=$(created_since "$since" $pid)
  [ -z "$made" ] || { echo "FAIL ($1): a container was created: $made"; exit 1; }
  echo "refused ($1): $out"
}

# No free blocks: a 1 MiB tmpfs filled to its last byte.
tmpfs full size=1m
dd if=/dev/zero of="$work/full/fill" bs=4k 2>/dev/null || true
[ "$(stat -f -c %a "$work/full")" -eq 0 ] || { echo "FAIL: the tmpfs is not full"; exit 1; }
expect_refused "no free blocks" "$work/full" "bytes needed, 0 free"

# Room enough for bytes, but one free inode where the two outputs need two (with none, the output
# check's own O_TMPFILE probe already refuses the directory).
tmpfs one_inode size=64m,nr_inodes=16
for i in $(seq 1 64); do touch "$work/one_inode/f$i" 2>/dev/null || break; done
rm "$work/one_inode/f1"
[ "$(stat -f -c %d "$work/one_inode")" -eq 1 ] || { echo "FAIL: the tmpfs has not exactly one inode left"; exit 1; }
expect_refused "one free inode" "$work/one_inode" "2 inodes needed, 1 free"

# With room, the same run is published there.
tmpfs roomy size=64m
score "$work/roomy/out.csv" >/dev/null 2>&1 || { echo "FAIL: a run with room failed: $(score "$work/roomy/again.csv" 2>&1)"; exit 1; }
[ -s "$work/roomy/out.csv" ] && [ -s "$work/roomy/out.csv.sandbox.json" ] || { echo "FAIL: no outputs with room"; exit 1; }
echo "PASS: a full disk is refused before the run, and a roomy one is used"
