// SPDX-License-Identifier: Apache-2.0
// The warden's memory of the removals the daemon did not confirm (warden.hpp: the warden), so
// that its log records every container's end, a removal whose answer was lost too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/engine/engine_json.hpp"

#include "runner/host/warden.hpp"

namespace plb::runner {

// At most this many remembered at once: past it, a lost answer's end goes unlogged (the container
// is still removed; only the line is missing).
inline constexpr std::size_t unconfirmed_removals_kept = 1024;

// The removals whose answer was lost (engine_error::answer_lost: the DELETE was sent and reading its
// answer timed out or broke, so the daemon may well have removed the container), so that the log records each such
// container's end: the first complete list without it says it is gone. A removal whose answer a stalled daemon lost had
// left "could not remove" as its last line, though the daemon removed it. An answer the daemon did give (an error
// status) is not remembered: what removes such a container later is not the warden's doing. Forgets each once it is
// gone or confirmed removed. Lost with the process: a warden restarted meanwhile logs no end for what its predecessor
// asked.
class unconfirmed_removals {
 public:
  struct removal {
    std::string name;
    std::int64_t ms_past = 0;  // past its deadline when first asked
  };
  void failed(const overdue_container& c);
  // The daemon answered a removal of `name`: forgets it, and returns it if it had been pending.
  std::optional<removal> confirmed(const std::string& name);
  // Those that `listed` no longer holds, forgotten as they are returned, in the order they failed.
  // A list that left containers out (past its bound) says nothing about them: none then.
  std::vector<removal> gone(const container_list& listed);
  std::size_t size() const noexcept { return pending_.size(); }

 private:
  std::vector<removal> pending_;
};

}  // namespace plb::runner
