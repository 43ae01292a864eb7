// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/sandbox_policy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace sb = plb::sandbox;
using E = sb::policy_error;

namespace {
const std::string kImage = "sha256:88bf3be576309ae11d44e8e77e1338c82473d5fd6687c54e801170e8a900e870";
const std::string kRun = "0123456789abcdef0123456789abcdef";
const std::string kScript = "/var/lib/plb-sandbox/runs/abc/model.py";
const std::string kOwner = "0f2e3d4c-5b6a-4789-8abc-def012345678:4242:99887766";

sb::sandbox_policy_builder base() {
  sb::sandbox_policy_builder b;
  b.image(*sb::parse_image_id(kImage).id).script(kScript).run_id(kRun).owner(kOwner).cpuset("0");
  return b;
}
}  // namespace

TEST(ContainerSpec, DefaultArgvInFull) {
  const auto r = base().build();
  ASSERT_TRUE(r) << sb::message(r.error);
  const std::vector<std::string> want{
      "run",
      "--interactive",
      "--name=plb-sandbox-" + kRun,
      "--label=plb-sandbox.run=" + kRun,
      "--label=plb-sandbox.owner=" + kOwner,
      "--label=plb-sandbox.expires-after=70",  // 30 s to start + the spec's 30 s wall time + 10 s grace
      "--runtime=runsc",
      "--pull=never",
      "--user=65534:65534",
      "--cap-drop=ALL",
      "--security-opt=no-new-privileges",
      "--network=none",
      "--ipc=none",
      "--read-only",
      "--mount=type=bind,source=" + kScript + ",target=/sandbox/model.py,readonly",
      "--tmpfs=/tmp:rw,size=16m,noexec,nosuid,nodev,mode=1777",
      "--memory=512m",
      "--memory-swap=512m",
      "--cpus=1",
      "--cpuset-cpus=0",
      "--pids-limit=320",
      "--ulimit=nproc=64:64",
      "--ulimit=nofile=256:256",
      "--ulimit=fsize=16777216:16777216",
      "--ulimit=core=0:0",
      "--log-driver=none",
      "--no-healthcheck",
      "--entrypoint=/usr/bin/env",
      kImage,
      "-i",
      "/usr/local/bin/python",
      "-I",
      "-B",
      "/sandbox/model.py",
  };
  EXPECT_EQ(r.spec->docker_run_arguments(), want);
  EXPECT_EQ(r.spec->container_name(), "plb-sandbox-" + kRun);
}

TEST(ContainerSpec, ArgvAtTheLowerAndUpperBounds) {
  for (bool upper : {false, true}) {
    sb::SandboxLimits l;
    for (const auto& i : sb::limit_table) l.*(i.member) = upper ? i.max : i.min;
    const auto r = base()
                       .limits(l)
                       .user(upper ? sb::policy_constants::max_id : 1, upper ? sb::policy_constants::max_id : 1)
                       .build();
    ASSERT_TRUE(r) << sb::message(r.error);
    const auto argv = r.spec->docker_run_arguments();
    auto has = [&](const std::string& a) { return std::find(argv.begin(), argv.end(), a) != argv.end(); };
    if (upper) {
      EXPECT_TRUE(has("--memory=65536m"));
      EXPECT_TRUE(has("--memory-swap=65536m"));
      EXPECT_TRUE(has("--cpus=64"));
      EXPECT_TRUE(has("--pids-limit=9216"));
      EXPECT_TRUE(has("--ulimit=nproc=1024:1024"));
      EXPECT_TRUE(has("--ulimit=nofile=65536:65536"));
      EXPECT_TRUE(has("--ulimit=fsize=1073741824:1073741824"));
      EXPECT_TRUE(has("--tmpfs=/tmp:rw,size=1024m,noexec,nosuid,nodev,mode=1777"));
      EXPECT_TRUE(has("--user=2147483646:2147483646"));
      EXPECT_TRUE(has("--label=plb-sandbox.expires-after=4210"));  // start 600 s + wall 3600 s + 10 s grace
    } else {
      EXPECT_TRUE(has("--memory=64m"));
      EXPECT_TRUE(has("--memory-swap=64m"));
      EXPECT_TRUE(has("--cpus=0.1"));
      EXPECT_TRUE(has("--pids-limit=68"));
      EXPECT_TRUE(has("--ulimit=nproc=4:4"));
      EXPECT_TRUE(has("--ulimit=nofile=16:16"));
      EXPECT_TRUE(has("--ulimit=fsize=1048576:1048576"));
      EXPECT_TRUE(has("--tmpfs=/tmp:rw,size=1m,noexec,nosuid,nodev,mode=1777"));
      EXPECT_TRUE(has("--user=1:1"));
      EXPECT_TRUE(has("--label=plb-sandbox.expires-after=16"));  // start 5 s + wall 1 s + 10 s grace
    }
    // The controls do not depend on the limits: the same fixed flags at every bound.
    for (const char* fixed :
         {"--runtime=runsc", "--pull=never", "--cap-drop=ALL", "--security-opt=no-new-privileges", "--network=none",
          "--ipc=none", "--read-only", "--ulimit=core=0:0", "--log-driver=none", "--entrypoint=/usr/bin/env", "-i"})
      EXPECT_TRUE(has(fixed)) << fixed;
    EXPECT_EQ(argv.size(), 34u);
    EXPECT_EQ(std::count_if(argv.begin(), argv.end(), [](const std::string& a) { return a.starts_with("--mount"); }),
              1);
  }
}

