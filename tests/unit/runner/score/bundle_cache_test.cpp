// SPDX-License-Identifier: Apache-2.0
// The bundle cache on real files, under private, empty /var/lib and /var/cache (a forked child in
// a mount namespace of its own: private_state.hpp): a miss copies and the next run reads nothing;
// a touched directory is read again and its stamp renewed; a changed byte or a hostile entry is
// refused though the reviewed copy is cached; another directory with the same files uses the
// entry; eviction takes the least recently used entry and never one in use; a killed run's
// staging directory goes; two runs missing the same digest at once both succeed with one entry;
// an unsafe cache directory refuses the run.
#include "runner/score/bundle_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../../temp_dir.hpp"
#include "../state/private_state.hpp"
#include "runner/container/run_directory.hpp"
#include "runner/state/state_dirs.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

namespace fs = std::filesystem;

const std::string bundles = std::string(cache_dir) + "/" + bundle_cache_subdir;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The names in the cache's directory, sorted, joined by spaces.
std::string cache_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(bundles)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

class BundleCache : public test::temp_dir_test {
 protected:
  BundleCache() : temp_dir_test("plb-bundle-cache") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    if (::geteuid() != 0) GTEST_SKIP() << "the cache and run directories are root's";
  }
  // A bundle directory `name` under the test's directory holding `files` (path, text).
  std::string make_bundle(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files) {
    const std::string root = dir_ + "/" + name;
    for (const auto& [rel, text] : files) {
      const fs::path p = fs::path(root) / rel;
      fs::create_directories(p.parent_path());
      std::ofstream(p, std::ios::binary) << text;
    }
    return root;
  }
  static sandbox::sha256_digest reviewed(const std::string& root) {
    const auto l = digest_bundle(root, {});
    if (!l) throw std::runtime_error("digest: " + l.error().message());
    return l->digest;
  }
  // take_cached_bundle for the run `id` (whose run directory the caller holds).
  static cached_bundle take(const std::string& root, const sandbox::sha256_digest& d, const std::string& id,
                            std::uint64_t bound = bundle_cache_mib << 20) {
    const sandbox::SandboxLimits limits;
    return take_cached_bundle({root, d, limits, id, 65534, 65534, "--bundle", "--bundle-sha256", bound});
  }
  // What take_cached_bundle threw: "verdict: message", or "accepted".
  static std::string refusal(const std::string& root, const sandbox::sha256_digest& d, const std::string& id) {
    try {
      take(root, d, id);
      return "accepted";
    } catch (const failure& f) {
      return std::string(sandbox::name(f.verdict())) + ": " + f.what();
    }
  }
};

const std::string run_a(32, 'a'), run_b(32, 'b'), run_c(32, 'c');

TEST_F(BundleCache, AMissCopiesAndTheNextRunUsesTheCopyWithoutReadingTheDirectory) {
  const std::string root = make_bundle("b", {{"w/model.bin", std::string(1 << 20, 'w')}, {"config.json", "{}"}});
  const auto d = reviewed(root);
  EXPECT_EQ(
      test::in_private_state([&]() -> std::string {
        const run_directory dir(run_a);
        {
          const cached_bundle first = take(root, d, run_a);
          if (!first.copied || !first.read) return "a miss did not copy";
          if (first.snapshot.path != bundles + "/" + d.hex() + "/tree" || first.snapshot.path != bundle_cache_tree(d))
            return "the entry is at " + first.snapshot.path;
          if (first.snapshot.files != 2 || first.snapshot.bytes != (1u << 20) + 2) return "counted wrong";
          if (read_all(first.snapshot.path + "/w/model.bin") != std::string(1 << 20, 'w')) return "other bytes";
          struct stat st {};
          if (::stat((first.snapshot.path + "/config.json").c_str(), &st) != 0 || st.st_uid != 65534 ||
              (st.st_mode & 07777) != 0400)
            return std::string("the copy is not the sandbox user's and read-only");
        }
        const cached_bundle second = take(root, d, run_a);
        if (second.copied || second.read) return "the second run read or copied the bundle again";
        if (second.snapshot.path != bundle_cache_tree(d) || second.snapshot.files != 2 ||
            second.snapshot.bytes != (1u << 20) + 2 || second.snapshot.digest.hex() != d.hex())
          return "the hit reports another snapshot";
        if (cache_names() != d.hex()) return "the cache holds: " + cache_names();
        return "";
      }),
      "");
}

