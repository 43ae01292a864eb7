// SPDX-License-Identifier: Apache-2.0
// The one table of exit codes: every verdict's code comes from it, and README.md's "Exit codes"
// table says exactly what it says (code, name, command), row for row.
#include "plb/sandbox/exit_codes.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "plb/sandbox/verdict.hpp"

namespace sb = plb::sandbox;

namespace {

struct row {
  std::string code, name, command, meaning;
  bool operator==(const row&) const = default;
};

std::string trimmed(std::string s) {
  const auto first = s.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

// The rows of the first Markdown table under "## Exit codes" in README.md.
std::vector<row> readme_rows() {
  std::ifstream in(std::string(PLB_SANDBOX_SOURCE_DIR) + "/README.md");
  std::string line;
  bool in_section = false, in_table = false;
  std::vector<row> rows;
  while (std::getline(in, line)) {
    if (line.starts_with("## ")) in_section = line == "## Exit codes";
    if (!in_section) continue;
    if (!line.starts_with("|")) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    std::vector<std::string> cells;
    std::stringstream cells_in(line.substr(1));
    for (std::string c; std::getline(cells_in, c, '|');) cells.push_back(trimmed(c));
    if (cells.size() < 4 || cells[0] == "code" || cells[0].starts_with("-") || cells[0].starts_with(":")) continue;
    rows.push_back({cells[0], cells[1], cells[2], cells[3]});
  }
  return rows;
}

}  // namespace

TEST(ExitCodes, EveryVerdictsCodeIsItsRowInTheTable) {
  for (const auto& v : sb::verdict_table) {
    EXPECT_EQ(v.exit_code, sb::exit_code_named(v.name)) << v.name;
    EXPECT_GE(v.exit_code, 0) << v.name;
  }
  EXPECT_EQ(sb::exit_code_named("no such result"), -1);
}

TEST(ExitCodes, ReadmeSaysWhatTheTableSays) {
  std::vector<row> expected;
  for (const auto& r : sb::exit_code_table)
    expected.push_back({std::to_string(r.code), std::string(r.name),
                        r.command.empty() ? "every" : std::string(r.command), std::string(r.meaning)});
  EXPECT_EQ(readme_rows(), expected) << "README.md's Exit codes table and include/plb/sandbox/exit_codes.hpp disagree";
}
