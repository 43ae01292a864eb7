// SPDX-License-Identifier: Apache-2.0
// The warden's removals in flight (warden.hpp: the warden). Each DELETE waits up to the engine's
// timeout (the warden's: 10 s) for the daemon to kill and remove its container. Asked one after
// another inside the pass, a container the daemon was slow to remove (a loaded host, a runsc slow to
// kill) held up the removal of every other container due meanwhile, and the pass itself, so the
// warden looked stale to every preflight: in a label run two sandboxes of a lost Slurm node were
// asked 10 s apart, and a third container waited 10 s behind them. Here each removal runs on a
// thread of its own and the passes go on once a period. The slots go to the containers never asked
// first, then to the one asked longest ago, so that however many removals keep failing, every due
// container is asked in turn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runner/engine/docker_engine.hpp"

#include "runner/host/warden.hpp"

namespace plb::runner {

// At most this many removals in flight at once (each a thread and a connection to the daemon).
inline constexpr std::size_t warden_removals_at_once = 16;

struct removal_answer {
  overdue_container container;  // as it was when asked: its lateness is the ask's
  engine_result<bool> removed;  // true: removed; false: already gone; an error: not confirmed
};

class removals_in_flight {
 public:
  explicit removals_in_flight(const docker_engine& engine, std::size_t at_once = warden_removals_at_once);
  ~removals_in_flight();  // waits for those in flight (each at most the transport's few timeouts)
  removals_in_flight(const removals_in_flight&) = delete;
  removals_in_flight& operator=(const removals_in_flight&) = delete;

  // Starts a forced removal of containers of `due` not in flight already, while fewer than
  // `at_once` are: those never asked first, then the one asked longest ago; how many it started.
  // What `due` no longer holds is forgotten. One whose thread cannot be had waits for a later pass.
  std::size_t start(const std::vector<overdue_container>& due);
  // The answers that arrived since the last call, in the order they were started; their names may
  // be started again.
  std::vector<removal_answer> take_answers();
  std::size_t in_flight() const;
  bool asking(const std::string& name) const;  // a removal of `name` is in flight

 private:
  struct flight;
  const docker_engine& engine_;
  std::size_t at_once_;
  std::uint64_t asks_ = 0;                                // under lock_: the count of removals started
  std::unordered_map<std::string, std::uint64_t> asked_;  // under lock_: each due name's last ask
  mutable std::mutex lock_;
  std::vector<std::unique_ptr<flight>> flights_;  // under lock_; room for at_once_ kept from the start
};

}  // namespace plb::runner
