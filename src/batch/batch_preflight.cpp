// SPDX-License-Identifier: Apache-2.0
// A batch's one preflight, shared by every backend that runs lines on a host: the local backend
// before its first run, and each queued backend's worker on its node.
#include <map>

#include "batch/backend.hpp"
#include "runner/for_batch.hpp"

namespace plb::batch {

// The host facts per runtime image: the preflight proves each image once (most batches use one).
std::map<std::string, host_facts> preflight_once(const batch_plan& plan, const std::vector<std::size_t>& lines,
                                                 const cancellation& cancel) {
  std::map<std::string, host_facts> hosts;
  if (lines.empty()) return hosts;
  const docker_engine engine;
  for (const std::size_t i : lines) {
    const std::string& runtime_image = plan.runtime_image(i);
    if (hosts.count(runtime_image)) continue;
    const auto image = sandbox::parse_image_id(runtime_image);  // checked by the plan
    hosts.emplace(runtime_image, preflight(engine, *image.id, plan.limits(i), cancel));
  }
  cancel.check();
  sweep_orphans(engine);
  return hosts;
}

}  // namespace plb::batch
