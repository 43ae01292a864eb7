// SPDX-License-Identifier: Apache-2.0
#include "runner/engine/engine_json.hpp"

#include <boost/json.hpp>

#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/engine/container_list_reader.hpp"
#include "runner/engine/engine_time.hpp"

namespace plb::runner {
namespace {

namespace json = boost::json;

// Engine answers are small; a reply past this is not a daemon talking.
constexpr std::size_t max_reply_bytes = 4u << 20;

engine_error bad_reply(std::string detail) { return {engine_error::kind::bad_reply, 0, std::move(detail)}; }

// What a parser says when an allocation fails: still a refused reply, never an exception, and
// without its words should even they not fit.
engine_error out_of_memory() noexcept try { return bad_reply("out of memory reading the reply"); } catch (...) {
  return {engine_error::kind::bad_reply, 0, {}};
}

// Every answer goes through here: bounded in size and nesting before Boost.JSON builds anything.
engine_result<json::value> parse_bounded(std::string_view text) {
  if (text.size() > max_reply_bytes) return bad_reply("reply larger than 4 MiB");
  json::error_code ec;
  json::parse_options po;
  po.max_depth = 32;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec, {}, po);
  if (ec) return bad_reply("reply is not valid JSON");
  return v;
}

engine_result<json::object> parse_object(std::string_view text) {
  auto v = parse_bounded(text);
  if (!v) return v.error();
  if (!v->is_object()) return bad_reply("reply is not a JSON object");
  return std::move(v->as_object());
}

const json::string* string_field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v ? v->if_string() : nullptr;
}

// The string field `key`, which the answer must have.
engine_result<std::string> need_string(const json::object& o, std::string_view key) {
  const json::string* s = string_field(o, key);
  if (!s) return bad_reply("field " + std::string(key) + " missing or not a string");
  return std::string(s->data(), s->size());
}

bool optional_bool(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

// Every parser body runs inside this: a failed allocation is a refusal, never an exception.
template <class Parse>
auto guarded(Parse&& parse) noexcept -> decltype(parse()) {
  try {
    return parse();
  } catch (const std::exception&) {
    return out_of_memory();
  }
}

}  // namespace

engine_result<daemon_info> parse_daemon_info(std::string_view text) noexcept {
  return guarded([&]() -> engine_result<daemon_info> {
    auto o = parse_object(text);
    if (!o) return o.error();
    auto id = need_string(*o, "ID");
    if (!id) return id.error();
    auto version = need_string(*o, "ServerVersion");
    if (!version) return version.error();
    auto os_type = need_string(*o, "OSType");
    if (!os_type) return os_type.error();
    daemon_info d;
    d.id = std::move(*id);
    d.server_version = std::move(*version);
    d.os_type = std::move(*os_type);
    if (const auto* s = string_field(*o, "CgroupVersion")) d.cgroup_version.assign(s->data(), s->size());
    if (const auto* s = string_field(*o, "CgroupDriver")) d.cgroup_driver.assign(s->data(), s->size());
    d.memory_limit = optional_bool(*o, "MemoryLimit");
    d.swap_limit = optional_bool(*o, "SwapLimit");
    d.cpu_cfs_quota = optional_bool(*o, "CpuCfsQuota");
    d.pids_limit = optional_bool(*o, "PidsLimit");
    if (const json::value* rts = o->if_contains("Runtimes"); rts && rts->is_object()) {
      for (const auto& [name, entry] : rts->get_object()) {
        if (!entry.is_object()) continue;
        runtime_entry r;
        if (const auto* p = string_field(entry.get_object(), "path")) r.path.assign(p->data(), p->size());
        if (const json::value* a = entry.get_object().if_contains("runtimeArgs"); a && a->is_array()) {
          for (const json::value& arg : a->get_array())
            if (arg.is_string()) r.args.emplace_back(arg.get_string().data(), arg.get_string().size());
        }
        d.runtimes.emplace(std::string(name.data(), name.size()), std::move(r));
      }
    }
    return d;
  });
}

engine_result<image_facts> parse_image_inspect(std::string_view text) noexcept {
  return guarded([&]() -> engine_result<image_facts> {
    auto o = parse_object(text);
    if (!o) return o.error();
    auto id = need_string(*o, "Id");
    if (!id) return id.error();
    image_facts f;
    f.id = std::move(*id);
    // Volumes may be declared in Config (the image's own) or ContainerConfig (the build step's).
    for (std::string_view section : {"Config", "ContainerConfig"}) {
      const json::value* c = o->if_contains(section);
      if (!c || !c->is_object()) continue;
      const json::value* vols = c->get_object().if_contains("Volumes");
      if (vols && vols->is_object() && !vols->get_object().empty()) f.has_volumes = true;
      if (vols && !vols->is_null() && !vols->is_object())
        return bad_reply(std::string(section) + ".Volumes is neither null nor an object");
    }
    return f;
  });
}

engine_result<container_state> parse_container_inspect(std::string_view text) noexcept {
  return guarded([&]() -> engine_result<container_state> {
    auto o = parse_object(text);
    if (!o) return o.error();
    auto id = need_string(*o, "Id");
    if (!id) return id.error();
    const json::value* st = o->if_contains("State");
    if (!st || !st->is_object()) return bad_reply("field State missing or not an object");
    const json::object& s = st->get_object();
    auto status = need_string(s, "Status");
    if (!status) return status.error();
    container_state c;
    c.id = std::move(*id);
    c.status = std::move(*status);
    c.running = optional_bool(s, "Running");
    c.oom_killed = optional_bool(s, "OOMKilled");
    if (const json::value* e = s.if_contains("ExitCode"); e && e->is_int64()) c.exit_code = e->get_int64();
    if (const auto* v = string_field(s, "StartedAt")) c.started_at.assign(v->data(), v->size());
    if (const auto* v = string_field(s, "FinishedAt")) c.finished_at.assign(v->data(), v->size());
    if (const auto* v = string_field(s, "Error")) c.error.assign(v->data(), v->size());
    c.started_ns = parse_engine_time(c.started_at);
    c.finished_ns = parse_engine_time(c.finished_at);
    if (const auto* v = string_field(*o, "Created")) c.created_ns = parse_engine_time({v->data(), v->size()});
    return c;
  });
}

engine_result<container_list> parse_container_list(std::string_view text) noexcept {
  container_list_reader reader;
  reader.feed(text);
  return reader.finish();
}

}  // namespace plb::runner
