#include "container_cleanup.hpp"

#include <thread>

#include <boost/json.hpp>

#include "failure.hpp"
#include "plb/sandbox/sandbox_policy.hpp"

namespace plb::tool {

void await_daemon(const docker_engine& engine, const std::string& container, std::chrono::seconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  std::string problem;
  while (true) {
    auto reply = engine.get("/_ping", problem);
    if (reply && reply->status == 200) return;
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  fail(sandbox::verdict::cleanup_failed, "the Docker daemon stopped answering (" + problem + "); container " + container +
                                             " may remain: run `plb-sandbox sweep` once the daemon is back");
}

std::optional<container_state> inspect_container(const docker_engine& engine, const std::string& name) {
  std::string problem;
  auto reply = engine.get("/containers/" + name + "/json", problem);
  if (!reply) fail(sandbox::verdict::cleanup_failed, problem);
  if (reply->status == 404) return std::nullopt;
  if (reply->status != 200)
    fail(sandbox::verdict::cleanup_failed, "inspecting container " + name + " failed with HTTP " + std::to_string(reply->status));
  auto state = parse_container_inspect(reply->body, problem);
  if (!state) fail(sandbox::verdict::cleanup_failed, "inspecting container " + name + ": " + problem);
  return state;
}

bool remove_container(const docker_engine& engine, const std::string& name, std::chrono::seconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  std::string last = "no answer";
  bool removed_here = false;
  while (true) {
    std::string problem;
    // No v=1: a volume is never deleted (the reviewed image declares none, and anything else's
    // volumes are not ours).
    auto reply = engine.del("/containers/" + name + "?force=1", problem);
    if (!reply) {
      last = problem;
    } else if (reply->status == 204 || reply->status == 404) {
      removed_here |= reply->status == 204;
      auto check = engine.get("/containers/" + name + "/json", problem);
      if (check && check->status == 404) return removed_here;
      last = check ? "still listed after removal" : problem;
    } else {
      last = "removal answered HTTP " + std::to_string(reply->status);
    }
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  fail(sandbox::verdict::cleanup_failed, "container " + name + " could not be removed within " +
                                             std::to_string(deadline.count()) + " s (" + last +
                                             "); remove it with: docker rm -f " + name);
}

std::vector<labelled_container> labelled_containers(const docker_engine& engine) {
  namespace json = boost::json;
  std::string problem;
  const std::string filter = R"({"label":[")" + std::string(sandbox::policy_constants::run_label) + R"("]})";
  std::string encoded;
  for (const char ch : filter) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_') encoded += static_cast<char>(c);
    else {
      static constexpr char hex[] = "0123456789ABCDEF";
      encoded += '%';
      encoded += hex[c >> 4];
      encoded += hex[c & 0xf];
    }
  }
  auto reply = engine.get("/containers/json?all=1&filters=" + encoded, problem);
  if (!reply) fail(sandbox::verdict::cleanup_failed, problem);
  if (reply->status != 200) fail(sandbox::verdict::cleanup_failed, "listing containers answered HTTP " + std::to_string(reply->status));
  std::vector<labelled_container> found;
  json::error_code ec;
  const json::value v = json::parse(reply->body, ec);
  if (ec || !v.is_array()) fail(sandbox::verdict::cleanup_failed, "listing containers: reply is not a JSON array");
  for (const json::value& c : v.get_array()) {
    const json::value* ns = c.is_object() ? c.get_object().if_contains("Names") : nullptr;
    if (!ns || !ns->is_array() || ns->get_array().empty() || !ns->get_array()[0].is_string()) continue;
    labelled_container lc;
    lc.name = std::string(ns->get_array()[0].get_string());
    if (!lc.name.empty() && lc.name.front() == '/') lc.name.erase(0, 1);
    if (const json::value* labels = c.get_object().if_contains("Labels"); labels && labels->is_object()) {
      const json::value* r = labels->get_object().if_contains(sandbox::policy_constants::run_label);
      if (r && r->is_string()) lc.run_label = std::string(r->get_string());
    }
    found.push_back(std::move(lc));
  }
  return found;
}

}  // namespace plb::tool
