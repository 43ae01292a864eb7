#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On a terminal, a run longer than a second shows one updating status line on stderr, and clears
# it before the tool's own last line. Uses script(1) for the terminal.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'import json, sys, time\nrows = json.load(sys.stdin)["features"]\ntime.sleep(2.5)\nprint(json.dumps({"predictions": [r[0] for r in rows]}))\n' > "$dir/model.py"
printf 'a\n1\n' > "$dir/data.csv"
cmd="$tool sandbox-score --model $dir/model.py --model-sha256 $(sha256sum "$dir/model.py" | cut -d' ' -f1) \
  --runtime-image $image --data $dir/data.csv --feature a --task-type regression --output $dir/out.csv"
script -q -e -c "$cmd" "$dir/typescript" >/dev/null
grep -q 'running in gVisor, [1-9]\.[0-9] s of 30 s' "$dir/typescript" || { echo "FAIL: no status line"; cat -v "$dir/typescript"; exit 1; }
grep -q $'\r\e\[K' "$dir/typescript" || { echo "FAIL: the status line was not cleared"; exit 1; }
[ -f "$dir/out.csv" ] || { echo "FAIL: the run did not succeed"; exit 1; }
echo "PASS: status line shown on a terminal and cleared"
