// SPDX-License-Identifier: Apache-2.0
// The state directories on their real paths, in a private mount namespace (private_state.hpp):
// made with their modes whatever the umask, and each way one can be unsafe (missing, a symlink,
// not root's, writable by others) refused with the directory's name and the command that mends it.
#include "runner/state/state_dirs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "private_state.hpp"

namespace plb::runner {
namespace {

// "" when `r` is a refusal whose detail holds `detail` and whose fix holds `fix`; else what it is.
template <class T>
std::string refused(const host_result<T>& r, const std::string& detail, const std::string& fix) {
  if (r) return "accepted, expected a refusal saying: " + detail;
  if (r.error().detail.find(detail) == std::string::npos || r.error().fix.find(fix) == std::string::npos)
    return "refused as \"" + r.error().detail + ": " + r.error().fix + "\", expected \"" + detail + "\" and \"" + fix +
           "\"";
  return "";
}

std::string mode_of(const char* path, mode_t expected) {
  struct stat st {};
  if (::lstat(path, &st) != 0) return std::string(path) + " is missing";
  if ((st.st_mode & 07777) != expected) return std::string(path) + " has mode " + std::to_string(st.st_mode & 07777);
  return "";
}

class StateDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the state directories are root's";
  }
};

TEST_F(StateDirs, AreMadeWithTheirModesWhateverTheUmask) {
  EXPECT_EQ(test::in_private_state([] {
              ::umask(0077);
              if (const auto r = check_state_dirs(true); !r) return "refused: " + r.error().detail;
              for (const std::string m : {mode_of(state_dir, 0755), mode_of(runs_dir, 0700), mode_of(cache_dir, 0700)})
                if (!m.empty()) return m;
              if (!check_state_dirs(false)) return std::string("refused once made");
              return std::string(open_runs_dir() && open_state_dir() && open_cache_dir(false) ? "" : "not opened");
            }),
            "");
}

TEST_F(StateDirs, AMissingOneIsRefusedUnlessMade) {
  EXPECT_EQ(
      test::in_private_state([] {
        if (auto s = refused(check_state_dirs(false), "/var/lib/plb-sandbox is missing", "install -d"); !s.empty())
          return s;
        if (::mkdir(state_dir, 0755) != 0) return std::string("mkdir");
        if (auto s = refused(open_cache_dir(false), "/var/cache/plb-sandbox is missing", "700 /var/cache"); !s.empty())
          return s;
        return refused(check_state_dirs(false), "/var/lib/plb-sandbox/runs is missing", "700 ");
      }),
      "");
}

TEST_F(StateDirs, ASymlinkIsRefusedEvenWhenAskedToCreate) {
  EXPECT_EQ(
      test::in_private_state([] {
        if (::mkdir(state_dir, 0755) != 0 || ::mkdir("/var/lib/elsewhere", 0700) != 0 ||
            ::symlink("/var/lib/elsewhere", runs_dir) != 0)
          return std::string("set-up");
        if (auto s = refused(check_state_dirs(true), "runs is not a real directory", "rm /var/lib/plb-sandbox/runs");
            !s.empty())
          return s;
        return refused(open_runs_dir(), "runs is not a real directory", "rm ");
      }),
      "");
}

TEST_F(StateDirs, OneNotRootsOrWritableByOthersIsRefused) {
  EXPECT_EQ(
      test::in_private_state([] {
        if (!check_state_dirs(true)) return std::string("set-up");
        if (::chown(cache_dir, 1000, 0) != 0) return std::string("chown");
        if (auto s = refused(check_state_dirs(false), "owned by uid 1000, not root", "chown root:root /var/cache");
            !s.empty())
          return s;
        if (::chown(cache_dir, 0, 0) != 0 || ::chmod(runs_dir, 0720) != 0) return std::string("chmod");
        if (auto s = refused(open_runs_dir(), "writable by group or others (mode 0720)", "chmod go-w"); !s.empty())
          return s;
        if (::chmod(runs_dir, 0700) != 0 || ::chmod(state_dir, 0757) != 0) return std::string("chmod");
        return refused(open_state_dir(), "/var/lib/plb-sandbox is writable by group or others (mode 0757)",
                       "chmod go-w /var/lib/plb-sandbox");
      }),
      "");
}

}  // namespace
}  // namespace plb::runner
