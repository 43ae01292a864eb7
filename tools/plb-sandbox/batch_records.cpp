#include "batch_records.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <boost/json.hpp>

#include "failure.hpp"
#include "file_io.hpp"
#include "one_line.hpp"
#include "output_files.hpp"
#include "plb/sandbox/provenance.hpp"

namespace plb::tool {
namespace {

namespace json = boost::json;
constexpr std::size_t max_record_bytes = std::size_t{64} * 1024;
constexpr const char* record_schema = "plb-sandbox/batch-record/1";
constexpr const char* fingerprint_keys[] = {"model_sha256", "runtime_image", "input_sha256", "task_type",
                                            "features",     "id_column",     "limits"};

double rounded(double seconds) { return std::round(seconds * 1000) / 1000; }

json::value usage_json(const line_outcome& o) {
  return o.usage ? json::value(sandbox::to_json(*o.usage)) : json::value(nullptr);
}

json::value nullable(const std::string& s) { return s.empty() ? json::value(nullptr) : json::value(s); }

std::string string_at(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::string number_text(double v) {
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.3f", v);
  return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
}

}  // namespace

std::optional<sandbox::sandbox_usage> usage_from_json(const json::value* v) {
  if (v == nullptr || !v->is_object()) return std::nullopt;
  const auto& o = v->as_object();
  const auto number = [&](const char* key) {
    const auto* x = o.if_contains(key);
    return x && x->is_number() ? x->to_number<double>() : 0.0;
  };
  sandbox::sandbox_usage u;
  u.wall_seconds = number("wall_seconds");
  u.cpu_seconds = number("cpu_seconds");
  u.memory_peak_bytes = static_cast<std::uint64_t>(number("memory_peak_bytes"));
  u.output_bytes = static_cast<std::uint64_t>(number("output_bytes"));
  u.host_tasks_peak = static_cast<std::uint64_t>(number("host_tasks_peak"));
  return u;
}

std::string record_path(const std::string& dir, const std::string& id) { return dir + "/" + id + ".result.json"; }

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
    if (x && y && *x == *y) continue;
    if (x && y && x->is_object() && y->is_object())  // name the limit: "limits.wall_seconds differs"
      for (const auto& [sub, value] : x->as_object())
        if (const auto* other = y->as_object().if_contains(sub); !other || *other != value)
          return std::string(key) + "." + std::string(sub);
    return key;
  }
  return {};
}

void write_record(const std::string& dir, const batch_item& item, const line_outcome& o,
                  const json::object& fingerprint) {
  const json::object record{{"schema", record_schema},  {"id", item.id},
                            {"line", item.line},        {"verdict", o.state},
                            {"exit_code", o.exit_code}, {"message", o.message},
                            {"usage", usage_json(o)},   {"predictions_sha256", nullable(o.predictions_sha256)},
                            {"request", fingerprint}};
  replace_file(dir, item.id + ".result.json", json::serialize(record) + "\n");
}

std::optional<json::object> read_json_object(const std::string& path) {
  const opened_file file = open_regular_file(path);
  if (!file) return std::nullopt;
  const read_result r = read_up_to(file.fd.get(), max_record_bytes);
  if (!r) return std::nullopt;
  json::error_code ec;
  json::parse_options po;
  po.max_depth = 8;
  json::value v = json::parse(json::string_view(r.data.data(), r.data.size()), ec, {}, po);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

std::optional<stored_record> read_record(const std::string& dir, const std::string& id) {
  const std::string path = record_path(dir, id);
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) return std::nullopt;
  const auto o = read_json_object(path);
  const auto* request = o ? o->if_contains("request") : nullptr;
  const auto* code = o ? o->if_contains("exit_code") : nullptr;
  if (!o || string_at(*o, "schema") != record_schema || string_at(*o, "id") != id || !request ||
      !request->is_object() || !code || !code->is_int64() || !is_verdict(string_at(*o, "verdict")))
    fail(sandbox::verdict::input_refused,
         path + ": not a batch record of this line; move it away to run the line again");
  stored_record s;
  s.outcome.state = string_at(*o, "verdict");
  s.outcome.exit_code = static_cast<int>(code->as_int64());
  s.outcome.message = one_line(string_at(*o, "message"));
  s.outcome.usage = usage_from_json(o->if_contains("usage"));
  s.outcome.predictions_sha256 = string_at(*o, "predictions_sha256");
  s.fingerprint = request->as_object();
  return s;
}

