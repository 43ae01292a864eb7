// SPDX-License-Identifier: Apache-2.0
// RFC 4180 reader that extracts the requested feature columns (in the order requested) and an
// optional ID column from an operator's CSV. Input arrives in chunks through feed(); only the
// selected cells are ever buffered, so memory grows with the selected values, not with the file.
//
// Positions are 1-based: row 1 is the header record, column 1 the first field. A record may span
// several lines when a quoted field holds a newline; rows count records, as a spreadsheet does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "plb/sandbox/detail/decimal.hpp"
#include "plb/sandbox/limits.hpp"

namespace plb::sandbox {

enum class csv_error : std::uint8_t {
  ok,
  no_features_requested,
  repeated_feature,  // the caller asked for the same column twice
  id_column_is_feature,
  missing_header,  // empty input
  header_too_large,
  empty_column_name,  // a header cell with no name
  duplicate_header,
  missing_feature,  // a requested feature is not in the header
  missing_id_column,
  ragged_row,  // a record with more or fewer fields than the header
  unterminated_quote,
  quote_in_unquoted_field,
  text_after_closing_quote,
  bare_carriage_return,  // CR not followed by LF outside quotes
  nul_byte,
  empty_cell,
  nonfinite_number,     // nan, inf, infinity in any case
  not_a_number,         // any other text, hex, thousands separators, spaces
  number_out_of_range,  // overflows a double
  cell_too_long,
  too_many_values,
  id_bytes_exceeded,
  no_rows,
  out_of_memory,
};

constexpr std::string_view message(csv_error e) noexcept {
  switch (e) {
    case csv_error::ok: return "ok";
    case csv_error::no_features_requested: return "no feature columns requested";
    case csv_error::repeated_feature: return "feature requested more than once";
    case csv_error::id_column_is_feature: return "the ID column is also requested as a feature";
    case csv_error::missing_header: return "empty input: no header row";
    case csv_error::header_too_large: return "header row too large";
    case csv_error::empty_column_name: return "empty column name in the header";
    case csv_error::duplicate_header: return "duplicate column name in the header";
    case csv_error::missing_feature: return "requested feature column not in the header";
    case csv_error::missing_id_column: return "ID column not in the header";
    case csv_error::ragged_row: return "row has a different number of fields than the header";
    case csv_error::unterminated_quote: return "quoted field never closed";
    case csv_error::quote_in_unquoted_field: return "quote inside an unquoted field";
    case csv_error::text_after_closing_quote: return "text after a closing quote";
    case csv_error::bare_carriage_return: return "carriage return not followed by a line feed";
    case csv_error::nul_byte: return "NUL byte";
    case csv_error::empty_cell: return "empty feature cell";
    case csv_error::nonfinite_number: return "non-finite feature value";
    case csv_error::not_a_number: return "feature cell is not a decimal number";
    case csv_error::number_out_of_range: return "feature value overflows a double";
    case csv_error::cell_too_long: return "cell too long";
    case csv_error::too_many_values: return "more feature values than the input limit";
    case csv_error::id_bytes_exceeded: return "ID column larger than its limit";
    case csv_error::no_rows: return "no data rows";
    case csv_error::out_of_memory: return "out of memory";
  }
  return "unknown error";
}

struct csv_options {
  std::size_t max_values = SandboxLimits{}.input_values;  // the limits' default, not a copy of it
  std::size_t max_cell_bytes = 4096;                      // any selected cell; decimal numbers are far shorter
  std::size_t max_header_bytes = 1 << 20;                 // column names together, each with its overhead:
  // what one header name costs beyond its bytes (the size of its string object; its slot and index
  // entry are of the same order), so that millions of one-byte names are as bounded as one long name
  static constexpr std::size_t header_name_overhead = 32;
  std::size_t max_id_bytes = 64u << 20;  // the ID column's cells together
};

struct csv_result {
  csv_error error = csv_error::ok;
  std::size_t row = 0;     // 1-based record number; 0 when the error has no position
  std::size_t column = 0;  // 1-based field number; 0 when the error has no position
  std::string column_name;
  explicit operator bool() const noexcept { return error == csv_error::ok; }
};

// The extracted matrix, row-major: values[r * features.size() + k] is feature k of data row r.
struct feature_table {
  std::vector<std::string> features;
  std::string id_column;  // empty: no ID column requested
  std::vector<std::string> ids;
  std::vector<double> values;

