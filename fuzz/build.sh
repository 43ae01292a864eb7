#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fuzz/build.sh [TARGET...]: builds the fuzz targets the way OSS-Fuzz and ClusterFuzzLite build a
# project, so their build step can run it unchanged. It reads:
#   CXX, CXXFLAGS        the compiler and its flags (sanitizers and -fsanitize=fuzzer-no-link included)
#   LIB_FUZZING_ENGINE   what links the engine: "-fsanitize=fuzzer" (libFuzzer) or a library path
#   OUT                  where the binaries and their files go
#   WORK                 scratch space for the CMake build (a temporary directory when unset)
#   SRC                  unused: the sources are this script's checkout
# and writes, per target NAME of fuzz/CMakeLists.txt (all of them unless TARGETs are given):
#   $OUT/NAME_fuzzer                   the binary
#   $OUT/NAME_fuzzer_seed_corpus.zip   corpus/NAME/, flat
#   $OUT/NAME_fuzzer.dict              fuzz/NAME.dict, and NAME_fuzzer.options naming it
# fuzz/build.sh --list prints the target names, read from fuzz/CMakeLists.txt: the one list there is.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The names in the core_targets and tool_targets lists of fuzz/CMakeLists.txt, one a line.
list_targets() {
  local lists
  lists=$(sed -nE 's/^set\((core|tool)_targets ([^)]*)\)$/\2/p' "$root/fuzz/CMakeLists.txt")
  # Both lists, or the file changed shape and this parse would silently drop targets.
  [ "$(printf '%s\n' "$lists" | grep -c .)" -eq 2 ] || {
    echo "fuzz/build.sh: expected set(core_targets ...) and set(tool_targets ...) in fuzz/CMakeLists.txt" >&2
    exit 1
  }
  printf '%s\n' $lists
}

if [ "${1:-}" = --list ]; then list_targets; exit 0; fi

: "${CXX:?set CXX (e.g. clang++)}" "${LIB_FUZZING_ENGINE:?set LIB_FUZZING_ENGINE (e.g. -fsanitize=fuzzer)}"
: "${OUT:?set OUT (where the binaries go)}"
CXXFLAGS=${CXXFLAGS:-}
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < <(list_targets); fi
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
build=$WORK/plb-sandbox-fuzz

# No CMAKE_BUILD_TYPE: the optimisation and debug flags are CXXFLAGS', as OSS-Fuzz wants. The runner
# and batch libraries build too (the tool targets link them), under the same flags; tests,
# benchmarks and the executable do not. Boost, OpenSSL and cpp-httplib are linked as CMake finds
# them: where the fuzzers run in another image than the one that built them (OSS-Fuzz's runner),
# the building image provides them static (SECURITY.md, "Running the suites").
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DPLB_SANDBOX_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DPLB_SANDBOX_BUILD_TESTS=OFF \
  -DPLB_SANDBOX_BUILD_BENCHMARKS=OFF -DPLB_SANDBOX_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/%/_fuzzer}"

mkdir -p "$OUT"
for name in "${targets[@]}"; do
  fuzzer=${name}_fuzzer
  cp "$build/fuzz/$fuzzer" "$OUT/$fuzzer"
  # Made afresh (zip would add to an old one); -X: no owner or extra attributes stored.
  rm -f "$OUT/${fuzzer}_seed_corpus.zip"
  (cd "$root/corpus/$name" && find . -maxdepth 1 -type f -printf '%P\n' | sort | zip -q -X -@ "$OUT/${fuzzer}_seed_corpus.zip")
  if [ -f "$root/fuzz/$name.dict" ]; then
    cp "$root/fuzz/$name.dict" "$OUT/$fuzzer.dict"
    # max_len as ci/fuzz's campaigns: the inputs that matter (manifests, Engine answers) exceed the default.
    printf '[libfuzzer]\ndict = %s.dict\nmax_len = 65536\n' "$fuzzer" > "$OUT/$fuzzer.options"
  fi
  echo "fuzz/build.sh: $OUT/$fuzzer ($(find "$root/corpus/$name" -maxdepth 1 -type f | wc -l) seeds)"
done
