#include "workspace.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "failure.hpp"
#include "owner.hpp"

#include <fstream>

namespace plb::tool {

workspace::workspace(const std::string& run_id) {
  std::error_code ec;
  std::filesystem::create_directories(runs_dir, ec);
  ::chmod(runs_dir, 0700);
  path_ = std::string(runs_dir) + "/" + run_id;
  if (::mkdir(path_.c_str(), 0700) != 0)
    fail(sandbox::verdict::host_refused, "cannot create the run directory " + path_ + " (" + std::strerror(errno) +
                                             "): run plb-sandbox as root");
  if (::mkdir(docker_config_dir().c_str(), 0700) != 0)
    fail(sandbox::verdict::internal_error, "cannot create " + docker_config_dir() + ": " + std::strerror(errno));
  // A sweep removes this directory only once the process named here is gone.
  std::ofstream(path_ + "/owner") << self_owner() << '\n';
}

workspace::~workspace() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace plb::tool
