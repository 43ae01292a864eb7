// SPDX-License-Identifier: Apache-2.0
// Reading a `.sandbox.json` back: the strict inverse of provenance.hpp's render_json, for
// `plb-sandbox verify` and the batch report. The file is local and was written by the tool, but it
// can have been edited or forged, so it is read like any hostile input: at most 1 MiB, one JSON
// object, no duplicate key at any depth, no key this tool does not write, every value of its
// type and within its bounds (digests of 64 lowercase hex digits, an image ID, the task type and
// verdict of their enums, every limit within limits.hpp's bounds, finite non-negative figures,
// printable one-line strings). The first problem is returned as a typed error naming the field.
// Reading is not trusting: whether the tool wrote these bytes is the seal's question (its MAC, under
// the host's key, checked by the runner before `verify` parses anything).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parse.hpp>

#include "plb/sandbox/provenance.hpp"

namespace plb::sandbox {

inline constexpr std::size_t max_provenance_bytes = std::size_t{1} << 20;
inline constexpr std::string_view provenance_schema = "plb-sandbox/provenance/2";

enum class provenance_error : std::uint8_t {
  ok,
  too_large,
  not_json,
  duplicate_key,
  not_an_object,
  wrong_schema,
  unknown_field,
  missing_field,
  wrong_type,
  bad_value,
};

constexpr std::string_view message(provenance_error e) noexcept {
  switch (e) {
    case provenance_error::ok: return "ok";
    case provenance_error::too_large: return "larger than 1 MiB";
    case provenance_error::not_json: return "not one JSON document";
    case provenance_error::duplicate_key: return "a key appears twice";
    case provenance_error::not_an_object: return "not a JSON object";
    case provenance_error::wrong_schema: return "not a plb-sandbox/provenance/2 record";
    case provenance_error::unknown_field: return "a field this tool does not write";
    case provenance_error::missing_field: return "a required field is missing";
    case provenance_error::wrong_type: return "a value of the wrong type";
    case provenance_error::bad_value: return "a value this tool does not write";
  }
  return "unknown error";
}

struct provenance_read {
  provenance_record record;
  provenance_error error = provenance_error::ok;
  std::string field;       // "limits.wall_seconds", "runtime.release", ...; "" for the document
  std::size_t offset = 0;  // the byte for not_json and duplicate_key
  explicit operator bool() const noexcept { return error == provenance_error::ok; }
};

namespace detail {

// Finds a duplicated key at any depth; everything else is left to the DOM parser.
class duplicate_key_finder {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);
  std::vector<std::vector<std::string>> open;
  std::string key;
  bool duplicate = false;

  bool on_document_begin(boost::json::error_code&) { return true; }
  bool on_document_end(boost::json::error_code&) { return true; }
  bool on_object_begin(boost::json::error_code&) {
    open.emplace_back();
    return true;
  }
  bool on_object_end(std::size_t, boost::json::error_code&) {
    open.pop_back();
    return true;
  }
  bool on_array_begin(boost::json::error_code&) { return true; }
  bool on_array_end(std::size_t, boost::json::error_code&) { return true; }
  bool on_key_part(boost::json::string_view s, std::size_t, boost::json::error_code&) {
    key.append(s.data(), s.size());
    return true;
  }
  bool on_key(boost::json::string_view s, std::size_t, boost::json::error_code& ec) {
    key.append(s.data(), s.size());
    for (const std::string& k : open.back()) duplicate |= k == key;
    open.back().push_back(std::move(key));
    key.clear();
    if (duplicate) ec = boost::json::error::syntax;  // stop here: the offset names the key
    return !duplicate;
  }
  bool on_string_part(boost::json::string_view, std::size_t, boost::json::error_code&) { return true; }
  bool on_string(boost::json::string_view, std::size_t, boost::json::error_code&) { return true; }
  bool on_number_part(boost::json::string_view, boost::json::error_code&) { return true; }
  bool on_int64(std::int64_t, boost::json::string_view, boost::json::error_code&) { return true; }
  bool on_uint64(std::uint64_t, boost::json::string_view, boost::json::error_code&) { return true; }
  bool on_double(double, boost::json::string_view, boost::json::error_code&) { return true; }
  bool on_bool(bool, boost::json::error_code&) { return true; }
  bool on_null(boost::json::error_code&) { return true; }
  bool on_comment_part(boost::json::string_view, boost::json::error_code&) { return true; }
  bool on_comment(boost::json::string_view, boost::json::error_code&) { return true; }
};

// Reads one object's fields; the first problem wins and names its path.
class provenance_fields {
 public:
  provenance_fields(provenance_read& out, std::string prefix) : out_(out), prefix_(std::move(prefix)) {}

