// SPDX-License-Identifier: Apache-2.0
// The reaper: a detached process outside the sandbox that ends one container whatever happens to
// the tool. The tool's own watchdog is the normal path; the reaper bounds the sandbox's life when
// the tool cannot: killed by SIGKILL, crashed, or stopped.
//
//   - It is forked when the run's container name is known, before the inputs are read (so the
//     copy-on-write image it keeps is small), and detaches at once: its own session (no terminal
//     signal reaches it), reparented to init, every descriptor closed but its socket from the tool.
//   - start(bound) arms its deadline: bound + reaper_grace from now. The watchdog arms it with the
//     start allowance and the wall time just before the docker client's engine gate opens
//     (engine_gate.hpp: before that the client can reach nothing), and again with what is left of
//     the wall time once the container has started (run_clock.hpp). Past it, with the tool still
//     alive but not done, it kills the container (and leaves it for the tool to inspect and
//     remove), retrying until the daemon confirms the kill.
//   - When the socket closes without release() (the tool died), it kills the docker client through
//     a pidfd (no PID-reuse race) so nothing can start the container again, then removes the
//     container by name until the daemon confirms it is gone, and goes on removing that name
//     until the deadline (or, if none was armed, bound + grace after the tool's death): whatever
//     it was or was not told, a slow client cannot start the container behind it.
//   - A daemon that does not confirm is retried as long as it takes; the reaper says so once in
//     /var/lib/plb-sandbox/reaper.log.
//   - The tool watches it in turn (alive()): a run whose reaper died is stopped (runtime_failed).
// The reaper shares the tool's cgroup, so a cgroup-wide kill takes it too: the warden (warden.hpp)
// is the bound that holds then.
//   - release() after the tool removed the container: it exits and touches nothing.
// The script cannot reach it: it is a host process, and the sandbox sees no host PID.
// Between fork and exit the child makes only async-signal-safe calls (the tool has threads).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "support/file_io.hpp"

namespace plb::runner {

// How long past its deadline (start allowance and wall time) a stuck tool's container may live
// before the reaper kills it.
inline constexpr std::chrono::seconds reaper_grace{5};

class reaper {
 public:
  // Throws failure(internal_error) if it cannot be started: a run never starts without one.
  // `bound`: the run's start allowance and wall time, known before anything starts (see
  // remove_now in reaper.cpp).
  reaper(const std::string& socket_path, const std::string& container_name, std::chrono::milliseconds bound);
  ~reaper();  // closes the socket: unless released, the reaper removes the container now
  reaper(const reaper&) = delete;
  reaper& operator=(const reaper&) = delete;

  void start(std::chrono::milliseconds bound) noexcept;  // the deadline: bound + grace from now
  void watch_client(pid_t client) noexcept;              // the docker client's PID
  void release() noexcept;                               // the container is removed
  bool alive() const noexcept;                           // false once the reaper process is gone

 private:
  void send(char kind, std::uint64_t value) noexcept;

  // The socket to the reaper (a socket pair, not a pipe: reaper.cpp says why); closing it without
  // release() means the tool is gone.
  unique_fd pipe_;
};

}  // namespace plb::runner
