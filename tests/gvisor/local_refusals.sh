#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# local_refusals.sh TOOL EXAMPLES_DIR: a request that its own files refuse spends nothing on the host
# (issue 33 item 6). A missing model, a wrong digest, a script over its limit, a missing data file and
# an output directory that may not be created (a chain of missing ones, issue 44) are each refused by the cheap local checks (`check_local_inputs`) before the reaper is
# forked, a CPU is leased or the docker client is started. Traced with strace: the tool must create no
# process (no fork, vfork or clone without CLONE_THREAD) and exec nothing but itself, and it must
# leave no run directory. A batch of such lines starts no docker client either. Before PASS, the
# checker itself must fail on a successful run's trace, which forks the reaper and execs the client:
# a checker that cannot fail proves nothing.
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh"
tool=$1
examples=$(cd "$2" && pwd)
command -v strace >/dev/null || fail "strace is not installed (ci/host/setup-host installs it)"
work=$(mktemp -d -p "$test_root" refusals.XXXXXX)
trap 'rm -rf "$work"' EXIT
model=$examples/model.py
sha=$(sha256sum "$model" | cut -d' ' -f1)
flags=(--runtime-image "$image" --feature feature_a --feature feature_b --id-column sample_id --task-type regression)

traced() {  # TRACE COMMAND...: runs COMMAND under strace (process creation and exec only)
  local out=$1; shift
  strace -f -q -e trace=execve,fork,vfork,clone,clone3 -e signal=none -o "$out" "$@"
}
spent() {  # TRACE: prints what the traced command spent on the host: processes created, programs run
  grep -E ' (fork|vfork)\(' "$1" || true
  grep -E ' clone3?\(' "$1" | grep -v CLONE_THREAD || true
  grep -E ' execve\(' "$1" | tail -n +2 || true   # the first is the tool itself
}

printf 'print(1)\n' >"$work/other.py"
printf '#%*s\n' $((9 << 20)) '' >"$work/big.py"
big_sha=$(sha256sum "$work/big.py" | cut -d' ' -f1)
cases=(
  "missing model|--model $work/absent.py --model-sha256 $sha --data $examples/input.csv --output $work/out.csv"
  "wrong digest|--model $work/other.py --model-sha256 $sha --data $examples/input.csv --output $work/out.csv"
  "script over its limit|--model $work/big.py --model-sha256 $big_sha --data $examples/input.csv --output $work/out.csv"
  "missing data|--model $model --model-sha256 $sha --data $work/absent.csv --output $work/out.csv"
  "missing output directories|--model $model --model-sha256 $sha --data $examples/input.csv --output $work/absent/deeper/out.csv"
)
i=0
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a args <<<"${c#*|}"
  i=$((i + 1))
  set +e
  traced "$work/trace.$i" "$tool" sandbox-score "${args[@]}" "${flags[@]}" >/dev/null 2>"$work/err.$i"
  rc=$?
  set -e
  [ "$rc" = 4 ] || [ "$rc" = 2 ] || { cat "$work/err.$i"; fail "$name: exit $rc, not a refusal (4 or 2)"; }
  [ -z "$(spent "$work/trace.$i")" ] || { spent "$work/trace.$i"; fail "$name: refused only after spending the above"; }
  [ ! -e "$work/out.csv" ] && [ ! -e "$work/absent" ] || fail "$name: wrote an output"
  echo "ok: $name refused (exit $rc) with no process created and nothing run"
done

# The checker must be able to fail: a run that succeeds forks its reaper and execs its client.
traced "$work/trace.ok" "$tool" sandbox-score --model "$model" --model-sha256 "$sha" --data "$examples/input.csv" \
  "${flags[@]}" --output "$work/ok.csv" >/dev/null || fail "the successful run failed"
[ -n "$(spent "$work/trace.ok")" ] || fail "the checker saw nothing spent by a successful run: it cannot fail"
grep -qE 'execve\("[^"]*/docker"' "$work/trace.ok" || fail "the batch's check sees no docker client in a successful run"

# A batch of such lines (its preflight's gVisor proof warm from the run above): no docker client
# for any of them.
for id in a b c; do
  printf '{"id": "bad-%s", "model": "%s", "model_sha256": "%s"}\n' "$id" "$work/other.py" "$sha"
done >"$work/manifest.jsonl"
set +e
strace -f -q -e trace=execve -e signal=none -o "$work/batch.trace" "$tool" batch --manifest "$work/manifest.jsonl" \
  --output-dir "$work/batch" --data "$examples/input.csv" "${flags[@]}" --jobs 2 >/dev/null 2>"$work/batch.err"
set -e
[ "$(grep -c ',input_refused,' "$work/batch/batch-summary.csv" 2>/dev/null)" = 3 ] \
  || { cat "$work/batch.err" "$work/batch/batch-summary.csv" 2>/dev/null; fail "the batch did not refuse its 3 lines"; }
! grep -E 'execve\("[^"]*/docker"' "$work/batch.trace" || fail "the batch started a docker client for refused lines"
echo "ok: a batch of 3 refused lines started no docker client"

# Other tests' live runs may have directories now; none whose tool has exited may (prelude.sh).
left=$(orphan_run_dirs)
[ -z "$left" ] || fail "a refused run left a run directory: $left"

echo "PASS"
