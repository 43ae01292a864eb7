// SPDX-License-Identifier: Apache-2.0
// Waiting for the daemon, inspecting and removing the one container a run created, by its unique
// name, as failures the run can report. Removal is confirmed by the daemon no longer knowing the
// name, under its own deadline: a removal that cannot be confirmed is a cleanup failure, never a
// silent leak.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "runner/engine/docker_engine.hpp"

namespace plb::runner {

// Waits until the daemon answers again (it may be restarting). Throws failure(cleanup_failed)
// naming the container when it does not answer within the deadline.
void await_daemon(const docker_engine& engine, const std::string& container,
                  std::chrono::seconds deadline = std::chrono::seconds(60));

// nullopt when the daemon does not know the container. Throws failure(cleanup_failed).
std::optional<container_state> inspect_container(const docker_engine& engine, const std::string& name);

// Throws failure(cleanup_failed) when the container still exists at the deadline. Returns whether
// this call removed it (false: the daemon no longer knew the name when asked).
bool remove_container(const docker_engine& engine, const std::string& name,
                      std::chrono::seconds deadline = std::chrono::seconds(30));

// Every container carrying the tool's run label, running or not, as far as the list's bound goes
// (container_list_reader.hpp). Throws failure(cleanup_failed).
std::vector<labelled_container> labelled_containers(const docker_engine& engine);

}  // namespace plb::runner
