// SPDX-License-Identifier: Apache-2.0
// The record behind <output>.sandbox.json: what ran, on what, under which limits, with what
// outcome. Every field comes from the operator, the daemon or the tool; the type has no field that
// could hold bytes from the script, so the rendered JSON can never carry them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/task_type.hpp"
#include "plb/sandbox/verdict.hpp"

namespace plb::sandbox {

// What the sandbox consumed, read from its cgroup while it ran (host-side figures). Counts only:
// the size of the output is reported, never its bytes.
struct sandbox_usage {
  double wall_seconds = 0;  // the script's own run, its container's start to its exit (the daemon's times)
  double cpu_seconds = 0;   // the container's cgroup CPU time (gVisor's own work included)
  std::uint64_t memory_peak_bytes = 0;
  std::uint64_t output_bytes = 0;  // stdout and stderr together
  std::uint64_t host_tasks_peak = 0;
  double startup_seconds = 0;  // the host's share before it: the container created and started (gVisor's boot)
};

struct provenance_record {
  std::string tool_version;
  sha256_digest model_sha256;
  std::optional<image_id> runtime_image;  // null in the JSON until set
  std::string runtime_name;               // the Docker runtime, "runsc"
  std::string runtime_version;            // as the runtime binary reports it
  std::string runtime_release;            // gVisor's release date, "20240729"
  std::string runtime_platform;           // gVisor's platform as the daemon runs it, "systrap"
  std::string cpuset;                     // the host CPUs the run was pinned to ("0-1"), "" if none
  std::string node, worker;               // a batch line's Slurm node and worker ("" outside a batch)
  SandboxLimits limits;
  task_type task = task_type::regression;
  std::vector<std::string> features;
  std::string id_column;  // empty: rows are numbered
  std::size_t rows = 0;
  sha256_digest input_sha256;  // of the data file as read
  sha256_digest predictions_sha256;
  std::string started_at;  // UTC, ISO 8601, from the host clock
  sandbox_usage usage;
  verdict outcome = verdict::success;
  // Where the run read its script and data (absolute; "" when unknown): what `verify` checks again.
  std::string model_path, data_path;
  std::uint64_t input_bytes = 0;  // the data file's size as read (recorded with data_path): verify's bound
  // Where the predictions were published (absolute; "" for the in-memory API, which publishes
  // nothing): the one file this provenance vouches for, with predictions_sha256.
  std::string predictions_path;
  // The model bundle the run mounted at /sandbox/bundle, when it had one: the digest its snapshot
  // was checked against, the snapshot's bytes and files, and where it was read (absolute). Written
  // only for a bundle run, so a run without one records exactly what it did before bundles; a
  // record without them (that run's, or an older tool's) reads as no bundle (nullopt, 0, 0, "").
  std::optional<sha256_digest> bundle_sha256;
  std::uint64_t bundle_bytes = 0, bundle_files = 0;
  std::string bundle_path;
};

inline boost::json::object to_json(const sandbox_usage& u) {
  // Milliseconds are as precise as the host clock and the cgroup sampling make these figures.
  const auto ms = [](double s) { return static_cast<double>(static_cast<std::int64_t>(s * 1000 + 0.5)) / 1000; };
  return {{"startup_seconds", ms(u.startup_seconds)}, {"wall_seconds", ms(u.wall_seconds)},
          {"cpu_seconds", ms(u.cpu_seconds)},         {"memory_peak_bytes", u.memory_peak_bytes},
          {"output_bytes", u.output_bytes},           {"host_tasks_peak", u.host_tasks_peak}};
}

inline boost::json::object to_json(const provenance_record& p) {
  boost::json::object limits;
  for (const limit_info& i : limit_table) limits[i.name] = get(p.limits, i.field);
  limits["pids_limit"] = pids_limit(p.limits);

  boost::json::array features;
  for (const std::string& f : p.features) features.emplace_back(f);

  boost::json::object o;
  o["schema"] = "plb-sandbox/provenance/2";  // 2: usage.startup_seconds, limits.start_seconds
  o["privacy"] = "local-only: do not publish or return to the model submitter";
  o["tool_version"] = p.tool_version;
  o["model_sha256"] = p.model_sha256.hex();
  o["runtime_image"] = p.runtime_image ? boost::json::value(p.runtime_image->str()) : boost::json::value(nullptr);
  o["runtime"] = {{"name", p.runtime_name},
                  {"version", p.runtime_version},
                  {"release", p.runtime_release},
                  {"platform", p.runtime_platform}};
  o["limits"] = std::move(limits);
  o["cpuset"] = p.cpuset.empty() ? boost::json::value(nullptr) : boost::json::value(p.cpuset);
  o["task_type"] = name(p.task);
  o["features"] = std::move(features);
  o["id_column"] = p.id_column.empty() ? boost::json::value(nullptr) : boost::json::value(p.id_column);
  o["rows"] = p.rows;
  o["input_sha256"] = p.input_sha256.hex();
  o["predictions_sha256"] = p.predictions_sha256.hex();
  o["started_at"] = p.started_at;
  o["usage"] = to_json(p.usage);
  o["verdict"] = name(p.outcome);
  if (!p.model_path.empty()) o["model_path"] = p.model_path;
  if (!p.data_path.empty()) o["data_path"] = p.data_path;
  if (!p.data_path.empty()) o["input_bytes"] = p.input_bytes;
  if (!p.predictions_path.empty()) o["predictions_path"] = p.predictions_path;
  if (!p.node.empty() || !p.worker.empty()) o["ran_on"] = {{"node", p.node}, {"worker", p.worker}};
  if (p.bundle_sha256) {
    o["bundle_sha256"] = p.bundle_sha256->hex();
    o["bundle_bytes"] = p.bundle_bytes;
    o["bundle_files"] = p.bundle_files;
    o["bundle_path"] = p.bundle_path;
  }
  return o;
}

// The record as one JSON document and a newline: what a provenance file says, before its seal.
inline std::string render_json(const provenance_record& p) { return boost::json::serialize(to_json(p)) + "\n"; }

// The seal. A provenance file is render_json's bytes with their closing "}\n" replaced by
// `,"mac":"<64 hex>"}\n`: the MAC is HMAC-SHA256, under the host's key (the runner holds it), of
// provenance_mac_domain followed by every byte of the file before `,"mac"` (the seal's body). The
// MAC covers the bytes as written, not a re-rendering of what they parse to, so a reader checks it
// before it parses anything, and no two texts (another key order, number spelling, escape,
// duplicate key or trailing byte) can share a MAC. It is a field, not a detached file, so the
// provenance cannot be published, copied or kept without it. The domain keeps a batch record's
// MAC, made under the same key, from ever passing for a provenance's.
inline constexpr std::string_view provenance_mac_domain = "plb-sandbox/provenance/2 mac\n";
inline constexpr std::string_view provenance_mac_open = ",\"mac\":\"";
inline constexpr std::string_view provenance_mac_close = "\"}\n";
inline constexpr std::size_t provenance_mac_hex_digits = 64;
inline constexpr std::size_t provenance_seal_bytes =
    provenance_mac_open.size() + provenance_mac_hex_digits + provenance_mac_close.size();

// render_json's bytes without their closing "}\n": the body a MAC seals.
inline std::string provenance_seal_body(const provenance_record& p) {
  std::string text = boost::json::serialize(to_json(p));
  text.pop_back();  // the closing brace: the MAC is the last field
  return text;
}

// What the MAC is computed over: the domain, then the body.
inline std::string provenance_mac_message(std::string_view body) {
  return std::string(provenance_mac_domain).append(body);
}

// The file's bytes: the body, then the seal around `mac_hex`.
inline std::string sealed_provenance_text(std::string body, std::string_view mac_hex) {
  return body.append(provenance_mac_open).append(mac_hex).append(provenance_mac_close);
}

}  // namespace plb::sandbox
