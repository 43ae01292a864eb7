// SPDX-License-Identifier: Apache-2.0
// `plb-sandbox sweep`: what runs whose plb-sandbox died left behind (their stopped containers and
// run directories) removed, and what is not the tool's own listed and left alone.
#include <iostream>

#include "command.hpp"
#include "runner/for_cli.hpp"
#include "support/one_line.hpp"

namespace plb::cli {
namespace {

class sweep_command final : public command {
 public:
  void add_flags(CLI::App&) override {}

  int run(const run_context& context) override {
    const auto swept = sweep_orphans(docker_engine{});
    for (const auto& c : swept.removed_containers) std::cout << "removed container " << one_line(c) << "\n";
    for (const auto& d : swept.removed_directories) std::cout << "removed directory " << d << "\n";
    for (const auto& c : swept.not_ours)
      std::cout << "not ours, left alone: container " << one_line(c)
                << " (carries the run label, but plb-sandbox has no record of creating it)\n";
    if (swept.left_out > 0)
      std::cout << swept.left_out << " more labelled container(s) past the list's bound of "
                << runner::max_listed_containers
                << " (the tool's own, the first due, come first): sweep again once these are gone\n";
    std::cout << swept.live_runs << " run(s) of a live plb-sandbox left alone" << std::endl;
    context.cancel.check();
    return 0;
  }
};

}  // namespace

std::unique_ptr<command> make_sweep_command() { return std::make_unique<sweep_command>(); }

}  // namespace plb::cli
