// SPDX-License-Identifier: Apache-2.0
// A stop request from another thread or a signal handler. The runner's API (runner.hpp) takes one
// in its options; the run's own view of it (src/support/cancellation.hpp) reads it at each step.
// A header of its own so that the support layer can read a stop request without including the
// runner's API.
#pragma once

#include <atomic>

namespace plb::sandbox {

// `reason` is reported back (a signal number, by convention). The first request wins, and
// request_stop is one atomic store, safe in a signal handler.
class stop_source {
 public:
  void request_stop(int reason) noexcept {
    int none = 0;
    reason_.compare_exchange_strong(none, reason == 0 ? -1 : reason);
  }
  int reason() const noexcept { return reason_.load(); }
  bool stop_requested() const noexcept { return reason() != 0; }

 private:
  std::atomic<int> reason_{0};
};

}  // namespace plb::sandbox
