// SPDX-License-Identifier: Apache-2.0
// The outcome classes of one run. Each becomes one documented exit code (exit_codes.hpp) and one
// line of text at the tool's edge; neither ever carries bytes the script produced.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "plb/sandbox/exit_codes.hpp"

namespace plb::sandbox {

enum class verdict : std::uint8_t {
  success,
  usage_error,    // flags: nothing ran
  host_refused,   // preflight: nothing ran
  input_refused,  // script digest, CSV or limits: nothing ran
  timeout,
  memory_exhausted,
  output_cap_exceeded,
  script_failed,    // exited non-zero
  output_rejected,  // stdout is not a valid predictions document
  cleanup_failed,
  runtime_failed,  // the daemon or runtime failed under the run (restart, start error)
  internal_error,
};

struct verdict_info {
  verdict v;
  int exit_code;  // from exit_codes.hpp, the one table of the tool's codes
  std::string_view name;
};

inline constexpr std::array<verdict_info, 12> verdict_table{{
    {verdict::success, exit_code_named("success"), "success"},
    {verdict::usage_error, exit_code_named("usage_error"), "usage_error"},
    {verdict::host_refused, exit_code_named("host_refused"), "host_refused"},
    {verdict::input_refused, exit_code_named("input_refused"), "input_refused"},
    {verdict::timeout, exit_code_named("timeout"), "timeout"},
    {verdict::memory_exhausted, exit_code_named("memory_exhausted"), "memory_exhausted"},
    {verdict::output_cap_exceeded, exit_code_named("output_cap_exceeded"), "output_cap_exceeded"},
    {verdict::script_failed, exit_code_named("script_failed"), "script_failed"},
    {verdict::output_rejected, exit_code_named("output_rejected"), "output_rejected"},
    {verdict::cleanup_failed, exit_code_named("cleanup_failed"), "cleanup_failed"},
    {verdict::runtime_failed, exit_code_named("runtime_failed"), "runtime_failed"},
    {verdict::internal_error, exit_code_named("internal_error"), "internal_error"},
}};

// info() indexes the table by verdict: the rows must stay in the enum's order, and every verdict
// has its row in exit_code_table (which holds each code once), checked at compile time.
static_assert(
    [] {
      for (std::size_t i = 0; i < verdict_table.size(); ++i) {
        if (static_cast<std::size_t>(verdict_table[i].v) != i || verdict_table[i].exit_code < 0) return false;
        if (!exit_code_table[i].command.empty() || exit_code_table[i].name != verdict_table[i].name) return false;
      }
      return true;
    }(),
    "verdict_table rows must follow verdict's order, each with its row, in the same order, in exit_code_table");

constexpr const verdict_info& info(verdict v) noexcept { return verdict_table[static_cast<std::size_t>(v)]; }
constexpr int exit_code(verdict v) noexcept { return info(v).exit_code; }
constexpr std::string_view name(verdict v) noexcept { return info(v).name; }

}  // namespace plb::sandbox
