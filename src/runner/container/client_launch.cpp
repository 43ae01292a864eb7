// SPDX-License-Identifier: Apache-2.0
#include "runner/container/client_launch.hpp"

#include "runner/container/cpu_allocator.hpp"
#include "runner/container/engine_gate.hpp"
#include "support/child_process.hpp"

namespace plb::runner {

namespace bp = boost::process::v2;

result<client_process> launch_client(boost::asio::io_context& ctx, const std::vector<std::string>& arguments,
                                     const std::string& private_config_dir, const std::string& cpus,
                                     client_pipes pipes) {
  const std::vector<std::string> environment = docker_client_environment(private_config_dir);
  std::vector<const char*> envp;
  envp.reserve(environment.size() + 1);
  for (const auto& v : environment) envp.push_back(v.c_str());
  envp.push_back(nullptr);
  bp::posix::default_launcher launcher;
  launcher.env = envp.data();
  const cpu_set_t mask = cpu_mask(cpus);
  child_setup setup;
  if (CPU_COUNT(&mask) > 0) setup.cpus = &mask;
  bp::error_code ec;
  // The executor's overload: Boost 1.81's io_context overload drops `ec` and throws system_error.
  auto proc = launcher(ctx.get_executor(), ec, bp::filesystem::path(docker_binary), arguments,
                       bp::process_stdio{pipes.in, pipes.out, pipes.err}, setup);
  if (ec) return problem::says("cannot start " + std::string(docker_binary) + ": " + ec.message());
  return proc;
}

std::vector<std::string> docker_client_environment(const std::string& private_config_dir) {
  return {
      "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
      "DOCKER_HOST=unix://" + engine_gate_path(private_config_dir),
      "DOCKER_CONFIG=" + private_config_dir,
      "DOCKER_CLI_HINTS=false",
      "LANG=C",
  };
}

}  // namespace plb::runner
