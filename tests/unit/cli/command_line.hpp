// SPDX-License-Identifier: Apache-2.0
// What every flag test does with a command line: parse it as main.cpp does, and read the
// usage_error that checking the parsed flags throws.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "support/failure.hpp"

namespace plb::test {

// `plb-sandbox COMMAND ARGS...`, parsed by `root` (which holds COMMAND as a subcommand).
inline void parse_as_main(CLI::App& root, const char* command, std::vector<std::string> args) {
  args.insert(args.begin(), {"plb-sandbox", command});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  root.parse(static_cast<int>(argv.size()), argv.data());
}

// The line of the usage_error that `check()` throws, or "" when it throws none.
template <typename Check>
std::string usage_refusal(Check&& check) {
  try {
    check();
  } catch (const failure& f) {
    EXPECT_EQ(f.verdict(), sandbox::verdict::usage_error) << f.what();
    return f.what();
  }
  return "";
}

}  // namespace plb::test
