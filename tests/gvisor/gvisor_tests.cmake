# SPDX-License-Identifier: Apache-2.0
# The gvisor label: real sandboxes behind a real Docker Engine with runsc (ci/host/setup-host stands
# the host up). Included by tests/CMakeLists.txt (paths below are relative to tests/).

# The real host: gVisor behind a real Docker Engine (ci/host/setup-host stands it up). It starts
# containers, so it takes the daemon's lock like every other gvisor test.
#
# No test here sets PASS_REGULAR_EXPRESSION: with it ctest ignores the exit code, so a script that
# printed "PASS" and then failed to restore the host would still pass. Each script and program
# exits non-zero on any failure, restores included, and ctest reads that.
add_test(NAME gvisor.smoke.guest_kernel_is_gvisor
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/smoke_guest_kernel.sh)
set_tests_properties(gvisor.smoke.guest_kernel_is_gvisor PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 120)

if(TARGET plb-sandbox)
  # Real-host tests drive the built binary (label gvisor): every sandbox-score verdict, what must
  # hold when the tool dies or its inputs are hostile, and the escape and fault tests, one ctest
  # case per control. RESOURCE_LOCK: one at a time on the daemon, so a test's "no container left"
  # check sees only its own runs; the unit suites still run in parallel.
  foreach(suite sandbox_score hardening escape engine_client)
    add_executable(${suite}_test integration/${suite}_test.cpp)
    target_include_directories(${suite}_test PRIVATE integration)
    target_compile_definitions(${suite}_test PRIVATE PLB_SANDBOX_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    target_link_libraries(${suite}_test PRIVATE plb_sandbox_runner plb_sandbox_internal plb_sandbox_warnings plb_test_main)
    gtest_discover_tests(${suite}_test
      PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 600
      ENVIRONMENT "PLB_SANDBOX_TOOL=$<TARGET_FILE:plb-sandbox>")
  endforeach()
endif()

# Embedders: the installed runner library scores a real script in gVisor with custom limits.
if(TARGET plb_sandbox_runner)
  add_test(NAME gvisor.consumer.runner
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run.sh runner ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/consumer-runner)
  set_tests_properties(gvisor.consumer.runner PROPERTIES LABELS "gvisor;consumer" RESOURCE_LOCK docker TIMEOUT 600)
endif()

if(TARGET plb-sandbox)
  add_test(NAME gvisor.doctor.passes_on_this_host
    COMMAND bash -c "image=\${PLB_SANDBOX_RUNTIME_IMAGE:-$(cat /var/lib/plb-sandbox/runtime-image.id)}; $<TARGET_FILE:plb-sandbox> doctor --runtime-image \"$image\"")
  set_tests_properties(gvisor.doctor.passes_on_this_host PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 120)
  foreach(case runc-in-disguise old-release ptrace-platform)
    add_test(NAME gvisor.doctor.refuses_${case}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/doctor_refuses.sh $<TARGET_FILE:plb-sandbox> ${case})
    set_tests_properties(gvisor.doctor.refuses_${case} PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 180)
  endforeach()
  add_test(NAME gvisor.state_dirs.unsafe_is_refused
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/unsafe_state_dirs.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gvisor.state_dirs.unsafe_is_refused PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 180)
  add_test(NAME gvisor.full_disk.refused_before_the_run
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/full_disk.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gvisor.full_disk.refused_before_the_run PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 180)
  add_test(NAME gvisor.local_refusals.spend_nothing
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/local_refusals.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gvisor.local_refusals.spend_nothing PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 180)
endif()

if(TARGET plb-sandbox)
  add_test(NAME gvisor.status_line_on_a_terminal COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/status_line.sh $<TARGET_FILE:plb-sandbox>)
  set_tests_properties(gvisor.status_line_on_a_terminal PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 120)
  add_test(NAME gvisor.slow_daemon_is_not_a_second_run COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/slow_daemon.sh $<TARGET_FILE:plb-sandbox>)
  set_tests_properties(gvisor.slow_daemon_is_not_a_second_run PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 120)
endif()

# Batch scoring on this host and through Slurm (ci/host/setup-slurm stands up the single-node cluster):
# one ctest case per property, each in its own scratch directory under /var/lib/plb-sandbox-tests.
if(TARGET plb-sandbox)
  foreach(case verdicts conflict bad_manifest interrupt progress forged)
    add_test(NAME gvisor.batch.local.${case}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/batch_local.sh $<TARGET_FILE:plb-sandbox> ${case} ${PROJECT_SOURCE_DIR}/examples)
    set_tests_properties(gvisor.batch.local.${case} PROPERTIES LABELS "gvisor;batch" RESOURCE_LOCK docker TIMEOUT 300)
  endforeach()
  # verify (verify.hpp): each outcome of a re-run, each mismatch refused before anything runs.
  foreach(case reproduced differs model_changed data_changed runtime_changed edited forged batch_verify)
    add_test(NAME gvisor.verify.${case}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/verify.sh $<TARGET_FILE:plb-sandbox> ${case} ${PROJECT_SOURCE_DIR}/examples)
    set_tests_properties(gvisor.verify.${case} PROPERTIES LABELS "gvisor;verify" RESOURCE_LOCK docker TIMEOUT 300)
  endforeach()
  # The report of a real batch in headless Chromium: a row per line, the counts, sorting; a screenshot.
  add_test(NAME gvisor.report.chromium
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/report_chromium.sh $<TARGET_FILE:plb-sandbox> chromium
      ${PROJECT_SOURCE_DIR}/examples ${CMAKE_CURRENT_BINARY_DIR}/artifacts)
  set_tests_properties(gvisor.report.chromium PROPERTIES LABELS "gvisor;batch" RESOURCE_LOCK docker TIMEOUT 300)
  foreach(case same_as_local node_preflight_fails no_wait_collect interrupt local_only_dir cancel node_lost
      workers_lost never_scheduled)
    add_test(NAME gvisor.batch.slurm.${case}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/batch_slurm.sh $<TARGET_FILE:plb-sandbox> ${case} ${PROJECT_SOURCE_DIR}/examples)
    set_tests_properties(gvisor.batch.slurm.${case} PROPERTIES LABELS "gvisor;batch;slurm" RESOURCE_LOCK docker
      TIMEOUT 300)
  endforeach()
endif()

# The real example round (examples/models/): scikit-learn and PyTorch models on the ML image
# (ci/host/setup-host --ml-image), trained and run once under runc at set-up (into the build tree), then
# scored by `batch` under gVisor at the spec's defaults and compared bit for bit.
if(TARGET plb-sandbox)
  add_test(NAME gvisor.models.real_round
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/models_round.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}
      ${PROJECT_BINARY_DIR}/examples-models)
  set_tests_properties(gvisor.models.real_round PROPERTIES LABELS "gvisor;batch;models" RESOURCE_LOCK docker TIMEOUT 900)
