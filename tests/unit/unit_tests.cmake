# SPDX-License-Identifier: Apache-2.0
# The unit label: the core's headers, the compiled layers' units and the command line's flag rules,
# on CPUs alone. Included by tests/CMakeLists.txt (paths below are relative to tests/).

# One test binary per header: a failure names the header it concerns.
foreach(name limits image_id digest csv_reader features_encoder predictions_parser sandbox_policy provenance provenance_reader verdict rule_edges batch_manifest exit_codes)
  add_executable(${name}_test unit/core/${name}_test.cpp)
  target_compile_definitions(${name}_test PRIVATE PLB_SANDBOX_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_libraries(${name}_test PRIVATE plb::sandbox plb_sandbox_warnings plb_test_main)
  gtest_discover_tests(${name}_test PROPERTIES LABELS unit TIMEOUT ${unit_timeout} DISCOVERY_TIMEOUT 30)
endforeach()

# The compiled layers' units on CPUs alone, one binary per unit, in folders that mirror src/:
# unit/support (every support unit: real short commands, real files in a temporary directory,
# forked children), unit/runner (the verdict decision, the cgroup monitor on fake v1/v2 trees, the
# request checks, the Engine answers, the warden), unit/batch. Label unit: seconds in all.
if(TARGET plb_sandbox_batch)
  foreach(unit support/one_line support/command support/file_io support/dir_files support/unix_address
          support/child_process support/cancellation support/problem support/test_hold
          runner/judge runner/cgroup_monitor runner/request_check runner/output_files
          runner/engine_json runner/warden runner/verify_units runner/verify_seal batch/batch_units batch/batch_verify
          batch/batch_trust batch/batch_report batch/batch_claims batch/batch_backends batch/batch_scale runner/cpu_allocator
          runner/engine_gate runner/run_clock runner/container_list runner/cgroup_hierarchy
          runner/runs_cpu_weight)
    get_filename_component(name ${unit} NAME)
    add_executable(${name}_test unit/${unit}_test.cpp)
    target_link_libraries(${name}_test PRIVATE plb_sandbox_batch plb_sandbox_runner plb_sandbox_internal plb_sandbox_warnings plb_test_main)
    gtest_discover_tests(${name}_test PROPERTIES LABELS unit TIMEOUT ${unit_timeout} DISCOVERY_TIMEOUT 30)
  endforeach()
  # The hold points as the runner is built: with them (the dev preset) the test drives the real ones.
  if(PLB_SANDBOX_TEST_HOLDS)
    target_compile_definitions(test_hold_test PRIVATE PLB_SANDBOX_TEST_HOLDS)
  endif()
endif()

# The command line's flag rules (tools/plb-sandbox's flag units, without its main), in unit/cli:
# parsed by CLI11 as the command parses them, then checked.
if(TARGET plb_sandbox_cli_flags)
  foreach(unit score_flags batch_flags batch_finish_flags)
    add_executable(${unit}_test unit/cli/${unit}_test.cpp)
    target_link_libraries(${unit}_test PRIVATE plb_sandbox_cli_flags plb_sandbox_warnings plb_test_main)
    gtest_discover_tests(${unit}_test PROPERTIES LABELS unit TIMEOUT ${unit_timeout} DISCOVERY_TIMEOUT 30)
  endforeach()
endif()

# The runsc identity cache (what spares a run its `runsc --version`) against a stand-in binary that
# counts its runs. It writes the real cache directory, which the state-directory tests move aside:
# hence the lock, though no container is started.
if(TARGET plb_sandbox_runner)
  add_executable(runsc_identity_test unit/runner/runsc_identity_test.cpp)
  target_link_libraries(runsc_identity_test PRIVATE plb_sandbox_runner plb_sandbox_internal plb_sandbox_warnings plb_test_main)
  gtest_discover_tests(runsc_identity_test PROPERTIES LABELS unit RESOURCE_LOCK docker TIMEOUT ${unit_timeout}
    DISCOVERY_TIMEOUT 30)
endif()

# Issue 44: the directories the tool creates for its outputs, one rule (support/private_dir.hpp),
# and sandbox-score's missing --output directory made at publishing (runner/score/output_dir.hpp).
if(TARGET plb_sandbox_runner)
  foreach(unit support/private_dir runner/score/output_dir)
    get_filename_component(name ${unit} NAME)
    add_executable(${name}_test unit/${unit}_test.cpp)
    target_link_libraries(${name}_test PRIVATE plb_sandbox_runner plb_sandbox_internal plb_sandbox_warnings plb_test_main)
    gtest_discover_tests(${name}_test PROPERTIES LABELS unit TIMEOUT ${unit_timeout} DISCOVERY_TIMEOUT 30)
  endforeach()
endif()