  std::size_t columns() const noexcept { return features.size(); }
  std::size_t rows() const noexcept { return features.empty() ? 0 : values.size() / features.size(); }
};

class csv_feature_reader {
 public:
  // id_column empty: none. Problems with the request itself surface from the first feed/finish.
  csv_feature_reader(std::vector<std::string> features, std::string id_column = {}, csv_options options = {}) noexcept
      : options_(options) {
    table_.features = std::move(features);
    table_.id_column = std::move(id_column);
    check_request();
  }

  csv_result feed(std::string_view chunk) noexcept {
    if (!result_) return result_;
    try {
      if (!bom_checked_) chunk = strip_bom(chunk);
      if (!bom_checked_) return result_;  // still undecided: fewer than three bytes so far
      consume(chunk);
    } catch (const std::bad_alloc&) {
      fail(csv_error::out_of_memory);
    }
    return result_;
  }

  // Ends the input: an open quote is an error, a last record without a newline is accepted.
  csv_result finish() noexcept {
    if (!result_) return result_;
    try {
      if (!bom_checked_) {
        bom_checked_ = true;
        std::string pending = std::move(bom_pending_);
        consume(pending);
        if (!result_) return result_;
      }
      switch (state_) {
        case state::quoted: fail_at(csv_error::unterminated_quote, quote_row_, quote_column_); return result_;
        case state::after_cr: fail(csv_error::bare_carriage_return); return result_;
        case state::field_start:
          if (column_ == 0 && !record_started_) break;  // input ended on a record boundary
          [[fallthrough]];
        default:
          end_field();
          if (result_) end_record();
      }
      if (!result_) return result_;
      if (!header_done_)
        fail_at(csv_error::missing_header, 0, 0);
      else if (table_.values.empty())
        fail_at(csv_error::no_rows, 0, 0);
    } catch (const std::bad_alloc&) {
      fail(csv_error::out_of_memory);
    }
    return result_;
  }

  const feature_table& table() const& noexcept { return table_; }
  feature_table&& take_table() && noexcept { return std::move(table_); }

 private:
  enum class state : std::uint8_t { field_start, unquoted, quoted, quoted_quote, after_cr };
  static constexpr std::int32_t unselected = -1;
  static constexpr std::int32_t id_role = -2;

  void check_request() {
    try {
      if (table_.features.empty()) return fail_at(csv_error::no_features_requested, 0, 0);
      std::unordered_map<std::string_view, std::size_t> seen;
      for (const std::string& f : table_.features) {
        if (!seen.emplace(f, seen.size()).second) return fail_name(csv_error::repeated_feature, f);
        if (!table_.id_column.empty() && f == table_.id_column) return fail_name(csv_error::id_column_is_feature, f);
      }
      row_values_.resize(table_.features.size());
    } catch (const std::bad_alloc&) {
      fail(csv_error::out_of_memory);
    }
  }

  std::string_view strip_bom(std::string_view chunk) {
    static constexpr std::string_view bom = "\xEF\xBB\xBF";
    if (chunk.empty()) return chunk;
    while (!chunk.empty() && bom_pending_.size() < bom.size()) {
      bom_pending_.push_back(chunk.front());
      chunk.remove_prefix(1);
      if (bom_pending_.back() != bom[bom_pending_.size() - 1]) break;
    }
    const bool decided = bom_pending_.size() == bom.size() || bom_pending_.back() != bom[bom_pending_.size() - 1];
    if (!decided) return chunk;
    bom_checked_ = true;
    if (bom_pending_ != bom) {
      std::string pending = std::move(bom_pending_);
      consume(pending);
    }
    bom_pending_.clear();
    return result_ ? chunk : std::string_view{};
  }

  // Bytes that end or change an unquoted field, as a table: one load per byte in the hot loop.
  static constexpr std::array<bool, 256> special_table = [] {
    std::array<bool, 256> t{};
    for (char c : {',', '\n', '\r', '"', '\0'}) t[static_cast<unsigned char>(c)] = true;
    return t;
  }();
  static bool is_special(char c) noexcept { return special_table[static_cast<unsigned char>(c)]; }

