// SPDX-License-Identifier: Apache-2.0
// Every exit code plb-sandbox can give, in one table: a run's verdicts (verdict.hpp reads its codes
// from here), the batch's own code and verify's. Each code is distinct (checked at compile time),
// README.md's "Exit codes" table is checked against this one (tests/unit/core/exit_codes_test.cpp),
// and every other check of a code reads it here. A signal that ends the tool is the shell's 128 + N,
// outside the table.
#pragma once

#include <array>
#include <string_view>

namespace plb::sandbox {

struct exit_code_info {
  int code;
  std::string_view name;     // a verdict's name (verdict.hpp), or the command's own result
  std::string_view command;  // "" for every command's verdicts, else the one command that gives it
  std::string_view meaning;
};

// clang-format off
inline constexpr std::array<exit_code_info, 21> exit_code_table{{
    {0, "success", "", "predictions and provenance written"},
    {2, "usage_error", "", "bad flags; nothing ran"},
    {3, "host_refused", "", "the host failed a preflight check; nothing ran"},
    {4, "input_refused", "", "the script digest, the data or a limit was refused; nothing ran"},
    {5, "timeout", "", "the script exceeded its wall time (its own run, from its container's start)"},
    {6, "memory_exhausted", "", "the sandbox ran out of memory"},
    {7, "output_cap_exceeded", "", "stdout and stderr together passed their cap"},
    {8, "script_failed", "", "the script exited with a non-zero status"},
    {9, "output_rejected", "", "stdout is not a valid predictions document"},
    {10, "cleanup_failed", "", "the run's container could not be removed"},
    {11, "runtime_failed", "",
     "the Docker daemon or runsc failed under the run, or the container did not start within its start "
     "allowance; its container was removed"},
    {70, "internal_error", "", "an unexpected failure in the tool"},
    {12, "batch_incomplete", "batch", "some manifest lines could not be run at all; the summary says why for each"},
    {13, "differs", "verify", "the re-run's predictions differ from the recorded ones"},
    {14, "provenance_refused", "verify", "the provenance is unreadable, unsigned, edited or not a success's"},
    {15, "model_changed", "verify", "the script no longer has the recorded digest; nothing ran"},
    {16, "data_changed", "verify", "the data no longer has the recorded digest; nothing ran"},
    {17, "image_changed", "verify", "the runtime image is missing or not the recorded one; nothing ran"},
    {18, "runtime_changed", "verify", "the host's runsc release or platform differs; nothing ran"},
    {19, "predictions_changed", "verify",
     "the published predictions are not the file the provenance was sealed for (another digest or another "
     "name); nothing ran"},
    {20, "bundle_changed", "verify", "the model bundle no longer has the recorded digest; nothing ran"},
}};
// clang-format on

static_assert(
    [] {
      for (std::size_t i = 0; i < exit_code_table.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (exit_code_table[i].code == exit_code_table[j].code || exit_code_table[i].name == exit_code_table[j].name)
            return false;
      return true;
    }(),
    "every exit code, and every name, is in exit_code_table once");

// The code of the row named `name`: a name missing from the table fails to compile where the
// code is a constant, and is -1 otherwise.
constexpr int exit_code_named(std::string_view name) noexcept {
  for (const auto& row : exit_code_table)
    if (row.name == name) return row.code;
  return -1;
}

}  // namespace plb::sandbox
