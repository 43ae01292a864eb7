// SPDX-License-Identifier: Apache-2.0
// A run's directory on the real paths, in a private mount namespace (../state/private_state.hpp):
// made private with its lock and the client's configuration, removed at the end; and the sweep's
// probe of it: alive while a process holds the lock (this one or a forked child), dead once none
// does, a lockless one alive only while young, anything not a run's directory missing.
#include "runner/container/run_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <ctime>
#include <string>

#include "../../../harness/forked_child.hpp"
#include "../state/private_state.hpp"
#include "runner/state/state_dirs.hpp"

namespace plb::runner {
namespace {

const std::string id_a(32, 'a'), id_b(32, 'b');

const char* name(run_liveness l) {
  return l == run_liveness::alive ? "alive" : l == run_liveness::dead ? "dead" : "missing";
}

// "" when the probe of `id` says `expected`.
std::string probes(int runs, const std::string& id, run_liveness expected, const std::string& when) {
  const run_liveness got = probe_run(runs, id, 10);
  return got == expected ? "" : when + ": " + name(got) + ", expected " + name(expected);
}

class RunDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the run directories are root's";
  }
};

TEST_F(RunDirectory, IsPrivateLockedAndGoneAtTheEnd) {
  EXPECT_EQ(test::in_private_state([] {
              const auto runs = open_runs_dir();
              if (!runs) return "refused: " + runs.error().detail;
              {
                const run_directory dir(id_a);
                if (dir.path() != std::string(runs_dir) + "/" + id_a) return "at " + dir.path();
                struct stat st {};
                if (::stat(dir.path().c_str(), &st) != 0 || (st.st_mode & 07777) != 0700)
                  return std::string("not 0700");
                if (::stat(dir.docker_config_dir().c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
                  return std::string("no docker-config");
                if (auto s = probes(runs->get(), id_a, run_liveness::alive, "while held"); !s.empty()) return s;
              }
              if (::access((std::string(runs_dir) + "/" + id_a).c_str(), F_OK) == 0) return std::string("left behind");
              return probes(runs->get(), id_a, run_liveness::missing, "after the run");
            }),
            "");
}

TEST_F(RunDirectory, TheProbeTellsLiveDeadAndYoungApart) {
  EXPECT_EQ(test::in_private_state([] {
              const auto runs = open_runs_dir();
              if (!runs) return "refused: " + runs.error().detail;
              const int fd = runs->get();
              // A lock held by another process, then by none: that process died.
              int ready[2];
              if (::pipe(ready) != 0) return std::string("pipe");
              if (::mkdirat(fd, id_b.c_str(), 0700) != 0) return std::string("mkdir");
              const std::string lock = std::string(runs_dir) + "/" + id_b + "/" + run_lock_file;
              test::forked_child holder([&] {
                const int l = ::open(lock.c_str(), O_RDWR | O_CREAT, 0600);
                if (l < 0 || ::flock(l, LOCK_EX) != 0) ::_exit(1);
                (void)!::write(ready[1], "x", 1);
                ::pause();
              });
              char c = 0;
              if (::read(ready[0], &c, 1) != 1) return std::string("the holder never locked");
              if (auto s = probes(fd, id_b, run_liveness::alive, "held by a child"); !s.empty()) return s;
              holder.stop();
              if (auto s = probes(fd, id_b, run_liveness::dead, "its holder killed"); !s.empty()) return s;
              // No lock file yet: being created while young, dead once old.
              if (::unlink(lock.c_str()) != 0) return std::string("unlink");
              if (auto s = probes(fd, id_b, run_liveness::alive, "lockless and young"); !s.empty()) return s;
              const timespec old[2] = {{std::time(nullptr) - 11 * 60, 0}, {std::time(nullptr) - 11 * 60, 0}};
              if (::utimensat(fd, id_b.c_str(), old, 0) != 0) return std::string("utimensat");
              if (auto s = probes(fd, id_b, run_liveness::dead, "lockless for 11 minutes"); !s.empty()) return s;
              // Not a run's directory at all.
              if (::fchownat(fd, id_b.c_str(), 1000, 0, 0) != 0) return std::string("chown");
              if (auto s = probes(fd, id_b, run_liveness::missing, "not root's"); !s.empty()) return s;
              if (auto s = probes(fd, "../runs", run_liveness::missing, "not a run ID"); !s.empty()) return s;
              return probes(fd, std::string(32, 'c'), run_liveness::missing, "absent");
            }),
            "");
}

TEST(RunIdSyntax, OnlyThirtyTwoLowercaseHexDigits) {
  EXPECT_TRUE(is_run_id(std::string(32, '0')));
  EXPECT_TRUE(is_run_id("0123456789abcdef0123456789abcdef"));
  for (const std::string& bad :
       {std::string(31, 'a'), std::string(33, 'a'), std::string(32, 'A'),
        std::string("0123456789abcdef0123456789abcdeg"), std::string(), "../" + std::string(29, 'a')})
    EXPECT_FALSE(is_run_id(bad)) << bad;
}

}  // namespace
}  // namespace plb::runner