  bool failed() const noexcept { return out_.error != provenance_error::ok; }
  bool fail(provenance_error e, std::string_view key) {
    if (failed()) return false;
    out_.error = e;
    out_.field = prefix_;
    out_.field.append(key.empty() ? std::string_view("\"\"") : key);  // an empty key is named too
    return false;
  }
  // Every key of `o` must be one of `allowed`.
  bool only(const boost::json::object& o, std::initializer_list<std::string_view> allowed) {
    for (const auto& kv : o) {
      bool known = false;
      for (const std::string_view a : allowed) known |= kv.key() == a;
      if (!known) return fail(provenance_error::unknown_field, std::string_view(kv.key().data(), kv.key().size()));
    }
    return true;
  }
  const boost::json::value* need(const boost::json::object& o, std::string_view key) {
    const auto* v = o.if_contains(boost::json::string_view(key.data(), key.size()));
    if (!v) fail(provenance_error::missing_field, key);
    return v;
  }
  // A printable one-line string (empty allowed unless `non_empty`); null too with `nullable`.
  bool text(const boost::json::object& o, std::string_view key, std::string& into, bool nullable = false) {
    const auto* v = need(o, key);
    if (!v) return false;
    if (nullable && v->is_null()) return true;
    if (!v->is_string()) return fail(provenance_error::wrong_type, key);
    for (const char c : v->get_string())
      if (c < 0x20 || c > 0x7e) return fail(provenance_error::bad_value, key);
    into.assign(v->get_string().data(), v->get_string().size());
    return true;
  }
  bool digest(const boost::json::object& o, std::string_view key, sha256_digest& into) {
    std::string s;
    if (!text(o, key, s)) return false;
    const auto d = parse_sha256_hex(s);
    bool lower = true;
    for (const char c : s) lower &= !(c >= 'A' && c <= 'F');
    if (!d || !lower) return fail(provenance_error::bad_value, key);
    into = d.digest;
    return true;
  }
  bool count(const boost::json::object& o, std::string_view key, std::uint64_t& into) {
    const auto* v = need(o, key);
    if (!v) return false;
    if (v->is_uint64())
      into = v->get_uint64();
    else if (v->is_int64() && v->get_int64() >= 0)
      into = static_cast<std::uint64_t>(v->get_int64());
    else
      return fail(v->is_number() ? provenance_error::bad_value : provenance_error::wrong_type, key);
    return true;
  }
  bool seconds(const boost::json::object& o, std::string_view key, double& into) {
    const auto* v = need(o, key);
    if (!v) return false;
    if (!v->is_number()) return fail(provenance_error::wrong_type, key);
    into = v->to_number<double>();
    if (!std::isfinite(into) || into < 0) return fail(provenance_error::bad_value, key);
    return true;
  }
  const boost::json::object* object(const boost::json::object& o, std::string_view key) {
    const auto* v = need(o, key);
    if (v && !v->is_object()) fail(provenance_error::wrong_type, key);
    return v && v->is_object() ? &v->get_object() : nullptr;
  }

