// SPDX-License-Identifier: Apache-2.0
// sandbox-score end to end on the real host: real Docker Engine, real runsc.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include <boost/json.hpp>

#include "plb/sandbox/runner.hpp"
#include "plb/sandbox/verdict.hpp"
#include "runner/host/runsc_identity.hpp"
#include "sandbox_fixture.hpp"

namespace plb::test {
namespace {

using sandbox::verdict;

int code(verdict v) { return sandbox::exit_code(v); }

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

constexpr const char* spec_example = R"(import json
import sys

rows = json.load(sys.stdin)["features"]
print(json.dumps({"predictions": [sum(row) for row in rows]}))
)";

// The rule, not the package installed today: an 8-digit gVisor release no older than the oldest
// the tool accepts. A newer runsc on the host keeps these tests passing; an older one is refused.
void expect_accepted_release(const std::string& release) {
  EXPECT_TRUE(std::regex_match(release, std::regex("[0-9]{8}"))) << "release: " << release;
  EXPECT_GE(release, std::string(runner::min_runsc_release)) << "release: " << release;
}

class SandboxScore : public SandboxTest {
 protected:
  // 64 guest processes scored at the default limits: the script forks 63 children, each and the
  // parent then run BODY (one Python line; busy(S) spins for S seconds, all together from 10 s after
  // the script's start), and the children exit
  // together (the host task peak); it predicts 64 on each row. The provenance names the PID limit
  // and gVisor's platform.
  void expect_sixty_four_processes_succeed(const std::string& body, const std::vector<std::string>& extra = {}) {
    const auto r = score_script(R"(import json, os, sys, time
go = time.monotonic() + 10  # every child forked by then: a spinning sibling slows each fork
def busy(seconds):
    time.sleep(max(0, go - time.monotonic()))
    while time.monotonic() < go + seconds:
        pass
rows = json.load(sys.stdin)["features"]
kids = []
for _ in range(63):
    pid = os.fork()
    if pid == 0:
        )" + body + R"(
        os._exit(0)
    kids.append(pid)
)" + body + R"(
for pid in kids:
    os.waitpid(pid, 0)
print(json.dumps({"predictions": [float(len(kids) + 1) for _ in rows]}))
)",
                                extra);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(slurp(path("out.csv")), "row,prediction\n0,64\n1,64\n");
    const auto prov = boost::json::parse(slurp(path("out.csv.sandbox.json"))).as_object();
    EXPECT_EQ(prov.at("limits").at("pids_limit").to_number<std::uint64_t>(), 320u);
    const std::string release(prov.at("runtime").at("release").as_string());
    expect_accepted_release(release);
    EXPECT_NE(prov.at("runtime").at("version").as_string().find(release), boost::json::string::npos);
    EXPECT_EQ(prov.at("runtime").at("platform").as_string(), "systrap");
  }
};

