// The reaper: a detached process outside the sandbox that ends one container whatever happens to
// the tool. The tool's own watchdog is the normal path; the reaper bounds the sandbox's life when
// the tool cannot: killed by SIGKILL, crashed, or stopped.
//
//   - It is forked when the run's container name is known, before the inputs are read (so the
//     copy-on-write image it keeps is small), and detaches at once: its own session (no terminal
//     signal reaches it), reparented to init, every descriptor closed but its pipe from the tool.
//   - start(wall) arms its deadline: wall + reaper_grace after the docker client launched. Past
//     it, with the tool still alive but not done, it kills the container (and leaves it for the
//     tool to inspect and remove).
//   - When the pipe closes without release() (the tool died), it kills the docker client through
//     a pidfd (no PID-reuse race) so nothing can start the container again, then removes the
//     container by name until the daemon confirms it is gone.
//   - release() after the tool removed the container: it exits and touches nothing.
// The script cannot reach it: it is a host process, and the sandbox sees no host PID.
// Between fork and exit the child makes only async-signal-safe calls (the tool has threads).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "file_io.hpp"

namespace plb::tool {

// How long past the wall time a stuck tool's container may live before the reaper kills it.
inline constexpr std::chrono::seconds reaper_grace{5};

class reaper {
 public:
  // Throws failure(internal_error) if it cannot be started: a run never starts without one.
  reaper(const std::string& socket_path, const std::string& container_name);
  ~reaper();  // closes the pipe: unless released, the reaper removes the container now
  reaper(const reaper&) = delete;
  reaper& operator=(const reaper&) = delete;

  void start(std::chrono::milliseconds wall) noexcept;  // the client has just been launched
  void watch_client(pid_t client) noexcept;             // the docker client's PID
  void release() noexcept;                              // the container is removed

 private:
  void send(char kind, std::uint64_t value) noexcept;

  unique_fd pipe_;  // to the reaper; closing it without release() means the tool is gone
};

}  // namespace plb::tool
