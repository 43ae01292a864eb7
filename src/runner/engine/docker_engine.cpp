// SPDX-License-Identifier: Apache-2.0
#include "runner/engine/docker_engine.hpp"

#include <stdexcept>

#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/engine/container_list_reader.hpp"
#include "support/one_line.hpp"

namespace plb::runner {
namespace {

engine_error unexpected(int status, const std::string& what) {
  return {engine_error::kind::unexpected_status, status, what + " answered HTTP " + std::to_string(status)};
}
engine_error bad_reply(const std::string& what, const std::string& problem) {
  return {engine_error::kind::bad_reply, 0, what + ": " + problem};
}

// The parsed answer of a GET that may be a 404, through one of engine_json's parsers.
template <class T, class Parse>
engine_result<std::optional<T>> get_optional(const engine_transport& t, const std::string& path,
                                             const std::string& what, Parse parse) {
  const auto reply = t.get(path);
  if (!reply) return reply.error();
  if (reply->status == 404) return std::optional<T>{};
  if (reply->status != 200) return unexpected(reply->status, what);
  auto parsed = parse(reply->body);
  if (!parsed) return bad_reply(what, parsed.error().detail);
  return std::optional<T>(std::move(*parsed));
}

}  // namespace

std::string engine_error::message() const { return detail; }

void throw_exception_from_error(const engine_error& e, const boost::source_location&) {
  throw std::runtime_error(e.message());
}

docker_engine::docker_engine(std::string socket_path, std::chrono::seconds timeout)
    : transport_(std::move(socket_path), timeout) {}

engine_result<void> docker_engine::ping() const {
  const auto reply = transport_.get("/_ping");
  if (!reply) return reply.error();
  if (reply->status != 200) return unexpected(reply->status, "/_ping");
  return {};
}

engine_result<daemon_info> docker_engine::info() const {
  auto r = get_optional<daemon_info>(transport_, "/info", "the daemon's /info", parse_daemon_info);
  if (!r) return r.error();
  if (!*r) return unexpected(404, "the daemon's /info");
  return std::move(**r);
}

engine_result<std::optional<image_facts>> docker_engine::inspect_image(const sandbox::image_id& image) const {
  return get_optional<image_facts>(transport_, "/images/" + image.str() + "/json", "inspecting the image",
                                   parse_image_inspect);
}

engine_result<std::optional<container_state>> docker_engine::inspect_container(const std::string& name) const {
  return get_optional<container_state>(transport_, "/containers/" + url_encode(name) + "/json",
                                       "inspecting container " + name, parse_container_inspect);
}

engine_result<container_list> docker_engine::list_labelled() const {
  const std::string filter = R"({"label":[")" + std::string(sandbox::policy_constants::run_label) + R"("]})";
  container_list_reader reader;
  const auto status = transport_.get_streamed("/containers/json?all=1&filters=" + url_encode(filter),
                                              [&reader](std::string_view chunk) { return reader.feed(chunk); });
  if (!status && status.error().what != engine_error::kind::bad_reply) return status.error();
  if (status && *status != 200) return unexpected(*status, "listing containers");
  auto list = reader.finish();  // a refused read says here what was wrong
  if (!list) return bad_reply("listing containers", list.error().detail);
  return list;
}

engine_result<void> docker_engine::kill(const std::string& name) const {
  const auto reply = transport_.post("/containers/" + url_encode(name) + "/kill?signal=KILL");
  if (!reply) return reply.error();
  // 404: gone; 409: not running. Either way nothing is left to kill.
  if (reply->status != 204 && reply->status != 404 && reply->status != 409) return unexpected(reply->status, "kill");
  return {};
}

engine_result<bool> docker_engine::remove(const std::string& name) const {
  // No v=1: a volume is never deleted (the reviewed image declares none, and anything else's
  // volumes are not ours).
  const auto reply = transport_.del("/containers/" + url_encode(name) + "?force=1");
  if (!reply) return reply.error();
  if (reply->status == 204) return true;
  if (reply->status == 404) return false;
  return unexpected(reply->status, "removing container " + name);
}

std::string url_encode(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      append_hex_escape(out, c, "%", true);
    }
  }
  return out;
}

}  // namespace plb::runner
