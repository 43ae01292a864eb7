// SPDX-License-Identifier: Apache-2.0
// Strict parser for the script's stdout: exactly {"predictions":[n, ...]} with one finite number per
// input row, and only JSON whitespace around it. Everything the script prints is hostile, so each
// deviation has its own code and the byte offset where it was found, and nothing of the text is
// ever copied into a result.
//
// Built on Boost.JSON's basic_parser (SAX). Boost.JSON 1.81 keeps the last of duplicate keys and
// rounds some numbers 1 ULP off, so duplicates are caught in the handler and every number is
// re-read from its text with std::from_chars (correctly rounded, equal to strtod).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/version.hpp>

#include "plb/sandbox/detail/decimal.hpp"
#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/task_type.hpp"

namespace plb::sandbox {

enum class predictions_error : std::uint8_t {
  ok,
  empty_output,
  output_too_large,
  text_before_object,  // a log line, a BOM, an array or a scalar where the object should be
  text_after_object,   // a log line or a second document after the object
  truncated,
  malformed_json,
  invalid_utf8,
  invalid_escape,  // a \u escape that is not a valid UTF-16 sequence
  too_deep,
  unexpected_key,  // any key but "predictions"
  duplicate_key,   // "predictions" twice, however it is spelled
  missing_predictions,
  predictions_not_array,
  string_value,
  boolean_value,
  null_value,
  nested_array,
  nested_object,
  nonfinite_literal,    // NaN, Infinity, -Infinity
  number_out_of_range,  // overflows a double, or an exponent beyond 32 bits (even toward zero)
  too_many_predictions,
  too_few_predictions,
  probability_out_of_range,
  out_of_memory,
};

constexpr std::string_view message(predictions_error e) noexcept {
  using E = predictions_error;
  switch (e) {
    case E::ok: return "ok";
    case E::empty_output: return "no output";
    case E::output_too_large: return "output larger than its limit";
    case E::text_before_object: return "output does not start with a JSON object";
    case E::text_after_object: return "text after the JSON object";
    case E::truncated: return "output ends inside the JSON object";
    case E::malformed_json: return "malformed JSON";
    case E::invalid_utf8: return "invalid UTF-8";
    case E::invalid_escape: return "invalid \\u escape";
    case E::too_deep: return "nesting too deep";
    case E::unexpected_key: return "key other than \"predictions\"";
    case E::duplicate_key: return "duplicate \"predictions\" key";
    case E::missing_predictions: return "no \"predictions\" key";
    case E::predictions_not_array: return "\"predictions\" is not an array";
    case E::string_value: return "string where a number was expected";
    case E::boolean_value: return "boolean where a number was expected";
    case E::null_value: return "null where a number was expected";
    case E::nested_array: return "nested array where a number was expected";
    case E::nested_object: return "object where a number was expected";
    case E::nonfinite_literal: return "NaN or Infinity is not a number";
    case E::number_out_of_range: return "number overflows a double";
    case E::too_many_predictions: return "more predictions than input rows";
    case E::too_few_predictions: return "fewer predictions than input rows";
    case E::probability_out_of_range: return "probability outside [0, 1]";
    case E::out_of_memory: return "out of memory";
  }
  return "unknown error";
}

struct predictions_options {
  task_type task = task_type::regression;
  std::size_t expected_rows = 0;
  std::size_t max_bytes = bytes(SandboxLimits{}.output_mib);  // the limits' default
};

struct predictions_result {
  predictions_error error = predictions_error::ok;
  // Byte offset into the output where the parser stopped: at the offending token or just past it
  // (Boost.JSON reports a scalar once it has read it whole).
  std::size_t offset = 0;
  explicit operator bool() const noexcept { return error == predictions_error::ok; }
};

namespace detail {

class predictions_handler {
 public:
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);

  predictions_handler(const predictions_options& o, std::vector<double>& out) noexcept : options_(o), out_(out) {}

  predictions_error error() const noexcept { return error_; }
  bool finished() const noexcept { return where_ == where::done; }

  using ec_t = boost::json::error_code;

  bool on_document_begin(ec_t&) noexcept { return true; }
  bool on_document_end(ec_t&) noexcept { return true; }

