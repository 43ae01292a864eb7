// SPDX-License-Identifier: Apache-2.0
// The warden's service loop (see warden.hpp): one pass over the daemon a period on the main
// thread, the status line answered on another, so a slow daemon never makes the warden look dead
// to a preflight (the status then shows the pass's age instead).
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <thread>

#include "runner/for_cli.hpp"
#include "support/failure.hpp"
#include "support/file_io.hpp"
#include "support/unix_address.hpp"
#include "warden_daemon.hpp"
#include "warden_service.hpp"

namespace plb::cli {
namespace {

std::int64_t monotonic_ms() noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct shared_state {
  std::atomic<std::int64_t> last_pass{-1};  // monotonic ms of the last complete pass
  std::atomic<std::uint64_t> removed{0};
  std::atomic<std::uint64_t> stuck{0};  // at the last pass: overdue by warden_stuck_seconds, still there
  std::atomic<long> supervisor{0};      // the supervisor's PID while it is this process's parent
};

// What the passes remember from one to the next.
struct pass_memory {
  explicit pass_memory(const docker_engine& engine) : removals(engine) {}
  first_sightings seen;
  std::string failing;  // the last list failure logged, empty while the list reads
  std::uint64_t left_out = 0;
  unconfirmed_removals unconfirmed;
  removals_in_flight removals;  // last: its threads are joined before the rest goes
};

unique_fd listen_on(const std::string& socket_path) {
  const auto address = unix_address(socket_path);
  if (!address) fail(sandbox::verdict::usage_error, "socket path too long");
  ::unlink(socket_path.c_str());  // a dead warden's; the lock says no live one holds it
  unique_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s || ::bind(s.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof *address) != 0 ||
      ::chmod(socket_path.c_str(), 0600) != 0 || ::listen(s.get(), 16) != 0)
    fail(sandbox::verdict::host_refused, "cannot listen on " + socket_path + ": " + std::strerror(errno));
  return s;
}

// Answers every connection with the status line and closes it; a client that does not read
// costs at most the send timeout.
void answer(int listener, const shared_state& state) {
  while (true) {
    const int c = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      // Out of descriptors or memory for a moment: answering stops only as long as that lasts.
      if (errno != EINTR && errno != ECONNABORTED) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    const unique_fd client(c);
    const timeval tv{1, 0};
    ::setsockopt(client.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    const std::int64_t last = state.last_pass.load();
    warden_status s{static_cast<long>(::getpid()), last < 0 ? -1 : monotonic_ms() - last,
                    state.removed.load(),          state.stuck.load(),
                    state.supervisor.load(),       log_lines_failed()};
    (void)write_all(client.get(), render_warden_status(s));
  }
}

// The list's Created is whole seconds: a container within a second of its deadline is inspected
// once for its Created to the nanosecond. One that cannot be inspected keeps the end of its listed
// second (never early); one that is gone is not judged anyway.
void learn_creations(const docker_engine& engine, const std::vector<labelled_container>& listed, warden_clock now,
                     first_sightings& seen) {
  for (const auto& c : needing_exact_creation(listed, now, seen)) {
    const auto inspected = engine.inspect_container(c.name);
    if (inspected && *inspected && (*inspected)->created_ns) seen.learn_creation(c, *(*inspected)->created_ns);
  }
}

// "1.234" for 1234 ms.
std::string seconds_text(std::int64_t ms) {
  const std::string frac = std::to_string(1000 + ms % 1000);
  return std::to_string(ms / 1000) + "." + frac.substr(1);
}

// A container whose removal went unanswered (a lost answer, an error) and is now gone: the warden's
// removal, as far as the daemon can tell, and logged as one, so each container's end is recorded.
void log_unconfirmed_gone(const unconfirmed_removals::removal& r, shared_state& state, const char* how) {
  state.removed.fetch_add(1);
  log_line("removed " + r.name + ": " + seconds_text(r.ms_past) + " s past its deadline when first asked (" + how +
           ", after a removal the daemon did not confirm)");
}

// The removals answered since the last pass, logged: a failure is retried by a later pass.
void log_answers(shared_state& state, pass_memory& memory) {
  for (auto& [o, removed] : memory.removals.take_answers()) {
    if (!removed) {
      log_line("could not remove " + o.name + " (" + removed.error().message() + "); retrying");
      memory.unconfirmed.failed(o);
      continue;
    }
    const auto was_unconfirmed = memory.unconfirmed.confirmed(o.name);
    if (!*removed) {  // gone meanwhile: an earlier removal's, if one went unanswered
      if (was_unconfirmed) log_unconfirmed_gone(*was_unconfirmed, state, "the daemon no longer has it");
      continue;
    }
    state.removed.fetch_add(1);
    log_line("removed " + o.name + ": " + seconds_text(o.ms_past) + " s past its deadline");
  }
}

// One look at the daemon: every overdue container of the tool's is removed (a running one is
// killed by the forced removal), each on a thread of its own (warden_removals.hpp), so that no
// removal the daemon is slow to answer holds up another's or the passes. One that could not be
// removed is asked again by a later pass.
void pass(const docker_engine& engine, shared_state& state, pass_memory& memory) {
  log_answers(state, memory);
  const auto listed = engine.list_labelled();
  if (!listed) {
    const std::string line = list_failure_line(listed.error());
    if (line != memory.failing) log_line(line);  // once per cause, not once a period
    memory.failing = line;
    return;
  }
  if (!memory.failing.empty()) log_line("the Docker daemon lists its containers again");
  memory.failing.clear();
  if (listed->left_out != memory.left_out && listed->left_out > 0)
    log_line(std::to_string(listed->left_out) + " labelled container(s) past the list's bound of " +
             std::to_string(max_listed_containers) + ": judged once the " + std::to_string(listed->containers.size()) +
             " kept (the tool's own, the first due first) are gone");
  memory.left_out = listed->left_out;
  for (const auto& r : memory.unconfirmed.gone(*listed)) {
    if (memory.removals.asking(r.name))
      memory.unconfirmed.failed({r.name, r.ms_past});  // a retry is in flight: its answer says
    else
      log_unconfirmed_gone(r, state, "the list no longer holds it");
  }
  const warden_clock now = read_warden_clock();
  memory.seen.note(listed->containers, now.monotonic_ms);
  learn_creations(engine, listed->containers, now, memory.seen);
  const auto due = overdue(listed->containers, now, memory.seen);
  memory.removals.start(due);
  state.stuck.store(static_cast<std::uint64_t>(
      std::count_if(due.begin(), due.end(), [](const auto& o) { return o.ms_past >= warden_stuck_ms; })));
  state.last_pass.store(monotonic_ms());
}

// The supervisor that started this warden, while it is still its parent (a supervisor names
// itself in the environment it starts the warden with).
long supervisor_of_this() {
  const char* named = std::getenv(supervisor_variable);
  const long ppid = static_cast<long>(::getppid());
  return named && std::to_string(ppid) == named ? ppid : 0;
}

// The supervisor died (the warden has a new parent): this process becomes the supervisor of a
// new warden. Its locks and sockets close on exec; the new warden takes them within milliseconds.
[[noreturn]] void become_supervisor(const std::string& socket_path, long was) {
  log_line("the supervisor (pid " + std::to_string(was) +
           ") is gone: this process becomes the supervisor of a new warden");
  const sigset_t none{};
  ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
  const char* argv[] = {"plb-sandbox", "warden", "--supervise", "--socket", socket_path.c_str(), nullptr};
  ::execv("/proc/self/exe", const_cast<char* const*>(argv));
  log_line(std::string("cannot become the supervisor: ") + std::strerror(errno) + "; the warden stops");
  std::_Exit(1);  // not 0: a supervisor above this one (systemd's unit) restarts it
}

}  // namespace

int run_warden(const std::string& socket_path) {
  const unique_fd lock = claim_directory(socket_path, "warden.lock", std::chrono::milliseconds(0));
  if (!lock) {
    log_line("another warden holds " + socket_path.substr(0, socket_path.rfind('/')) + "/warden.lock; exiting");
    return 0;
  }
  const unique_fd listener = listen_on(socket_path);
  // Blocked in every thread, then taken by sigtimedwait below: the pass is never interrupted midway.
  sigset_t stop;
  sigemptyset(&stop);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stop, s);
  ::pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  static shared_state state;  // outlives the detached answering thread
  state.supervisor.store(supervisor_of_this());
  std::thread(answer, listener.get(), std::cref(state)).detach();
  const docker_engine engine(docker_socket, std::chrono::seconds(10));
  log_line(
      "watching " + std::string(docker_socket) + " every " + std::to_string(warden_period.count()) + " ms; status on " +
      socket_path +
      (state.supervisor.load() ? "; supervised by pid " + std::to_string(state.supervisor.load()) : "; unsupervised"));
  pass_memory memory(engine);
  while (true) {
    const std::int64_t started = monotonic_ms();
    if (const long s = state.supervisor.load(); s != 0 && static_cast<long>(::getppid()) != s)
      become_supervisor(socket_path, s);
    retry_log();  // a backlog the log refused (a full disk) goes out as soon as it can
    pass(engine, state, memory);
    const std::int64_t left = std::max<std::int64_t>(0, warden_period.count() - (monotonic_ms() - started));
    const timespec wait{static_cast<time_t>(left / 1000), static_cast<long>(left % 1000) * 1'000'000};
    const int s = ::sigtimedwait(&stop, nullptr, &wait);
    if (s == SIGTERM || s == SIGINT) break;
    if (s == SIGHUP) log_line("SIGHUP: still watching");
  }
  log_line("stopping");
  ::unlink(socket_path.c_str());
  return 0;
}

int print_warden_status(const std::string& socket_path) {
  const auto status = ping_warden(socket_path, std::chrono::milliseconds(2000));
  if (!status) fail(sandbox::verdict::host_refused, status.error().detail);
  std::cout << render_warden_status(*status) << std::flush;
  return 0;
}

}  // namespace plb::cli