 private:
  provenance_read& out_;
  std::string prefix_;
};

inline bool read_runtime(const boost::json::object& o, provenance_read& out) {
  provenance_fields f(out, "runtime.");
  auto& r = out.record;
  return f.only(o, {"name", "version", "release", "platform"}) && f.text(o, "name", r.runtime_name) &&
         f.text(o, "version", r.runtime_version) && f.text(o, "release", r.runtime_release) &&
         f.text(o, "platform", r.runtime_platform);
}

inline bool read_limits(const boost::json::object& o, provenance_read& out) {
  provenance_fields f(out, "limits.");
  for (const auto& kv : o) {
    bool known = kv.key() == "pids_limit";
    for (const limit_info& i : limit_table) known |= kv.key() == i.name;
    if (!known) return f.fail(provenance_error::unknown_field, std::string_view(kv.key().data(), kv.key().size()));
  }
  for (const limit_info& i : limit_table) {
    std::uint64_t v = 0;
    // A provenance sealed before the bundle's bounds existed has none of them: they bound nothing
    // in a run without a bundle, so an absent one reads as its default.
    if (is_bundle_limit(i.field) && !o.contains(i.name)) {
      out.record.limits.*(i.member) = SandboxLimits{}.*(i.member);
      continue;
    }
    if (!f.count(o, i.name, v)) return false;
    if (v < i.min || v > i.max) return f.fail(provenance_error::bad_value, i.name);
    out.record.limits.*(i.member) = v;
  }
  std::uint64_t pids = 0;
  if (!f.count(o, "pids_limit", pids)) return false;
  return pids == pids_limit(out.record.limits) || f.fail(provenance_error::bad_value, "pids_limit");
}

inline bool read_usage(const boost::json::object& o, provenance_read& out) {
  provenance_fields f(out, "usage.");
  auto& u = out.record.usage;
  return f.only(o, {"startup_seconds", "wall_seconds", "cpu_seconds", "memory_peak_bytes", "output_bytes",
                    "host_tasks_peak"}) &&
         f.seconds(o, "startup_seconds", u.startup_seconds) && f.seconds(o, "wall_seconds", u.wall_seconds) &&
         f.seconds(o, "cpu_seconds", u.cpu_seconds) && f.count(o, "memory_peak_bytes", u.memory_peak_bytes) &&
         f.count(o, "output_bytes", u.output_bytes) && f.count(o, "host_tasks_peak", u.host_tasks_peak);
}

inline bool read_enums(const boost::json::object& o, provenance_fields& f, provenance_record& r) {
  std::string text;
  if (!f.text(o, "task_type", text)) return false;
  const auto t = parse_task_type(text);
  if (!t) return f.fail(provenance_error::bad_value, "task_type");
  r.task = *t;
  if (!f.text(o, "verdict", text)) return false;
  for (const auto& row : verdict_table)
    if (row.name == text) r.outcome = row.v;
  if (text != name(r.outcome)) return f.fail(provenance_error::bad_value, "verdict");
  if (!f.text(o, "runtime_image", text, true)) return false;
  if (o.at("runtime_image").is_null()) return true;
  r.runtime_image = parse_image_id(text).id;
  return r.runtime_image || f.fail(provenance_error::bad_value, "runtime_image");
}

inline bool read_features(const boost::json::object& o, provenance_fields& f, provenance_record& r) {
  const auto* v = f.need(o, "features");
  if (!v) return false;
  if (!v->is_array()) return f.fail(provenance_error::wrong_type, "features");
  for (const auto& e : v->get_array()) {
    // A feature is a CSV header the operator chose: any UTF-8 but never empty.
    if (!e.is_string()) return f.fail(provenance_error::wrong_type, "features");
    if (e.get_string().empty()) return f.fail(provenance_error::bad_value, "features");
    r.features.emplace_back(e.get_string().data(), e.get_string().size());
  }
  const auto* id = f.need(o, "id_column");
  if (!id) return false;
  if (id->is_null()) return true;
  if (!id->is_string()) return f.fail(provenance_error::wrong_type, "id_column");
  if (id->get_string().empty()) return f.fail(provenance_error::bad_value, "id_column");
  r.id_column.assign(id->get_string().data(), id->get_string().size());
  return true;
}

// The bundle's four fields came with bundles: all four, or none (a run without a bundle, or an
// older tool's record: no bundle).
inline bool read_bundle(const boost::json::object& o, provenance_fields& f, provenance_record& r) {
  if (!o.contains("bundle_sha256")) {
    for (const char* key : {"bundle_bytes", "bundle_files", "bundle_path"})
      if (o.contains(key)) return f.fail(provenance_error::missing_field, "bundle_sha256");
    return true;
  }
  sha256_digest digest;
  if (!f.digest(o, "bundle_sha256", digest) || !f.count(o, "bundle_bytes", r.bundle_bytes) ||
      !f.count(o, "bundle_files", r.bundle_files) || !f.text(o, "bundle_path", r.bundle_path))
    return false;
  r.bundle_sha256 = digest;
  return true;
}

inline bool read_top(const boost::json::object& o, provenance_read& out) {
  provenance_fields f(out, "");
  auto& r = out.record;
  std::string schema, privacy;
  std::uint64_t rows = 0;
  if (!f.only(o, {"schema",      "privacy",         "tool_version",       "model_sha256", "runtime_image",
                  "runtime",     "limits",          "task_type",          "features",     "id_column",
                  "rows",        "input_sha256",    "predictions_sha256", "started_at",   "usage",
                  "verdict",     "model_path",      "data_path",          "cpuset",       "ran_on",
                  "input_bytes", "predictions_path", "bundle_sha256", "bundle_bytes", "bundle_files",
                  "bundle_path"}) ||
      !f.text(o, "schema", schema))
    return false;
  if (schema != provenance_schema) return f.fail(provenance_error::wrong_schema, "schema");
  if (!f.text(o, "privacy", privacy) || !f.text(o, "tool_version", r.tool_version) ||
      !f.digest(o, "model_sha256", r.model_sha256) || !read_enums(o, f, r) || !read_features(o, f, r) ||
      !f.count(o, "rows", rows) || !f.digest(o, "input_sha256", r.input_sha256) ||
      !f.digest(o, "predictions_sha256", r.predictions_sha256) || !f.text(o, "started_at", r.started_at))
    return false;
  r.rows = static_cast<std::size_t>(rows);
  // The paths came later (verify needs them); a record without them still reads.
  for (const auto& [key, into] : {std::pair{"model_path", &r.model_path}, std::pair{"data_path", &r.data_path},
                                  std::pair{"predictions_path", &r.predictions_path}})
    if (o.contains(key) && !f.text(o, key, *into)) return false;
  if (o.contains("input_bytes") && !f.count(o, "input_bytes", r.input_bytes)) return false;
  // Where it ran, likewise later: the CPUs it was pinned to, and a batch line's node and worker.
  if (o.contains("cpuset") && !f.text(o, "cpuset", r.cpuset, true)) return false;
  if (o.contains("ran_on")) {
    const auto* ran = f.object(o, "ran_on");
    if (!ran || !f.only(*ran, {"node", "worker"}) || !f.text(*ran, "node", r.node) || !f.text(*ran, "worker", r.worker))
      return false;
  }
  if (!read_bundle(o, f, r)) return false;
  const auto* runtime = f.object(o, "runtime");
  const auto* limits = runtime ? f.object(o, "limits") : nullptr;
  const auto* usage = limits ? f.object(o, "usage") : nullptr;
  return usage && read_runtime(*runtime, out) && read_limits(*limits, out) && read_usage(*usage, out);
}

}  // namespace detail