TEST(ContainerSpec, CpusetIsRenderedBesideTheCpuLimit) {
  sb::SandboxLimits four;
  four.cpu_millicores = 4000;
  for (const char* list : {"0", "1-3", "0,2-3,7", "4095"}) {
    const auto argv = base().limits(four).cpuset(list).build().spec->docker_run_arguments();
    const auto at = std::find(argv.begin(), argv.end(), "--cpuset-cpus=" + std::string(list));
    ASSERT_NE(at, argv.end()) << list;
    EXPECT_EQ(*(at - 1), "--cpus=4") << "beside the CPU limit";
    EXPECT_EQ(std::count_if(argv.begin(), argv.end(), [](const std::string& a) { return a.starts_with("--cpuset"); }),
              1);
  }
}

// The guest sees the CPUs of its cpuset and sizes its thread pools to them (issue 31 item 4): a run
// without a cpuset would see every host CPU, so build() refuses it; the probe runs no submission.
TEST(ContainerSpec, ARunWithoutACpusetIsRefused) {
  sb::sandbox_policy_builder b;
  b.image(*sb::parse_image_id(kImage).id).script(kScript).run_id(kRun).owner(kOwner);
  EXPECT_EQ(b.build().error, E::missing_cpuset);
  EXPECT_TRUE(b.build_probe()) << "the probe needs no cpuset";
}

TEST(ContainerSpec, ACpusetWiderThanTheCpuLimitIsRefused) {
  sb::SandboxLimits l;  // one CPU
  EXPECT_EQ(base().limits(l).cpuset("0-1").build().error, E::cpuset_too_wide);
  EXPECT_EQ(base().limits(l).cpuset("0,5").build().error, E::cpuset_too_wide);
  l.cpu_millicores = 1500;  // rounds up to two
  EXPECT_TRUE(base().limits(l).cpuset("0-1").build());
  EXPECT_EQ(base().limits(l).cpuset("0-2").build().error, E::cpuset_too_wide);
  l.cpu_millicores = 64000;  // a 64-CPU run on a 4096-CPU host: 64 of them, not the host's
  l.guest_processes = 1024;
  l.host_runtime_tasks = 8192;  // room for 1024 busy guest processes
  EXPECT_TRUE(base().limits(l).cpuset("0-63").build());
  EXPECT_EQ(base().limits(l).cpuset("0-64").build().error, E::cpuset_too_wide);
  EXPECT_EQ(base().limits(l).cpuset("0-4095").build().error, E::cpuset_too_wide);
}

