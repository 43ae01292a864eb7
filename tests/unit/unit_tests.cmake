# SPDX-License-Identifier: Apache-2.0
# The unit label: the core's headers, the compiled layers' units and the command line's flag rules,
# on CPUs alone, in seconds. Included by tests/CMakeLists.txt (paths below are relative to tests/).
#
# The tree is the map: one test file per unit, named for it, in the folder that mirrors the unit's:
#   unit/core/<header>_test.cpp             include/plb/sandbox/<header>.hpp
#   unit/support/<unit>_test.cpp            src/support/<unit>
#   unit/runner/<room>/<unit>_test.cpp      src/runner/<room>/<unit> (engine ... api, the ladder)
#   unit/batch/[slurm/]<unit>_test.cpp      src/batch/[slurm/]<unit>
#   unit/cli/<unit>_test.cpp                tools/plb-sandbox/<unit>.cpp (the flag units)
# Each file is its own binary, named for the file, so a failure names the unit it concerns. A new
# test file needs no edit here: the folders are globbed (a name used twice stops the configure).

# One binary per unit test file under `folders`, linked with `libraries`, labelled unit with the
# unit timeout; `except` names files registered on their own below.
function(plb_unit_tests)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "FOLDERS;LIBRARIES;EXCEPT")
  set(patterns)
  foreach(folder ${arg_FOLDERS})
    list(APPEND patterns ${CMAKE_CURRENT_SOURCE_DIR}/unit/${folder}/*_test.cpp)
  endforeach()
  file(GLOB_RECURSE sources RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} CONFIGURE_DEPENDS ${patterns})
  list(SORT sources)
  foreach(source ${sources})
    get_filename_component(name ${source} NAME_WE)
    if(name IN_LIST arg_EXCEPT)
      continue()
    endif()
    add_executable(${name} ${source})
    target_compile_definitions(${name} PRIVATE PLB_SANDBOX_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    target_link_libraries(${name} PRIVATE ${arg_LIBRARIES} plb_sandbox_warnings plb_test_main)
    gtest_discover_tests(${name} PROPERTIES LABELS unit TIMEOUT ${unit_timeout} DISCOVERY_TIMEOUT 30)
  endforeach()
endfunction()

# The core's headers: built even where only the core is (ci/mutate's copy).
plb_unit_tests(FOLDERS core LIBRARIES plb::sandbox)

# The compiled layers' units: real short commands, real files in a temporary directory
# (unit/temp_dir.hpp), forked children; never a container (those are the gvisor label's).
if(TARGET plb_sandbox_batch)
  plb_unit_tests(FOLDERS support runner batch EXCEPT runsc_identity_test
                 LIBRARIES plb_sandbox_batch plb_sandbox_runner plb_sandbox_internal)
  # The hold points as the runner is built: with them (the dev preset) the test drives the real ones.
  if(PLB_SANDBOX_TEST_HOLDS)
    target_compile_definitions(test_hold_test PRIVATE PLB_SANDBOX_TEST_HOLDS)
    target_compile_definitions(bundle_snapshot_test PRIVATE PLB_SANDBOX_TEST_HOLDS)
  endif()
endif()

# The command line's flag rules (tools/plb-sandbox's flag units, without its main): parsed by
# CLI11 as the command parses them, then checked.
if(TARGET plb_sandbox_cli_flags)
  plb_unit_tests(FOLDERS cli LIBRARIES plb_sandbox_cli_flags)
endif()

# The runsc identity cache (what spares a run its `runsc --version`) against a stand-in binary that
# counts its runs. It writes the real cache directory, which the state-directory tests move aside:
# hence the lock, though no container is started.
if(TARGET plb_sandbox_runner)
  add_executable(runsc_identity_test unit/runner/host/runsc_identity_test.cpp)
  target_link_libraries(runsc_identity_test PRIVATE plb_sandbox_runner plb_sandbox_internal plb_sandbox_warnings plb_test_main)
  gtest_discover_tests(runsc_identity_test PROPERTIES LABELS unit RESOURCE_LOCK docker TIMEOUT ${unit_timeout}
    DISCOVERY_TIMEOUT 30)
endif()
