// SPDX-License-Identifier: Apache-2.0
#include "support/command.hpp"

#include <signal.h>

#include <boost/asio.hpp>
#include <boost/process/v2.hpp>

#include "support/failure.hpp"

namespace plb {
namespace {

namespace asio = boost::asio;
namespace bp = boost::process::v2;
constexpr std::size_t max_capture = 65536;

// Reads a pipe to its end into `text`, keeping at most max_capture bytes.
struct pipe_reader {
  asio::readable_pipe& pipe;
  std::string& text;
  std::array<char, 4096> buf{};
  void start() {
    pipe.async_read_some(asio::buffer(buf), [this](bp::error_code e, std::size_t n) {
      if (text.size() < max_capture) text.append(buf.data(), std::min(n, max_capture - text.size()));
      if (!e) start();
    });
  }
};

}  // namespace

command_output run_command(const std::string& path, const std::vector<std::string>& args,
                           std::chrono::seconds timeout) {
  asio::io_context ctx;
  asio::readable_pipe out(ctx), err(ctx);
  bp::error_code ec;
  const char* envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", nullptr};
  bp::posix::default_launcher launcher;
  launcher.env = envp;
  // The executor's overload: Boost 1.81's io_context overload drops `ec` and throws system_error.
  auto proc = launcher(ctx.get_executor(), ec, bp::filesystem::path(path), args, bp::process_stdio{nullptr, out, err});
  if (ec) fail(sandbox::verdict::host_refused, "cannot run " + path + ": " + ec.message());
  command_output result;
  asio::steady_timer deadline(ctx);
  bool timed_out = false;
  deadline.expires_after(timeout);
  deadline.async_wait([&](bp::error_code e) {
    if (e) return;
    timed_out = true;
    bp::error_code ignore;
    proc.terminate(ignore);
  });
  pipe_reader read_out{out, result.out}, read_err{err, result.err};
  read_out.start();
  read_err.start();
  proc.async_wait([&](bp::error_code, int status) {
    deadline.cancel();
    result.exit_code = status;
  });
  ctx.run();
  if (timed_out)
    fail(sandbox::verdict::host_refused, path + " did not finish within " + std::to_string(timeout.count()) + " s");
  return result;
}

std::string capture_command(const std::string& path, const std::vector<std::string>& args,
                            std::chrono::seconds timeout) {
  return run_command(path, args, timeout).out;
}

}  // namespace plb
