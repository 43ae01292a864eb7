#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# guest_threads.sh TOOL EXAMPLES_DIR: the guest's thread pools stay within its process limit on a
# host of any size (issue 31 item 4; limits.hpp, "The guest's threads").
# - The premise of the bound: the guest sees the CPUs of the run's cpuset, not the host's. A script
#   reports os.cpu_count() and its affinity; both must be the CPU count the provenance's cpuset names,
#   one at the spec's default, on a host with more CPUs than that.
# - The limit the bound keeps to is enforced: the guest's 64 processes refuse the thread past them
#   (counted by the script), and a script that does not catch that refusal is script_failed in
#   seconds.
# - Real libraries asking for more than they were given never hang: torch with set_num_threads(64)
#   and a scikit-learn forest with n_jobs=-1 (on the ML image) succeed or get script_failed, within
#   their wall time.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
examples=$2
ml_image=${PLB_SANDBOX_ML_IMAGE:-$(cat /var/lib/plb-sandbox/runtime-image-ml.id 2>/dev/null || true)}
case_name=guest_threads
[ -n "$ml_image" ] || fail "no ML image: run ci/host/setup-host --ml-image (or set PLB_SANDBOX_ML_IMAGE)"
[ "$(nproc)" -ge 2 ] || fail "needs a host with more CPUs than the run's one to show the guest sees its own"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# score NAME IMAGE: scores $work/NAME.py on the bundled data at the spec's defaults; the --json
# summary in $work/NAME.json, the exit code in $work/NAME.rc.
score() {
  local name=$1 img=$2 rc=0
  "$tool" sandbox-score --model "$work/$name.py" --model-sha256 "$(sha256sum "$work/$name.py" | cut -d' ' -f1)" \
    --runtime-image "$img" --data "$examples/input.csv" --feature feature_a --feature feature_b \
    --task-type regression --output "$work/$name.csv" --json >"$work/$name.json" 2>"$work/$name.err" || rc=$?
  echo "$rc" >"$work/$name.rc"
  echo "$name: $(jq -r '"\(.verdict), script \(.usage.wall_seconds // "-") s: \(.message)"' "$work/$name.json")"
}
verdict() { jq -r .verdict "$work/$1.json"; }

cat >"$work/cpus.py" <<'EOF'
import json, os, sys
rows = json.load(sys.stdin)["features"]
seen = os.cpu_count() * 1000 + len(os.sched_getaffinity(0))
print(json.dumps({"predictions": [seen for r in rows]}))
EOF
score cpus "$image"
[ "$(verdict cpus)" = success ] || fail "cpus: $(cat "$work/cpus.err")"
cpuset=$(jq -r .cpuset "$work/cpus.csv.sandbox.json")
pinned=$(python3 -c 'import sys
n = 0
for part in sys.argv[1].split(","):
    lo, _, hi = part.partition("-")
    n += int(hi or lo) - int(lo) + 1
print(n)' "$cpuset")
[ "$pinned" = 1 ] || fail "the spec's one CPU was pinned as $cpuset ($pinned CPUs)"
got=$(tail -n +2 "$work/cpus.csv" | cut -d, -f2 | sort -u)
[ "$got" = "$((pinned * 1000 + pinned))" ] ||
  fail "the guest saw cpu_count*1000+affinity = $got on a run pinned to $cpuset; host CPUs: $(nproc)"
echo "the guest sees the $pinned CPU of its cpuset ($cpuset), not the host's $(nproc)"

# Threads until the guest's RLIMIT_NPROC refuses one: counted (the script catches the refusal and
# answers with the count; stderr is discarded, so the count is how the test sees the limit), and
# uncaught (a clear script_failed in seconds, not a hang).
cat >"$work/threads_counted.py" <<'EOF'
import json, sys, threading
rows = json.load(sys.stdin)["features"]
stop = threading.Event()
started = 0
try:
    for i in range(200):
        threading.Thread(target=stop.wait, daemon=True).start()  # daemon: the exit waits for none
        started += 1
except RuntimeError:
    pass  # can't start new thread
print(json.dumps({"predictions": [float(started) for r in rows]}))
EOF
sed 's/^except RuntimeError:$/except ImportError:/' "$work/threads_counted.py" >"$work/threads.py"
score threads_counted "$image"
[ "$(verdict threads_counted)" = success ] || fail "threads_counted: $(verdict threads_counted)"
started=$(tail -n +2 "$work/threads_counted.csv" | cut -d, -f2 | sort -u)
started=${started%.0}
[ "$started" -lt 64 ] && [ "$started" -ge 32 ] ||
  fail "the guest started $started threads beside its main one under a 64-process limit"
echo "the guest's RLIMIT_NPROC of 64 refused thread $((started + 1)) beside the interpreter's own"
score threads "$image"
[ "$(verdict threads)" = script_failed ] || fail "an uncaught refusal of a thread: $(verdict threads), expected script_failed"

cat >"$work/torch64.py" <<'EOF'
import json, sys
import torch
rows = json.load(sys.stdin)["features"]
torch.set_num_threads(64)  # more than the one CPU it was given
x = torch.randn(512, 512)
for _ in range(20):
    x = torch.tanh(x @ x / 512)
print(json.dumps({"predictions": [float(torch.get_num_threads()) for r in rows]}))
EOF
cat >"$work/forest.py" <<'EOF'
import json, sys
import numpy as np
from sklearn.ensemble import RandomForestRegressor
rows = json.load(sys.stdin)["features"]
X = np.random.RandomState(0).rand(300, 2)
model = RandomForestRegressor(n_estimators=32, n_jobs=-1, random_state=0).fit(X, X.sum(axis=1))
print(json.dumps({"predictions": [float(p) for p in model.predict(np.array(rows))]}))
EOF
for name in torch64 forest; do
  score "$name" "$ml_image"
  case "$(verdict "$name")" in
    success|script_failed) ;;
    *) fail "$name: $(verdict "$name"), expected success or script_failed: $(tail -3 "$work/$name.err")" ;;
  esac
done
[ "$(verdict forest)" = success ] || fail "a forest with n_jobs=-1 on one CPU: $(tail -3 "$work/forest.err")"
expect_nothing_left
echo "PASS: the guest sees its cpuset's CPUs; past its process limit a thread fails clearly; torch at 64 threads: $(verdict torch64); forest n_jobs=-1: success"
