// SPDX-License-Identifier: Apache-2.0
#include "batch/batch_records.hpp"

#include <algorithm>
#include <cmath>

#include <boost/json.hpp>

#include "batch/batch_claims.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/provenance.hpp"
#include "support/dir_files.hpp"

namespace plb::batch {
namespace {

namespace json = boost::json;
// The bundle's keys are a bundle run's only: absent from both sides, they agree (a line without a
// bundle, and an older record).
constexpr const char* fingerprint_keys[] = {"model_sha256", "runtime_image", "input_sha256",  "task_type",  "features",
                                            "id_column",    "limits",        "bundle_sha256", "bundle_path"};
// The MAC covers this tag, then the record's bytes before the suffix: a MAC made for another use of
// the key can never pass for a record's.
constexpr std::string_view mac_domain = "plb-sandbox/batch-record/2 mac\n";
constexpr std::string_view mac_open = ",\"mac\":\"";
constexpr std::string_view mac_close = "\"}\n";
constexpr std::size_t mac_suffix_bytes = mac_open.size() + 64 + mac_close.size();

json::value nullable(const std::string& s) { return s.empty() ? json::value(nullptr) : json::value(s); }

bool is_digest(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), sandbox::detail::is_lower_hex);
}

bool is_printable_line(std::string_view s) {
  for (const char c : s)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

// A digest field: "" for null, the digest, or nullopt when it is neither.
std::optional<std::string> digest_field(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  if (v && v->is_null()) return std::string();
  if (v && v->is_string() && is_digest(v->get_string())) return std::string(v->get_string());
  return std::nullopt;
}

// An optional node or worker name: absent, or a name batch_claims.hpp's is_safe_name accepts.
bool origin_field(const json::object& o, const char* key, std::string& out) {
  const auto* v = o.if_contains(key);
  if (!v) return true;
  if (!v->is_string() || !is_safe_name(v->get_string())) return false;
  out = std::string(v->get_string());
  return true;
}

// The record's fields once its MAC verified; false if any is not one this tool writes.
bool read_fields(const json::object& o, stored_record& s) {
  const auto* verdict = o.if_contains("verdict");
  const auto* code = o.if_contains("exit_code");
  const auto* message = o.if_contains("message");
  const auto* request = o.if_contains("request");
  const auto* usage = o.if_contains("usage");
  const auto predictions = digest_field(o, "predictions_sha256");
  const auto provenance = digest_field(o, "provenance_sha256");
  if (!verdict || !verdict->is_string() || !is_verdict(std::string(verdict->get_string()))) return false;
  if (!code || !code->is_int64() || code->get_int64() < 0 || code->get_int64() > 255) return false;
  if (!message || !message->is_string() || !is_printable_line(message->get_string())) return false;
  if (!request || !request->is_object() || !usage || !predictions || !provenance) return false;
  s.outcome.state = std::string(verdict->get_string());
  const bool success = s.outcome.state == sandbox::name(sandbox::verdict::success);
  if (success ? predictions->empty() || provenance->empty() : !predictions->empty() || !provenance->empty())
    return false;
  s.outcome.usage = usage_from_json(usage);
  if (!usage->is_null() && !s.outcome.usage) return false;
  s.outcome.exit_code = static_cast<int>(code->get_int64());
  s.outcome.message = std::string(message->get_string());
  s.outcome.predictions_sha256 = *predictions;
  s.provenance_sha256 = *provenance;
  s.fingerprint = request->get_object();
  if (const auto* b = o.if_contains("bundle_bytes")) {
    if (!b->is_uint64() && !(b->is_int64() && b->get_int64() >= 0)) return false;
    s.outcome.bundle_bytes = b->to_number<std::uint64_t>();
  }
  return origin_field(o, "node", s.outcome.node) && origin_field(o, "worker", s.outcome.worker);
}

problem refused(std::string why) { return problem::says(std::move(why)); }

}  // namespace

std::optional<sandbox::sandbox_usage> usage_from_json(const json::value* v) {
  if (v == nullptr || !v->is_object()) return std::nullopt;
  const auto& o = v->get_object();
  bool ok = true;
  const auto seconds = [&](const char* key) {
    const auto* x = o.if_contains(key);
    const double d = x && x->is_number() ? x->to_number<double>() : 0.0;
    ok &= (!x || x->is_number()) && std::isfinite(d) && d >= 0;
    return ok ? d : 0.0;
  };
  const auto count = [&](const char* key) -> std::uint64_t {
    const auto* x = o.if_contains(key);
    if (!x) return 0;
    if (x->is_uint64()) return x->get_uint64();
    ok &= x->is_int64() && x->get_int64() >= 0;
    return ok ? static_cast<std::uint64_t>(x->get_int64()) : 0;
  };
  sandbox::sandbox_usage u;
  u.startup_seconds = seconds("startup_seconds");
  u.wall_seconds = seconds("wall_seconds");
  u.cpu_seconds = seconds("cpu_seconds");
  u.memory_peak_bytes = count("memory_peak_bytes");
  u.output_bytes = count("output_bytes");
  u.host_tasks_peak = count("host_tasks_peak");
  if (!ok) return std::nullopt;
  return u;
}

std::string record_path(const std::string& dir, const std::string& id) { return dir + "/" + record_name(id); }

