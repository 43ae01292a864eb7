// SPDX-License-Identifier: Apache-2.0
// Kills a container by name from its own thread until stopped.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "runner/engine/docker_engine.hpp"

namespace plb::runner {

// Kills the container by name from its own thread, again every 250 ms until stopped: the kill
// call can take as long as the container takes to die, and the container cannot die while its
// output is not drained, so the draining thread must never wait on it. Repeating covers a kill
// that came before the daemon had created the container (the client would start it anyway).
class container_killer {
 public:
  container_killer(const docker_engine& e, std::string name) : engine_(e), name_(std::move(name)) {}
  ~container_killer() { stop(); }

  void request() {
    std::lock_guard lock(mutex_);
    if (thread_.joinable() || stopped_) return;
    thread_ = std::thread([this] { loop(); });
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (!stopped_) {
      lock.unlock();
      (void)engine_.kill(name_);
      lock.lock();
      wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopped_; });
    }
  }

  const docker_engine& engine_;
  std::string name_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace plb::runner
