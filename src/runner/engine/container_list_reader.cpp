// SPDX-License-Identifier: Apache-2.0
// The streaming reader of the container list (see the header), around its parser's handler
// (container_list_handler.hpp).
#include "runner/engine/container_list_reader.hpp"

#include <algorithm>
#include <string>

#include <boost/json/basic_parser_impl.hpp>

#include "runner/engine/container_list_handler.hpp"

namespace plb::runner {
namespace {

namespace json = boost::json;
using detail::list_handler;
using detail::ranked;

}  // namespace

struct container_list_reader::state {
  explicit state(std::size_t max_listed) : parser(options(), max_listed) {}
  static json::parse_options options() {
    json::parse_options po;
    po.max_depth = 32;
    return po;
  }
  json::basic_parser<list_handler> parser;
  engine_result<void> so_far;  // the reply so far: well formed, or why it is refused
  void refuse(const char* why) { so_far = engine_error{engine_error::kind::bad_reply, 0, why}; }
};

container_list_reader::container_list_reader(std::size_t max_listed) : s_(std::make_unique<state>(max_listed)) {}
container_list_reader::~container_list_reader() = default;

bool container_list_reader::feed(std::string_view chunk) noexcept try {
  if (!s_->so_far) return false;
  list_handler& h = s_->parser.handler();
  std::size_t used = 0;
  if (!h.closed) {
    json::error_code ec;
    used = s_->parser.write_some(true, chunk.data(), chunk.size(), ec);
    if (ec && h.so_far) s_->refuse("reply is not valid JSON");
    if (ec && !h.so_far) s_->so_far = h.so_far;
  }
  // After the array only white space may follow (the daemon ends its answer with a newline).
  if (s_->so_far && chunk.substr(used).find_first_not_of(" \t\r\n") != std::string_view::npos)
    s_->refuse("reply is not valid JSON");
  return s_->so_far.has_value();
} catch (const std::exception&) {
  s_->refuse("out of memory reading the reply");
  return false;
}

engine_result<container_list> container_list_reader::finish() noexcept try {
  if (s_->so_far && !s_->parser.handler().closed) s_->refuse("reply is not valid JSON");
  if (!s_->so_far) return s_->so_far.error();
  list_handler& h = s_->parser.handler();
  std::sort(h.kept.begin(), h.kept.end(), [](const ranked& a, const ranked& b) { return a.seq < b.seq; });
  container_list out;
  out.left_out = h.left_out;
  out.containers.reserve(h.kept.size());
  for (ranked& r : h.kept) {
    out.oversized += r.oversized ? 1 : 0;
    out.containers.push_back(std::move(r.c));
  }
  return out;
} catch (const std::exception&) {
  return engine_error{engine_error::kind::bad_reply, 0, "out of memory reading the reply"};
}

}  // namespace plb::runner