endif()

# The guest's threads (limits.hpp): it sees its cpuset's CPUs, past its process limit a thread fails
# clearly, and torch at 64 threads and a forest with n_jobs=-1 on one CPU never hang.
if(TARGET plb-sandbox)
  add_test(NAME gvisor.guest_threads.bounded
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/guest_threads.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gvisor.guest_threads.bounded PROPERTIES LABELS "gvisor;models" RESOURCE_LOCK docker TIMEOUT 300)
endif()

# The fair clock (run_clock.hpp): six lines sleeping 60 % of their limit succeed while both CPUs
# burn outside the allocator and the daemon creates other containers all along.
if(TARGET plb-sandbox)
  add_test(NAME gvisor.fair_clock.loaded_batch
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/fair_clock.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gvisor.fair_clock.loaded_batch PROPERTIES LABELS "gvisor;batch" RESOURCE_LOCK docker TIMEOUT 300)
  add_test(NAME gvisor.fair_clock.late_client
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/late_client.sh $<TARGET_FILE:plb-sandbox>)
  set_tests_properties(gvisor.fair_clock.late_client PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 180)
  add_test(NAME gvisor.fair_clock.start_past_its_allowance
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/start_allowance.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gvisor.fair_clock.start_past_its_allowance PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 180)
endif()

# The host-wide CPU allocator: more runs than CPUs at once, pinned to disjoint CPUs, the extra one waiting.
if(TARGET plb-sandbox)
  add_test(NAME gvisor.cpu_pinning.disjoint
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/cpu_pinning.sh $<TARGET_FILE:plb-sandbox> disjoint ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gvisor.cpu_pinning.disjoint PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 120)
endif()

