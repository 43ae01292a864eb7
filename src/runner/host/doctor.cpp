// SPDX-License-Identifier: Apache-2.0
// `doctor`: the host checks an operator reads before a round, with the probe when possible.
#include "runner/host/doctor.hpp"

#include "runner/host/preflight.hpp"
#include "runner/state/state_dirs.hpp"

namespace plb::runner {

doctor_report doctor(const std::optional<sandbox::image_id>& image, const cancellation& cancel) {
  host_facts facts;
  std::vector<check_result> checks;
  const sandbox::SandboxLimits defaults;
  // Without safe state directories the probe could not have its run directory: the checks say
  // what they can without it.
  const std::optional<sandbox::image_id> probed = check_state_dirs(true) ? image : std::nullopt;
  checks = inspect_host({docker_engine{}, probed, defaults, &cancel, inspect_mode::doctor}, facts);
  cancel.check();
  doctor_report report;
  report.ready = true;
  for (const auto& c : checks) report.ready &= c.status != check_status::fail;
  report.lines = render_checks(checks);
  return report;
}

}  // namespace plb::runner
