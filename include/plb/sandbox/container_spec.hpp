// SPDX-License-Identifier: Apache-2.0
// Forwarding header, kept for one release: the container spec is now the sandbox policy
// (sandbox_policy.hpp). New code includes that header and uses its names.
#pragma once

#include "plb/sandbox/sandbox_policy.hpp"

namespace plb::sandbox {

using container_spec [[deprecated("use sandbox_policy")]] = sandbox_policy;
using container_spec_builder [[deprecated("use sandbox_policy_builder")]] = sandbox_policy_builder;
using spec_result [[deprecated("use policy_result")]] = policy_result;
using spec_error [[deprecated("use policy_error")]] = policy_error;
namespace spec_constants = policy_constants;

}  // namespace plb::sandbox
