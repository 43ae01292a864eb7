// SPDX-License-Identifier: Apache-2.0
// The one table of batch backends. A new backend adds its factory's declaration and one row.
#include "batch/backend.hpp"
#include "support/failure.hpp"

namespace plb::batch {

const backend& local_backend();  // local/batch_local.cpp
const backend& slurm_backend();  // slurm/slurm_backend.cpp

namespace {
const backend* const registered[] = {&local_backend(), &slurm_backend()};
}

std::span<const backend* const> backends() noexcept { return registered; }

const backend* find_backend(std::string_view name) noexcept {
  for (const backend* b : registered)
    if (b->name() == name) return b;
  return nullptr;
}

std::string backend::submitted_text(const std::string& job) const { return "submitted job " + job; }

batch_outcome backend::collect(const batch_config&, const batch_plan&, const batch_hooks&) const {
  fail(sandbox::verdict::usage_error,
       "--collect needs a queued backend: " + std::string(name()) + " runs its lines itself");
}

}  // namespace plb::batch
