#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/consumer/run.sh MODE SOURCE WORK: builds and runs a vendor's consumer project the way a
# vendor would (MODE add_subdirectory, or find_package after `cmake --install` to a prefix), or,
# with MODE runner, a program that scores a real script through the installed runner library.
set -euo pipefail
mode=$1 src=$2 work=$3
rm -rf "$work"; mkdir -p "$work"
if [ "$mode" = runner ]; then
  cmake -S "$src" -B "$work/lib" -DPLB_SANDBOX_BUILD_TESTS=OFF -DPLB_SANDBOX_BUILD_TOOLS=OFF \
    -DPLB_SANDBOX_BUILD_FUZZERS=OFF -DPLB_SANDBOX_BUILD_BENCHMARKS=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
  # Where the time went, in the test's log (a cold build under load is most of it).
  began=$SECONDS
  cmake --build "$work/lib" -j "$(nproc)" >/dev/null
  echo "built the runner library in $((SECONDS - began)) s"
  cmake --install "$work/lib" >/dev/null
  [ -f "$work/prefix/lib/libplb_sandbox_runner.a" ] || { echo "FAIL: the runner library was not installed"; exit 1; }
  cmake -S "$src/tests/consumer/runner" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  began=$SECONDS
  cmake --build "$work/build" >/dev/null
  echo "built the consumer in $((SECONDS - began)) s"
  mkdir -p "$work/run" "$work/run-in-memory"
  image=${PLB_SANDBOX_RUNTIME_IMAGE:-$(cat /var/lib/plb-sandbox/runtime-image.id)}
  "$work/build/consumer" "$image" "$work/run"
  exec "$work/build/in_memory_consumer" "$image" "$work/run-in-memory"
fi
if [ "$mode" = find_package ]; then
  cmake -S "$src" -B "$work/lib" -DPLB_SANDBOX_BUILD_TESTS=OFF -DPLB_SANDBOX_BUILD_TOOLS=OFF \
    -DPLB_SANDBOX_BUILD_RUNNER=OFF -DPLB_SANDBOX_BUILD_FUZZERS=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
  cmake --install "$work/lib" >/dev/null
  # Only headers and CMake files may be installed: the core is header-only.
  if find "$work/prefix" -type f ! -name '*.hpp' ! -name '*.cmake' | grep .; then
    echo "FAIL: the install holds more than headers and package files"; exit 1
  fi
  cmake -S "$src/tests/consumer/find_package" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
else
  cmake -S "$src/tests/consumer/add_subdirectory" -B "$work/build" -DPLB_SANDBOX_SOURCE="$src" >/dev/null
  # A vendor's build must not get the project's tests, tool or fuzzers.
  if grep -q 'plb-sandbox\|_fuzzer\|_test' <(cmake --build "$work/build" --target help); then
    echo "FAIL: vendoring pulled in the project's own targets"; exit 1
  fi
fi
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