# Slurm workers on two compute nodes of this one host (`ci/host/setup-slurm --nodes 2 --max-array-size 4`,
# set up before the first case and the single-node cluster restored after the last).
if(TARGET plb-sandbox)
  add_test(NAME gvisor.batch.slurm_nodes.setup COMMAND bash ${PROJECT_SOURCE_DIR}/ci/host/setup-slurm --nodes 2 --max-array-size 4)
  add_test(NAME gvisor.batch.slurm_nodes.restore COMMAND bash ${PROJECT_SOURCE_DIR}/ci/host/setup-slurm)
  set_tests_properties(gvisor.batch.slurm_nodes.setup PROPERTIES FIXTURES_SETUP slurm_two_nodes)
  set_tests_properties(gvisor.batch.slurm_nodes.restore PROPERTIES FIXTURES_CLEANUP slurm_two_nodes)
  set_tests_properties(gvisor.batch.slurm_nodes.setup gvisor.batch.slurm_nodes.restore PROPERTIES
    LABELS "gvisor;batch;slurm" RESOURCE_LOCK docker TIMEOUT 120)
  foreach(case spread bad_node node_killed submitter_killed max_array)
    add_test(NAME gvisor.batch.slurm_nodes.${case}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/batch_slurm_nodes.sh $<TARGET_FILE:plb-sandbox> ${case} ${PROJECT_SOURCE_DIR}/examples)
    set_tests_properties(gvisor.batch.slurm_nodes.${case} PROPERTIES LABELS "gvisor;batch;slurm" RESOURCE_LOCK docker
      FIXTURES_REQUIRED slurm_two_nodes TIMEOUT 300)
  endforeach()
endif()

# The wall-time bound without the tool: every process in the tool's cgroup SIGKILLed at once, at
# each stage of a run (and the reaper killed under a stopped tool); the warden must end the run.
if(TARGET plb-sandbox)
  foreach(stage preflight preflight_sweep create start client streaming cleanup reaper warden)
    add_test(NAME gvisor.deadline.kill_everything_at_${stage}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/kill_everything.sh $<TARGET_FILE:plb-sandbox> ${stage} ${PROJECT_SOURCE_DIR}/examples)
    set_tests_properties(gvisor.deadline.kill_everything_at_${stage} PROPERTIES LABELS "gvisor;deadline"
      RESOURCE_LOCK docker TIMEOUT 240)
  endforeach()
  add_test(NAME gvisor.deadline.unanswering_warden_is_refused
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/warden_refused.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gvisor.deadline.unanswering_warden_is_refused PROPERTIES LABELS "gvisor;deadline"
    RESOURCE_LOCK docker TIMEOUT 120)
  # Issue 33 item 3: labels of 1.1 MB and hundreds of labelled containers (an answer past the old
  # 4 MiB cap) blind neither the warden nor the sweep nor the preflight.
  add_test(NAME gvisor.deadline.warden_not_blinded
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/warden_blinded.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gvisor.deadline.warden_not_blinded PROPERTIES LABELS "gvisor;deadline"
    RESOURCE_LOCK docker TIMEOUT 600)
  # Issue 33 item 4: the supervisor restarts a killed warden, a warden whose supervisor is killed
  # becomes the supervisor of a new one, and an unsupervised warden is refused.
  add_test(NAME gvisor.deadline.warden_supervised
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/warden_supervised.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/ci/host)
  set_tests_properties(gvisor.deadline.warden_supervised PROPERTIES LABELS "gvisor;deadline"
    RESOURCE_LOCK docker TIMEOUT 180)
  # Issue 33 item 5: the warden's wall clock an hour behind (libfaketime; the machine's untouched).
  add_test(NAME gvisor.deadline.warden_clock_stepped_back
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/warden_clock_stepped.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/ci/host)
  set_tests_properties(gvisor.deadline.warden_clock_stepped_back PROPERTIES LABELS "gvisor;deadline"
    RESOURCE_LOCK docker TIMEOUT 120)
endif()

# The cost of one run outside the sandbox, counted rather than timed: the processes the tool execs
# and the Engine requests it and its docker client make (strace of a real gVisor run), against the
# budget the tool prints from call_budget.hpp; per line of a batch too, its preflight once.
if(TARGET plb-sandbox)
  foreach(case score batch)
    add_test(NAME gvisor.call_budget.${case}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/call_budget.sh $<TARGET_FILE:plb-sandbox> ${case} ${PROJECT_SOURCE_DIR}/examples)
    set_tests_properties(gvisor.call_budget.${case} PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 240)
  endforeach()
endif()

# Issue 44: README.md's command blocks, read from it at test time and run as written (the quick
# start from an empty directory, the batch example, report, verify, the doctor line; the set-up and
# the package install named as skipped, with why). The second case breaks a flag of the quick start
# in a copy of the README and passes only if the first one's script then fails on that block.
if(TARGET plb-sandbox)
  add_test(NAME gvisor.readme.commands_run_as_written
    COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/readme_commands.py $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR})
  set_tests_properties(gvisor.readme.commands_run_as_written PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 900)
  add_test(NAME gvisor.readme.a_broken_command_fails
    COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/gvisor/readme_commands.py $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}
      --self-test)
  set_tests_properties(gvisor.readme.a_broken_command_fails PROPERTIES LABELS gvisor RESOURCE_LOCK docker TIMEOUT 420)
endif()