  bool on_object_begin(ec_t& ec) noexcept {
    if (where_ == where::before_object) {
      where_ = where::expect_key;
      return true;
    }
    return stop(where_ == where::in_array ? predictions_error::nested_object : predictions_error::predictions_not_array,
                ec);
  }
  bool on_object_end(std::size_t, ec_t& ec) noexcept {
    if (!has_predictions_) return stop(predictions_error::missing_predictions, ec);
    where_ = where::done;
    return true;
  }

  bool on_array_begin(ec_t& ec) noexcept {
    switch (where_) {
      case where::expect_value: where_ = where::in_array; return true;
      case where::in_array: return stop(predictions_error::nested_array, ec);
      default: return stop(predictions_error::malformed_json, ec);
    }
  }
  bool on_array_end(std::size_t, ec_t& ec) noexcept {
    if (out_.size() < options_.expected_rows) return stop(predictions_error::too_few_predictions, ec);
    where_ = where::expect_key;
    return true;
  }

  bool on_key_part(boost::json::string_view s, std::size_t, ec_t& ec) noexcept { return append_key(s, ec); }
  bool on_key(boost::json::string_view s, std::size_t, ec_t& ec) noexcept {
    if (!append_key(s, ec)) return false;
    const bool is_predictions = key_ == "predictions";
    key_.clear();
    if (!is_predictions) return stop(predictions_error::unexpected_key, ec);
    if (has_predictions_) return stop(predictions_error::duplicate_key, ec);
    has_predictions_ = true;
    where_ = where::expect_value;
    return true;
  }

  bool on_string_part(boost::json::string_view, std::size_t, ec_t& ec) noexcept {
    return stop(scalar_error(predictions_error::string_value), ec);
  }
  bool on_string(boost::json::string_view, std::size_t, ec_t& ec) noexcept {
    return stop(scalar_error(predictions_error::string_value), ec);
  }
  bool on_bool(bool, ec_t& ec) noexcept { return stop(scalar_error(predictions_error::boolean_value), ec); }
  bool on_null(ec_t& ec) noexcept { return stop(scalar_error(predictions_error::null_value), ec); }

  bool on_number_part(boost::json::string_view s, ec_t& ec) noexcept {
    if (where_ != where::in_array) return stop(scalar_error(predictions_error::ok), ec);
    return append_number(s, ec);
  }
  bool on_int64(std::int64_t, boost::json::string_view s, ec_t& ec) noexcept { return number(s, ec); }
  bool on_uint64(std::uint64_t, boost::json::string_view s, ec_t& ec) noexcept { return number(s, ec); }
  bool on_double(double, boost::json::string_view s, ec_t& ec) noexcept { return number(s, ec); }

  bool on_comment_part(boost::json::string_view, ec_t& ec) noexcept {
    return stop(predictions_error::malformed_json, ec);
  }
  bool on_comment(boost::json::string_view, ec_t& ec) noexcept { return stop(predictions_error::malformed_json, ec); }

 private:
  enum class where : std::uint8_t { before_object, expect_key, expect_value, in_array, done };

  bool stop(predictions_error e, ec_t& ec) noexcept {
    error_ = e;
    ec = boost::json::error::exception;  // any code: ours is in error_
    return false;
  }

  // A scalar where the array's elements go is the scalar's own error; elsewhere, the value of
  // "predictions" is not an array, or the document is not an object at all.
  predictions_error scalar_error(predictions_error in_array) const noexcept {
    if (where_ == where::in_array && in_array != predictions_error::ok) return in_array;
    if (where_ == where::expect_value) return predictions_error::predictions_not_array;
    return predictions_error::text_before_object;
  }

  bool append_key(boost::json::string_view s, ec_t& ec) noexcept {
    // Longer than "predictions" can only be another key; cap the buffer there.
    if (key_.size() + s.size() > 11) {
      key_.clear();
      return stop(predictions_error::unexpected_key, ec);
    }
    key_.append(s.data(), s.size());  // fits the small-string buffer: never allocates
    return true;
  }

  bool append_number(boost::json::string_view s, ec_t& ec) noexcept {
    try {
      number_.append(s.data(), s.size());
    } catch (const std::bad_alloc&) {
      return stop(predictions_error::out_of_memory, ec);
    }
    return true;
  }

