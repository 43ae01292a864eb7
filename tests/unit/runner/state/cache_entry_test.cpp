// SPDX-License-Identifier: Apache-2.0
// The cache's entries on their real paths, in a private mount namespace (private_state.hpp): an
// entry stored is read back, written whole (no temporary left) and private; an entry is a miss
// when it, its subdirectory or the cache could have been written by anyone but root, is a
// symlink, or is larger than an entry can be.
#include "runner/state/cache_entry.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "private_state.hpp"
#include "runner/state/state_dirs.hpp"

namespace plb::runner {
namespace {

const std::string subdir = std::string(cache_dir) + "/proofs";
const std::string entry = subdir + "/key";

// "" when the entry reads as `expected` (nullopt: a miss).
std::string reads(const std::optional<std::string>& expected) {
  const auto got = read_cache_entry("proofs", "key");
  if (got == expected) return "";
  return "read " + (got ? "\"" + *got + "\"" : std::string("a miss")) + ", expected " +
         (expected ? "\"" + *expected + "\"" : std::string("a miss"));
}

class CacheEntry : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the cache is root's";
  }
};

TEST_F(CacheEntry, AStoredEntryIsReadBackWholeAndPrivate) {
  EXPECT_EQ(test::in_private_state([] {
              if (auto s = reads(std::nullopt); !s.empty()) return "before any store: " + s;
              store_cache_entry("proofs", "key", "runsc 2022-12-19\n");
              if (auto s = reads("runsc 2022-12-19\n"); !s.empty()) return s;
              store_cache_entry("proofs", "key", "replaced");
              if (auto s = reads("replaced"); !s.empty()) return s;
              struct stat st {};
              if (::stat(entry.c_str(), &st) != 0 || (st.st_mode & 0777) != 0600) return std::string("not 0600");
              for (const auto& f : std::filesystem::directory_iterator(subdir))
                if (f.path().filename() != "key") return "left behind: " + f.path().string();
              return std::string();
            }),
            "");
}

TEST_F(CacheEntry, WhatAnotherUserCouldHaveWrittenIsAMiss) {
  EXPECT_EQ(test::in_private_state([] {
              store_cache_entry("proofs", "key", "trusted");
              if (auto s = reads("trusted"); !s.empty()) return s;
              if (::chown(entry.c_str(), 1000, 0) != 0) return std::string("chown");
              if (auto s = reads(std::nullopt); !s.empty()) return "an entry not root's: " + s;
              if (::chown(entry.c_str(), 0, 0) != 0 || ::chmod(subdir.c_str(), 0733) != 0) return std::string("chmod");
              if (auto s = reads(std::nullopt); !s.empty()) return "a subdirectory others write: " + s;
              store_cache_entry("proofs", "key", "stored anyway");
              if (::chmod(subdir.c_str(), 0700) != 0) return std::string("chmod");
              if (auto s = reads("trusted"); !s.empty()) return "stored into an unsafe subdirectory: " + s;
              if (::chmod(cache_dir, 0777) != 0) return std::string("chmod");
              if (auto s = reads(std::nullopt); !s.empty()) return "a cache others write: " + s;
              return std::string();
            }),
            "");
}

TEST_F(CacheEntry, ASymlinkOrAnOversizedEntryIsAMiss) {
  EXPECT_EQ(test::in_private_state([] {
              store_cache_entry("proofs", "real", "planted");
              if (::symlink((subdir + "/real").c_str(), entry.c_str()) != 0) return std::string("symlink");
              if (auto s = reads(std::nullopt); !s.empty()) return "a symlink: " + s;
              ::unlink(entry.c_str());
              std::ofstream(entry) << std::string(64 * 1024 + 1, 'x');
              if (auto s = reads(std::nullopt); !s.empty()) return "past 64 KiB: " + s.substr(0, 40);
              std::ofstream(entry, std::ios::trunc) << std::string(64 * 1024, 'x');
              return std::string(read_cache_entry("proofs", "key") ? "" : "64 KiB exactly is a miss");
            }),
            "");
}

}  // namespace
}  // namespace plb::runner
