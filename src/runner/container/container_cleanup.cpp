// SPDX-License-Identifier: Apache-2.0
#include "runner/container/container_cleanup.hpp"

#include <thread>

#include "support/failure.hpp"

namespace plb::runner {

void await_daemon(const docker_engine& engine, const std::string& container, std::chrono::seconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  std::string last;
  while (true) {
    const auto pong = engine.ping();
    if (pong) return;
    last = pong.error().message();
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  fail(sandbox::verdict::cleanup_failed, "the Docker daemon stopped answering (" + last + "); container " + container +
                                             " may remain: run `plb-sandbox sweep` once the daemon is back");
}

std::optional<container_state> inspect_container(const docker_engine& engine, const std::string& name) {
  auto state = engine.inspect_container(name);
  if (!state) fail(sandbox::verdict::cleanup_failed, state.error().message());
  return std::move(*state);
}

bool remove_container(const docker_engine& engine, const std::string& name, std::chrono::seconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  std::string last = "no answer";
  bool removed_here = false;
  while (true) {
    const auto removed = engine.remove(name);
    if (removed) {
      removed_here |= *removed;
      const auto check = engine.inspect_container(name);
      if (check && !*check) return removed_here;
      last = check ? "still listed after removal" : check.error().message();
    } else {
      last = removed.error().message();
    }
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  fail(sandbox::verdict::cleanup_failed, "container " + name + " could not be removed within " +
                                             std::to_string(deadline.count()) + " s (" + last +
                                             "); remove it with: docker rm -f " + name);
}

std::vector<labelled_container> labelled_containers(const docker_engine& engine) {
  auto listed = engine.list_labelled();
  if (!listed) fail(sandbox::verdict::cleanup_failed, listed.error().message());
  return std::move(listed->containers);
}

}  // namespace plb::runner
