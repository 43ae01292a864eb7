// SPDX-License-Identifier: Apache-2.0
// The output directory (open_output_dir) on real directories in a scratch directory: made 0700 and
// locked for one batch; a link, a stranger's or a group- or world-writable one refused with the fix.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "batch/batch_output_dir.hpp"
#include "batch_fixture.hpp"
#include "support/failure.hpp"

namespace plb::batch {
namespace {

namespace fs = std::filesystem;

TEST_F(BatchFiles, OutputDirectoryIsCreatedPrivateAndLockedForOneBatch) {
  const std::string out = dir_ + "/out";
  const output_dir locked = open_output_dir(out, true, key());
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_THROW(open_output_dir(out, true, key()), failure) << "a second batch on the same directory";
  EXPECT_NO_THROW(open_output_dir(out, false, key())) << "Slurm tasks write their own lines without the lock";
  fs::create_symlink(out, dir_ + "/link");
  EXPECT_THROW(open_output_dir(dir_ + "/link", false, key()), failure);
}

TEST_F(BatchTrust, AForeignOrWorldWritableOutputDirectoryIsRefusedBeforeAnythingIsRead) {
  for (const bool foreign : {false, true}) {
    const std::string out = dir_ + (foreign ? "/foreign" : "/open");
    ASSERT_EQ(::mkdir(out.c_str(), 0700), 0);
    // A planted pair built from public facts, as an attacker with write access would leave it.
    std::ofstream(out + "/a.csv") << "row,prediction\n0,1\n";
    std::ofstream(out + "/a.csv.sandbox.json") << "{}";
    if (foreign) {
      ASSERT_EQ(::chown(out.c_str(), nobody, nobody), 0);
    } else {
      ASSERT_EQ(::chmod(out.c_str(), 0777), 0);
    }
    const std::string why = refusal([&] { (void)open_output_dir(out, false, key()); });
    EXPECT_NE(why.find("--output-dir " + out + ": "), std::string::npos) << why;
    if (foreign) {
      EXPECT_NE(why.find("owned by uid 65534, not by this user"), std::string::npos) << why;
      EXPECT_NE(why.find("chown " + std::to_string(::geteuid()) + " " + out), std::string::npos) << why;
    } else {
      EXPECT_NE(why.find("writable by group or others (mode 0777)"), std::string::npos) << why;
      EXPECT_NE(why.find("chmod go-w " + out), std::string::npos) << why;
    }
    EXPECT_NE(why.find("use a new directory"), std::string::npos) << why;
  }
  ASSERT_EQ(::chmod(dir_.c_str(), 0720), 0);  // group-writable is refused too
  EXPECT_NE(refusal([&] { (void)open_output_dir(dir_, false, key()); }).find("mode 0720"), std::string::npos);
}

}  // namespace
}  // namespace plb::batch
