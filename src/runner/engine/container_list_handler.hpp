// SPDX-License-Identifier: Apache-2.0
// The container list reader's handler (private to container_list_reader.cpp): a Boost.JSON
// basic_parser handler that follows the answer's shape, [{"Names":[...],"Labels":{...},
// "Created":n,"State":s,...}], and copies only the kept fields, each to its bound. Duplicated keys
// read as the DOM reads them: the last one wins.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <boost/json/basic_parser.hpp>

#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/engine/container_list_reader.hpp"

namespace plb::runner::detail {

namespace json = boost::json;

enum class field : std::uint8_t { other, names, labels, created, state };
enum class label : std::uint8_t { other, run, deadline };
enum class shape : std::uint8_t { string, array, object, other };

struct ranked {
  bool disagrees = true;  // name and run label do not agree: not the tool's, kept last
  std::int64_t due = 0;   // the tool's own: created + deadline label; a stranger: created
  std::uint64_t seq = 0;  // the daemon's order
  labelled_container c;
  bool oversized = false;
};
// a < b: a is kept before b. The heap's front is the first to give up.
inline bool before(const ranked& a, const ranked& b) {
  return std::tie(a.disagrees, a.due, a.seq) < std::tie(b.disagrees, b.due, b.seq);
}

// Created + the deadline label's seconds (digits only, capped, saturating): the first due are kept
// first, so containers made to look like the tool's with long deadlines cannot push a real run's
// out. A label that is not digits (not the warden's to judge) is due last.
inline std::int64_t due_of(const labelled_container& c) {
  constexpr std::int64_t never = std::numeric_limits<std::int64_t>::max();
  std::int64_t after = 0;
  if (c.deadline_label.empty()) return never;
  for (const char ch : c.deadline_label) {
    if (ch < '0' || ch > '9') return never;
    after = std::min<std::int64_t>(after * 10 + (ch - '0'), 1'000'000'000);
  }
  return c.created > never - after ? never : c.created + after;
}

inline bool agree(const labelled_container& c) {
  const std::string_view prefix = sandbox::policy_constants::name_prefix;
  return !c.run_label.empty() && c.name.size() == prefix.size() + c.run_label.size() && c.name.starts_with(prefix) &&
         c.name.ends_with(c.run_label);
}

class list_handler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  explicit list_handler(std::size_t max_listed) : max_listed_(std::max<std::size_t>(max_listed, 1)) {}

  engine_result<void> so_far;  // the answer so far: in bounds, or which bound it broke
  bool closed = false;         // the top-level array has ended
  std::vector<ranked> kept;
  std::uint64_t left_out = 0;

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code& ec) {
    if (depth_ == 0) return refuse("reply is not a JSON array", ec);
    if (depth_ == 1) entry_ = {};
    if (depth_ >= 2 && !value(shape::object, ec)) return false;
    ++depth_;
    return true;
  }
  bool on_object_end(std::size_t, json::error_code& ec) {
    if (--depth_ == 2) in_ = field::other;
    if (depth_ == 1) return keep(ec);
    return true;
  }
  bool on_array_begin(json::error_code& ec) {
    if (depth_ == 1) return refuse("a listed container is not an object", ec);
    if (depth_ >= 2 && !value(shape::array, ec)) return false;
    ++depth_;
    return true;
  }
  bool on_array_end(std::size_t, json::error_code&) {
    if (--depth_ == 2) in_ = field::other;
    closed = depth_ == 0;
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t n, json::error_code&) { return key_part(s, n); }
  bool on_key(json::string_view s, std::size_t n, json::error_code&) {
    key_part(s, n);
    in_key_ = false;
    const bool whole = n == key_.size();
    if (depth_ == 2)
      key_field_ = !whole              ? field::other
                   : key_ == "Names"   ? field::names
                   : key_ == "Labels"  ? field::labels
                   : key_ == "Created" ? field::created
                   : key_ == "State"   ? field::state
                                       : field::other;
    if (depth_ == 3 && in_ == field::labels)
      key_label_ = !whole                                              ? label::other
                   : key_ == sandbox::policy_constants::run_label      ? label::run
                   : key_ == sandbox::policy_constants::deadline_label ? label::deadline
                                                                       : label::other;
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t n, json::error_code& ec) { return string_part(s, n, ec); }
  bool on_string(json::string_view s, std::size_t n, json::error_code& ec) {
    const bool ok = string_part(s, n, ec);
    in_string_ = false;
    target_ = nullptr;
    return ok;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t v, json::string_view, json::error_code& ec) {
    if (!value(shape::other, ec)) return false;
    if (depth_ == 2 && key_field_ == field::created) entry_.c.created = v;
    return true;
  }
  bool on_uint64(std::uint64_t, json::string_view, json::error_code& ec) { return value(shape::other, ec); }
  bool on_double(double, json::string_view, json::error_code& ec) { return value(shape::other, ec); }
  bool on_bool(bool, json::error_code& ec) { return value(shape::other, ec); }
  bool on_null(json::error_code& ec) { return value(shape::other, ec); }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  bool refuse(const char* why, json::error_code& ec) {
    so_far = engine_error{engine_error::kind::bad_reply, 0, why};
    ec = json::error::syntax;
    return false;
  }