  // Eight bytes at a time until one of them is special (SWAR: a zero byte of w ^ c marks c).
  static const char* skip_plain(const char* q, const char* end) noexcept {
    constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    auto has = [](std::uint64_t w, std::uint64_t c) {
      const std::uint64_t x = w ^ (ones * c);
      return (x - ones) & ~x & highs;
    };
    while (end - q >= 8) {
      std::uint64_t w;
      std::memcpy(&w, q, 8);
      if (has(w, ',') | has(w, '\n') | has(w, '\r') | has(w, '"') | has(w, 0)) break;
      q += 8;
    }
    while (q < end && !is_special(*q)) ++q;
    return q;
  }

  void consume(std::string_view in) {
    const char* p = in.data();
    const char* const end = p + in.size();
    while (p < end && result_) {
      switch (state_) {
        case state::field_start:
          record_started_ = true;
          if (*p == '"') {
            quote_row_ = row_;
            quote_column_ = column_ + 1;
            state_ = state::quoted;
            ++p;
            break;
          }
          state_ = state::unquoted;
          [[fallthrough]];
        case state::unquoted: {
          const char* q = skip_plain(p, end);
          // A field wholly inside this chunk is read in place; one that began in an earlier
          // chunk is completed in the cell buffer.
          const bool in_place = cell_.empty() && q < end && (*q == ',' || *q == '\n') && header_done_;
          if (in_place) {
            direct_ = std::string_view(p, static_cast<std::size_t>(q - p));
            if (direct_.size() > options_.max_cell_bytes && role() != unselected) return fail(csv_error::cell_too_long);
          } else {
            append(p, q);
          }
          p = q;
          if (p == end || !result_) break;
          const char c = *p++;
          if (!delimiter(c)) fail(c == '"' ? csv_error::quote_in_unquoted_field : csv_error::nul_byte);
          break;
        }
        case state::quoted: {
          const char* q = p;
          while (q < end && *q != '"' && *q != '\0') ++q;
          append(p, q);
          p = q;
          if (p == end || !result_) break;
          if (*p == '\0') return fail(csv_error::nul_byte);
          ++p;
          state_ = state::quoted_quote;
          break;
        }
        case state::quoted_quote: {
          const char c = *p++;
          if (c == '"') {
            append_char('"');
            state_ = state::quoted;
          } else if (!delimiter(c)) {
            fail(c == '\0' ? csv_error::nul_byte : csv_error::text_after_closing_quote);
          }
          break;
        }
        case state::after_cr:
          if (*p != '\n') return fail(csv_error::bare_carriage_return);
          ++p;
          end_field();
          if (result_) end_record();
          break;
      }
    }
  }

  // What may follow a field: ',' ends it, '\n' ends the record, '\r' waits for its '\n'.
  bool delimiter(char c) {
    if (c == ',') {
      end_field();
      state_ = state::field_start;
    } else if (c == '\n') {
      end_field();
      if (result_) end_record();
    } else if (c == '\r') {
      state_ = state::after_cr;
    } else {
      return false;
    }
    return true;
  }

  std::int32_t role() const noexcept {
    if (!header_done_) return 0;  // header cells are all kept
    return column_ < roles_.size() ? roles_[column_] : unselected;
  }

  void append(const char* first, const char* last) {
    if (first == last || role() == unselected) return;
    const auto n = static_cast<std::size_t>(last - first);
    if (!header_done_) {
      header_bytes_ += n;
      if (header_bytes_ > options_.max_header_bytes) return fail(csv_error::header_too_large);
    } else if (cell_.size() + n > options_.max_cell_bytes) {
      return fail(csv_error::cell_too_long);
    }
    cell_.append(first, n);
  }
  void append_char(char c) { append(&c, &c + 1); }

  void end_field() {
    // The field's text: read in place (direct_) or gathered in cell_.
    const std::string_view text = direct_.data() ? direct_ : std::string_view(cell_);
    if (!header_done_) {
      if (text.empty()) return fail(csv_error::empty_column_name);
      // Each name also costs its bookkeeping, counted against the same cap: a header of millions
      // of one-byte names stays as bounded as one long name.
      header_bytes_ += csv_options::header_name_overhead;
      if (header_bytes_ > options_.max_header_bytes) return fail(csv_error::header_too_large);
      header_.push_back(std::move(cell_));
    } else {
      const std::int32_t r = role();
      if (column_ >= roles_.size()) return fail(csv_error::ragged_row);
      if (r == id_role) {
        id_bytes_ += text.size();
        if (id_bytes_ > options_.max_id_bytes) return fail(csv_error::id_bytes_exceeded);
        pending_id_.assign(text);
      } else if (r >= 0) {
        if (!convert_cell(static_cast<std::size_t>(r), text)) return;
      }
    }
    cell_.clear();
    direct_ = {};
    ++column_;
  }

