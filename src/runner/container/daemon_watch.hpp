// SPDX-License-Identifier: Apache-2.0
// Whether the Docker daemon is lost, from the pings the watchdog makes while a container runs.
// One unanswered ping is a busy daemon, not a lost one: on a loaded host a 2 s ping can time out
// while the container runs on undisturbed, and calling that "lost" turned finished runs into
// retryable runtime failures (a second run for the same submission). So a failed ping is retried
// at every sample after it, and the daemon counts as lost only when no ping has answered for a
// whole deadline of its own.
#pragma once

#include <chrono>
#include <optional>

namespace plb::runner {

class daemon_watch {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds default_deadline{10};

  explicit daemon_watch(clock::duration deadline = default_deadline) noexcept : deadline_(deadline) {}

  // Whether to ping at this sample: every `period`-th, and every one while a ping is unanswered.
  bool due(unsigned sample, unsigned period = 5) const noexcept {
    return sample % period == 0 || unanswered_since_.has_value();
  }

  // Records one ping's outcome at `now`; true once no ping has answered for the whole deadline.
  bool lost(bool answered, clock::time_point now) noexcept {
    if (answered) {
      unanswered_since_.reset();
      return false;
    }
    if (!unanswered_since_) unanswered_since_ = now;
    return now - *unanswered_since_ >= deadline_;
  }

 private:
  clock::duration deadline_;
  std::optional<clock::time_point> unanswered_since_;
};

}  // namespace plb::runner
