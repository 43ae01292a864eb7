// SPDX-License-Identifier: Apache-2.0
// `doctor`: the host checks an operator reads before a round, with the probe when possible.
#include "runner/for_cli.hpp"
#include "runner/container/run_directory.hpp"
#include "runner/host/preflight.hpp"
#include "runner/host/state_dirs.hpp"
#include "runner/score/run_id.hpp"

namespace plb::runner {

doctor_report doctor(const std::optional<sandbox::image_id>& image, const cancellation& cancel) {
  host_facts facts;
  std::vector<check_result> checks;
  const sandbox::SandboxLimits defaults;
  if (!check_state_dirs(true)) {
    // No run directory can be made safely: report what the checks can say without one (no probe).
    checks = inspect_host({docker_engine{}, std::nullopt, defaults, runs_dir, &cancel, inspect_mode::doctor}, facts);
  } else {
    run_directory dir(new_run_id());
    checks =
        inspect_host({docker_engine{}, image, defaults, dir.docker_config_dir(), &cancel, inspect_mode::doctor}, facts);
  }
  cancel.check();
  doctor_report report;
  report.ready = true;
  for (const auto& c : checks) report.ready &= c.status != check_status::fail;
  report.lines = render_checks(checks);
  return report;
}

}  // namespace plb::runner