TEST(ContainerSpec, TheGuestsThreadPoolsMustFitItsProcessLimit) {
  sb::SandboxLimits l;
  EXPECT_EQ(sb::guest_threads_needed(l), 3u);  // one CPU: two pools of one, and the interpreter
  l.cpu_millicores = 32000;                    // 2 x 32 + 1 = 65 > the spec's 64
  EXPECT_FALSE(sb::guest_threads_fit(l));
  EXPECT_EQ(base().limits(l).cpuset("0-31").build().error, E::threads_exceed_processes);
  l.guest_processes = 65;
  EXPECT_TRUE(base().limits(l).cpuset("0-31").build());
  l.cpu_millicores = 31001;  // a fraction rounds up: 32 CPUs again
  l.guest_processes = 64;
  EXPECT_EQ(base().limits(l).cpuset("0-31").build().error, E::threads_exceed_processes);
  l.cpu_millicores = 31000;
  EXPECT_TRUE(base().limits(l).cpuset("0-30").build());
}

TEST(ContainerSpec, CpuCountOfAList) {
  using B = sb::sandbox_policy_builder;
  EXPECT_EQ(B::cpu_count("0"), 1u);
  EXPECT_EQ(B::cpu_count("1-3"), 3u);
  EXPECT_EQ(B::cpu_count("0,2-3,7"), 4u);
  EXPECT_EQ(B::cpu_count("0-4095"), 4096u);
  EXPECT_EQ(B::cpu_count("4095"), 1u);
}

TEST(ContainerSpec, CpusRendering) {
  EXPECT_EQ(sb::sandbox_policy::cpus(1000), "1");
  EXPECT_EQ(sb::sandbox_policy::cpus(1500), "1.5");
  EXPECT_EQ(sb::sandbox_policy::cpus(250), "0.25");
  EXPECT_EQ(sb::sandbox_policy::cpus(2005), "2.005");
  EXPECT_EQ(sb::sandbox_policy::cpus(100), "0.1");
}

struct Bad {
  std::string name;
  std::function<void(sb::sandbox_policy_builder&)> apply;
  E error;
};
void PrintTo(const Bad& c, std::ostream* os) { *os << ::testing::PrintToString(std::string(c.name)); }

class SpecRejects : public ::testing::TestWithParam<Bad> {};
TEST_P(SpecRejects, AtBuildTime) {
  auto b = base();
  GetParam().apply(b);
  const auto r = b.build();
  EXPECT_EQ(r.error, GetParam().error) << sb::message(r.error);
  EXPECT_FALSE(r.spec.has_value()) << "a failed build hands out no policy";
}
std::string PrintBad(const ::testing::TestParamInfo<Bad>& i) { return i.param.name; }