json::object request_fingerprint(const batch_item& item, const std::string& data_sha256) {
  // Rendered by the provenance's own to_json, so a line and its provenance compare field for
  // field; the request was checked by the plan, so both parses succeed.
  const auto& r = item.request;
  sandbox::provenance_record rec;
  rec.model_sha256 = sandbox::parse_sha256_hex(r.model_sha256).digest;
  rec.runtime_image = sandbox::parse_image_id(r.runtime_image).id;
  rec.limits = r.limits;
  rec.task = r.task;
  rec.features = r.features;
  rec.id_column = r.id_column;
  if (!r.bundle_path.empty()) {  // as the run's provenance records it: the reviewed digest, the absolute path
    rec.bundle_sha256 = sandbox::parse_sha256_hex(r.bundle_sha256).digest;
    rec.bundle_path = r.bundle_path;
  }
  json::object f = fingerprint_of_provenance(sandbox::to_json(rec));
  f["input_sha256"] = data_sha256;  // "" when the data cannot be read: such a line fails when it runs
  return f;
}

json::object fingerprint_of_provenance(const json::object& provenance) {
  json::object f;
  for (const char* key : fingerprint_keys)
    if (const auto* v = provenance.if_contains(key)) f[key] = *v;
  return f;
}

std::string first_difference(const json::object& a, const json::object& b) {
  for (const char* key : fingerprint_keys) {
    const auto* x = a.if_contains(key);
    const auto* y = b.if_contains(key);
    if ((x && y && *x == *y) || (!x && !y)) continue;
    if (x && y && x->is_object() && y->is_object())  // name the limit: "limits.wall_seconds differs"
      for (const auto& [sub, value] : x->as_object())
        if (const auto* other = y->as_object().if_contains(sub); !other || *other != value)
          return std::string(key) + "." + std::string(sub);
    return key;
  }
  return {};
}

std::string render_record(const batch_item& item, const line_outcome& o, const json::object& fingerprint,
                          const std::string& provenance_sha256, const host_key& key) {
  const json::object record{{"schema", record_schema},
                            {"id", item.id},
                            {"line", item.line},
                            {"verdict", o.state},
                            {"exit_code", o.exit_code},
                            {"message", o.message},
                            {"usage", o.usage ? json::value(sandbox::to_json(*o.usage)) : json::value(nullptr)},
                            {"predictions_sha256", nullable(o.predictions_sha256)},
                            {"provenance_sha256", nullable(provenance_sha256)},
                            {"request", fingerprint}};
  json::object with_origin = record;
  if (!o.node.empty()) with_origin["node"] = o.node;  // where it ran: the backend's identity
  if (!o.worker.empty()) with_origin["worker"] = o.worker;
  if (o.bundle_bytes) with_origin["bundle_bytes"] = *o.bundle_bytes;  // a bundle run's, kept for resume
  std::string text = json::serialize(with_origin);
  text.pop_back();  // the closing brace: the MAC is the last field
  return seal_record(std::move(text), key);
}

std::string seal_record(std::string body, const host_key& key) {
  const std::string mac = hex_of(key.mac(std::string(mac_domain) + body));
  return body.append(mac_open).append(mac).append(mac_close);
}

void write_record(const output_dir& dir, const batch_item& item, const line_outcome& outcome,
                  const json::object& fingerprint, const std::string& provenance_sha256) {
  replace_file_at(dir.fd.get(), dir.path, record_name(item.id),
                  render_record(item, outcome, fingerprint, provenance_sha256, dir.key));
}

std::optional<json::object> parse_json_object(std::string_view text) {
  if (text.size() > max_record_bytes) return std::nullopt;
  json::error_code ec;
  json::parse_options po;
  po.max_depth = 8;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec, {}, po);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

result<stored_record> parse_record(std::string_view text, const std::string& id, const host_key& key) {
  const auto o = parse_json_object(text);
  const auto* schema = o ? o->if_contains("schema") : nullptr;
  if (schema && schema->is_string() && schema->get_string() == unsigned_record_schema)
    return refused("written by an older plb-sandbox, without a MAC: its verdict and outputs are not trusted");
  if (!schema || !schema->is_string() || schema->get_string() != record_schema) return refused("not a batch record");
  const std::size_t n = text.size();
  const std::string_view prefix = text.substr(0, n >= mac_suffix_bytes ? n - mac_suffix_bytes : 0);
  const std::string_view tail = text.substr(prefix.size());
  if (tail.size() != mac_suffix_bytes || !tail.starts_with(mac_open) || !tail.ends_with(mac_close) ||
      !key.verifies(std::string(mac_domain).append(prefix), tail.substr(mac_open.size(), 64)))
    return refused(std::string("its MAC does not verify with this host's key ") + host_key_path +
                   ": no run of this tool with this key wrote it (a cluster's nodes must share the key file)");
  const auto* named = o->if_contains("id");
  if (!named || !named->is_string() || named->get_string() != id) return refused("a record of another line");
  stored_record r;
  if (!read_fields(*o, r)) return refused("a signed record with fields this tool does not write");
  return r;
}

result<std::optional<stored_record>> read_record(const output_dir& dir, const std::string& id) {
  const std::string name = record_name(id);
  if (probe_entry(dir.fd.get(), name, dir.owner).kind == entry_kind::absent) return std::nullopt;
  const auto text = read_own_file(dir.fd.get(), name, dir.owner, max_record_bytes);
  if (!text) return refused(text.error().what);
  auto r = parse_record(*text, id, dir.key);
  if (!r) return r.error();
  return std::optional<stored_record>(std::move(*r));
}

}  // namespace plb::batch
