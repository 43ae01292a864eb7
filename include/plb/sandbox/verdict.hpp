// SPDX-License-Identifier: Apache-2.0
// The outcome classes of one run. Each becomes one documented exit code and one line of text
// at the tool's edge; neither ever carries bytes the script produced.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

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
  int exit_code;
  std::string_view name;
  std::string_view meaning;
};

inline constexpr std::array<verdict_info, 12> verdict_table{{
    {verdict::success, 0, "success", "predictions and provenance written"},
    {verdict::usage_error, 2, "usage_error", "bad flags; nothing ran"},
    {verdict::host_refused, 3, "host_refused", "the host failed a preflight check; nothing ran"},
    {verdict::input_refused, 4, "input_refused", "the script digest, the data or a limit was refused; nothing ran"},
    {verdict::timeout, 5, "timeout", "the script exceeded its wall time"},
    {verdict::memory_exhausted, 6, "memory_exhausted", "the sandbox ran out of memory"},
    {verdict::output_cap_exceeded, 7, "output_cap_exceeded", "stdout and stderr passed their cap"},
    {verdict::script_failed, 8, "script_failed", "the script exited with a non-zero status"},
    {verdict::output_rejected, 9, "output_rejected", "stdout is not a valid predictions document"},
    {verdict::cleanup_failed, 10, "cleanup_failed", "the run's container could not be removed"},
    {verdict::runtime_failed, 11, "runtime_failed",
     "the Docker daemon or the runsc runtime failed under the run; its container was removed"},
    {verdict::internal_error, 70, "internal_error", "an unexpected failure in the tool"},
}};

// info() indexes the table by verdict: the rows must stay in the enum's order, and each exit code
// must be distinct, checked at compile time.
static_assert(
    [] {
      for (std::size_t i = 0; i < verdict_table.size(); ++i) {
        if (static_cast<std::size_t>(verdict_table[i].v) != i) return false;
        for (std::size_t j = 0; j < i; ++j)
          if (verdict_table[j].exit_code == verdict_table[i].exit_code) return false;
      }
      return true;
    }(),
    "verdict_table rows must follow verdict's order, with distinct exit codes");

constexpr const verdict_info& info(verdict v) noexcept { return verdict_table[static_cast<std::size_t>(v)]; }
constexpr int exit_code(verdict v) noexcept { return info(v).exit_code; }
constexpr std::string_view name(verdict v) noexcept { return info(v).name; }

}  // namespace plb::sandbox