// A provenance file split at its seal (provenance.hpp), by its bytes alone: nothing is parsed.
// The runner checks `mac_hex` against `body` under the host's key; this header holds no key.
enum class seal_error : std::uint8_t {
  ok,
  too_large,
  unsigned_schema,  // plb-sandbox/provenance/1: written before provenances were sealed
  wrong_schema,     // does not begin as a plb-sandbox/provenance/2 file does
  no_seal,          // begins as one, but does not end in `,"mac":"<64 lowercase hex>"}\n`
};

constexpr std::string_view message(seal_error e) noexcept {
  switch (e) {
    case seal_error::ok: return "ok";
    case seal_error::too_large: return "larger than 1 MiB";
    case seal_error::unsigned_schema:
      return "a plb-sandbox/provenance/1 record, written by an older plb-sandbox without a MAC";
    case seal_error::wrong_schema: return "not a plb-sandbox/provenance/2 record";
    case seal_error::no_seal: return "it carries no MAC (its last field must be \"mac\")";
  }
  return "unknown error";
}

// How every file of either schema begins: render_json writes "schema" first, with no space.
inline constexpr std::string_view unsigned_provenance_start = "{\"schema\":\"plb-sandbox/provenance/1\"";
inline constexpr std::string_view provenance_start = "{\"schema\":\"plb-sandbox/provenance/2\",";

