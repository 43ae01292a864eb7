// SPDX-License-Identifier: Apache-2.0
#include "runner/score/explain.hpp"

#include <algorithm>
#include <vector>

#include "runner/container/cpu_allocator.hpp"
#include "runner/container/docker_run.hpp"
#include "runner/container/run_directory.hpp"
#include "runner/engine/call_budget.hpp"
#include "runner/engine/engine_transport.hpp"
#include "runner/score/bundle_cache.hpp"
#include "runner/score/output_dir.hpp"
#include "runner/score/score.hpp"
#include "runner/score/snapshot.hpp"
#include "support/failure.hpp"
#include "support/private_dir.hpp"

namespace plb::runner {
namespace {

// The bundle walked as a run's snapshot walks it, every bound and check but the copy's, and held
// to its reviewed digest: what the run would refuse, explain refuses, naming the caller's fields.
std::optional<sandbox::bundle_listing> checked_bundle(const score_request& request) {
  if (!request.has_bundle()) return std::nullopt;
  const std::string what = bundle_named(request.names.bundle, request.bundle);
  auto listing = digest_bundle(request.bundle, request.limits);
  if (!listing) fail(sandbox::verdict::input_refused, what + ": " + listing.error().message());
  require_reviewed_digest(what, listing->digest, *request.bundle_sha256, request.names.bundle_sha256);
  return std::move(*listing);
}

}  // namespace

explanation explain(const score_request& request) {
  const prepared_inputs in = prepare_inputs(request, check_local_inputs(request), nullptr);
  explanation e{request,
                in.script.bytes.size(),
                in.script.digest.hex(),
                in.input.table.rows(),
                in.input.table.columns(),
                in.document.size(),
                {},
                {},
                checked_bundle(request)};
  host_facts facts;
  const std::optional<sandbox::image_id> image(request.image);
  e.checks = inspect_host({docker_engine{}, image, request.limits, nullptr, inspect_mode::explain}, facts);
  const std::string example_run(sandbox::policy_constants::run_id_digits, '0');
  // The CPUs a run starting now would be pinned to (held only while the argv is built), so the
  // argv is the run's, CPU pinning included. When every CPU is held (a run would wait), the first
  // CPUs it may be given: a run is never unpinned.
  const cpu_lease cpus = host_cpu_allocator().try_acquire(request.limits.cpu_millicores);
  std::string cpu_list = cpus.list();
  if (cpu_list.empty()) {
    std::vector<unsigned> first = allowed_cpus();
    first.resize(std::min<std::size_t>(first.size(), sandbox::guest_cpus(request.limits)));
    cpu_list = render_cpu_list(first);
  }
  const std::string example_dir = std::string(runs_dir) + "/" + example_run + "/";
  const auto policy = build_policy(request, example_dir + snapshot_file_name, example_run, cpu_list);
  e.argv.push_back(docker_binary);
  for (auto& a : policy.docker_run_arguments()) e.argv.push_back(std::move(a));
  for (const auto& c : e.checks)
    if (c.status == check_status::fail) fail(sandbox::verdict::host_refused, c.detail + ": " + c.fix);
  return e;
}

std::vector<std::string> explanation_lines(const explanation& e) {
  const score_request& r = e.request;
  std::vector<std::string> lines{
      "nothing was run; a sandbox-score with these flags would:",
      "  run " + std::string(r.names.model) + " " + r.model + " (" + std::to_string(e.script_bytes) +
          " bytes, SHA-256 " + e.script_sha256 + ", verified)",
      "  on " + std::to_string(e.rows) + " rows x " + std::to_string(e.columns) + " features of " +
          std::string(r.names.data) + " " + r.data + " (" + std::to_string(e.stdin_bytes) + " bytes of JSON on stdin)",
      "  as " + std::string(sandbox::name(r.task)) + ", writing " + r.output + " and " + r.provenance,
      "host (no container started):"};
  if (e.bundle)  // the second mount, named with the first: where the script finds its files
    lines.insert(lines.begin() + 3, "  with " + bundle_named(r.names.bundle, r.bundle) + " (" +
                                        std::to_string(e.bundle->files) + " files, " + std::to_string(e.bundle->bytes) +
                                        " bytes, SHA-256 " + e.bundle->digest.hex() + ", verified) read-only at " +
                                        std::string(sandbox::policy_constants::bundle_target) +
                                        ", from the bundle cache's copy " + bundle_cache_tree(e.bundle->digest));
  if (const std::string dir = directory_of(r.output); existing_dir_of(r.output) != dir)
    lines.insert(lines.end() - 1, "  in " + dir + ", created 0700 when the run succeeds");
  for (const auto& line : render_checks(e.checks)) lines.push_back("  " + line);
  lines.push_back("limits:");
  for (const auto& i : sandbox::limit_table)
    lines.push_back("  " + std::string(i.name) + " = " + std::to_string(sandbox::get(r.limits, i.field)) + " " +
                    std::string(i.unit) + " (bounds " + std::to_string(i.min) + " to " + std::to_string(i.max) + ")");
  lines.push_back("  pids_limit = " + std::to_string(sandbox::pids_limit(r.limits)) + " host tasks");
  lines.push_back(
      "docker argv (each run gets a fresh run ID in place of the zeros, and the CPUs free when it starts):");
  lines.push_back("  " + e.argv.front());
  for (std::size_t i = 1; i < e.argv.size(); ++i) lines.push_back("    " + e.argv[i]);
  return lines;
}

namespace {

// call_budget.hpp's rows, for the test that counts a real run against them.
boost::json::object call_budget_json() {
  namespace json = boost::json;
  static constexpr const char* phases[] = {"preflight", "run", "cleanup"};
  static constexpr const char* windows[] = {"none", "run", "until_created", "until_started"};
  json::array execs, engine;
  for (const auto& x : budget::execs)
    execs.push_back(json::object{{"program", x.program}, {"count", x.count}, {"reason", x.reason}});
  for (const auto& c : budget::engine)
    engine.push_back(json::object{{"who", c.who},
                                  {"phase", phases[static_cast<int>(c.when)]},
                                  {"method", c.method},
                                  {"path", c.path},
                                  {"count", c.count},
                                  {"extra", windows[static_cast<int>(c.extra)]},
                                  {"per_samples", c.per_samples},
                                  {"reason", c.reason}});
  return json::object{{"sample_period_ms", budget::sample_period.count()},
                      {"api_prefix", std::string("/") + engine_api_version},
                      {"execs", std::move(execs)},
                      {"engine", std::move(engine)}};
}

}  // namespace

boost::json::object explanation_json(const explanation& e) {
  namespace json = boost::json;
  json::array checks;
  for (const auto& c : e.checks) {
    const char* status = c.status == check_status::pass ? "pass" : c.status == check_status::fail ? "fail" : "skipped";
    checks.push_back(
        json::object{{"requirement", c.requirement}, {"status", status}, {"detail", c.detail}, {"fix", c.fix}});
  }
  json::object limits;
  for (const auto& i : sandbox::limit_table) limits[i.name] = sandbox::get(e.request.limits, i.field);
  limits["pids_limit"] = sandbox::pids_limit(e.request.limits);
  json::array argv;
  for (const auto& a : e.argv) argv.emplace_back(a);
  return json::object{
      {"script", {{"path", e.request.model}, {"bytes", e.script_bytes}, {"sha256", e.script_sha256}}},
      {"data", {{"path", e.request.data}, {"rows", e.rows}, {"features", e.columns}, {"stdin_bytes", e.stdin_bytes}}},
      {"bundle", e.bundle ? json::value(json::object{{"path", e.request.bundle},
                                                     {"files", e.bundle->files},
                                                     {"bytes", e.bundle->bytes},
                                                     {"sha256", e.bundle->digest.hex()},
                                                     {"target", sandbox::policy_constants::bundle_target}})
                          : json::value(nullptr)},
      {"task_type", sandbox::name(e.request.task)},
      {"outputs", {{"predictions", e.request.output}, {"provenance", e.request.provenance}}},
      {"host", std::move(checks)},
      {"limits", std::move(limits)},
      {"docker_argv", std::move(argv)},
      {"call_budget", call_budget_json()}};
}

}  // namespace plb::runner
