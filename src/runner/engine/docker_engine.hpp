// SPDX-License-Identifier: Apache-2.0
// The Docker Engine API as this tool uses it: one typed call per need, each returning
// boost::system::result<T, engine_error>. Request paths, query strings, URL encoding and status
// codes live here and nowhere else; the answers are read by engine_json.hpp (bounded, fuzzed).
// A new Engine call is one method here and one row in tests/integration/engine_client_test.cpp
// (run against the real daemon).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "runner/engine/engine_error.hpp"
#include "runner/engine/engine_json.hpp"
#include "runner/engine/engine_transport.hpp"
#include "plb/sandbox/image_id.hpp"

namespace plb::runner {

class docker_engine {
 public:
  explicit docker_engine(std::string socket_path = docker_socket,
                         std::chrono::seconds timeout = std::chrono::seconds(30));

  const std::string& socket_path() const noexcept { return transport_.socket_path(); }

  engine_result<void> ping() const;
  engine_result<daemon_info> info() const;
  // nullopt: the image is not present locally (it is never pulled).
  engine_result<std::optional<image_facts>> inspect_image(const sandbox::image_id& image) const;
  // nullopt: the daemon does not know the container.
  engine_result<std::optional<container_state>> inspect_container(const std::string& name) const;
  // Every container carrying the tool's run label, running or not.
  engine_result<std::vector<labelled_container>> list_labelled() const;
  // SIGKILL; a container that is gone or not running is not an error.
  engine_result<void> kill(const std::string& name) const;
  // Forced removal, never of volumes. true: removed by this call; false: the daemon did not know it.
  engine_result<bool> remove(const std::string& name) const;

 private:
  engine_transport transport_;
};

// "%7B%22label%22..." for a query string: everything but unreserved characters is escaped.
std::string url_encode(std::string_view text);

}  // namespace plb::runner
