# SPDX-License-Identifier: Apache-2.0
# The gvisor label: real sandboxes behind a real Docker Engine with runsc (ci/host/setup-host stands
# the host up). Included by tests/CMakeLists.txt (paths below are relative to tests/).
#
# Side by side: these tests run concurrently (ctest -j). Each checks only what it made: the C++
# tests the containers of the tool processes they started (tests/integration/sandbox_fixture.hpp),
# the scripts what a tool that has exited left behind (tests/gvisor/prelude.sh). The host-wide CPU
# allocator keeps concurrent runs on disjoint CPUs (a run waits for a lease when all are taken).
# A test is SERIAL (RUN_SERIAL: nothing else runs meanwhile) only when it stops the warden or the
# daemon, changes a host setting, loads the host or times the host on purpose, counts something
# host-wide, or leaves a dead run for the sweep or the warden (any other run's preflight would
# sweep it, unless the test holds that run's lock itself: prelude.sh); the reason is beside each.
# LOCKS name narrower exclusions (`slurm`: one cluster; `both_cpus`: a test that needs a sandbox
# on each CPU at once never runs beside one that holds a CPU for a minute or more).
#
# No test here sets PASS_REGULAR_EXPRESSION: with it ctest ignores the exit code, so a script that
# printed "PASS" and then failed to restore the host would still pass. Each script and program
# exits non-zero on any failure, restores included, and ctest reads that.
#
# Tests that stop the tool at a hold point (PLB_SANDBOX_TEST_STOP_AT, src/support/test_hold.hpp)
# are HOLDS: registered only in a build with PLB_SANDBOX_TEST_HOLDS (the dev preset), since
# without it the tool never stops there and the test could only time out. A script's HOLDS test is
# SERIAL only when it says so; a gtest program's HOLDS cases always are.

# plb_gvisor_test(NAME name COMMAND cmd... [TIMEOUT s] [LABELS extra...] [SERIAL] [LOCKS lock...]
#                 [HOLDS] [PROPERTIES prop value...]): one real-gVisor test, label gvisor. A
# PROPERTIES value must not be a list (set such a property apart).
set(plb_gvisor_tests_without_holds 0)
function(plb_gvisor_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "SERIAL;HOLDS" "NAME;TIMEOUT" "COMMAND;LABELS;LOCKS;PROPERTIES")
  if(arg_HOLDS AND NOT PLB_SANDBOX_TEST_HOLDS)
    math(EXPR n "${plb_gvisor_tests_without_holds} + 1")
    set(plb_gvisor_tests_without_holds ${n} PARENT_SCOPE)
    return()
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  add_test(NAME ${arg_NAME} COMMAND ${arg_COMMAND})
  set(labels gvisor ${arg_LABELS})
  set_tests_properties(${arg_NAME} PROPERTIES LABELS "${labels}" TIMEOUT ${arg_TIMEOUT} ${arg_PROPERTIES})
  if(arg_SERIAL)
    set_tests_properties(${arg_NAME} PROPERTIES RUN_SERIAL TRUE)
  endif()
  if(arg_LOCKS)
    set_tests_properties(${arg_NAME} PROPERTIES RESOURCE_LOCK "${arg_LOCKS}")
  endif()
endfunction()