TEST_F(BundleCache, ATouchedDirectoryIsReadAgainAndItsStampRenewed) {
  const std::string root = make_bundle("b", {{"weights.json", "[1, 2]"}});
  const auto d = reviewed(root);
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              const run_directory dir(run_a);
              take(root, d, run_a);
              std::ofstream(root + "/weights.json", std::ios::binary) << "[1, 2]";  // the same bytes, written
              const cached_bundle again = take(root, d, run_a);
              if (again.copied || !again.read) return "a written file was not read again";
              const cached_bundle third = take(root, d, run_a);
              if (third.read) return "the renewed stamp was not kept";
              return "";
            }),
            "");
}

TEST_F(BundleCache, AChangedByteOrAHostileEntryIsRefusedThoughTheReviewedCopyIsCached) {
  const std::string root = make_bundle("b", {{"weights.json", "[1, 2]"}});
  const auto d = reviewed(root);
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              const run_directory dir(run_a);
              take(root, d, run_a);
              std::ofstream(root + "/weights.json", std::ios::binary) << "[1, 3]";
              const std::string changed = refusal(root, d, run_a);
              if (changed.find("input_refused: --bundle " + root + " has SHA-256 ") != 0 ||
                  changed.find("not the reviewed " + d.hex() + " given by --bundle-sha256") == std::string::npos)
                return "a changed byte: " + changed;
              std::ofstream(root + "/weights.json", std::ios::binary) << "[1, 2]";
              if (::symlink("/etc/shadow", (root + "/shadow").c_str()) != 0) return std::string("symlink");
              const std::string linked = refusal(root, d, run_a);
              if (linked.find("input_refused: --bundle " + root + ": shadow: a symbolic link") != 0)
                return "a symlink beside the reviewed files: " + linked;
              if (cache_names() != d.hex()) return "the cache holds: " + cache_names();
              return "";
            }),
            "");
}

TEST_F(BundleCache, AnotherDirectoryWithTheSameFilesUsesTheEntry) {
  const std::string root = make_bundle("b", {{"a/x.bin", "xx"}, {"y.bin", "y"}});
  const std::string copy = make_bundle("elsewhere", {{"a/x.bin", "xx"}, {"y.bin", "y"}});
  const auto d = reviewed(root);
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              const run_directory dir(run_a);
              take(root, d, run_a);
              const cached_bundle other = take(copy, d, run_a);
              if (other.copied || !other.read) return "another directory was not read, or copied again";
              return cache_names() == d.hex() ? "" : "the cache holds: " + cache_names();
            }),
            "");
}

