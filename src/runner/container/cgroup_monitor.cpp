// SPDX-License-Identifier: Apache-2.0
#include "runner/container/cgroup_monitor.hpp"

#include "support/file_io.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>
#include <string_view>

namespace plb::runner {
namespace {

std::optional<std::uint64_t> read_number(const std::string& path) {
  auto s = read_file(path);
  if (!s) return std::nullopt;
  std::uint64_t v = 0;
  const auto r = std::from_chars(s->data(), s->data() + s->size(), v);
  if (r.ec != std::errc{}) return std::nullopt;
  return v;
}

// "key value" lines (memory.oom_control, memory.events, pids.events, cpu.stat).
std::optional<std::uint64_t> read_key(const std::string& path, std::string_view key) {
  auto s = read_file(path);
  if (!s) return std::nullopt;
  std::istringstream lines(*s);
  std::string k;
  std::uint64_t v = 0;
  while (lines >> k >> v)
    if (k == key) return v;
  return std::nullopt;
}

void raise(std::uint64_t& field, std::optional<std::uint64_t> v) {
  if (v) field = std::max(field, *v);
}

}  // namespace

cgroup_monitor::cgroup_monitor(std::string cgroup_version, std::string cgroup_driver, std::string root)
    : version_(std::move(cgroup_version)), driver_(std::move(cgroup_driver)), root_(std::move(root)) {}

void cgroup_monitor::attach(const std::string& container_id) { container_id_ = container_id; }

std::string containers_parent_dir(const std::string& cgroup_version, const std::string& cgroup_driver,
                                  const std::string& root, const char* controller) {
  const std::string parent = cgroup_driver == "systemd" ? "system.slice" : "docker";
  return cgroup_version == "2" ? root + "/" + parent : root + "/" + controller + "/" + parent;
}

std::string cgroup_monitor::dir(const char* controller) const {
  const std::string leaf = driver_ == "systemd" ? "docker-" + container_id_ + ".scope" : container_id_;
  return containers_parent_dir(version_, driver_, root_, controller) + "/" + leaf;
}

void cgroup_monitor::sample() {
  if (container_id_.empty()) return;
  if (version_ == "2") {
    const std::string d = dir("");
    if (auto cur = read_number(d + "/memory.current")) {
      usage_.seen = true;
      raise(usage_.memory_peak_bytes, cur);
    }
    raise(usage_.memory_peak_bytes, read_number(d + "/memory.peak"));
    raise(usage_.memory_limit_hits, read_key(d + "/memory.events", "max"));
    raise(usage_.oom_kills, read_key(d + "/memory.events", "oom_kill"));
    raise(usage_.pids_limit_hits, read_key(d + "/pids.events", "max"));
    raise(usage_.pids_peak, read_number(d + "/pids.current"));
    if (auto usec = read_key(d + "/cpu.stat", "usage_usec")) raise(usage_.cpu_nanoseconds, *usec * 1000);
    return;
  }
  const std::string mem = dir("memory");
  if (auto peak = read_number(mem + "/memory.max_usage_in_bytes")) {
    usage_.seen = true;
    raise(usage_.memory_peak_bytes, peak);
  }
  raise(usage_.memory_limit_hits, read_number(mem + "/memory.failcnt"));
  raise(usage_.oom_kills, read_key(mem + "/memory.oom_control", "oom_kill"));
  const std::string pids = dir("pids");
  raise(usage_.pids_limit_hits, read_key(pids + "/pids.events", "max"));
  raise(usage_.pids_peak, read_number(pids + "/pids.current"));
  raise(usage_.cpu_nanoseconds, read_number(dir("cpuacct") + "/cpuacct.usage"));
}

}  // namespace plb::runner