# plb_gvisor_gtests(TARGET [SERIAL test...] [HOLDS test...] [BOTH_CPUS test...]): a gtest
# program's cases, discovered; the SERIAL and HOLDS ones (Suite.Case) registered RUN_SERIAL (the
# HOLDS ones only with hold points), the BOTH_CPUS ones with LOCKS both_cpus (above).
function(plb_gvisor_gtests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SERIAL;HOLDS;BOTH_CPUS")
  set(props LABELS gvisor TIMEOUT 600 ENVIRONMENT "PLB_SANDBOX_TOOL=$<TARGET_FILE:plb-sandbox>")
  set(apart ${arg_SERIAL} ${arg_HOLDS} ${arg_BOTH_CPUS})
  list(JOIN apart ":" apart)
  list(JOIN arg_SERIAL ":" serial)
  list(JOIN arg_HOLDS ":" holds)
  list(JOIN arg_BOTH_CPUS ":" both_cpus)
  if(apart)
    gtest_discover_tests(${target} TEST_FILTER "-${apart}" PROPERTIES ${props})
  else()
    gtest_discover_tests(${target} PROPERTIES ${props})
  endif()
  if(serial)
    gtest_discover_tests(${target} TEST_FILTER "${serial}" PROPERTIES ${props} RUN_SERIAL TRUE)
  endif()
  if(both_cpus)
    gtest_discover_tests(${target} TEST_FILTER "${both_cpus}" PROPERTIES ${props} RESOURCE_LOCK both_cpus)
  endif()
  if(holds AND PLB_SANDBOX_TEST_HOLDS)
    gtest_discover_tests(${target} TEST_FILTER "${holds}" PROPERTIES ${props} RUN_SERIAL TRUE)
  elseif(holds)
    list(LENGTH arg_HOLDS n)
    math(EXPR n "${plb_gvisor_tests_without_holds} + ${n}")
    set(plb_gvisor_tests_without_holds ${n} PARENT_SCOPE)
  endif()
endfunction()

set(gvisor ${CMAKE_CURRENT_SOURCE_DIR}/gvisor)
set(examples ${PROJECT_SOURCE_DIR}/examples)

# The real host: gVisor behind a real Docker Engine. Its container is named outside the tool's.
plb_gvisor_test(NAME gvisor.smoke.guest_kernel_is_gvisor COMMAND bash ${gvisor}/smoke_guest_kernel.sh TIMEOUT 120)

if(TARGET plb-sandbox)
  # Real-host tests drive the built binary: every sandbox-score verdict, what must hold when the
  # tool dies or its inputs are hostile, and the escape and fault tests, one ctest case per control.
  foreach(suite sandbox_score hardening escape engine_client keep_stderr_api)
    add_executable(${suite}_test integration/${suite}_test.cpp)
    target_include_directories(${suite}_test PRIVATE integration)
    target_compile_definitions(${suite}_test PRIVATE PLB_SANDBOX_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    target_link_libraries(${suite}_test PRIVATE plb_sandbox_runner plb_sandbox_internal plb_sandbox_warnings plb_test_main)
  endforeach()
  plb_gvisor_gtests(sandbox_score_test
    BOTH_CPUS
      # Spins a CPU for 90 s.
      SandboxScore.SixtyFourBusyProcessesSucceedAtTheDefaultLimits)
  plb_gvisor_gtests(engine_client_test)
  plb_gvisor_gtests(keep_stderr_api_test)  # the runner API's --keep-stderr (score, score_in_memory)
  plb_gvisor_gtests(hardening_test
    SERIAL
      # SIGKILLs the tool and leaves its run directory for its own sweep to find.
      Hardening.SigkillOfTheToolLeavesNoRunningSandbox
      # "No run directory at all" is a host-wide count.
      Hardening.AnUnpublishableOutputIsRefusedBeforeAnythingRuns
    HOLDS
      # The reaper's deadline timed to 3 s with the tool stopped.
      Hardening.StoppedToolCannotExtendTheWallTime
      # Checks host-wide that no sandbox started and no run directory exists after the stop.
      Hardening.SignalWhileReadingInputsStopsTheCommand)
  plb_gvisor_gtests(escape_test
    SERIAL
      # Its sweep must count exactly one live run host-wide.
      Cleanup.SweepLeavesALiveRunAlone
      # Counts runsc processes and run directories host-wide.
      Cleanup.TwentySequentialAndFourParallelRunsLeaveNothing
      # Restarts dockerd.
      Cleanup.DaemonRestartMidRunGivesAClearErrorAndLeavesNothing)

  # The host: doctor on it as set up; doctor refusing a runtime that is not gVisor's (SERIAL: it
  # rewrites daemon.json and reloads dockerd); unsafe state directories refused (SERIAL: it changes
  # their owner and modes); a full output disk refused before the run (tmpfs of its own).
  plb_gvisor_test(NAME gvisor.doctor.passes_on_this_host TIMEOUT 120
    COMMAND bash -c "image=\${PLB_SANDBOX_RUNTIME_IMAGE:-$(cat /var/lib/plb-sandbox/runtime-image.id)} && $<TARGET_FILE:plb-sandbox> doctor --runtime-image \"$image\"")
  foreach(case runc-in-disguise old-release ptrace-platform)
    plb_gvisor_test(NAME gvisor.doctor.refuses_${case} TIMEOUT 180 SERIAL
      COMMAND bash ${gvisor}/doctor_refuses.sh $<TARGET_FILE:plb-sandbox> ${case})
  endforeach()
  plb_gvisor_test(NAME gvisor.state_dirs.unsafe_is_refused TIMEOUT 180 SERIAL
    COMMAND bash ${gvisor}/unsafe_state_dirs.sh $<TARGET_FILE:plb-sandbox> ${examples})
  plb_gvisor_test(NAME gvisor.full_disk.refused_before_the_run TIMEOUT 180
    COMMAND bash ${gvisor}/full_disk.sh $<TARGET_FILE:plb-sandbox> ${examples})
  plb_gvisor_test(NAME gvisor.local_refusals.spend_nothing TIMEOUT 180
    COMMAND bash ${gvisor}/local_refusals.sh $<TARGET_FILE:plb-sandbox> ${examples})

  plb_gvisor_test(NAME gvisor.status_line_on_a_terminal TIMEOUT 120
    COMMAND bash ${gvisor}/status_line.sh $<TARGET_FILE:plb-sandbox>)
  # SERIAL: it freezes the whole dockerd for 5 s.
  plb_gvisor_test(NAME gvisor.slow_daemon_is_not_a_second_run TIMEOUT 120 SERIAL
    COMMAND bash ${gvisor}/slow_daemon.sh $<TARGET_FILE:plb-sandbox>)

  # Batch scoring on this host: one ctest case per property, each in its own scratch directory
  # under /var/lib/plb-sandbox-tests. SERIAL: interrupt, which waits for two of its lines running
  # at once (a CPU lease each: both of this host's CPUs).
  foreach(case verdicts conflict bad_manifest interrupt progress forged)
    set(apart)
    if(case STREQUAL interrupt)
      set(apart SERIAL)
    endif()
    plb_gvisor_test(NAME gvisor.batch.local.${case} LABELS batch ${apart}
      COMMAND bash ${gvisor}/batch_local.sh $<TARGET_FILE:plb-sandbox> ${case} ${examples})
  endforeach()
  # verify (verify.hpp): each outcome of a re-run, each mismatch refused before anything runs.
  foreach(case reproduced differs model_changed data_changed runtime_changed edited forged batch_verify
      predictions_changed symlinks not_root)
    plb_gvisor_test(NAME gvisor.verify.${case} LABELS verify
      COMMAND bash ${gvisor}/verify.sh $<TARGET_FILE:plb-sandbox> ${case} ${examples})
  endforeach()
  # A model bundle (issue 42): its read-only mount and provenance, a changed byte refused before any
  # container, verify's bundle_changed, a batch line's bundle bytes and resume.
  foreach(case score changed_byte verify batch)
    plb_gvisor_test(NAME gvisor.bundle.${case} LABELS batch TIMEOUT 300
      COMMAND bash ${gvisor}/bundle.sh $<TARGET_FILE:plb-sandbox> ${case} ${examples})
  endforeach()
  # --keep-stderr: the operator's diagnostics file for sandbox-score and batch; the default run unchanged.
  foreach(case sandbox_score default_unchanged batch)
    plb_gvisor_test(NAME gvisor.keep_stderr.${case} LABELS batch
      COMMAND bash ${gvisor}/keep_stderr.sh $<TARGET_FILE:plb-sandbox> ${case} ${examples})
  endforeach()
  # The report of a real batch in headless Chromium: a row per line, the counts, sorting; a screenshot.
  plb_gvisor_test(NAME gvisor.report.chromium LABELS batch
    COMMAND bash ${gvisor}/report_chromium.sh $<TARGET_FILE:plb-sandbox> chromium ${examples}
      ${CMAKE_CURRENT_BINARY_DIR}/artifacts)

  # Batch scoring through Slurm (ci/host/setup-slurm stands up the single-node cluster), one case
  # per property. LOCKS slurm: the cases share the one cluster (and its job names). Side by side
  # too: each watches only its own job's sandboxes (prelude.sh's job_sandboxes), and the cases that
  # kill a job's workers and leave their runs to the warden (cancel, node_lost, workers_lost) hold
  # those runs' locks (batch_slurm.sh). LOCKS both_cpus: cancel and node_lost need a sandbox on
  # each CPU at once, so they never run beside the tests that hold both CPUs for minutes.
  # interrupt may wait minutes for a CPU beside the model rounds: a longer timeout.
  foreach(case same_as_local node_preflight_fails no_wait_collect interrupt local_only_dir cancel node_lost
      workers_lost never_scheduled orphaned_job)
    set(apart)
    set(locks slurm)
    if(case MATCHES "^(cancel|node_lost)$")
      list(APPEND locks both_cpus)
    elseif(case STREQUAL interrupt)
      set(apart TIMEOUT 600)
    endif()
    plb_gvisor_test(NAME gvisor.batch.slurm.${case} LABELS batch slurm LOCKS ${locks} ${apart}
      COMMAND bash ${gvisor}/batch_slurm.sh $<TARGET_FILE:plb-sandbox> ${case} ${examples})
    list(APPEND single_node_cases gvisor.batch.slurm.${case})
  endforeach()

  # Slurm workers on two compute nodes of this one host (`ci/host/setup-slurm --nodes 2
  # --max-array-size 4`, set up after every single-node case (DEPENDS) and the single-node cluster
  # restored after the last). The set-up and restore reconfigure and restart only Slurm, which no
  # test outside LOCKS slurm uses: side by side, so the cluster's whole chain runs beside the rest
  # (a SERIAL set-up would wait for the host to drain, then put the two-node cases last). SERIAL:
  # submitter_killed SIGKILLs the tool. node_killed kills a node's slurmd and its job, holding that
  # worker's run lock so that only the warden removes its sandbox (batch_slurm_nodes.sh), and
  # needs a sandbox on each CPU at once (LOCKS both_cpus).
  plb_gvisor_test(NAME gvisor.batch.slurm_nodes.setup LABELS batch slurm LOCKS slurm TIMEOUT 120
    COMMAND bash ${PROJECT_SOURCE_DIR}/ci/host/setup-slurm --nodes 2 --max-array-size 4
    PROPERTIES FIXTURES_SETUP slurm_two_nodes)
  set_tests_properties(gvisor.batch.slurm_nodes.setup PROPERTIES DEPENDS "${single_node_cases}")
  plb_gvisor_test(NAME gvisor.batch.slurm_nodes.restore LABELS batch slurm LOCKS slurm TIMEOUT 120
    COMMAND bash ${PROJECT_SOURCE_DIR}/ci/host/setup-slurm PROPERTIES FIXTURES_CLEANUP slurm_two_nodes)
  foreach(case spread bad_node node_killed submitter_killed max_array)
    set(apart)
    set(locks slurm)
    if(case STREQUAL submitter_killed)
      set(apart SERIAL)
    elseif(case STREQUAL node_killed)
      list(APPEND locks both_cpus)
    endif()
    plb_gvisor_test(NAME gvisor.batch.slurm_nodes.${case} LABELS batch slurm LOCKS ${locks} ${apart}
      COMMAND bash ${gvisor}/batch_slurm_nodes.sh $<TARGET_FILE:plb-sandbox> ${case} ${examples}
      PROPERTIES FIXTURES_REQUIRED slurm_two_nodes)
    list(APPEND two_node_cases gvisor.batch.slurm_nodes.${case})
  endforeach()
  # The cluster's cases run one at a time (LOCKS slurm), about 8 minutes end to end: the longest
  # chain of the label. Started first (ctest starts the costliest first; measured costs from an
  # earlier run take over once there are some), so the rest fills the time beside it.
  set_tests_properties(${single_node_cases} gvisor.batch.slurm_nodes.setup ${two_node_cases}
    gvisor.batch.slurm_nodes.restore PROPERTIES COST 1000)

  # The real example round (examples/models/): scikit-learn and PyTorch models on the ML image
  # (ci/host/setup-host --ml-image), trained and run once under runc at set-up (into the build
  # tree), then scored by `batch` under gVisor at the spec's defaults and compared bit for bit.
  # LOCKS both_cpus (both rounds): they hold both CPUs for minutes.
  plb_gvisor_test(NAME gvisor.models.real_round LABELS batch models TIMEOUT 900 LOCKS both_cpus
    COMMAND bash ${gvisor}/models_round.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}
      ${PROJECT_BINARY_DIR}/examples-models)
  # The real round with weights (examples/bundles/, issue 42): submissions whose weights come in a
  # digest-pinned bundle (ResNet-18, xgboost, a 50 MB forest, a 1 GiB MLP), trained and run once
  # under runc at set-up, scored by `batch` under gVisor and compared bit for bit; weights of another
  # architecture, a symlink, a changed byte and a too-small memory limit each fail as they should.
  plb_gvisor_test(NAME gvisor.models.bundle_round LABELS batch models bundle TIMEOUT 600 LOCKS both_cpus
    COMMAND bash ${gvisor}/bundle_round.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}
      ${PROJECT_BINARY_DIR}/examples-bundles)
  # The guest's threads (limits.hpp): it sees its cpuset's CPUs, past its process limit a thread
  # fails clearly, and torch at 64 threads and a forest with n_jobs=-1 on one CPU never hang.
  plb_gvisor_test(NAME gvisor.guest_threads.bounded LABELS models
    COMMAND bash ${gvisor}/guest_threads.sh $<TARGET_FILE:plb-sandbox> ${examples})

  # The fair clock (run_clock.hpp): six lines sleeping 60 % of their limit succeed while both CPUs
  # burn outside the allocator (SERIAL: loads the host on purpose); a client stopped past the wall
  # time (SERIAL: times the run's end to 1.5 s); a start held past its allowance (HOLDS; side by
  # side: the test's own clock holds the tool 31 s, and the tool's verdict reads only its own).
  plb_gvisor_test(NAME gvisor.fair_clock.loaded_batch LABELS batch SERIAL
    COMMAND bash ${gvisor}/fair_clock.sh $<TARGET_FILE:plb-sandbox> ${examples})
  plb_gvisor_test(NAME gvisor.fair_clock.late_client TIMEOUT 180 SERIAL
    COMMAND bash ${gvisor}/late_client.sh $<TARGET_FILE:plb-sandbox>)
  plb_gvisor_test(NAME gvisor.fair_clock.start_past_its_allowance TIMEOUT 600 HOLDS
    COMMAND bash ${gvisor}/start_allowance.sh $<TARGET_FILE:plb-sandbox> ${examples})

  # The kill on time under any load (watchdog_weight.hpp): runs time out while a sandbox of 60 busy
  # processes spins every CPU, each killed within 1 s of its wall. SERIAL: it loads the host on
  # purpose, and times the kill.
  plb_gvisor_test(NAME gvisor.kill_on_time_under_load TIMEOUT 300 SERIAL
    COMMAND bash ${gvisor}/kill_on_time.sh $<TARGET_FILE:plb-sandbox>)

  # The host-wide CPU allocator: more runs than CPUs at once, pinned to disjoint CPUs, the extra
  # one waiting. SERIAL: it needs every CPU free.
  plb_gvisor_test(NAME gvisor.cpu_pinning.disjoint TIMEOUT 120 SERIAL
    COMMAND bash ${gvisor}/cpu_pinning.sh $<TARGET_FILE:plb-sandbox> disjoint ${examples})

  # The wall-time bound without the tool: every process in the tool's cgroup SIGKILLed at once, at
  # each stage of a run (and the reaper, or the warden, killed with it): the warden must end the
  # run by its deadline. Side by side, each holding its dead run's locks so that no other test's
  # sweep removes the run first (kill_everything.sh); the preflight's run uses an image of its own,
  # so that it must prove gVisor while the host's proof cache stays as it is. SERIAL: preflight_sweep,
  # whose own sweep must be the one that removes the dead probe; the warden's, which leaves the host
  # without a warden for a moment; and the client's, which must catch a docker client that lives a
  # second or two (beside others it once never saw it in 420 s).
  # The stages that stop the tool at a hold point are HOLDS. LOCKS both_cpus: the reaper's, whose
  # tool stays stopped with its CPU's lease for the whole test (a minute and more).
  foreach(stage preflight preflight_sweep create client start streaming cleanup reaper warden)
    set(held)
    if(stage MATCHES "^(preflight|preflight_sweep|start|streaming|cleanup|reaper|warden)$")
      set(held HOLDS)
    endif()
    if(stage STREQUAL reaper)
      list(APPEND held LOCKS both_cpus)
    endif()
    # The script is told which it is: it scopes its checks by the same choice.
    set(alone)
    set(mode side_by_side)
    if(stage MATCHES "^(preflight_sweep|client|warden)$")
      set(alone SERIAL)
      set(mode alone)
    endif()
    plb_gvisor_test(NAME gvisor.deadline.kill_everything_at_${stage} LABELS deadline TIMEOUT 600 ${alone} ${held}
      COMMAND bash ${gvisor}/kill_everything.sh $<TARGET_FILE:plb-sandbox> ${stage} ${examples} ${mode})
  endforeach()
  # The warden SIGSTOPped: doctor and sandbox-score refuse the host.
  plb_gvisor_test(NAME gvisor.deadline.unanswering_warden_is_refused LABELS deadline TIMEOUT 120 SERIAL
    COMMAND bash ${gvisor}/warden_refused.sh $<TARGET_FILE:plb-sandbox> ${examples})
  # Issue 33 item 3: labels of 1.1 MB and hundreds of labelled containers (an answer past the old
  # 4 MiB cap) blind neither the warden nor the sweep nor the preflight (SERIAL: it loads the daemon).
  plb_gvisor_test(NAME gvisor.deadline.warden_not_blinded LABELS deadline TIMEOUT 600 SERIAL
    COMMAND bash ${gvisor}/warden_blinded.sh $<TARGET_FILE:plb-sandbox> ${examples})
  # Issue 33 item 4: the supervisor restarts a killed warden, a warden whose supervisor is killed
  # becomes the supervisor of a new one, and an unsupervised warden is refused.
  plb_gvisor_test(NAME gvisor.deadline.warden_supervised LABELS deadline TIMEOUT 180 SERIAL
    COMMAND bash ${gvisor}/warden_supervised.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/ci/host)
  # Issue 41 item 5: the warden SIGSTOPped: its supervisor kills it and starts a new one, which
  # removes an overdue sandbox (SERIAL: it stops the host's warden).
  plb_gvisor_test(NAME gvisor.deadline.warden_stopped_is_replaced LABELS deadline TIMEOUT 180 SERIAL
    COMMAND bash ${gvisor}/warden_stopped.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/ci/host)
  # Two removals whose answers are lost (the containers' processes frozen, so the DELETEs time out)
  # are asked in one pass, the warden stays fresh, and each is logged as removed once it is gone.
  # Beside other tests: the removals hang on threads of their own (warden_removals.hpp).
  plb_gvisor_test(NAME gvisor.deadline.warden_logs_a_removal_whose_answer_was_lost LABELS deadline TIMEOUT 180
    COMMAND bash ${gvisor}/warden_unanswered.sh $<TARGET_FILE:plb-sandbox>)
  # Issue 41 item 6: a warden of the test's own (its own socket, beside the host's) logs to a tmpfs
  # filled and freed: the lines resume, whole, and --status counts the refused ones. SERIAL: its
  # warden removes overdue containers as the host's does, where the kill tests read the host's log.
  plb_gvisor_test(NAME gvisor.deadline.warden_log_resumes_after_a_full_disk LABELS deadline TIMEOUT 120 SERIAL
    COMMAND bash ${gvisor}/warden_log_full.sh $<TARGET_FILE:plb-sandbox>)
  # Issue 33 item 5: the warden's wall clock an hour behind (libfaketime; the machine's untouched).
  plb_gvisor_test(NAME gvisor.deadline.warden_clock_stepped_back LABELS deadline TIMEOUT 120 SERIAL
    COMMAND bash ${gvisor}/warden_clock_stepped.sh $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR}/ci/host)

  # The cost of one run outside the sandbox, counted rather than timed: the processes the tool
  # execs and the Engine requests it and its docker client make (strace of a real gVisor run),
  # against the budget the tool prints from call_budget.hpp; per line of a batch too, its preflight
  # once. SERIAL: a run waiting for a CPU lease, or a preflight listing other runs, could count
  # differently.
  foreach(case score batch)
    plb_gvisor_test(NAME gvisor.call_budget.${case} TIMEOUT 240 SERIAL
      COMMAND bash ${gvisor}/call_budget.sh $<TARGET_FILE:plb-sandbox> ${case} ${examples})
  endforeach()
