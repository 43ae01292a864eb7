// SPDX-License-Identifier: Apache-2.0
// The kind of prediction a script returns, which decides how its values are checked.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace plb::sandbox {

enum class task_type : std::uint8_t {
  regression,             // any finite number
  binary_classification,  // positive-class probability in [0, 1]
};

// Every named value: a caller's task_type is one of these, or it is refused (an integer cast to
// the enum, 77 say, names no task).
inline constexpr std::array<task_type, 2> task_types{task_type::regression, task_type::binary_classification};

constexpr bool is_known(task_type t) noexcept {
  switch (t) {
    case task_type::regression:
    case task_type::binary_classification: return true;
  }
  return false;
}

// "" for a value that names no task.
constexpr std::string_view name(task_type t) noexcept {
  switch (t) {
    case task_type::regression: return "regression";
    case task_type::binary_classification: return "binary-classification";
  }
  return "";
}

constexpr std::optional<task_type> parse_task_type(std::string_view s) noexcept {
  if (s == "regression") return task_type::regression;
  if (s == "binary-classification") return task_type::binary_classification;
  return std::nullopt;
}

// The table and the switches agree: every listed value is known, named, and parses back.
static_assert(
    [] {
      for (const task_type t : task_types)
        if (!is_known(t) || parse_task_type(name(t)) != t) return false;
      return true;
    }(),
    "task_types, is_known, name and parse_task_type must list the same values");

}  // namespace plb::sandbox