TEST_F(SandboxScore, SpecExampleScriptPredictsInInputOrder) {
  const auto script = write("model.py", spec_example);
  const auto data = write("data.csv", "sample,feature_a,target,feature_b\ns1,1.5,100,2\ns2,-3,100,0.25\ns3,0,100,0\n");
  const auto out = path("predictions.csv");
  const auto r = run(score_args(script, data, {"feature_a", "feature_b"}, out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(out), "row,prediction\n0,3.5\n1,-2.75\n2,0\n");
  EXPECT_EQ(lines(r.out), (std::vector<std::string>{"predictions: " + out, "provenance: " + out + ".sandbox.json"}));
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((out + ".sandbox.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const auto prov = boost::json::parse(slurp(out + ".sandbox.json")).as_object();
  EXPECT_EQ(prov.at("model_sha256").as_string(), sha256_file(script));
  EXPECT_EQ(prov.at("input_sha256").as_string(), sha256_file(data));
  EXPECT_EQ(prov.at("predictions_sha256").as_string(), sha256_file(out));
  EXPECT_EQ(prov.at("runtime_image").as_string(), image_);
  EXPECT_EQ(prov.at("rows").to_number<int>(), 3);
  EXPECT_EQ(prov.at("verdict").as_string(), "success");
  EXPECT_NE(prov.at("runtime").at("version").as_string().find("runsc"), boost::json::string::npos);
  const auto& usage = prov.at("usage").as_object();
  EXPECT_GT(usage.at("wall_seconds").to_number<double>(), 0.0);
  EXPECT_GT(usage.at("cpu_seconds").to_number<double>(), 0.0) << "cgroup CPU time was not read";
  EXPECT_GT(usage.at("memory_peak_bytes").to_number<std::uint64_t>(), 1u << 20) << "cgroup memory was not read";
  EXPECT_EQ(usage.at("output_bytes").to_number<std::uint64_t>(),
            std::string("{\"predictions\": [3.5, -2.75, 0.0]}\n").size());
}

TEST_F(SandboxScore, JsonSummaryOnSuccessAndOnFailure) {
  const auto script = write("model.py", spec_example);
  const auto data = write("data.csv", "a\n1\n2\n");
  auto r = run(score_args(script, data, {"a"}, path("ok.csv"), {"--json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto v = boost::json::parse(r.out).as_object();
  EXPECT_EQ(v.at("verdict").as_string(), "success");
  EXPECT_EQ(v.at("predictions").as_string(), path("ok.csv"));
  EXPECT_EQ(v.at("provenance").as_string(), path("ok.csv") + ".sandbox.json");
  EXPECT_GT(v.at("usage").at("memory_peak_bytes").to_number<std::uint64_t>(), 0u);
  EXPECT_EQ(r.err, "");

  const auto bad = write("bad.py", "print('CANARY log')\n");
  r = run(score_args(bad, data, {"a"}, path("no.csv"), {"--json"}));
  EXPECT_EQ(r.exit_code, code(verdict::output_rejected));
  v = boost::json::parse(r.out).as_object();
  EXPECT_EQ(v.at("verdict").as_string(), "output_rejected");
  EXPECT_EQ(v.at("exit_code").to_number<int>(), code(verdict::output_rejected));
  EXPECT_TRUE(v.at("predictions").is_null());
  EXPECT_EQ(v.at("usage").at("output_bytes").to_number<std::uint64_t>(), 11u);
  EXPECT_EQ(r.out.find("CANARY"), std::string::npos);
  EXPECT_EQ(lines(r.err).size(), 1u);
}

TEST_F(SandboxScore, ExplainPrintsTheArgvAndRunsNothing) {
  const auto script = write("model.py", spec_example);
  const auto data = write("data.csv", "a,b\n1,2\n");
  auto args = score_args(script, data, {"a", "b"}, path("o.csv"), {"--seconds", "7", "--memory-mb", "256"});
  args[0] = "explain";
  const auto r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* want :
       {"nothing was run", "1 rows x 2 features", "wall_seconds = 7 s", "memory_mib = 256 MiB", "    --runtime=runsc",
        "    --memory=256m", "    --memory-swap=256m", "    --network=none", "    /sandbox/model.py",
        "runsc is gVisor       pass", "pids_limit = 320 host tasks", "    --pids-limit=320"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  std::smatch release;
  ASSERT_TRUE(std::regex_search(r.out, release, std::regex("runsc release +pass +([0-9]+) on systrap"))) << r.out;
  expect_accepted_release(release[1]);
  EXPECT_FALSE(exists(path("o.csv")));
  // The same as one JSON object, for scripts: the argv is a list, not text to scrape.
  auto json_args = args;
  json_args.push_back("--json");
  const auto j = run(json_args);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto e = boost::json::parse(j.out).as_object();
  const auto& argv = e.at("docker_argv").as_array();
  EXPECT_EQ(argv.at(0).as_string(), "/usr/bin/docker");
  EXPECT_NE(std::find(argv.begin(), argv.end(), boost::json::value("--pids-limit=320")), argv.end());
  // The run's CPU pinning is in the argv too (nothing else holds a CPU here), so a hand-made
  // `docker run` of this argv carries every control the run does.
  EXPECT_NE(std::find_if(argv.begin(), argv.end(),
                         [](const boost::json::value& a) { return a.as_string().starts_with("--cpuset-cpus="); }),
            argv.end())
      << j.out;
  EXPECT_EQ(e.at("limits").at("wall_seconds").to_number<int>(), 7);
  bool release_passed = false;
  for (const auto& c : e.at("host").as_array())
    release_passed |= c.at("requirement") == "runsc release" && c.at("status") == "pass";
  EXPECT_TRUE(release_passed) << j.out;
  // Explain validates like a run: a bad digest is the same input refusal.
  args[4] = std::string(64, 'a');
  EXPECT_EQ(run(args).exit_code, code(verdict::input_refused));
}

TEST_F(SandboxScore, SixtyFourProcessesAtOnceSucceedAtTheDefaultLimits) {
  // The guest limit, all alive together and exiting together, inside the default --pids-limit.
  expect_sixty_four_processes_succeed("time.sleep(2)");
}

TEST_F(SandboxScore, SixtyFourBusyProcessesSucceedAtTheDefaultLimits) {
  // Issue 41 item 3: busy guest processes cost gVisor more host tasks than sleeping ones, and the
  // count grows for over a minute (ci/bench/measure-pid-budget --busy): at the spec's 192, 60
  // spinning children took gVisor past it within a minute (script_failed). All 64 spin for 90 s
  // here, as long as the count takes to level off (about 80 s), inside the default limits.
  expect_sixty_four_processes_succeed("busy(90)", {"--seconds", "180"});
}

// A field of /proc/self/status in kB (VmSize, VmPeak, VmHWM).
std::uint64_t status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(field + ":")) return std::strtoull(line.c_str() + field.size() + 1, nullptr, 10);
  return 0;
}

TEST_F(SandboxScore, TheLargestOutputCapIsHeldOnceUnderAnAddressSpaceLimit) {
  // Issue 41 item 8: the tool held about four times the output cap at its peak (the kept stdout
  // grown by doubling, copied at each step). A correct answer padded with whitespace to 250 MiB,
  // inside the API's largest cap (256 MiB), scored by the API in a child whose address space is
  // limited, once the run is under way (the docker client is already its own process by then), to
  // what it holds at that moment plus 96 MiB: the cap must already be all the output costs.
  const auto script = write("model.py", R"(import json, sys
rows = json.load(sys.stdin)["features"]
sys.stdout.write(json.dumps({"predictions": [1.5 for _ in rows]}))
pad = " " * (1 << 20)
for _ in range(250):
    sys.stdout.write(pad)
sys.stdout.write("\n")
)");
  sandbox::scoring_request r;
  r.model_path = script;
  r.model_sha256 = sha256_file(script);
  r.runtime_image = image_;
  r.data_path = write("data.csv", "id,a,b\nr1,1,2\nr2,3,4\n");
  r.features = {"a", "b"};
  r.output_path = path("out.csv");
  r.limits.output_mib = 256;
  r.limits.wall_seconds = 120;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::uint64_t limit = 0;
    sandbox::scoring_options o;
    o.on_progress = [&limit](const sandbox::scoring_progress&) {
      if (limit) return;
      limit = (status_kib("VmSize") << 10) + (std::uint64_t{96} << 20);
      const rlimit l{limit, RLIM_INFINITY};
      ::setrlimit(RLIMIT_AS, &l);
    };
    const auto result = sandbox::score(r, o);
    std::printf(
        "peak: VmHWM %llu kB, VmPeak %llu kB at a 256 MiB cap; address-space limit %llu kB from the run's start\n",
        static_cast<unsigned long long>(status_kib("VmHWM")), static_cast<unsigned long long>(status_kib("VmPeak")),
        static_cast<unsigned long long>(limit >> 10));
    if (!result) std::printf("%s: %s\n", std::string(sandbox::name(result.outcome)).c_str(), result.message.c_str());
    std::fflush(stdout);
    ::_exit(limit == 0 ? 2 : result ? 0 : 1);
  }
  int status = 0;
  for (int waited = 0; ::waitpid(child, &status, WNOHANG) == 0; ++waited) {
    if (waited == 3000) {  // 300 s
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      FAIL() << "the run did not end within 300 s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: no progress was reported; 1: the run failed (its line above)";
  EXPECT_EQ(slurp(path("out.csv")), "row,prediction\n0,1.5\n1,1.5\n");
}

TEST_F(SandboxScore, NumpyScriptWithIdColumnAndProbabilities) {
  const auto script = write("model.py", R"(import json, sys
import numpy as np
x = np.array(json.load(sys.stdin)["features"], dtype=float)
w = np.array([0.5, -0.25])
p = 1.0 / (1.0 + np.exp(-(x @ w)))
print(json.dumps({"predictions": p.tolist()}))
)");
  const auto data = write("data.csv", "key,x1,x2\n\"a,1\",1,2\nb,0,0\nc,-4,8\n");
  const auto out = path("p.csv");
  const auto r =
      run(score_args(script, data, {"x1", "x2"}, out, {"--id-column", "key", "--task-type", "binary-classification"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(slurp(out));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], "key,prediction");
  auto expect_row = [&](const std::string& row, const std::string& id, double z) {
    ASSERT_EQ(row.rfind(id + ",", 0), 0u) << row;
    EXPECT_NEAR(std::strtod(row.c_str() + id.size() + 1, nullptr), 1.0 / (1.0 + std::exp(-z)), 1e-15) << row;
  };
  expect_row(rows[1], "\"a,1\"", 0.0);
  expect_row(rows[2], "b", 0.0);
  expect_row(rows[3], "c", -4.0);
}

TEST_F(SandboxScore, FeatureValuesReachTheScriptBitExactly) {
  // The script returns each row's only feature untouched: a bit lost on the way in or out shows.
  std::mt19937_64 rng(5);
  std::vector<double> values{-0.0,
                             0.0,
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::max(),
                             -std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::min(),
                             0.1,
                             1e22,
                             5.0};
  while (values.size() < 2000) {
    const double d = std::bit_cast<double>(rng());
    if (std::isfinite(d)) values.push_back(d);
  }
  std::string csv = "v\n";
  for (double v : values) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g\n", v);
    csv += buf;
  }
  const auto script = write("model.py", R"(import json, sys, math
rows = json.load(sys.stdin)["features"]
assert all(type(r[0]) is float for r in rows)
assert math.copysign(1.0, rows[0][0]) == -1.0
print(json.dumps({"predictions": [r[0] for r in rows]}))
)");
  const auto out = path("p.csv");
  const auto r = run(score_args(script, write("d.csv", csv), {"v"}, out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(slurp(out));
  ASSERT_EQ(rows.size(), values.size() + 1);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& row = rows[i + 1];
    const double got = std::strtod(row.c_str() + row.find(',') + 1, nullptr);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(values[i])) << i << ": " << row;
  }
}

TEST_F(SandboxScore, FourParallelRunsDoNotCollide) {
  std::vector<std::string> outs;
  std::vector<std::unique_ptr<tool_process>> procs;
  for (int i = 0; i < 4; ++i) {
    const auto script = write("m" + std::to_string(i) + ".py",
                              "import json,sys\nrows=json.load(sys.stdin)['features']\n"
                              "print(json.dumps({'predictions':[r[0]*" +
                                  std::to_string(i + 1) + " for r in rows]}))\n");
    const auto data = write("d" + std::to_string(i) + ".csv", "a\n1\n2\n");
    outs.push_back(path("o" + std::to_string(i) + ".csv"));
    procs.push_back(std::make_unique<tool_process>(score_args(script, data, {"a"}, outs.back()),
                                                   path("po" + std::to_string(i)), path("pe" + std::to_string(i))));
  }
  for (int i = 0; i < 4; ++i) {
    const auto r = procs[static_cast<std::size_t>(i)]->wait();
    ASSERT_EQ(r.exit_code, 0) << i << ": " << r.err;
    EXPECT_EQ(slurp(outs[static_cast<std::size_t>(i)]),
              "row,prediction\n0," + std::to_string(i + 1) + "\n1," + std::to_string(2 * (i + 1)) + "\n");
  }
}

// ---- one real script per verdict class --------------------------------------------------------

struct verdict_case {
  const char* name;
  const char* script;
  std::vector<std::string> extra;
  verdict expected;
  const char* message;  // a phrase the one-line message must hold
};
void PrintTo(const verdict_case& c, std::ostream* os) { *os << ::testing::PrintToString(std::string(c.name)); }

class Verdicts : public SandboxTest, public ::testing::WithParamInterface<verdict_case> {};

TEST_P(Verdicts, ExitCodeMessageAndNothingWritten) {
  const auto& c = GetParam();
  const auto r = score_script(c.script, c.extra);
  EXPECT_EQ(r.exit_code, code(c.expected)) << r.err;
  const auto err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << "exactly one line on stderr: " << r.err;
  EXPECT_EQ(err[0].rfind("plb-sandbox: " + std::string(sandbox::name(c.expected)) + ": ", 0), 0u) << err[0];
  EXPECT_NE(err[0].find(c.message), std::string::npos) << err[0];
  EXPECT_EQ(err[0].find("CANARY"), std::string::npos) << "untrusted text leaked: " << err[0];
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(exists(path("out.csv")));
  EXPECT_FALSE(exists(path("out.csv.sandbox.json")));
}

// One row a line: it reads as the table it is.
// clang-format off
const verdict_case verdict_cases[] = {
    {"timeout_sleep", "import time\nprint('CANARY')\ntime.sleep(60)\n", {"--seconds", "3"}, verdict::timeout, "3 s wall time"},
    {"memory", "import sys\nsys.stderr.write('CANARY')\na = []\nwhile True: a.append(bytearray(1 << 20))\n",
     {"--memory-mb", "128"}, verdict::memory_exhausted, "128 MiB"},
    {"output_cap", "import sys\nwhile True: sys.stdout.write('CANARY' * 10000)\n", {}, verdict::output_cap_exceeded, "4 MiB"},
    {"exit_status", "import sys\nprint('CANARY')\nsys.exit(3)\n", {}, verdict::script_failed, "status 3"},
    {"exception", "raise RuntimeError('CANARY')\n", {}, verdict::script_failed, "status 1"},
    {"log_line", "print('CANARY loading')\nprint('{\"predictions\": [1, 2]}')\n", {}, verdict::output_rejected,
     "does not start with a JSON object"},
    {"extra_field", "print('{\"predictions\": [1, 2], \"CANARY\": 1}')\n", {}, verdict::output_rejected, "key other than"},
    {"count", "print('{\"predictions\": [1]}')\n", {}, verdict::output_rejected, "fewer predictions"},
    {"nan", "print('{\"predictions\": [1, NaN]}')\n", {}, verdict::output_rejected, "NaN or Infinity"},
    {"probability", "print('{\"predictions\": [0.5, 1.5]}')\n", {"--task-type", "binary-classification"},
     verdict::output_rejected, "outside [0, 1]"},
    {"never_reads_stdin", "print('{\"predictions\": [1, 2, 3]}')\n", {}, verdict::output_rejected, "more predictions"},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Real, Verdicts, ::testing::ValuesIn(verdict_cases),
                         [](const auto& i) { return std::string(i.param.name); });

TEST_F(SandboxScore, UsageErrorsNameTheFlag) {
  const auto script = write("model.py", spec_example);
  const auto data = write("data.csv", "a\n1\n");
  const auto base = score_args(script, data, {"a"}, path("o.csv"));
  struct usage_case {
    std::vector<std::string> extra;
    std::string phrase;
  };
  const usage_case cases[] = {
      {{"--unknown-flag", "1"}, "--unknown-flag"},
      {{"--seconds", "abc"}, "--seconds abc"},
      {{"--seconds", "1.5"}, "--seconds 1.5"},
      {{"--seconds", "0"}, "--seconds 0"},
      {{"--memory-mb", "1000000"}, "--memory-mb 1000000"},
      // An empty value is not the default: it names the flag.
      {{"--seconds", ""}, "--seconds \"\": empty value"},
      {{"--memory-mb", ""}, "--memory-mb \"\": empty value"},
      // One value per --feature: a stray word is not a second column.
      {{"--feature", "c", "d"}, "The following argument was not expected: d"},
      {{"--model", script}, "--model"},
      {{"--id-column", "a"}, "--id-column a"},
  };
  for (const auto& c : cases) {
    auto args = base;
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const auto r = run(args);
    EXPECT_EQ(r.exit_code, code(verdict::usage_error)) << r.err;
    EXPECT_NE(r.err.find(c.phrase), std::string::npos) << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  }
  auto tag = base;
  tag[6] = "python:3.11";  // --runtime-image value
  const auto r = run(tag);
  EXPECT_EQ(r.exit_code, code(verdict::usage_error));
  EXPECT_NE(r.err.find("tag is mutable"), std::string::npos) << r.err;
}

TEST_F(SandboxScore, ExistingOutputIsNeverOverwritten) {
  const auto out = write("taken.csv", "precious\n");
  const auto r = run(score_args(write("m.py", spec_example), write("d.csv", "a\n1\n"), {"a"}, out));
  EXPECT_EQ(r.exit_code, code(verdict::usage_error));
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(out), "precious\n");
  ::symlink("/etc/passwd", path("link.csv").c_str());
  const auto r2 = run(score_args(write("m.py", spec_example), write("d.csv", "a\n1\n"), {"a"}, path("link.csv")));
  EXPECT_EQ(r2.exit_code, code(verdict::usage_error));
}

TEST_F(SandboxScore, InputRefusalsRunNothing) {
  const auto script = write("model.py", spec_example);
  auto args = score_args(script, write("d.csv", "a,b\n1,2\n3,x\n"), {"a", "b"}, path("o.csv"));
  auto r = run(args);
  EXPECT_EQ(r.exit_code, code(verdict::input_refused));
  EXPECT_NE(r.err.find("row 3, column 2 (b): feature cell is not a decimal number"), std::string::npos) << r.err;

  args = score_args(script, write("d2.csv", "a\n1\n"), {"a"}, path("o.csv"));
  args[4] = std::string(64, '0');  // --model-sha256
  r = run(args);
  EXPECT_EQ(r.exit_code, code(verdict::input_refused));
  EXPECT_NE(r.err.find("not the reviewed"), std::string::npos) << r.err;

  args = score_args(write("big.py", "#" + std::string(9u << 20, 'x') + "\n"), write("d3.csv", "a\n1\n"), {"a"},
                    path("o.csv"));
  r = run(args);
  EXPECT_EQ(r.exit_code, code(verdict::input_refused));
  EXPECT_NE(r.err.find("8 MiB script limit"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(path("o.csv")));
}

TEST_F(SandboxScore, HostRefusals) {
  const auto script = write("model.py", spec_example);
  auto args = score_args(script, write("d.csv", "a\n1\n"), {"a"}, path("o.csv"));
  args[6] = "sha256:" + std::string(64, 'e');
  auto r = run(args);
  EXPECT_EQ(r.exit_code, code(verdict::host_refused));
  EXPECT_NE(r.err.find("not present locally"), std::string::npos) << r.err;

  auto env = default_environment();
  env.push_back("DOCKER_HOST=tcp://192.0.2.1:2375");
  r = run(score_args(script, write("d2.csv", "a\n1\n"), {"a"}, path("o2.csv")), env);
  EXPECT_EQ(r.exit_code, code(verdict::host_refused));
  EXPECT_NE(r.err.find("unset DOCKER_HOST"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace plb::test
