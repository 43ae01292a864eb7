# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# ci/lib/ccache.sh ROOT, sourced by the CI scripts that build (ci/test, ci/package, ci/fuzz, ci/fuzz-build;
# ci/mutate does the same in Python): when ccache is installed, every CMake build directory
# configured from here on compiles through it. CCACHE_BASEDIR (the checkout, unless already set)
# and hash_dir off make paths under the checkout count relative, so a fresh clone in another folder
# hits what the last one compiled. Without ccache nothing changes.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$1}
  export CCACHE_NOHASHDIR=1
fi
