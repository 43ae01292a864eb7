// SPDX-License-Identifier: Apache-2.0
// The script's stdout is the most hostile input the tool reads. Byte 0 picks the task type (bit 0)
// and whether an output cap below the size is tried first (bit 1),
// byte 1 the expected row count (high bit: whatever count the oracle finds, so that accepting
// paths are reached); the rest is the output. The parser must agree with an independent strict
// implementation on accept/reject and on every value bit for bit.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "oracle/strict_json.hpp"
#include "plb/sandbox/predictions_parser.hpp"

namespace {

enum class exponent_class { ordinary, near_limit, too_large };

// Boost.JSON refuses a number whose decimal exponent does not fit an int (even one that would
// round to zero), which the parser documents as number_out_of_range. Within 2^24 of INT_MAX its
// exact cut also depends on the digit count, so there either answer is allowed.
exponent_class classify_exponent(const std::string& number) {
  const auto e = number.find_first_of("eE");
  if (e == std::string::npos) return exponent_class::ordinary;
  std::size_t i = e + 1;
  if (i < number.size() && (number[i] == '+' || number[i] == '-')) ++i;
  while (i + 1 < number.size() && number[i] == '0') ++i;
  const std::string digits = number.substr(i);
  if (digits.size() > 10) return exponent_class::too_large;
  const unsigned long long v = std::stoull(digits);
  if (v > 2147483647ull) return exponent_class::too_large;
  if (v > 2147483647ull - (1ull << 24)) return exponent_class::near_limit;
  return exponent_class::ordinary;
}

enum class verdict { accept, reject, either };

// The contract, checked on the oracle's tree with strtod.
verdict oracle_verdict(std::string_view text, plb::sandbox::task_type task, std::size_t expected,
                       std::vector<double>& values, std::size_t& found) {
  using plb::oracle::json_node;
  json_node root;
  found = 0;
  if (!plb::oracle::strict_json::parse(text, root)) return verdict::reject;
  if (root.type != json_node::kind::object || root.keys.size() != 1) return verdict::reject;
  if (root.keys[0] != "predictions") return verdict::reject;
  const json_node& arr = root.values[0];
  if (arr.type != json_node::kind::array) return verdict::reject;
  found = arr.items.size();
  bool ambiguous = false;
  for (const json_node& item : arr.items) {
    if (item.type != json_node::kind::number) return verdict::reject;
    const auto ec = classify_exponent(item.text);
    if (ec == exponent_class::too_large) return verdict::reject;
    ambiguous |= ec == exponent_class::near_limit;
    const double v = std::strtod(item.text.c_str(), nullptr);
    if (!std::isfinite(v)) return verdict::reject;
    if (task == plb::sandbox::task_type::binary_classification && !(v >= 0.0 && v <= 1.0)) return verdict::reject;
    values.push_back(v);
  }
  if (values.size() != expected) return verdict::reject;
  return ambiguous ? verdict::either : verdict::accept;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const auto task =
      (data[0] & 1) ? plb::sandbox::task_type::binary_classification : plb::sandbox::task_type::regression;
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

  std::vector<double> scratch;
  std::size_t found = 0;
  oracle_verdict(text, task, 0, scratch, found);
  const std::size_t expected = (data[1] & 0x80) ? found : data[1] & 0x7f;

  std::vector<double> want;
  const verdict oracle = oracle_verdict(text, task, expected, want, found);

  plb::sandbox::predictions_options o;
  o.task = task;
  o.expected_rows = expected;
  std::vector<double> got;
  // Bit 1 of byte 0: an output cap below the text's size, which is refused before parsing.
  if ((data[0] & 2) && !text.empty()) {
    o.max_bytes = text.size() - 1;
    const auto capped = plb::sandbox::parse_predictions(text, o, got);
    FUZZ_CHECK(capped.error == plb::sandbox::predictions_error::output_too_large && got.empty());
    FUZZ_CHECK(!plb::sandbox::message(capped.error).empty());
    o.max_bytes = text.size();
  }
  const auto r = plb::sandbox::parse_predictions(text, o, got);

  if (oracle != verdict::either) FUZZ_CHECK(static_cast<bool>(r) == (oracle == verdict::accept));
  FUZZ_CHECK(r.offset <= text.size());
  if (!r) {
    FUZZ_CHECK(got.empty());
    FUZZ_CHECK(!plb::sandbox::message(r.error).empty());
    return 0;
  }
  FUZZ_CHECK(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    FUZZ_CHECK(std::bit_cast<std::uint64_t>(got[i]) == std::bit_cast<std::uint64_t>(want[i]));
  return 0;
}
