// SPDX-License-Identifier: Apache-2.0
// A Boost.JSON basic_parser handler for batch-summary.json that never holds the whole document:
// the report reads the summary of 100,000 lines through it a buffer at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <boost/json.hpp>

namespace plb::batch {

// The summary's events, as Boost.JSON's parser makes its document, but each row of "rows" is built
// and handed on alone, so that no document of every row is ever held: the header's fields (the
// top-level object without its rows array) are one small value, each row another.
class summary_handler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1), max_array_size = std::size_t(-1),
                               max_key_size = std::size_t(-1), max_string_size = std::size_t(-1);
  explicit summary_handler(std::function<void(boost::json::value)> on_row) : on_row_(std::move(on_row)) {}

  bool on_document_begin(boost::json::error_code&) { return true; }
  bool on_document_end(boost::json::error_code&) { return true; }
  bool on_object_begin(boost::json::error_code& ec) { return open(ec, false); }
  bool on_object_end(std::size_t n, boost::json::error_code&) { return close(n, false); }
  bool on_array_begin(boost::json::error_code& ec) { return open(ec, true); }
  bool on_array_end(std::size_t n, boost::json::error_code&) { return close(n, true); }
  bool on_key_part(boost::json::string_view s, std::size_t, boost::json::error_code&) {
    key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(boost::json::string_view s, std::size_t, boost::json::error_code&) {
    key_.append(s.data(), s.size());
    if (depth_ == 1 && key_ == "rows" && !rows_seen_) {
      rows_key_ = true;  // held back: if its value is an array, its rows go one by one
    } else {
      if (rows_key_) flush_rows_key();
      stack().push_key(key_);
    }
    key_.clear();
    return true;
  }
  bool on_string_part(boost::json::string_view s, std::size_t, boost::json::error_code& ec) {
    if (!before_value(ec)) return false;
    stack().push_chars(s);
    return true;
  }
  bool on_string(boost::json::string_view s, std::size_t, boost::json::error_code& ec) {
    if (!before_value(ec)) return false;
    stack().push_string(s);
    return after_scalar();
  }
  bool on_number_part(boost::json::string_view, boost::json::error_code&) { return true; }
  bool on_int64(std::int64_t v, boost::json::string_view, boost::json::error_code& ec) {
    if (!before_value(ec)) return false;
    stack().push_int64(v);
    return after_scalar();
  }
  bool on_uint64(std::uint64_t v, boost::json::string_view, boost::json::error_code& ec) {
    if (!before_value(ec)) return false;
    stack().push_uint64(v);
    return after_scalar();
  }
  bool on_double(double v, boost::json::string_view, boost::json::error_code& ec) {
    if (!before_value(ec)) return false;
    stack().push_double(v);
    return after_scalar();
  }
  bool on_bool(bool v, boost::json::error_code& ec) {
    if (!before_value(ec)) return false;
    stack().push_bool(v);
    return after_scalar();
  }
  bool on_null(boost::json::error_code& ec) {
    if (!before_value(ec)) return false;
    stack().push_null();
    return after_scalar();
  }
  bool on_comment_part(boost::json::string_view, boost::json::error_code&) { return true; }
  bool on_comment(boost::json::string_view, boost::json::error_code&) { return true; }

  // The top-level object without its rows array; null when the document was not an object.
  boost::json::value header() { return std::move(header_); }
  bool rows_were_an_array() const noexcept { return rows_seen_; }

 private:
  boost::json::value_stack& stack() { return in_row() ? row_ : head_; }
  bool in_row() const noexcept { return in_rows_ && depth_ >= 2 && (depth_ > 2 || row_open_); }
  // A value at depth 1 after a held-back "rows" key that is not an array: it stays in the header.
  void flush_rows_key() {
    head_.push_key("rows");
    rows_key_ = false;
    ++head_fields_;
  }
  bool before_value(boost::json::error_code& ec) {
    if (depth_ == 0) {
      ec = boost::json::error::syntax;  // not an object: refused as a document
      return false;
    }
    if (depth_ == 1 && rows_key_) flush_rows_key();
    if (in_rows_ && depth_ == 2 && !row_open_) {  // a scalar row
      row_.reset();
      row_open_ = true;
    }
    return true;
  }
  bool after_scalar() {
    if (in_rows_ && depth_ == 2 && row_open_) finish_row();
    return true;
  }
  void finish_row() {
    row_open_ = false;
    on_row_(row_.release());
  }
  bool open(boost::json::error_code& ec, bool array) {
    if (depth_ == 0) {
      if (array) {
        ec = boost::json::error::syntax;  // not an object: refused as a document
        return false;
      }
      head_.reset();
      depth_ = 1;
      return true;
    }
    if (depth_ == 1 && rows_key_ && array) {
      rows_key_ = false;
      rows_seen_ = true;
      in_rows_ = true;
      depth_ = 2;
      return true;
    }
    if (!before_value(ec)) return false;
    if (in_rows_ && depth_ == 2) {
      row_.reset();
      row_open_ = true;
    }
    ++depth_;
    return true;
  }
  bool close(std::size_t n, bool array) {
    --depth_;
    if (depth_ == 0) {
      head_.push_object(n - (rows_seen_ ? 1 : 0));
      header_ = head_.release();
      return true;
    }
    if (in_rows_ && depth_ == 1) {  // the rows array itself
      in_rows_ = false;
      return true;
    }
    if (array)
      stack_for_close().push_array(n);
    else
      stack_for_close().push_object(n);
    if (in_rows_ && depth_ == 2) finish_row();
    return true;
  }
  boost::json::value_stack& stack_for_close() { return in_rows_ && depth_ >= 2 ? row_ : head_; }

  std::function<void(boost::json::value)> on_row_;
  boost::json::value_stack head_, row_;
  boost::json::value header_;
  std::string key_;
  std::size_t depth_ = 0, head_fields_ = 0;
  bool rows_key_ = false, rows_seen_ = false, in_rows_ = false, row_open_ = false;
};

}  // namespace plb::batch
