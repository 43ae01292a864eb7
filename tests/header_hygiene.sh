#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Headers others vendor print nothing, never end the process and hold no mutable global state.
# A line that does any of these fails the test and is printed.
set -euo pipefail
dir=$1
bad=0
check() {  # check DESCRIPTION REGEX
  local hits
  hits=$(grep -rnE "$2" "$dir" --include='*.hpp' | grep -vE '^\S+:[0-9]+:\s*//' || true)
  if [ -n "$hits" ]; then echo "$1:"; echo "$hits"; bad=1; fi
}
check "prints" 'std::(cout|cerr|clog)|[^_]printf\(|puts\(|fwrite\(|std::print'
check "ends the process" 'std::(exit|abort|quick_exit|_Exit|terminate)\(|[^_:a-z]exit\(|[^_a-z]abort\('
check "mutable global or static state" '^(inline |static )?(std::[a-z_:<>]+|int|bool|double|char|auto) [a-z_]+ *(=|\{|;)|static (thread_local )?(std::|int |bool |double |char |auto )[^(]*(=|;)'
check "reads the environment" 'getenv\('
[ $bad -eq 0 ] && echo "headers: no printing, no exit, no mutable global state, no environment"
exit $bad
