#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The report of a real batch (the example manifest, plus scripts whose stdout and stderr carry
# markup and a marker, and one that times out) in headless
# Chromium, started here: a row per line, verdict counts equal to the summary's, sorting, paging,
# charts whose axis fits the data (the highest bar fills most of its chart), each line's
# --keep-stderr file named, never shown; nothing loaded from outside; the screenshot is kept as the test's artifact.
#   report_chromium.sh TOOL chromium EXAMPLES_DIR ARTIFACTS_DIR
source "$(dirname "${BASH_SOURCE[0]}")/batch_common.sh"
artifacts=$4
command -v chromium >/dev/null || fail "chromium is not installed (ci/host/setup-host installs it)"
# The example's submissions, and three more: markup on stdout (output_rejected), on stderr then
# exit 3 (script_failed), and a sleep past its 1 s limit (timeout).
# The round's directory name is markup too: the manifest's path reaches the page's header, escaped.
round="$work/round<i>&amp;"
mkdir "$round"
cp "$examples"/batch/*.py "$manifest" "$round/"
manifest=$round/manifest.jsonl
marker='<img src=x onerror=alert(1)>PLB-MARKER'
printf 'print("%s-STDOUT")\n' "$marker" > "$round/markup_out.py"
printf 'import sys\nsys.stderr.write("%s-STDERR")\nsys.exit(3)\n' "$marker" > "$round/markup_err.py"
printf 'import time\ntime.sleep(5)\n' > "$round/slow.py"
for s in markup_out markup_err slow; do
  extra=''; [ $s = slow ] && extra=', "seconds": 1'
  printf '{"id": "team-%s", "model": "%s.py", "model_sha256": "%s"%s}\n' "${s/_/-}" "$s" \
    "$(sha256sum "$round/$s.py" | cut -d' ' -f1)" "$extra" >> "$manifest"
done
out=$work/out
rc=0; "$tool" batch --manifest "$manifest" --output-dir "$out" "${defaults[@]}" --jobs 2 --keep-stderr > "$work/stdout" || rc=$?
[ $rc = 0 ] || fail "batch exit $rc"
report=$out/batch-report.html
grep -q "^report: $report$" "$work/stdout" || fail "stdout: $(cat "$work/stdout")"
[ "$(stat -c %a "$report")" = 600 ] || fail "report mode $(stat -c %a "$report")"
! grep -q '://' "$report" || fail "the report names a URL"
jq -e '.counts == {"success": 2, "script_failed": 2, "output_rejected": 2, "timeout": 1}' "$out/batch-summary.json" \
  > /dev/null || fail "verdicts: $(jq -c .counts "$out/batch-summary.json")"
# No byte of a script's output reaches the page.
! grep -q 'PLB-MARKER\|onerror' "$report" || fail "a script's output reached the report"
# --keep-stderr: the marker is in the operator's file, which the page names and never shows.
grep -q 'PLB-MARKER-STDERR' "$out/team-markup-err.stderr" || fail "no marker in team-markup-err.stderr"
grep -q '<span class="diag"[^>]*>team-markup-err.stderr</span>' "$report" || fail "the report does not name the file"
# `report DIR` writes the same page again; --no-report writes none.
before=$(sha256sum < "$report")
"$tool" report "$out" > /dev/null || fail "report exit $?"
[ "$before" = "$(sha256sum < "$report")" ] || fail "report DIR wrote another page"
"$tool" batch --manifest "$manifest" --output-dir "$work/quiet" "${defaults[@]}" --no-report > /dev/null
[ ! -e "$work/quiet/batch-report.html" ] || fail "--no-report wrote a report"
mkdir -p "$artifacts"
python3 "$(dirname "${BASH_SOURCE[0]}")/report_cdp.py" "$(command -v chromium)" "$report" "$out/batch-summary.json" \
  "$artifacts/batch-report.png" || exit 1
[ -s "$artifacts/batch-report.png" ] || fail "no screenshot"
no_containers_left
echo "PASS: the report of a real batch in Chromium; screenshot $artifacts/batch-report.png"
