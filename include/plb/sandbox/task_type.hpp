// SPDX-License-Identifier: Apache-2.0
// The kind of prediction a script returns, which decides how its values are checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace plb::sandbox {

enum class task_type : std::uint8_t {
  regression,             // any finite number
  binary_classification,  // positive-class probability in [0, 1]
};

constexpr std::string_view name(task_type t) noexcept {
  return t == task_type::regression ? "regression" : "binary-classification";
}

constexpr std::optional<task_type> parse_task_type(std::string_view s) noexcept {
  if (s == "regression") return task_type::regression;
  if (s == "binary-classification") return task_type::binary_classification;
  return std::nullopt;
}

}  // namespace plb::sandbox
