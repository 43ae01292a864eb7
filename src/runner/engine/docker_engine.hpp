// SPDX-License-Identifier: Apache-2.0
// The Docker Engine API as this tool uses it: one typed call per need, each returning
// boost::system::result<T, engine_error>. Request paths, query strings, URL encoding and status
// codes live here and nowhere else; the answers are read by engine_json.hpp (bounded, fuzzed).
//
// A new Engine call is one method here (its path and the statuses it expects), one parser in
// engine_json.hpp (returning engine_result, bounded like the others) with one seed in its fuzz
// target's corpus (corpus/<target>/, or a new fuzz/<name>_fuzzer.cpp for a new shape of answer),
// and, if a run makes it, its row in call_budget.hpp (gvisor.call_budget counts every request).
// The one other writer of requests is the reaper (container/reaper_calls.cpp): after fork it may
// make only async-signal-safe calls, so it speaks HTTP on a raw socket instead of through here.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "plb/sandbox/image_id.hpp"
#include "runner/engine/container_list_reader.hpp"
#include "runner/engine/engine_error.hpp"
#include "runner/engine/engine_json.hpp"
#include "runner/engine/engine_transport.hpp"

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
  // Every container carrying the tool's run label, running or not, streamed and bounded
  // (container_list_reader.hpp): the sweep, the preflight and the warden all list through here.
  engine_result<container_list> list_labelled() const;
  // SIGKILL; a container that is gone or not running is not an error.
  engine_result<void> kill(const std::string& name) const;
  // Forced removal, never of volumes. true: removed by this call; false: the daemon did not know it.
  engine_result<bool> remove(const std::string& name) const;

 private:
  engine_transport transport_;
};

// The sweep's list of labelled containers, when the preflight asked for it alongside its own
// questions (nullopt: it did not get that far). Named here, below both, so that the sweep
// (container/) and the preflight (host/) share it without either including the other.
using labelled_list = std::optional<engine_result<container_list>>;

// "%7B%22label%22..." for a query string: everything but unreserved characters is escaped.
std::string url_encode(std::string_view text);

}  // namespace plb::runner