TEST_F(BundleCache, EvictionTakesTheLeastRecentlyUsedEntryAndNeverOneInUse) {
  const std::string one = make_bundle("one", {{"w.bin", std::string(1000, '1')}});
  const std::string two = make_bundle("two", {{"w.bin", std::string(1000, '2')}});
  const std::string three = make_bundle("three", {{"w.bin", std::string(1000, '3')}});
  const auto d1 = reviewed(one), d2 = reviewed(two), d3 = reviewed(three);
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              const run_directory dir(run_a);
              take(one, d1, run_a, 2000);
              take(two, d2, run_a, 2000);
              // Two takes may share one tick of the file system's clock: the order of use is set.
              for (const auto& [d, seconds] : {std::pair{d1, 100}, std::pair{d2, 200}}) {
                const struct timespec used[2] = {{seconds, 0}, {seconds, 0}};
                if (::utimensat(AT_FDCWD, (bundles + "/" + d.hex()).c_str(), used, 0) != 0)
                  return std::string("utimensat");
              }
              // Room for two: the third evicts the least recently used, the first.
              take(three, d3, run_a, 2000);
              if (fs::exists(bundles + "/" + d1.hex()) || !fs::exists(bundles + "/" + d2.hex()))
                return "not the least recently used evicted: " + cache_names();
              // The second, made the oldest, is held by a run: the first's return evicts the third instead.
              const cached_bundle in_use = take(two, d2, run_a, 2000);
              const struct timespec long_ago[2] = {{1, 0}, {1, 0}};
              if (::utimensat(AT_FDCWD, (bundles + "/" + d2.hex()).c_str(), long_ago, 0) != 0)
                return std::string("utimensat");
              take(one, d1, run_a, 2000);
              if (!fs::exists(bundles + "/" + d2.hex()) || fs::exists(bundles + "/" + d3.hex()))
                return "the eviction took an entry in use: " + cache_names();
              if (read_all(in_use.snapshot.path + "/w.bin") != std::string(1000, '2')) return "the held copy changed";
              return cache_names().find(".evicting-") == std::string::npos ? "" : "left: " + cache_names();
            }),
            "");
}

TEST_F(BundleCache, AKilledRunsStagingDirectoryGoesAndALiveRunsStays) {
  const std::string root = make_bundle("b", {{"w.bin", "w"}});
  const auto d = reviewed(root);
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              const run_directory dir(run_a);
              const run_directory live(run_c);
              take(root, d, run_a);                                              // makes the cache's directories
              fs::create_directories(bundles + "/.staging-" + run_b + "/tree");  // run_b: no run directory
              fs::create_directories(bundles + "/.staging-" + run_c + "/tree");  // run_c: alive
              const std::string other = make_bundle("other", {{"w.bin", "v"}});
              take(other, reviewed(other), run_a);  // a miss: the eviction pass tidies
              if (fs::exists(bundles + "/.staging-" + run_b)) return "a dead run's staging directory was left";
              if (!fs::exists(bundles + "/.staging-" + run_c)) return "a live run's staging directory was removed";
              return "";
            }),
            "");
}

TEST_F(BundleCache, TwoRunsMissingTheSameDigestAtOnceShareOneEntry) {
  const std::string root = make_bundle("b", {{"w.bin", std::string(8 << 20, 'w')}});
  const auto d = reviewed(root);
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              const run_directory a(run_a), b(run_b);
              std::string said_a, said_b;
              std::optional<cached_bundle> got_a, got_b;
              std::thread ta([&] {
                try {
                  got_a = take(root, d, run_a);
                } catch (const std::exception& e) {
                  said_a = e.what();
                }
              });
              std::thread tb([&] {
                try {
                  got_b = take(root, d, run_b);
                } catch (const std::exception& e) {
                  said_b = e.what();
                }
              });
              ta.join();
              tb.join();
              if (!got_a || !got_b) return "a run failed: " + said_a + said_b;
              if (got_a->snapshot.path != got_b->snapshot.path) return std::string("two entries");
              if (cache_names() != d.hex()) return "the cache holds: " + cache_names();
              return read_all(got_a->snapshot.path + "/w.bin") == std::string(8 << 20, 'w') ? "" : "other bytes";
            }),
            "");
}

TEST_F(BundleCache, ACacheDirectoryOthersMayWriteRefusesTheRun) {
  const std::string root = make_bundle("b", {{"w.bin", "w"}});
  const auto d = reviewed(root);
  EXPECT_EQ(test::in_private_state([&]() -> std::string {
              const run_directory dir(run_a);
              take(root, d, run_a);
              ::chmod(bundles.c_str(), 0777);
              const std::string said = refusal(root, d, run_a);
              if (said.find("host_refused: the bundle cache " + bundles + " is not root's alone") != 0)
                return "an unsafe cache: " + said;
              return "";
            }),
            "");
}

}  // namespace
}  // namespace plb::runner