  bool convert_cell(std::size_t feature, std::string_view text) {
    if (text.empty()) return fail(csv_error::empty_cell), false;
    if (table_.values.size() + values_in_row_ + 1 > options_.max_values) return fail(csv_error::too_many_values), false;
    const detail::decimal_value v = detail::parse_decimal(text);
    if (v.status == detail::decimal_status::syntax)
      return fail(is_nonfinite_word(text) ? csv_error::nonfinite_number : csv_error::not_a_number), false;
    if (v.status != detail::decimal_status::ok) return fail(csv_error::number_out_of_range), false;
    row_values_[feature] = v.value;
    ++values_in_row_;
    return true;
  }

  static bool is_nonfinite_word(std::string_view s) noexcept {
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
    auto iequals = [](std::string_view a, std::string_view b) {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != b[i]) return false;
      }
      return true;
    };
    return iequals(s, "nan") || iequals(s, "inf") || iequals(s, "infinity");
  }

  void end_record() {
    if (!header_done_) {
      finish_header();
    } else {
      if (column_ != roles_.size()) {
        // Point at the first missing field: column_ is the count of fields seen.
        return fail_at(csv_error::ragged_row, row_, column_ + 1);
      }
      table_.values.insert(table_.values.end(), row_values_.begin(), row_values_.end());
      if (!table_.id_column.empty()) table_.ids.push_back(std::move(pending_id_));
    }
    values_in_row_ = 0;
    column_ = 0;
    record_started_ = false;
    state_ = state::field_start;
    ++row_;
  }

  void finish_header() {
    std::unordered_map<std::string_view, std::size_t> index;
    for (std::size_t i = 0; i < header_.size(); ++i) {
      if (!index.emplace(header_[i], i).second) return fail_at(csv_error::duplicate_header, 1, i + 1, header_[i]);
    }
    roles_.assign(header_.size(), unselected);
    for (std::size_t k = 0; k < table_.features.size(); ++k) {
      const auto it = index.find(table_.features[k]);
      if (it == index.end()) return fail_at(csv_error::missing_feature, 1, 0, table_.features[k]);
      roles_[it->second] = static_cast<std::int32_t>(k);
    }
    if (!table_.id_column.empty()) {
      const auto it = index.find(table_.id_column);
      if (it == index.end()) return fail_at(csv_error::missing_id_column, 1, 0, table_.id_column);
      roles_[it->second] = id_role;
    }
    header_done_ = true;
  }

  void fail(csv_error e) {
    fail_at(e, row_, column_ + 1, column_ < header_.size() ? header_[column_] : std::string_view{});
  }
  void fail_name(csv_error e, std::string_view name) { fail_at(e, 0, 0, name); }
  void fail_at(csv_error e, std::size_t row, std::size_t column, std::string_view name = {}) {
    result_.error = e;
    result_.row = row;
    result_.column = column;
    try {
      result_.column_name.assign(name);
    } catch (const std::bad_alloc&) {
      result_.column_name.clear();
    }
  }

  csv_options options_;
  feature_table table_;
  csv_result result_;

  std::string bom_pending_;
  bool bom_checked_ = false;

  state state_ = state::field_start;
  bool header_done_ = false;
  bool record_started_ = false;
  std::vector<std::string> header_;
  std::size_t header_bytes_ = 0;
  std::vector<std::int32_t> roles_;  // per header column: feature index, id_role or unselected

  std::size_t row_ = 1;
  std::size_t column_ = 0;  // 0-based while parsing
  std::size_t quote_row_ = 0, quote_column_ = 0;
  std::string cell_;
  std::string_view direct_;  // the current field, when read in place from the chunk
  std::vector<double> row_values_;
  std::size_t values_in_row_ = 0;
  std::string pending_id_;
  std::size_t id_bytes_ = 0;
};

// Convenience for a whole buffer.
inline csv_result read_features(std::string_view csv, std::vector<std::string> features, std::string id_column,
                                feature_table& out, csv_options options = {}) noexcept {
  csv_feature_reader reader(std::move(features), std::move(id_column), options);
  csv_result r = reader.feed(csv);
  if (r) r = reader.finish();
  if (r) out = std::move(reader).take_table();
  return r;
}

}  // namespace plb::sandbox
