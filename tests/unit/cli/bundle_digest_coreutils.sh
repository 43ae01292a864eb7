#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# docs/bundles.md's coreutils one-liner and `plb-sandbox bundle-digest` agree on a real bundle:
# several files, nested directories, names with spaces, non-ASCII UTF-8, an empty file, an empty
# directory, a name that sorts differently by bytes than by directory ("a-b" < "a/b" < "a0"), and a
# file larger than the tool's read buffer. --list prints exactly the listing the one-liner hashes.
# Then a bundle the tool refuses (a symbolic link) exits 4, input_refused, naming the entry.
# Usage: bundle_digest_coreutils.sh PLB_SANDBOX DOCS_BUNDLES_MD
set -euo pipefail
tool=$1
doc=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

b=$work/bundle
mkdir -p "$b/weights/layer 1" "$b/a" "$b/empty dir" "$b/caf$(printf '\xc3\xa9')"
printf '{"features": ["x", "y"]}\n' >"$b/config.json"
head -c 3000000 /dev/urandom >"$b/weights/layer 1/w.bin"
: >"$b/weights/empty.bin"
printf 'x' >"$b/a/b"
printf 'y' >"$b/a-b"
printf 'z' >"$b/a0"
printf 'name with  two spaces\n' >"$b/name with  two spaces.txt"
printf 'e' >"$b/caf$(printf '\xc3\xa9')/f"

# The one-liner, exactly as the documentation prints it (the fenced block after its marker).
oneliner=$(awk '/<!-- one-liner -->/{found=1; next} found && /^```sh/{inside=1; next} inside && /^```/{exit} inside' "$doc")
[[ -n "$oneliner" ]] || { echo "no one-liner found in $doc" >&2; exit 1; }
listing_of() { (cd "$1" && find . -type f -printf '%P\0' | LC_ALL=C sort -z |
  while IFS= read -r -d '' f; do printf '%s  %s  %s\n' "$(sha256sum <"$f" | cut -c1-64)" "$(stat -c %s -- "$f")" "$f"; done); }

expected=$(DIR=$b bash -c "$oneliner")
got=$("$tool" bundle-digest "$b")
echo "one-liner: $expected"
echo "tool:      $got"
[[ "$expected" =~ ^[0-9a-f]{64}$ ]] || { echo "the one-liner printed no digest" >&2; exit 1; }
[[ "$got" == "$expected" ]] || { echo "the tool and the one-liner disagree" >&2; exit 1; }

# --list is the listing the digest is the SHA-256 of, byte for byte.
"$tool" bundle-digest --list "$b" >"$work/listing"
listing_of "$b" >"$work/expected-listing"
cmp "$work/listing" "$work/expected-listing" || { echo "--list differs from the listing" >&2; diff "$work/listing" "$work/expected-listing" >&2; exit 1; }
[[ "$(sha256sum <"$work/listing" | cut -c1-64)" == "$got" ]] || { echo "the digest is not the listing's SHA-256" >&2; exit 1; }
[[ $(wc -l <"$work/listing") -eq 8 ]] || { echo "expected 8 files in the listing" >&2; exit 1; }

# A changed byte changes the digest.
printf 'X' >"$b/a/b"
[[ "$("$tool" bundle-digest "$b")" != "$got" ]] || { echo "a changed byte kept the digest" >&2; exit 1; }

# A refused bundle: exit 4 (input_refused), the entry named, nothing on stdout.
ln -s /etc/shadow "$b/weights/stolen"
set +e
out=$("$tool" bundle-digest "$b" 2>"$work/err")
code=$?
set -e
[[ $code -eq 4 && -z "$out" ]] || { echo "a symbolic link: exit $code, stdout '$out'" >&2; exit 1; }
grep -q "weights/stolen: a symbolic link" "$work/err" || { cat "$work/err" >&2; exit 1; }
rm "$b/weights/stolen"

# The bounds are flags: the count bound below the bundle's entries refuses it.
set +e
"$tool" bundle-digest --bundle-files 3 "$b" >/dev/null 2>"$work/err"
code=$?
set -e
[[ $code -eq 4 ]] && grep -q "bundle_files" "$work/err" || { echo "--bundle-files 3: exit $code" >&2; cat "$work/err" >&2; exit 1; }
echo "bundle-digest: the one-liner and the tool agree"
