// SPDX-License-Identifier: Apache-2.0
// The host checks as one table, run in order: each row names its requirement, what must have
// passed before it (a row whose needs are missing is skipped, saying which), what passing it
// establishes, and the function that checks. The rows live beside their functions, in two slices
// (host_checks_daemon.cpp, host_checks_runtime.cpp): a new check is one function and one row (the
// slices are spans, sized by their rows); a new prerequisite is also one `need` bit and its line in
// missing_need_reasons (host_check_steps.hpp).
#include <sys/utsname.h>

#include <span>

#include "runner/host/host_check_steps.hpp"

namespace plb::runner {
namespace {

using namespace checks;

const char* missing_reason(unsigned missing) {
  for (const auto& [bit, reason] : missing_need_reasons)
    if (missing & bit) return reason;
  return "needs an earlier check";  // a bit without its line: missing_need_reasons is incomplete
}

}  // namespace

namespace checks {

prefetched prefetch(const host_inspection& what) {
  prefetched p;
  const docker_engine& engine = what.engine;
  if (what.image)
    p.image = std::async(std::launch::async, [&engine, image = *what.image] { return engine.inspect_image(image); });
  p.warden = std::async(std::launch::async, [] { return ping_warden(warden_socket, std::chrono::milliseconds(2000)); });
  if (what.sweep_list) p.labelled = std::async(std::launch::async, [&engine] { return engine.list_labelled(); });
  return p;
}

}  // namespace checks

std::vector<check_result> inspect_host(const host_inspection& what, host_facts& facts) {
  utsname u{};
  ::uname(&u);
  facts.host_kernel = u.release;
  check_context context{what, facts, std::nullopt, {}, {}};
  unsigned established = what.image ? image_given : nothing;
  std::vector<check_result> results;
  for (const std::span<const host_check> slice : {machine_checks, runtime_checks})
    for (const host_check& check : slice) {
      check_result r;
      r.requirement = check.requirement;
      if (const unsigned missing = check.needs & ~established) {
        r.detail = missing_reason(missing);
        results.push_back(std::move(r));
        continue;
      }
      context.skipped.clear();
      auto outcome = check.run(context);
      if (!outcome) {
        r.status = check_status::fail;
        r.detail = std::move(outcome.error().detail);
        r.fix = std::move(outcome.error().fix);
        results.push_back(std::move(r));
        if (what.mode == inspect_mode::preflight) return results;  // sandbox-score stops at the first failure
        continue;
      }
      r.detail = std::move(*outcome);
      if (!context.skipped.empty()) {
        r.detail = context.skipped;
      } else {
        r.status = check_status::pass;
        established |= check.provides;
      }
      results.push_back(std::move(r));
    }
  if (what.sweep_list && context.answers.labelled.valid()) *what.sweep_list = context.answers.labelled.get();
  return results;
}

}  // namespace plb::runner
