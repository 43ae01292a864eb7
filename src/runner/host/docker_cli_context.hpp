// SPDX-License-Identifier: Apache-2.0
// The docker CLI's current context, from the operator's CLI configuration ($DOCKER_CONFIG or
// $HOME/.docker/config.json). The file is read bounded (64 KiB) and only if it is a regular file:
// a FIFO or a device there must not hang the tool or be opened as root.
#pragma once

#include <string>

#include "support/problem.hpp"

namespace plb::runner {

// The current context's name ("" when none is set, or there is no configuration), or why a
// configuration that exists cannot be read safely.
result<std::string> current_docker_cli_context();

}  // namespace plb::runner
