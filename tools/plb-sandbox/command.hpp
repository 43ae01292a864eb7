// SPDX-License-Identifier: Apache-2.0
// A subcommand of plb-sandbox, registered as runsc registers its own: one row of the table in
// commands.cpp names it, gives its synopsis and makes it; the command adds its flags to its CLI11
// subcommand and runs. main.cpp builds the command line from the table and runs the one given.
// A new subcommand is one file that defines a `command` and its `make_...` function, and one row
// (with its declaration) in commands.cpp; the build takes every .cpp of this folder.
#pragma once

#include <memory>
#include <span>

#include <CLI/CLI.hpp>

#include "plb/sandbox/runner.hpp"
#include "support/cancellation.hpp"

namespace plb::cli {

// What every command may use while it runs: the stop request that SIGINT, SIGTERM and the other
// terminating signals trigger (cli_signals.hpp), and the same as a cancellation for a run's steps.
struct run_context {
  const sandbox::stop_source& stop;
  const cancellation& cancel;
};

class command {
 public:
  virtual ~command() = default;
  // Adds the command's flags and positionals to `app`, its own CLI11 subcommand.
  virtual void add_flags(CLI::App& app) = 0;
  // Runs it: returns the process's exit code, or throws failure(verdict) or interrupted like a run.
  virtual int run(const run_context& context) = 0;
};

struct command_row {
  const char* name;
  const char* synopsis;
  std::unique_ptr<command> (*make)();
  // It takes the terminating signals itself (the warden's loops wait for them): main starts no
  // signal thread, which would race it for them.
  bool own_signals = false;
};

// The table, in the order `--help` lists the commands.
std::span<const command_row> commands();

// The footer every command's help ends with.
extern const char* const help_footer;

}  // namespace plb::cli
