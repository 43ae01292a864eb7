// SPDX-License-Identifier: Apache-2.0
// An independent, deliberately simple strict JSON reader (RFC 8259), used only as the fuzzing
// oracle for the predictions parser. It shares no code with Boost.JSON: recursive descent, objects
// kept as lists of keys and values (so duplicates stay visible), numbers kept as their text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plb/sandbox/detail/utf8.hpp"

namespace plb::oracle {

struct json_node {
  enum class kind { null, boolean, number, string, array, object } type = kind::null;
  bool boolean = false;
  std::string text;  // number text or decoded string
  std::vector<json_node> items;
  // Parallel lists rather than pairs: a pair would need json_node complete here.
  std::vector<std::string> keys;
  std::vector<json_node> values;
};

class strict_json {
 public:
  // Parses exactly one value with optional whitespace around it. false on any deviation.
  static bool parse(std::string_view in, json_node& out) {
    strict_json p(in);
    p.space();
    if (!p.value(out, 0)) return false;
    p.space();
    return p.pos_ == in.size();
  }

 private:
  explicit strict_json(std::string_view in) : in_(in) {}

  bool value(json_node& n, int depth) {
    if (depth > 64 || pos_ >= in_.size()) return false;
    const char c = in_[pos_];
    if (c == '{') return object(n, depth);
    if (c == '[') return array(n, depth);
    if (c == '"') {
      n.type = json_node::kind::string;
      return string(n.text);
    }
    if (literal("true")) return n.type = json_node::kind::boolean, n.boolean = true, true;
    if (literal("false")) return n.type = json_node::kind::boolean, n.boolean = false, true;
    if (literal("null")) return n.type = json_node::kind::null, true;
    n.type = json_node::kind::number;
    return number(n.text);
  }

  bool object(json_node& n, int depth) {
    n.type = json_node::kind::object;
    ++pos_;
    space();
    if (peek('}')) return ++pos_, true;
    while (true) {
      space();
      std::string key;
      if (!peek('"') || !string(key)) return false;
      space();
      if (!peek(':')) return false;
      ++pos_;
      space();
      json_node v;
      if (!value(v, depth + 1)) return false;
      n.keys.push_back(std::move(key));
      n.values.push_back(std::move(v));
      space();
      if (peek(',')) {
        ++pos_;
        continue;
      }
      if (peek('}')) return ++pos_, true;
      return false;
    }
  }

  bool array(json_node& n, int depth) {
    n.type = json_node::kind::array;
    ++pos_;
    space();
    if (peek(']')) return ++pos_, true;
    while (true) {
      space();
      json_node v;
      if (!value(v, depth + 1)) return false;
      n.items.push_back(std::move(v));
      space();
      if (peek(',')) {
        ++pos_;
        continue;
      }
      if (peek(']')) return ++pos_, true;
      return false;
    }
  }

  bool number(std::string& out) {
    const std::size_t start = pos_;
    if (peek('-')) ++pos_;
    if (peek('0')) {
      ++pos_;
    } else {
      if (!digit()) return false;
      while (digit()) ++pos_;
    }
    if (peek('.')) {
      ++pos_;
      if (!digit()) return false;
      while (digit()) ++pos_;
    }
    if (peek('e') || peek('E')) {
      ++pos_;
      if (peek('+') || peek('-')) ++pos_;
      if (!digit()) return false;
      while (digit()) ++pos_;
    }
    out.assign(in_.substr(start, pos_ - start));
    return true;
  }

  bool hex4(std::uint32_t& v) {
    if (pos_ + 4 > in_.size()) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = in_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else
        return false;
    }
    return true;
  }

  // One UTF-8 sequence, validated per RFC 3629 (no overlongs, no surrogates, at most U+10FFFF).
  bool utf8(std::string& out) {
    const auto b0 = static_cast<unsigned char>(in_[pos_]);
    int n = 0;
    std::uint32_t cp = 0, min = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF)
      n = 1, cp = b0 & 0x1F, min = 0x80;
    else if (b0 >= 0xE0 && b0 <= 0xEF)
      n = 2, cp = b0 & 0x0F, min = 0x800;
    else if (b0 >= 0xF0 && b0 <= 0xF4)
      n = 3, cp = b0 & 0x07, min = 0x10000;
    else
      return false;
    if (pos_ + static_cast<std::size_t>(n) >= in_.size()) return false;
    for (int i = 1; i <= n; ++i) {
      const auto b = static_cast<unsigned char>(in_[pos_ + static_cast<std::size_t>(i)]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    out.append(in_.substr(pos_, static_cast<std::size_t>(n) + 1));
    pos_ += static_cast<std::size_t>(n) + 1;
    return true;
  }

  bool string(std::string& out) {
    ++pos_;  // opening quote
    while (pos_ < in_.size()) {
      const auto c = static_cast<unsigned char>(in_[pos_]);
      if (c == '"') return ++pos_, true;
      if (c < 0x20) return false;
      if (c >= 0x80) {
        if (!utf8(out)) return false;
        continue;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      if (++pos_ >= in_.size()) return false;
      const char e = in_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            std::uint32_t lo = 0;
            if (pos_ + 2 > in_.size() || in_[pos_] != '\\' || in_[pos_ + 1] != 'u') return false;
            pos_ += 2;
            if (!hex4(lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          plb::sandbox::detail::append_utf8(out, cp);
          break;
        }
        default: return false;
      }
    }
    return false;
  }

  bool literal(std::string_view word) {
    if (in_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool peek(char c) const { return pos_ < in_.size() && in_[pos_] == c; }
  bool digit() const { return pos_ < in_.size() && in_[pos_] >= '0' && in_[pos_] <= '9'; }
  void space() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n' || in_[pos_] == '\r'))
      ++pos_;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace plb::oracle
