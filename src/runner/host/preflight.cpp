// SPDX-License-Identifier: Apache-2.0
#include "runner/host/preflight.hpp"

#include <iomanip>
#include <sstream>

#include "support/failure.hpp"

namespace plb::runner {

host_facts preflight(const docker_engine& engine, const sandbox::image_id& image, const sandbox::SandboxLimits& limits,
                     const cancellation& cancel, labelled_list* sweep_list) {
  host_facts facts;
  const std::optional<sandbox::image_id> wanted(image);
  const auto results = inspect_host({engine, wanted, limits, &cancel, inspect_mode::preflight, sweep_list}, facts);
  for (const auto& r : results)
    if (r.status == check_status::fail) fail(sandbox::verdict::host_refused, r.detail + ": " + r.fix);
  return facts;
}

std::vector<std::string> render_checks(const std::vector<check_result>& checks) {
  std::vector<std::string> lines;
  std::ostringstream head;
  head << std::left << std::setw(22) << "requirement" << std::setw(8) << "result"
       << "detail";
  lines.push_back(head.str());
  for (const auto& c : checks) {
    const char* mark = c.status == check_status::pass ? "pass" : c.status == check_status::fail ? "FAIL" : "skip";
    std::ostringstream line;
    line << std::left << std::setw(22) << c.requirement << std::setw(8) << mark << c.detail;
    lines.push_back(line.str());
    if (!c.fix.empty()) lines.push_back(std::string(30, ' ') + "fix: " + c.fix);
  }
  return lines;
}

}  // namespace plb::runner
