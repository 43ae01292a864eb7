// SPDX-License-Identifier: Apache-2.0
// The run's view of a caller's stop request (plb/sandbox/stop_source.hpp, which the command line
// triggers from its signal thread). The run checks it at each step (and the watchdog every
// 100 ms), removes what it created, and throws `interrupted`. Nothing here installs a handler.
#pragma once

#include "plb/sandbox/stop_source.hpp"
#include "support/failure.hpp"

namespace plb {

class cancellation {
 public:
  explicit cancellation(const sandbox::stop_source* source = nullptr) noexcept : source_(source) {}
  int signal() const noexcept { return source_ ? source_->reason() : 0; }
  void check() const {
    if (const int s = signal()) throw interrupted{s};
  }

 private:
  const sandbox::stop_source* source_;
};

}  // namespace plb
