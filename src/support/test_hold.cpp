// SPDX-License-Identifier: Apache-2.0
// Compiled only with PLB_SANDBOX_TEST_HOLDS (see test_hold.hpp).
#include "support/test_hold.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

namespace plb {
namespace {

constexpr std::string_view stage_names[] = {"reading-data", "gate-opened",  "started",
                                            "reaped",       "bundle-entry", "bundle-read"};

void say(std::string_view text) noexcept { (void)!::write(STDERR_FILENO, text.data(), text.size()); }

}  // namespace

void hold_at(hold_stage stage) noexcept {
  const char* wanted = std::getenv("PLB_SANDBOX_TEST_STOP_AT");
  if (!wanted || !*wanted) return;
  bool known = false;
  for (const std::string_view name : stage_names) known |= name == wanted;
  if (!known) {
    say("plb-sandbox: PLB_SANDBOX_TEST_STOP_AT names no hold stage\n");
    std::_Exit(70);
  }
  if (stage_names[static_cast<int>(stage)] != wanted) return;
  // The init of a PID namespace ignores its own SIGSTOP: a hold there would pass unseen.
  if (::getpid() == 1) {
    say("plb-sandbox: a hold point cannot stop PID 1 of a PID namespace\n");
    std::_Exit(70);
  }
  ::kill(::getpid(), SIGSTOP);
}

}  // namespace plb
