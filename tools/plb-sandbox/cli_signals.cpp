// SPDX-License-Identifier: Apache-2.0
#include "cli_signals.hpp"

#include <pthread.h>
#include <signal.h>
#include <string.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

namespace plb::cli {
namespace {

constexpr int terminating_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ};

sigset_t terminating_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : terminating_signals) sigaddset(&set, s);
  return set;
}

}  // namespace

void forward_signals_to(sandbox::stop_source& stop) {
  ::signal(SIGPIPE, SIG_IGN);
  const sigset_t set = terminating_set();
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([&stop, set] {
    while (true) {
      int signo = 0;
      if (::sigwait(&set, &signo) == 0) stop.request_stop(signo);
    }
  }).detach();
}

void die_by(int signo) {
  ::signal(signo, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signo);
  ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  ::raise(signo);
  std::_Exit(128 + signo);
}

void report_stop_and_die(int signo) {
  std::cerr << "plb-sandbox: stopped by " << signal_name(signo)
            << "; any container and run directory were removed and nothing was published" << std::endl;
  die_by(signo);
}

std::string signal_name(int signo) {
  const char* abbrev = ::sigabbrev_np(signo);
  return std::string("SIG") + (abbrev ? abbrev : "?") + " (" + std::to_string(signo) + ")";
}

}  // namespace plb::cli
