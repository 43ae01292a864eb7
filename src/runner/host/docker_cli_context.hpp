// SPDX-License-Identifier: Apache-2.0
// The docker CLI's current context, from the operator's CLI configuration ($DOCKER_CONFIG or
// $HOME/.docker/config.json). The file is read bounded (64 KiB) and only if it is a regular file:
// a FIFO or a device there must not hang the tool or be opened as root.
#pragma once

#include <optional>
#include <string>

namespace plb::runner {

struct docker_cli_context {
  std::string name;     // empty: none set
  std::string problem;  // set when the configuration exists but cannot be read safely
};

docker_cli_context current_docker_cli_context();

}  // namespace plb::runner
