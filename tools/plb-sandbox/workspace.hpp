// A run's private directory, /var/lib/plb-sandbox/runs/<run id> (0700, root's): it holds the
// script snapshot and the docker client's empty configuration, and is removed when the run ends.
#pragma once

#include <string>

namespace plb::tool {

inline constexpr const char* runs_dir = "/var/lib/plb-sandbox/runs";

class workspace {
 public:
  explicit workspace(const std::string& run_id);
  ~workspace();
  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;

  const std::string& path() const noexcept { return path_; }
  std::string docker_config_dir() const { return path_ + "/docker-config"; }

 private:
  std::string path_;
};

}  // namespace plb::tool
