// The host checks as one table: each row names its requirement, what must have passed before it
// (a row whose needs are missing is skipped, saying which), what passing it establishes, and the
// function that checks (host_checks_daemon.cpp, host_checks_runtime.cpp). A new check is one
// function and one row.
#include <sys/utsname.h>

#include "host_check_steps.hpp"

namespace plb::tool {
namespace {

using namespace checks;

const char* missing_reason(unsigned missing) {
  if (missing & image_given) return "give --runtime-image";
  if (missing & socket) return "needs the daemon socket";
  if (missing & daemon) return "needs a daemon that answers";
  if (missing & runsc_entry) return "needs the runsc runtime";
  if (missing & runsc_ok) return "needs a supported runsc";
  return "needs the image";
}

struct host_check {
  const char* requirement;
  unsigned needs;
  unsigned provides;
  check_fn run;
};

constexpr host_check host_checks[] = {
    {"state directories", nothing, nothing, state_directories},
    {"local daemon only", nothing, nothing, local_daemon_only},
    {"daemon socket", nothing, socket, daemon_socket},
    {"docker client", nothing, nothing, docker_client},
    {"daemon answers", socket, daemon, daemon_answers},
    {"Linux daemon", daemon, nothing, linux_daemon},
    {"runsc registered", daemon, runsc_entry, runsc_registered},
    {"runsc release", runsc_entry, runsc_ok, runsc_release_check},
    {"cgroup controllers", daemon, nothing, cgroup_controllers},
    {"image present", daemon | image_given, image_present, image_is_present},
    {"image has no volumes", image_present, nothing, image_has_no_volumes},
    {"runsc is gVisor", image_present | runsc_ok, nothing, runsc_is_gvisor},
};

}  // namespace

std::vector<check_result> inspect_host(const host_inspection& what, host_facts& facts) {
  utsname u{};
  ::uname(&u);
  facts.host_kernel = u.release;
  check_context context{what, facts, std::nullopt, {}};
  unsigned established = what.image ? image_given : nothing;
  std::vector<check_result> results;
  for (const host_check& check : host_checks) {
    check_result r;
    r.requirement = check.requirement;
    if (const unsigned missing = check.needs & ~established) {
      r.detail = missing_reason(missing);
      results.push_back(std::move(r));
      continue;
    }
    context.skipped.clear();
    if (auto problem = check.run(context, r.detail)) {
      r.status = check_status::fail;
      r.detail = problem->detail;
      r.fix = problem->fix;
      results.push_back(std::move(r));
      if (what.mode == inspect_mode::preflight) break;
      continue;
    }
    if (!context.skipped.empty()) {
      r.detail = context.skipped;
    } else {
      r.status = check_status::pass;
      established |= check.provides;
    }
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace plb::tool