std::string render_summary_csv(const std::vector<batch_item>& items, const std::vector<line_outcome>& outcomes) {
  std::string out = "id,line,verdict,exit_code,message,wall_seconds,cpu_seconds,memory_peak_bytes,predictions_sha256\n";
  for (std::size_t i = 0; i < items.size(); ++i) {
    const line_outcome& o = outcomes[i];
    out += items[i].id + "," + std::to_string(items[i].line) + "," + o.state + ",";
    out += o.exit_code >= 0 ? std::to_string(o.exit_code) : std::string();
    out += ",";
    append_csv_field(out, o.message);
    out += ",";
    if (o.usage)
      out += number_text(o.usage->wall_seconds) + "," + number_text(o.usage->cpu_seconds) + "," +
             std::to_string(o.usage->memory_peak_bytes);
    else
      out += ",,";
    out += "," + o.predictions_sha256 + "\n";
  }
  return out;
}

std::map<std::string, std::size_t> count_states(const std::vector<line_outcome>& outcomes) {
  std::map<std::string, std::size_t> counts;
  for (const auto& o : outcomes) ++counts[o.state];
  return counts;
}

std::string render_summary_json(const summary_header& h, const std::vector<batch_item>& items,
                                const std::vector<line_outcome>& outcomes) {
  json::array rows;
  bool complete = true;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const line_outcome& o = outcomes[i];
    complete &= is_verdict(o.state);
    json::value wall = nullptr, cpu = nullptr, peak = nullptr;
    if (o.usage) {
      wall = rounded(o.usage->wall_seconds);
      cpu = rounded(o.usage->cpu_seconds);
      peak = o.usage->memory_peak_bytes;
    }
    rows.push_back(json::object{{"id", items[i].id},
                                {"line", items[i].line},
                                {"verdict", o.state},
                                {"exit_code", o.exit_code >= 0 ? json::value(o.exit_code) : json::value(nullptr)},
                                {"message", o.message},
                                {"wall_seconds", wall},
                                {"cpu_seconds", cpu},
                                {"memory_peak_bytes", peak},
                                {"predictions_sha256", nullable(o.predictions_sha256)}});
  }
  json::object counts;
  for (const auto& [state, n] : count_states(outcomes)) counts[state] = n;
  const json::object doc{{"schema", "plb-sandbox/batch-summary/1"},
                         {"privacy", "local-only: do not publish or return to the model submitters"},
                         {"manifest", h.manifest},
                         {"manifest_sha256", h.manifest_sha256},
                         {"output_dir", h.output_dir},
                         {"engine", h.engine},
                         {"lines", items.size()},
                         {"complete", complete},
                         {"counts", std::move(counts)},
                         {"rows", std::move(rows)}};
  return json::serialize(doc) + "\n";
}

void write_summary(const summary_header& h, const std::vector<batch_item>& items,
                   const std::vector<line_outcome>& outcomes) {
  replace_file(h.output_dir, "batch-summary.csv", render_summary_csv(items, outcomes));
  replace_file(h.output_dir, "batch-summary.json", render_summary_json(h, items, outcomes));
}

void replace_file(const std::string& dir, const std::string& name, const std::string& contents) {
  // IDs begin with a letter or digit, so the dot-named temporary never collides with a line's file.
  std::string tmp = dir + "/.plb-batch-XXXXXX";
  const unique_fd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (!fd) fail(sandbox::verdict::internal_error, "cannot create a file in " + dir + ": " + std::strerror(errno));
  const int e = write_all(fd.get(), contents);
  if (e != 0 || ::fsync(fd.get()) != 0 || ::rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) {
    const int err = e != 0 ? e : errno;
    ::unlink(tmp.c_str());
    fail(sandbox::verdict::internal_error, "cannot write " + dir + "/" + name + ": " + std::strerror(err));
  }
}

}  // namespace plb::tool
