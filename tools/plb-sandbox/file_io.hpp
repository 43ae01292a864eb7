// The tool's small file helpers, so every unit reads and writes files the same way.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace plb::tool {

// The whole of a small file (cgroup counters, caches, configuration); nullopt if it cannot be opened.
std::optional<std::string> read_small_file(const std::string& path);

// Writes all of `data` to `fd`, retrying short writes and EINTR. Returns 0 or the errno.
int write_all(int fd, std::string_view data) noexcept;

}  // namespace plb::tool
