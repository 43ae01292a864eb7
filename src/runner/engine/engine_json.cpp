// SPDX-License-Identifier: Apache-2.0
#include "runner/engine/engine_json.hpp"

#include <boost/json.hpp>

#include "plb/sandbox/sandbox_policy.hpp"
#include "runner/engine/engine_time.hpp"
#include "runner/engine/container_list_reader.hpp"

namespace plb::runner {
namespace {

namespace json = boost::json;

// Engine answers are small; a reply past this is not a daemon talking.
constexpr std::size_t max_reply_bytes = 4u << 20;

// Every answer goes through here: bounded in size and nesting before Boost.JSON builds anything.
std::optional<json::value> parse_bounded(std::string_view text, std::string& problem) {
  if (text.size() > max_reply_bytes) {
    problem = "reply larger than 4 MiB";
    return std::nullopt;
  }
  json::error_code ec;
  json::parse_options po;
  po.max_depth = 32;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec, {}, po);
  if (ec) {
    problem = "reply is not valid JSON";
    return std::nullopt;
  }
  return v;
}

std::optional<json::object> parse_object(std::string_view text, std::string& problem) {
  auto v = parse_bounded(text, problem);
  if (!v) return std::nullopt;
  if (!v->is_object()) {
    problem = "reply is not a JSON object";
    return std::nullopt;
  }
  return std::move(v->as_object());
}

const json::string* string_field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v ? v->if_string() : nullptr;
}

bool need_string(const json::object& o, std::string_view key, std::string& out, std::string& problem) {
  const json::string* s = string_field(o, key);
  if (!s) {
    problem = "field " + std::string(key) + " missing or not a string";
    return false;
  }
  out.assign(s->data(), s->size());
  return true;
}

bool optional_bool(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

// Every parser body runs inside this: a failed allocation is a refusal, never an exception.
template <class Parse>
auto guarded(std::string& problem, Parse&& parse) noexcept -> decltype(parse()) {
  try {
    return parse();
  } catch (const std::exception&) {
    problem = "out of memory reading the reply";
    return std::nullopt;
  }
}

}  // namespace

namespace {

std::optional<daemon_info> parse_daemon_info_or(std::string_view text, std::string& problem) noexcept {
  return guarded(problem, [&]() -> std::optional<daemon_info> {
    auto o = parse_object(text, problem);
    if (!o) return std::nullopt;
    daemon_info d;
    if (!need_string(*o, "ID", d.id, problem) || !need_string(*o, "ServerVersion", d.server_version, problem) ||
        !need_string(*o, "OSType", d.os_type, problem))
      return std::nullopt;
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

std::optional<image_facts> parse_image_inspect_or(std::string_view text, std::string& problem) noexcept {
  return guarded(problem, [&]() -> std::optional<image_facts> {
    auto o = parse_object(text, problem);
    if (!o) return std::nullopt;
    image_facts f;
    if (!need_string(*o, "Id", f.id, problem)) return std::nullopt;
    // Volumes may be declared in Config (the image's own) or ContainerConfig (the build step's).
    for (std::string_view section : {"Config", "ContainerConfig"}) {
      const json::value* c = o->if_contains(section);
      if (!c || !c->is_object()) continue;
      const json::value* vols = c->get_object().if_contains("Volumes");
      if (vols && vols->is_object() && !vols->get_object().empty()) f.has_volumes = true;
      if (vols && !vols->is_null() && !vols->is_object()) {
        problem = std::string(section) + ".Volumes is neither null nor an object";
        return std::nullopt;
      }
    }
    return f;
  });
}

std::optional<container_state> parse_container_inspect_or(std::string_view text, std::string& problem) noexcept {
  return guarded(problem, [&]() -> std::optional<container_state> {
    auto o = parse_object(text, problem);
    if (!o) return std::nullopt;
    container_state c;
    if (!need_string(*o, "Id", c.id, problem)) return std::nullopt;
    const json::value* st = o->if_contains("State");
    if (!st || !st->is_object()) {
      problem = "field State missing or not an object";
      return std::nullopt;
    }
    const json::object& s = st->get_object();
    if (!need_string(s, "Status", c.status, problem)) return std::nullopt;
    c.running = optional_bool(s, "Running");
    c.oom_killed = optional_bool(s, "OOMKilled");
    if (const json::value* e = s.if_contains("ExitCode"); e && e->is_int64()) c.exit_code = e->get_int64();
    if (const auto* v = string_field(s, "StartedAt")) c.started_at.assign(v->data(), v->size());
    if (const auto* v = string_field(s, "FinishedAt")) c.finished_at.assign(v->data(), v->size());
    if (const auto* v = string_field(s, "Error")) c.error.assign(v->data(), v->size());
    c.started_ns = parse_engine_time(c.started_at);
    c.finished_ns = parse_engine_time(c.finished_at);
    return c;
  });
}

// The public form: the old-style body's refusal as the engine layer's error.
template <class T>
engine_result<T> as_result(std::optional<T>&& parsed, const std::string& problem) noexcept try {
  if (!parsed) return engine_error{engine_error::kind::bad_reply, 0, problem};
  return std::move(*parsed);
} catch (...) {  // the problem's copy failed to allocate: still a refused reply, not a lost daemon
  return engine_error{engine_error::kind::bad_reply, 0, {}};
}

template <class Parse>
auto parsed(Parse parse, std::string_view text) noexcept {
  std::string problem;
  auto value = parse(text, problem);
  return as_result(std::move(value), problem);
}

}  // namespace

engine_result<daemon_info> parse_daemon_info(std::string_view text) noexcept {
  return parsed(parse_daemon_info_or, text);
}
engine_result<image_facts> parse_image_inspect(std::string_view text) noexcept {
  return parsed(parse_image_inspect_or, text);
}
engine_result<container_state> parse_container_inspect(std::string_view text) noexcept {
  return parsed(parse_container_inspect_or, text);
}
engine_result<container_list> parse_container_list(std::string_view text) noexcept {
  container_list_reader reader;
  reader.feed(text);
  return reader.finish();
}

}  // namespace plb::runner
