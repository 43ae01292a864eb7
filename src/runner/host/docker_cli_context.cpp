// SPDX-License-Identifier: Apache-2.0
#include "runner/host/docker_cli_context.hpp"

#include <sys/stat.h>

#include <cstdlib>

#include <boost/json.hpp>

#include "support/file_io.hpp"

namespace plb::runner {

result<std::string> current_docker_cli_context() {
  constexpr std::size_t max_config_bytes = std::size_t{64} * 1024;
  const char* dir = std::getenv("DOCKER_CONFIG");
  const char* home = std::getenv("HOME");
  const std::string config = dir    ? std::string(dir) + "/config.json"
                             : home ? std::string(home) + "/.docker/config.json"
                                    : "";
  struct stat st {};
  if (config.empty() || ::lstat(config.c_str(), &st) != 0) return std::string();
  const auto text = read_file(config, max_config_bytes);
  if (!text)
    return problem::says("the docker CLI configuration " + config +
                         " is not a readable regular file of at most 64 KiB");
  boost::json::error_code ec;
  const auto v = boost::json::parse(*text, ec);
  if (ec || !v.is_object()) return std::string();
  const auto* name = v.get_object().if_contains("currentContext");
  if (name && name->is_string()) return std::string(name->get_string());
  return std::string();
}

}  // namespace plb::runner
