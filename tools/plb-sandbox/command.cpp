#include "command.hpp"

#include <signal.h>

#include <boost/asio.hpp>
#include <boost/process/v2.hpp>

#include "failure.hpp"

namespace plb::tool {

std::string capture_command(const std::string& path, const std::vector<std::string>& args,
                            std::chrono::seconds timeout) {
  namespace asio = boost::asio;
  namespace bp = boost::process::v2;
  asio::io_context ctx;
  asio::readable_pipe out(ctx);
  bp::error_code ec;
  const char* envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", nullptr};
  bp::posix::default_launcher launcher;
  launcher.env = envp;
  auto proc = launcher(ctx, ec, bp::filesystem::path(path), args, bp::process_stdio{nullptr, out, nullptr});
  if (ec) fail(sandbox::verdict::host_refused, "cannot run " + path + ": " + ec.message());
  std::string text;
  std::array<char, 4096> buf{};
  asio::steady_timer deadline(ctx);
  bool timed_out = false;
  deadline.expires_after(timeout);
  deadline.async_wait([&](bp::error_code e) {
    if (e) return;
    timed_out = true;
    bp::error_code ignore;
    proc.terminate(ignore);
  });
  std::function<void()> read = [&] {
    out.async_read_some(asio::buffer(buf), [&](bp::error_code e, std::size_t n) {
      if (text.size() < 65536) text.append(buf.data(), std::min(n, 65536 - text.size()));
      if (!e) read();
    });
  };
  read();
  proc.async_wait([&](bp::error_code, int) { deadline.cancel(); });
  ctx.run();
  if (timed_out)
    fail(sandbox::verdict::host_refused, path + " did not finish within " + std::to_string(timeout.count()) + " s");
  return text;
}

}  // namespace plb::tool
