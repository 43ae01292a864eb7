// SPDX-License-Identifier: Apache-2.0
// Runs the real plb-sandbox binary as a child process for the integration tests: its stdout and
// stderr land in files, its environment is exactly what the test gives it.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace plb::test {

struct tool_result {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out, err;
  double seconds = 0;
  long max_rss_kib = 0;  // the tool's peak resident set (not its children's)
  bool hung = false;     // wait_at_most() gave up and killed it
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The state letter of /proc/PID/stat ('T' once stopped, 'Z' once it has exited), or '?'.
inline char process_state(pid_t pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
}

inline std::string tool_path() {
  const char* p = std::getenv("PLB_SANDBOX_TOOL");
  if (!p) throw std::runtime_error("PLB_SANDBOX_TOOL is not set");
  return p;
}

// The owner label ("<boot id>:<pid>:<start time>", runner/container/owner.hpp) that the tool
// process `pid` puts on every container it creates. Read from /proc while the process exists (a
// child not yet reaped does): its start time never changes across exec.
inline std::string owner_of(pid_t pid) {
  std::string boot = slurp("/proc/sys/kernel/random/boot_id");
  boot = boot.substr(0, boot.find('\n'));
  std::istringstream stat(slurp("/proc/" + std::to_string(pid) + "/stat"));
  std::string field;
  std::getline(stat, field, ')');  // past the command name, which may hold spaces
  for (int i = 3; i <= 22 && stat >> field; ++i) {
  }
  return boot + ":" + std::to_string(pid) + ":" + field;
}

// Every owner this test binary's tool processes ran as, and the binary's own (it may call the
// runner in-process): the containers a test may call its own when other tests run beside it.
inline std::vector<std::string>& spawned_owners() {
  static std::vector<std::string> owners{owner_of(::getpid())};
  return owners;
}

inline std::vector<std::string> default_environment() {
  return {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "LANG=C"};
}

class tool_process {
 public:
  tool_process(const std::vector<std::string>& args, const std::string& out_path, const std::string& err_path,
               const std::vector<std::string>& env = default_environment())
      : tool_process(tool_path(), args, out_path, err_path, env) {}

  // Any program (e.g. a wrapper that runs the tool in its own namespaces).
  tool_process(const std::string& program, const std::vector<std::string>& args, const std::string& out_path,
               const std::string& err_path, const std::vector<std::string>& env = default_environment())
      : out_path_(out_path), err_path_(err_path), start_(std::chrono::steady_clock::now()) {
    std::vector<std::string> argv{program};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> a, e;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    std::vector<std::string> env_copy = env;
    for (auto& s : env_copy) e.push_back(s.data());
    e.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int rc = posix_spawn(&pid_, a[0], &fa, nullptr, a.data(), e.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error("cannot spawn " + argv[0]);
    spawned_owners().push_back(owner_of(pid_));
  }

  // A tool the test never waited for (an ASSERT returned early) is killed and reaped here: no
  // test leaves a running tool behind. Its own run directory and container are the tool's reaper's.
  ~tool_process() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  tool_process(const tool_process&) = delete;
  tool_process& operator=(const tool_process&) = delete;

  pid_t pid() const noexcept { return pid_; }
  void send(int signo) const { ::kill(pid_, signo); }

  tool_result wait() { return reap(false); }

  // For a check that the tool never blocks: a tool still running after `limit` is killed and
  // reported as hung, so a hang fails the test instead of running into ctest's timeout. The limit
  // is a hang detector, not a speed bound: choose it far above anything the tool may take.
  tool_result wait_at_most(std::chrono::seconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    int status = 0;
    struct rusage usage {};
    while (std::chrono::steady_clock::now() < end) {
      const pid_t got = ::wait4(pid_, &status, WNOHANG, &usage);
      if (got == pid_) return result(status, usage, false);
      if (got < 0 && errno != EINTR) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid_, SIGKILL);
    return reap(true);
  }

 private:
  tool_result reap(bool hung) {
    int status = 0;
    struct rusage usage {};
    while (::wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    return result(status, usage, hung);
  }

  tool_result result(int status, const struct rusage& usage, bool hung) {
    pid_ = -1;  // reaped: the destructor has nothing left to do
    tool_result r;
    r.hung = hung;
    r.max_rss_kib = usage.ru_maxrss;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    r.out = slurp(out_path_);
    r.err = slurp(err_path_);
    return r;
  }

  std::string out_path_, err_path_;
  pid_t pid_ = -1;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace plb::test
