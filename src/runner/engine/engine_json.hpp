// SPDX-License-Identifier: Apache-2.0
// Reads the Docker Engine API answers the preflight relies on. The daemon is trusted, but an odd
// or tampered answer is still input: every field is checked for presence and type, and a missing
// one is reported by name rather than guessed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/engine/engine_error.hpp"

namespace plb::runner {

struct runtime_entry {
  std::string path;
  std::vector<std::string> args;
};

struct daemon_info {
  std::string id;
  std::string server_version;
  std::string os_type;
  std::string cgroup_version;  // "1" or "2"
  std::string cgroup_driver;   // "cgroupfs" or "systemd"
  bool memory_limit = false;
  bool swap_limit = false;
  bool cpu_cfs_quota = false;
  bool pids_limit = false;
  std::map<std::string, runtime_entry> runtimes;
};

struct image_facts {
  std::string id;
  bool has_volumes = false;
};

struct container_state {
  std::string id;
  std::string status;  // created, running, exited, ...
  bool running = false;
  bool oom_killed = false;
  std::int64_t exit_code = 0;
  std::string started_at;
  std::string finished_at;
  std::optional<std::int64_t> started_ns, finished_ns;  // those two, parsed (engine_time.hpp); nullopt: not yet
  std::string error;                                    // the daemon's own start error, if any
  // The top-level Created, to the nanosecond (the list's Created is whole seconds, cut down: the
  // warden's deadlines need the rest). nullopt: missing or not an engine time.
  std::optional<std::int64_t> created_ns;
};

struct labelled_container {
  std::string name;            // without Docker's leading '/'
  std::string run_label;       // the run label's value; empty if missing
  std::string deadline_label;  // the deadline label's value (seconds after creation); empty if missing
  std::int64_t created = 0;    // Unix seconds, by the daemon's clock; 0 if missing
  std::string state;           // created, running, exited, ...
};

// The labelled containers as the daemon lists them, bounded (container_list_reader.hpp).
struct container_list {
  std::vector<labelled_container> containers;  // in the daemon's order
  std::uint64_t left_out = 0;                  // listed beyond the bound, not kept
  std::uint64_t oversized = 0;                 // kept with a field cut at its bound
};

// Each refuses with an engine_error of kind bad_reply saying what was wrong. Every answer is at
// most 4 MiB and 32 levels deep before it is parsed, but the container list, which is streamed
// (container_list_reader.hpp).
engine_result<daemon_info> parse_daemon_info(std::string_view json) noexcept;
engine_result<image_facts> parse_image_inspect(std::string_view json) noexcept;
engine_result<container_state> parse_container_inspect(std::string_view json) noexcept;
// GET /containers/json whole, through container_list_reader (the client streams it instead): the
// name, labels, creation time and state of each, bounded; any entry without a name is refused.
engine_result<container_list> parse_container_list(std::string_view json) noexcept;

}  // namespace plb::runner
