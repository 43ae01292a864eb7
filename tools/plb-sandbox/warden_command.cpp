// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox warden`: the host service that removes every run past its deadline, whatever became
// of the tool (warden_service.hpp runs it; runner/host/warden.hpp decides), or `--status`: the
// status line of the warden that answers.
#include "command.hpp"
#include "runner/for_cli.hpp"
#include "warden_service.hpp"

namespace plb::cli {
namespace {

class warden_command final : public command {
 public:
  void add_flags(CLI::App& app) override {
    app.add_option("--socket", socket_, "where it answers its status (the preflight asks the default)");
    app.add_flag("--status", status_, "print the status line of the warden that answers, and exit");
    app.add_flag(
        "--supervise", supervise_,
        "run as the warden's supervisor: start it, restart it whenever it dies or stops answering, stop with it");
  }

  int run(const run_context&) override {
    if (status_) return print_warden_status(socket_);
    return supervise_ ? run_warden_supervisor(socket_) : run_warden(socket_);
  }

 private:
  std::string socket_ = runner::warden_socket;
  bool status_ = false, supervise_ = false;
};

}  // namespace

std::unique_ptr<command> make_warden_command() { return std::make_unique<warden_command>(); }

}  // namespace plb::cli
