// SPDX-License-Identifier: Apache-2.0
// Shared set-up for the real-gVisor tests: a private directory per test, the reviewed image's ID,
// helpers to write a script and data and score them, and the check every test ends with: no
// container that the test's own tool processes created is left on the host.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "plb/sandbox/digest.hpp"
#include "runner/container/container_cleanup.hpp"
#include "runner/engine/docker_engine.hpp"
#include "runner/state/state_dirs.hpp"
#include "tool_process.hpp"

namespace plb::test {

inline std::string runtime_image() {
  if (const char* v = std::getenv("PLB_SANDBOX_RUNTIME_IMAGE")) return v;
  std::string id = slurp(runner::runtime_image_id_file);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

// The lines a shell command prints (the docker CLI's, here).
inline std::vector<std::string> lines_of(const std::string& cmd) {
  std::vector<std::string> lines;
  FILE* out = ::popen(cmd.c_str(), "r");
  if (!out) throw std::runtime_error("cannot run " + cmd);
  char line[512];
  while (std::fgets(line, sizeof line, out)) {
    std::string l(line);
    while (!l.empty() && l.back() == '\n') l.pop_back();
    lines.push_back(l);
  }
  if (::pclose(out) != 0) throw std::runtime_error(cmd + " failed");
  return lines;
}

// "NAME\tOWNER" lines kept only when OWNER is one of this binary's tool processes (or itself):
// other tests run sandboxes beside this one, so "nothing left", "nothing started" mean ours.
inline std::vector<std::string> owned_names(const std::vector<std::string>& lines) {
  std::vector<std::string> names;
  const auto& owners = spawned_owners();
  for (const auto& l : lines) {
    const auto tab = l.find('\t');
    if (tab == std::string::npos) continue;
    if (std::find(owners.begin(), owners.end(), l.substr(tab + 1)) != owners.end()) names.push_back(l.substr(0, tab));
  }
  return names;
}

// Names of the containers carrying the tool's run label ("plb-sandbox.run", the spec's) that the
// daemon created from `since` until now, from the daemon's own event log: what did start, whatever
// the tool says about itself. The probe of an uncached gVisor proof carries the label too.
// `everyone`: every creator's, not only this binary's tool processes'.
inline std::vector<std::string> sandboxes_created_since(std::chrono::system_clock::time_point since,
                                                        bool everyone = false) {
  const auto unix_seconds = [](std::chrono::system_clock::time_point t) {
    return std::chrono::duration<double>(t.time_since_epoch()).count();
  };
  char cmd[400];
  std::snprintf(cmd, sizeof cmd,
                "docker events --since %.6f --until %.6f --filter type=container --filter event=create "
                "--filter label=plb-sandbox.run "
                "--format '{{.Actor.Attributes.name}}\t{{index .Actor.Attributes \"plb-sandbox.owner\"}}'",
                unix_seconds(since), unix_seconds(std::chrono::system_clock::now()));
  const auto lines = lines_of(cmd);
  if (!everyone) return owned_names(lines);
  std::vector<std::string> names;
  for (const auto& l : lines) names.push_back(l.substr(0, l.find('\t')));
  return names;
}

// The containers, running or not, that this binary's tool processes created and left.
inline std::vector<std::string> own_containers() {
  return owned_names(
      lines_of("docker ps -a --filter label=plb-sandbox.run "
               "--format '{{.Names}}\t{{.Label \"plb-sandbox.owner\"}}'"));
}

class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/plb-sandbox-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    image_ = runtime_image();
    ASSERT_EQ(image_.rfind("sha256:", 0), 0u) << "run ci/host/setup-host first";
  }

  void TearDown() override {
    // Only this test's: another test's live run may be beside it (ctest runs them side by side).
    const runner::docker_engine engine;
    const auto left = own_containers();
    EXPECT_TRUE(left.empty()) << "a run left " << left.size()
                              << " container(s), first: " << (left.empty() ? "" : left[0]);
    for (const auto& name : left) runner::remove_container(engine, name);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

  static std::string sha256_file(const std::string& p) { return sandbox::sha256_of(slurp(p)).digest.hex(); }

  // sandbox-score with the spec's flags; `extra` appends or overrides nothing but adds flags.
  std::vector<std::string> score_args(const std::string& script, const std::string& data,
                                      const std::vector<std::string>& features, const std::string& output,
                                      const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> a{
        "sandbox-score", "--model", script, "--model-sha256", sha256_file(script), "--runtime-image",
        image_,          "--data",  data};
    for (const auto& f : features) {
      a.push_back("--feature");
      a.push_back(f);
    }
    a.insert(a.end(), {"--output", output});
    bool has_task = false;
    for (const auto& e : extra) has_task |= e == "--task-type";
    if (!has_task) a.insert(a.end(), {"--task-type", "regression"});
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }

  tool_result run(const std::vector<std::string>& args, const std::vector<std::string>& env = default_environment()) {
    const std::string tag = std::to_string(counter_++);
    tool_process p(args, path("stdout." + tag), path("stderr." + tag), env);
    return p.wait();
  }

  // A script that ignores its input and runs `body`, scored on a two-row CSV.
  tool_result score_script(const std::string& body, const std::vector<std::string>& extra = {},
                           const std::string& output_name = "out.csv") {
    const auto script = write("model.py", body);
    const auto data = write("data.csv", "id,a,b\nr1,1,2\nr2,3,4\n");
    return run(score_args(script, data, {"a", "b"}, path(output_name), extra));
  }

  // The name of the run's container: the --name of the tool's docker client that mounts the script
  // (the preflight's probe, a client of its own, mounts nothing). Empty while there is none.
  static std::string run_container_name(pid_t tool) {
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      std::ifstream stat(e.path() / "stat");
      std::string pid, comm, state, ppid;
      if (!(stat >> pid >> comm >> state >> ppid) || comm != "(docker)" || ppid != std::to_string(tool)) continue;
      std::ifstream cmdline(e.path() / "cmdline");
      std::string arg, name;
      bool mounts = false;
      while (std::getline(cmdline, arg, '\0')) {
        if (arg.starts_with("--name=")) name = arg.substr(7);
        mounts |= arg.starts_with("--mount=type=bind");
      }
      if (mounts) return name;
    }
    return {};
  }

  // Starts a run whose script sleeps and waits (at most 120 s) until its container is running;
  // `container` gets its name. A run that never gets there fails the test here, loudly.
  std::unique_ptr<tool_process> start_sleeper(std::string& container, const std::string& seconds = "120",
                                              const std::vector<std::string>& env = default_environment()) {
    const auto script = write("sleeper.py", "import time\ntime.sleep(120)\n");
    const auto data = write("sleeper.csv", "a\n1\n");
    auto tool = std::make_unique<tool_process>(score_args(script, data, {"a"}, path("out.csv"), {"--seconds", seconds}),
                                               path("o"), path("e"), env);
    const runner::docker_engine engine;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    container.clear();
    while (std::chrono::steady_clock::now() < give_up) {
      if (container.empty()) container = run_container_name(tool->pid());
      if (!container.empty()) {
        auto st = engine.inspect_container(container);
        if (st && *st && (*st)->running) return tool;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "the run's container was not running within 120 s ("
                  << (container.empty() ? "never named" : container) << ")";
    container.clear();
    return tool;
  }

  bool exists(const std::string& p) const {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0;
  }

  std::string dir_, image_;
  int counter_ = 0;
};

}  // namespace plb::test
