// SPDX-License-Identifier: Apache-2.0
// `doctor`: every host check an operator reads before a round, and the gVisor probe when a run
// directory can be made (with an image). The command line reaches it through runner/for_cli.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plb/sandbox/image_id.hpp"
#include "support/cancellation.hpp"

namespace plb::runner {

struct doctor_report {
  std::vector<std::string> lines;  // one per check, as render_checks words them
  bool ready = false;              // no check failed
};

doctor_report doctor(const std::optional<sandbox::image_id>& image, const cancellation& cancel);

}  // namespace plb::runner
