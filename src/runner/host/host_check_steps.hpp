// SPDX-License-Identifier: Apache-2.0
// The host checks' shared parts (private to host_checks*.cpp): what a check may need and
// provide, the context every check reads and fills, and the two slices of the table.
#pragma once

#include <future>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "runner/host/gvisor_proof.hpp"
#include "runner/host/preflight.hpp"
#include "runner/host/warden.hpp"

namespace plb::runner::checks {

// What a check may need and what passing it provides.
enum need : unsigned {
  nothing = 0,
  socket = 1u << 0,         // the daemon socket exists
  daemon = 1u << 1,         // the daemon answers /info
  runsc_entry = 1u << 2,    // a runsc runtime is registered
  runsc_ok = 1u << 3,       // ... of a supported release and platform
  image_given = 1u << 4,    // an image ID was given
  image_present = 1u << 5,  // ... and is present locally
};

// What a skipped row says when one of its needs is missing, one line per bit, first match wins:
// a new prerequisite is its bit above and its line here.
inline constexpr std::pair<unsigned, const char*> missing_need_reasons[] = {
    {image_given, "give --runtime-image"},   {socket, "needs the daemon socket"},
    {daemon, "needs a daemon that answers"}, {runsc_entry, "needs the runsc runtime"},
    {runsc_ok, "needs a supported runsc"},   {image_present, "needs the image"},
};

// The questions asked of the daemon and the warden besides /info, started together by the check
// that asks for /info (once the local checks have passed): their round trips then overlap with
// /info's (7-30 ms of dockerd's time) instead of adding up, and the checks read the answers in
// table order. Each question is still asked once (call_budget.hpp).
struct prefetched {
  std::future<engine_result<std::optional<image_facts>>> image;  // with an image only
  std::future<host_result<warden_status>> warden;
  std::future<engine_result<container_list>> labelled;  // with a sweep_list only
};

struct check_context {
  const host_inspection& what;
  host_facts& facts;
  std::optional<image_facts> image;
  std::string skipped;  // set by a check that decided not to run (explain starts no container)
  prefetched answers;
};

// Starts every prefetched question (daemon_answers calls it before asking /info itself).
prefetched prefetch(const host_inspection& what);

// A check passes with its detail (what it found, for doctor's line) or refuses the host.
using check_fn = host_result<std::string> (*)(check_context&);

struct host_check {
  const char* requirement;
  unsigned needs;     // what must have passed before it (else it is skipped, saying which)
  unsigned provides;  // what passing it establishes
  check_fn run;
};

// The table, in order, in two slices: the machine and its daemon (host_checks_daemon.cpp), then
// the runsc runtime and the image (host_checks_runtime.cpp). Each slice's size is its rows'.
extern const std::span<const host_check> machine_checks;
extern const std::span<const host_check> runtime_checks;

}  // namespace plb::runner::checks