struct provenance_seal {
  std::string_view body;     // every byte before `,"mac"`
  std::string_view mac_hex;  // 64 lowercase hex digits
  seal_error error = seal_error::ok;
  explicit operator bool() const noexcept { return error == seal_error::ok; }
};

constexpr provenance_seal split_provenance_seal(std::string_view text) noexcept {
  provenance_seal s;
  if (text.size() > max_provenance_bytes) {
    s.error = seal_error::too_large;
  } else if (text.starts_with(unsigned_provenance_start)) {
    s.error = seal_error::unsigned_schema;
  } else if (!text.starts_with(provenance_start)) {
    s.error = seal_error::wrong_schema;
  } else if (text.size() < provenance_start.size() + provenance_seal_bytes) {
    s.error = seal_error::no_seal;
  } else {
    const std::string_view tail = text.substr(text.size() - provenance_seal_bytes);
    const std::string_view mac = tail.substr(provenance_mac_open.size(), provenance_mac_hex_digits);
    bool hex = tail.starts_with(provenance_mac_open) && tail.ends_with(provenance_mac_close);
    for (const char c : mac) hex &= (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (!hex) {
      s.error = seal_error::no_seal;
    } else {
      s.body = text.substr(0, text.size() - provenance_seal_bytes);
      s.mac_hex = mac;
    }
  }
  return s;
}

// Reads the record of a sealed file (its seal is set aside, unchecked: see split_provenance_seal)
// or of render_json's unsealed document. Never throws: an allocation failure reads as not_json.
inline provenance_read parse_provenance(std::string_view text) noexcept {
  provenance_read out;
  if (text.size() > max_provenance_bytes) {
    out.error = provenance_error::too_large;
    return out;
  }
  try {
    std::string unsealed;
    if (const provenance_seal seal = split_provenance_seal(text)) {
      unsealed.reserve(seal.body.size() + 2);
      unsealed.append(seal.body).append("}\n");  // exactly render_json's document
      text = unsealed;
    }
    boost::json::basic_parser<detail::duplicate_key_finder> keys{boost::json::parse_options{}};
    boost::json::error_code ec;
    const std::size_t used = keys.write_some(false, text.data(), text.size(), ec);
    if (ec || used != text.size()) {
      out.error = keys.handler().duplicate ? provenance_error::duplicate_key : provenance_error::not_json;
      out.offset = used;
      return out;
    }
    boost::json::parse_options po;
    po.max_depth = 8;
    const boost::json::value v = boost::json::parse(boost::json::string_view(text.data(), text.size()), ec, {}, po);
    if (ec)
      out.error = provenance_error::not_json;
    else if (!v.is_object())
      out.error = provenance_error::not_an_object;
    else
      detail::read_top(v.get_object(), out);
  } catch (...) {
    out = provenance_read{};
    out.error = provenance_error::not_json;
  }
  return out;
}

}  // namespace plb::sandbox