INSTANTIATE_TEST_SUITE_P(
    Table, SpecRejects,
    ::testing::Values(
        Bad{"relative_script", [](auto& b) { b.script("model.py"); }, E::script_path_relative},
        Bad{"empty_script", [](auto& b) { b.script(""); }, E::script_path_relative},
        Bad{"comma_in_path", [](auto& b) { b.script("/a,readonly=false/m.py"); }, E::script_path_unsafe},
        Bad{"equals_in_path", [](auto& b) { b.script("/a=b/m.py"); }, E::script_path_unsafe},
        Bad{"colon_in_path", [](auto& b) { b.script("/a:b/m.py"); }, E::script_path_unsafe},
        Bad{"newline_in_path", [](auto& b) { b.script("/a\n/m.py"); }, E::script_path_unsafe},
        Bad{"dotdot_in_path", [](auto& b) { b.script("/a/../etc/m.py"); }, E::script_path_unsafe},
        Bad{"relative_bundle", [](auto& b) { b.bundle("bundle"); }, E::bundle_path_relative},
        Bad{"empty_bundle", [](auto& b) { b.bundle(""); }, E::bundle_path_relative},
        Bad{"comma_in_bundle", [](auto& b) { b.bundle("/r/b,readonly=false"); }, E::bundle_path_unsafe},
        Bad{"equals_in_bundle", [](auto& b) { b.bundle("/r/a=b"); }, E::bundle_path_unsafe},
        Bad{"colon_in_bundle", [](auto& b) { b.bundle("/r/a:b"); }, E::bundle_path_unsafe},
        Bad{"quote_in_bundle", [](auto& b) { b.bundle("/r/a\"b"); }, E::bundle_path_unsafe},
        Bad{"newline_in_bundle", [](auto& b) { b.bundle("/r/a\nb"); }, E::bundle_path_unsafe},
        Bad{"del_in_bundle", [](auto& b) { b.bundle("/r/a\x7f"); }, E::bundle_path_unsafe},
        Bad{"dotdot_in_bundle", [](auto& b) { b.bundle("/r/../etc"); }, E::bundle_path_unsafe},
        Bad{"dotdot_ends_bundle", [](auto& b) { b.bundle("/r/b/.."); }, E::bundle_path_unsafe},
        Bad{"short_run_id", [](auto& b) { b.run_id("abc"); }, E::run_id_malformed},
        Bad{"upper_run_id", [](auto& b) { b.run_id("0123456789ABCDEF0123456789abcdef"); }, E::run_id_malformed},
        Bad{"flag_run_id", [](auto& b) { b.run_id("--privileged=true-0123456789abcd"); }, E::run_id_malformed},
        Bad{"owner_no_colons", [](auto& b) { b.owner("1234"); }, E::owner_malformed},
        Bad{"owner_flag", [](auto& b) { b.owner("--privileged:1:2"); }, E::owner_malformed},
        Bad{"owner_upper", [](auto& b) { b.owner("ABC:1:2"); }, E::owner_malformed},
        Bad{"owner_empty_part", [](auto& b) { b.owner("abc::2"); }, E::owner_malformed},
        Bad{"root_uid", [](auto& b) { b.user(0, 100); }, E::root_user},
        Bad{"root_gid", [](auto& b) { b.user(100, 0); }, E::root_user},
        Bad{"huge_uid", [](auto& b) { b.user(4294967295u, 100); }, E::user_out_of_range},
        Bad{"zero_memory",
            [](auto& b) {
              sb::SandboxLimits l;
              l.memory_mib = 0;
              b.limits(l);
            },
            E::limits_out_of_bounds},
        Bad{"cpuset_empty", [](auto& b) { b.cpuset(""); }, E::cpuset_malformed},
        Bad{"cpuset_flag", [](auto& b) { b.cpuset("0 --privileged"); }, E::cpuset_malformed},
        Bad{"cpuset_descending", [](auto& b) { b.cpuset("3,1"); }, E::cpuset_malformed},
        Bad{"cpuset_overlap", [](auto& b) { b.cpuset("0-3,2"); }, E::cpuset_malformed},
        Bad{"cpuset_backwards_range", [](auto& b) { b.cpuset("3-1"); }, E::cpuset_malformed},
        Bad{"cpuset_trailing_comma", [](auto& b) { b.cpuset("0,"); }, E::cpuset_malformed},
        Bad{"cpuset_leading_zero", [](auto& b) { b.cpuset("01"); }, E::cpuset_malformed},
        Bad{"cpuset_too_high", [](auto& b) { b.cpuset("4096"); }, E::cpuset_malformed},
        Bad{"first_error_sticks", [](auto& b) { b.user(0, 0).script("rel").run_id("x"); }, E::root_user}),
    PrintBad);

TEST(ContainerSpec, MissingPartsAreReported) {
  sb::sandbox_policy_builder none;
  EXPECT_EQ(none.build().error, E::missing_image);
  sb::sandbox_policy_builder no_script;
  no_script.image(*sb::parse_image_id(kImage).id).run_id(kRun);
  EXPECT_EQ(no_script.build().error, E::missing_script);
  sb::sandbox_policy_builder no_run;
  no_run.image(*sb::parse_image_id(kImage).id).script(kScript);
  EXPECT_EQ(no_run.build().error, E::missing_run_id);
  sb::sandbox_policy_builder no_owner;
  no_owner.image(*sb::parse_image_id(kImage).id).script(kScript).run_id(kRun);
  EXPECT_EQ(no_owner.build().error, E::missing_owner);
}

