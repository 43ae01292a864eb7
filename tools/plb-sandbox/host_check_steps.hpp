// The host checks' shared parts (private to host_checks*.cpp): what a check may need and
// provide, the context every check reads and fills, and the check functions the table lists.
#pragma once

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

std::optional<refusal> state_directories(check_context& c, std::string& detail);
std::optional<refusal> local_daemon_only(check_context& c, std::string& detail);
std::optional<refusal> daemon_socket(check_context& c, std::string& detail);
std::optional<refusal> docker_client(check_context& c, std::string& detail);
std::optional<refusal> daemon_answers(check_context& c, std::string& detail);
std::optional<refusal> linux_daemon(check_context& c, std::string& detail);
std::optional<refusal> runsc_registered(check_context& c, std::string& detail);
std::optional<refusal> runsc_release_check(check_context& c, std::string& detail);
std::optional<refusal> cgroup_controllers(check_context& c, std::string& detail);
std::optional<refusal> image_is_present(check_context& c, std::string& detail);
std::optional<refusal> image_has_no_volumes(check_context& c, std::string& detail);
std::optional<refusal> runsc_is_gvisor(check_context& c, std::string& detail);

}  // namespace plb::tool::checks
