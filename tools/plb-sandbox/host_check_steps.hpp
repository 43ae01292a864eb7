// The host checks' shared parts (private to host_checks*.cpp): what a check may need and
// provide, the context every check reads and fills, and the two slices of the table.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "gvisor_proof.hpp"
#include "preflight.hpp"

namespace plb::tool::checks {

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

struct check_context {
  const host_inspection& what;
  host_facts& facts;
  std::optional<image_facts> image;
  std::string skipped;  // set by a check that decided not to run (explain starts no container)
};

using check_fn = std::optional<refusal> (*)(check_context&, std::string& detail);

struct host_check {
  const char* requirement;
  unsigned needs;     // what must have passed before it (else it is skipped, saying which)
  unsigned provides;  // what passing it establishes
  check_fn run;
};

// The table, in order, in two slices: the machine and its daemon (host_checks_daemon.cpp), then
// the runsc runtime and the image (host_checks_runtime.cpp).
extern const std::array<host_check, 8> machine_checks;
extern const std::array<host_check, 5> runtime_checks;

}  // namespace plb::tool::checks
