// A run's stop request. The command line's signal thread sets it; the run checks it at each step
// (and the watchdog every 100 ms), removes what it created, and throws `interrupted` so the caller
// can re-raise the signal. Nothing here installs a signal handler.
#pragma once

#include <atomic>

namespace plb::tool {

// Thrown once a stop request has been honoured: the container and the run directory are gone.
struct interrupted {
  int signal;
};

class cancellation {
 public:
  // The first request wins; later ones change nothing.
  void request(int signo) noexcept {
    int none = 0;
    signal_.compare_exchange_strong(none, signo);
  }
  int signal() const noexcept { return signal_.load(); }
  void check() const {
    if (const int s = signal()) throw interrupted{s};
  }

 private:
  std::atomic<int> signal_{0};
};

}  // namespace plb::tool