  // A value begins at the current depth: what it is for, and where its string goes if kept.
  bool value(shape s, json::error_code& ec) {
    if (depth_ == 0) return s == shape::array || refuse("reply is not a JSON array", ec);
    if (depth_ == 1) return s == shape::object || refuse("a listed container is not an object", ec);
    if (depth_ == 2) return entry_value(s);
    if (depth_ == 3 && in_ == field::names && entry_.names_seen++ == 0) {
      entry_.names_ok = s == shape::string;
      aim(s, entry_.c.name, max_name_bytes);
    }
    if (depth_ == 3 && in_ == field::labels && key_label_ != label::other) {
      std::string& to = key_label_ == label::run ? entry_.c.run_label : entry_.c.deadline_label;
      to.clear();  // a later duplicate that is not a string leaves no value, as in the DOM
      aim(s, to, key_label_ == label::run ? max_run_label_bytes : max_deadline_label_bytes);
    }
    return true;
  }

  // The value of one of a container's own keys (the last of a duplicated key wins).
  bool entry_value(shape s) {
    switch (key_field_) {
      case field::names:
        entry_.c.name.clear();
        entry_.names_seen = 0;
        entry_.names_ok = false;
        if (s == shape::array) in_ = field::names;
        break;
      case field::labels:
        entry_.c.run_label.clear();
        entry_.c.deadline_label.clear();
        if (s == shape::object) in_ = field::labels;
        break;
      case field::created: entry_.c.created = 0; break;
      case field::state: aim(s, entry_.c.state, max_state_bytes); break;
      case field::other: break;
    }
    return true;
  }

  void aim(shape s, std::string& to, std::size_t bound) {
    to.clear();
    if (s == shape::string) {
      target_ = &to;
      bound_ = bound;
    }
  }

  bool string_part(json::string_view s, std::size_t n, json::error_code& ec) {
    if (!in_string_) {
      in_string_ = true;
      target_ = nullptr;
      if (!value(shape::string, ec)) return false;
    }
    if (!target_) return true;
    target_->append(s.data(), std::min(s.size(), bound_ - std::min(bound_, target_->size())));
    entry_.oversized |= n > bound_;
    return true;
  }

  bool key_part(json::string_view s, std::size_t n) {
    if (!in_key_) key_.clear();
    in_key_ = true;
    if (n <= 64) key_.append(s.data(), s.size());  // no key kept is longer: a longer one matches none
    return true;
  }

  bool keep(json::error_code& ec) {
    if (!entry_.names_ok) return refuse("field Names missing, empty or not strings", ec);
    labelled_container& c = entry_.c;
    if (c.name.starts_with('/')) c.name.erase(0, 1);
    const bool ours = agree(c);
    ranked r{!ours, ours ? due_of(c) : c.created, seq_++, std::move(c), entry_.oversized};
    if (kept.size() < max_listed_) {
      kept.push_back(std::move(r));
      std::push_heap(kept.begin(), kept.end(), before);
      return true;
    }
    ++left_out;
    if (before(r, kept.front())) {
      std::pop_heap(kept.begin(), kept.end(), before);
      kept.back() = std::move(r);
      std::push_heap(kept.begin(), kept.end(), before);
    }
    return true;
  }

  struct draft {
    labelled_container c;
    std::size_t names_seen = 0;
    bool names_ok = false, oversized = false;
  };

  std::size_t max_listed_;
  int depth_ = 0;
  field key_field_ = field::other;  // the container's key just read (depth 2)
  field in_ = field::other;         // the container's field whose array or object is open
  label key_label_ = label::other;  // the label just read (depth 3, in Labels)
  std::string key_;
  bool in_key_ = false, in_string_ = false;
  std::string* target_ = nullptr;  // where the string being read is kept, if it is
  std::size_t bound_ = 0;
  draft entry_;
  std::uint64_t seq_ = 0;
};

}  // namespace plb::runner::detail
