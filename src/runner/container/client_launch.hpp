// SPDX-License-Identifier: Apache-2.0
// Starting the docker client of a run (docker_run.hpp): /usr/bin/docker with the policy's
// arguments, the private environment below, its three pipes, a clean descriptor table, its own
// process group and the run's CPUs (child_setup).
#pragma once

#include <string>
#include <vector>

#include <boost/asio.hpp>
#include <boost/process/v2.hpp>

#include "support/problem.hpp"

namespace plb::runner {

inline constexpr const char* docker_binary = "/usr/bin/docker";

using client_process = boost::process::v2::basic_process<boost::asio::io_context::executor_type>;

struct client_pipes {
  boost::asio::writable_pipe& in;
  boost::asio::readable_pipe& out;
  boost::asio::readable_pipe& err;
};

// The started client, or why it could not be started. `cpus`: the run's --cpuset-cpus list
// ("" : anywhere).
result<client_process> launch_client(boost::asio::io_context& ctx, const std::vector<std::string>& arguments,
                                     const std::string& private_config_dir, const std::string& cpus,
                                     client_pipes pipes);

// The docker client's environment: nothing of the operator's, only what points it at the local
// daemon with an empty private configuration (no contexts, plugins or credential helpers).
std::vector<std::string> docker_client_environment(const std::string& private_config_dir);

}  // namespace plb::runner
