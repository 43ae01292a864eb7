// SPDX-License-Identifier: Apache-2.0
// Test-only hold points. A test that must act at an exact stage of a run (kill every process of
// the tool while it removes its container, stop it before it has seen its container start, hold
// the client's requests past the start allowance) would otherwise race the tool, and a loaded
// machine decides who wins. In a build configured with PLB_SANDBOX_TEST_HOLDS=ON (the dev preset,
// which the tests use), `PLB_SANDBOX_TEST_STOP_AT=<stage>` makes the tool stop itself with SIGSTOP
// when it reaches that stage; the test waits for the process's state T, acts, and resumes it with
// SIGCONT. A stage name that is not one of these ends the process at its first hold point, so a
// typo never leaves a test waiting.
//
// Off in production: the release preset and the Debian packages build without the option, and then
// hold_at() is empty and the variable's name is not in the binary (ci/package-test checks the
// installed one: no such string, and a run with the variable set ends normally).
#pragma once

namespace plb {

enum class hold_stage {
  reading_data,  // the data file is being read (after its first block)
  gate_opened,   // the docker client's engine gate has just opened: its requests wait while stopped
  started,       // the watchdog has seen the container start and armed the reaper with the wall time
  reaped,        // the docker client has exited and been reaped; the container is not yet inspected
  bundle_entry,  // a bundle's entry has been stat'ed and is about to be opened (every entry)
  bundle_read,   // a bundle's file is being read (after its first block; every file)
};

#ifdef PLB_SANDBOX_TEST_HOLDS
void hold_at(hold_stage stage) noexcept;
#else
inline void hold_at(hold_stage) noexcept {}
#endif

}  // namespace plb