TEST(ContainerSpec, LimitViolationNamesTheField) {
  sb::SandboxLimits l;
  l.wall_seconds = 99999;
  const auto r = base().limits(l).build();
  ASSERT_EQ(r.error, E::limits_out_of_bounds);
  EXPECT_EQ(r.violation.field, sb::limit_field::wall_seconds);
  EXPECT_EQ(r.violation.value, 99999u);
}

TEST(ContainerSpec, ProbeHasEveryControlButNoMount) {
  sb::sandbox_policy_builder b;
  b.image(*sb::parse_image_id(kImage).id).run_id(kRun).owner(kOwner).cpuset("0");
  EXPECT_EQ(b.build().error, E::missing_script);
  const auto r = b.build_probe();
  ASSERT_TRUE(r) << sb::message(r.error);
  auto probe = r.spec->docker_probe_arguments();
  auto full = base().build().spec->docker_run_arguments();
  // The probe is the scoring argv minus the mount, with -c CODE in place of the script, and the
  // probe's own deadline: the 30 s start allowance, its 60 s watchdog and the 10 s grace.
  std::replace(full.begin(), full.end(), std::string("--label=plb-sandbox.expires-after=70"),
               std::string("--label=plb-sandbox.expires-after=100"));
  full.erase(std::remove_if(full.begin(), full.end(), [](const std::string& a) { return a.starts_with("--mount="); }),
             full.end());
  full.pop_back();
  full.push_back("-c");
  full.push_back(std::string(sb::policy_constants::probe_code));
  EXPECT_EQ(probe, full);
}

TEST(ContainerSpec, DeadlineLabelFollowsTheStartAllowanceAndTheWallTime) {
  sb::SandboxLimits l;
  l.wall_seconds = 3600;  // the bound's top: the label still carries start + wall + grace
  l.start_seconds = 45;
  const auto r = base().limits(l).build();
  ASSERT_TRUE(r) << sb::message(r.error);
  const auto argv = r.spec->docker_run_arguments();
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--label=plb-sandbox.expires-after=3655"), argv.end());
}

// A run given a bundle gets exactly one more argument than one without: the bundle snapshot's
// read-only mount at its fixed target, right after the script's. Nothing else changes.
TEST(ContainerSpec, ABundleAddsOneReadOnlyMountAndNothingElse) {
  const std::string dir = "/var/lib/plb-sandbox/runs/abc/bundle";
  const auto with = base().bundle(dir).build();
  ASSERT_TRUE(with) << sb::message(with.error);
  EXPECT_EQ(with.spec->bundle_path(), dir);
  auto argv = with.spec->docker_run_arguments();
  const std::string mount = "--mount=type=bind,source=" + dir + ",target=/sandbox/bundle,readonly";
  EXPECT_EQ(sb::policy_constants::bundle_target, "/sandbox/bundle");
  const auto at = std::find(argv.begin(), argv.end(), mount);
  ASSERT_NE(at, argv.end());
  ASSERT_NE(at, argv.begin());
  EXPECT_EQ(*(at - 1), "--mount=type=bind,source=" + kScript + ",target=/sandbox/model.py,readonly");
  argv.erase(at);
  EXPECT_EQ(argv, base().build().spec->docker_run_arguments());
}

// Without bundle() the argv is the one-mount argv of DefaultArgvInFull: one --mount, the script's.
TEST(ContainerSpec, WithoutABundleThereIsOneMount) {
  const auto r = base().build();
  ASSERT_TRUE(r);
  EXPECT_EQ(r.spec->bundle_path(), "");
  const auto argv = r.spec->docker_run_arguments();
  EXPECT_EQ(std::count_if(argv.begin(), argv.end(), [](const std::string& a) { return a.starts_with("--mount="); }),
            1);
  for (const auto& a : argv) EXPECT_EQ(a.find("/sandbox/bundle"), std::string::npos) << a;
}

// The probe mounts nothing, bundle or not.
TEST(ContainerSpec, TheProbeNeverMountsTheBundle) {
  auto b = base();
  b.bundle("/var/lib/plb-sandbox/runs/abc/bundle");
  const auto r = b.build_probe();
  ASSERT_TRUE(r);
  for (const auto& a : r.spec->docker_probe_arguments()) EXPECT_FALSE(a.starts_with("--mount=")) << a;
}