  bool number(boost::json::string_view s, ec_t& ec) noexcept {
    if (where_ != where::in_array) return stop(scalar_error(predictions_error::ok), ec);
    if (out_.size() == options_.expected_rows) return stop(predictions_error::too_many_predictions, ec);
    std::string_view text(s.data(), s.size());
    if (!number_.empty()) {
      if (!append_number(s, ec)) return false;
      text = number_;
    }
    const decimal_value v = convert_json_number(text);
    number_.clear();
    if (v.status != decimal_status::ok) return stop(predictions_error::number_out_of_range, ec);
    if (options_.task == task_type::binary_classification && !(v.value >= 0.0 && v.value <= 1.0))
      return stop(predictions_error::probability_out_of_range, ec);
    out_.push_back(v.value);  // capacity reserved up front: never allocates
    return true;
  }

  const predictions_options& options_;
  std::vector<double>& out_;
  predictions_error error_ = predictions_error::ok;
  where where_ = where::before_object;
  bool has_predictions_ = false;
  std::string key_;
  std::string number_;  // parts of a number split across buffers
};

constexpr bool is_json_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Boost.JSON 1.81 reports a lone leading surrogate ("\ud800x") and an unknown escape ("\q") as
// plain syntax errors; the bytes just before the stop tell them apart.
constexpr bool inside_escape(std::string_view text, std::size_t at) noexcept {
  if (at >= 1 && at - 1 < text.size() && text[at - 1] == '\\') return true;
  return at >= 6 && at <= text.size() && text.substr(at - 6, 2) == "\\u";
}

}  // namespace detail

// Parses the whole output. On success `out` holds options.expected_rows values in input order; on
// failure `out` is left empty. Linear in the input; allocates once (the reserved predictions).
inline predictions_result parse_predictions(std::string_view text, const predictions_options& options,
                                            std::vector<double>& out) noexcept {
  using E = predictions_error;
  out.clear();
  auto fail = [&](E e, std::size_t offset) {
    out.clear();
    return predictions_result{e, offset};
  };
  if (text.size() > options.max_bytes) return fail(E::output_too_large, options.max_bytes);

  std::size_t first = 0;
  while (first < text.size() && detail::is_json_space(text[first])) ++first;
  if (first == text.size()) return fail(E::empty_output, first);
  if (text[first] != '{') return fail(E::text_before_object, first);

  try {
    out.reserve(options.expected_rows);
  } catch (const std::exception&) {
    return fail(E::out_of_memory, 0);
  }

  boost::json::parse_options po;
  po.max_depth = 3;  // object > array > one level the handler rejects: nesting abuse costs nothing
  po.allow_comments = false;
  po.allow_trailing_commas = false;
  po.allow_invalid_utf8 = false;
  boost::json::basic_parser<detail::predictions_handler> parser(po, options, out);
  boost::json::error_code ec;
  const std::size_t used = parser.write_some(false, text.data(), text.size(), ec);

  if (ec) {
    if (parser.handler().error() != E::ok) return fail(parser.handler().error(), used);
    namespace je = boost::json;
    const char at = used < text.size() ? text[used] : '\0';
    if (ec == je::error::incomplete) return fail(E::truncated, used);
    if (ec == je::error::too_deep) return fail(E::too_deep, used);
    if (ec == je::error::exponent_overflow) return fail(E::number_out_of_range, used);
    if (ec == je::error::illegal_leading_surrogate || ec == je::error::illegal_trailing_surrogate ||
        ec == je::error::expected_hex_digit || ec == je::error::expected_utf16_escape)
      return fail(E::invalid_escape, used);
#if BOOST_VERSION < 108200  // Boost 1.81 workaround (see inside_escape); re-check on a newer Boost
    if (ec == je::error::syntax && detail::inside_escape(text, used)) return fail(E::invalid_escape, used);
#endif
    if (at == 'N' || at == 'I' ||
        (at == '-' && used + 1 < text.size() && (text[used + 1] == 'I' || text[used + 1] == 'N')))
      return fail(E::nonfinite_literal, used);
    if (static_cast<unsigned char>(at) >= 0x80) return fail(E::invalid_utf8, used);
    return fail(E::malformed_json, used);
  }
  if (!parser.handler().finished()) return fail(E::truncated, used);
  std::size_t rest = used;
  while (rest < text.size() && detail::is_json_space(text[rest])) ++rest;
  if (rest != text.size()) return fail(E::text_after_object, rest);
  return {E::ok, 0};
}

}  // namespace plb::sandbox