endif()

# Embedders: the installed runner library scores a real script in gVisor with custom limits.
# Most of its time is the library's own build (61 objects), at a nice-0 host process's CPU weight
# beside runs that weigh ten times more (ci/host/setup-host): with a cold compiler cache under the
# label's load that took more than 600 s (a fresh machine's CI). So it starts first (COST: before
# the sandboxes and the model rounds take the CPUs) and has 1200 s.
if(TARGET plb_sandbox_runner)
  plb_gvisor_test(NAME gvisor.consumer.runner LABELS consumer TIMEOUT 1200 PROPERTIES COST 100000
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run.sh runner ${PROJECT_SOURCE_DIR}
      ${CMAKE_CURRENT_BINARY_DIR}/consumer-runner)
endif()

# README.md's command blocks, read from it at test time and run as written (the quick start from an
# empty directory, the batch example, report, verify, the doctor line; the set-up and the package
# install named as skipped, with why). The second case breaks a flag of the quick start in a copy of
# the README and passes only if the first one's script then fails on that block. Side by side: each
# works in its own temporary directory and checks only the files its commands published.
if(TARGET plb-sandbox)
  plb_gvisor_test(NAME gvisor.readme.commands_run_as_written TIMEOUT 900
    COMMAND python3 ${gvisor}/readme_commands.py $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR})
  plb_gvisor_test(NAME gvisor.readme.a_broken_command_fails TIMEOUT 420
    COMMAND python3 ${gvisor}/readme_commands.py $<TARGET_FILE:plb-sandbox> ${PROJECT_SOURCE_DIR} --self-test)
endif()

if(plb_gvisor_tests_without_holds)
  message(STATUS "${plb_gvisor_tests_without_holds} gvisor tests need the test-only hold points: "
                 "configure with -DPLB_SANDBOX_TEST_HOLDS=ON (the dev preset does) to register them")
endif()
