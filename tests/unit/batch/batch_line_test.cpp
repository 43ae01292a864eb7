// SPDX-License-Identifier: Apache-2.0
// Where a batch starts (start_batch, batch_line.cpp): each line's earlier files, real ones in a
// scratch directory, judged by resume; a forged record or a junk file fails its own line alone.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <vector>

#include "batch/backend.hpp"
#include "batch/batch_records.hpp"
#include "batch/batch_resume.hpp"
#include "batch_fixture.hpp"

namespace plb::batch {
namespace {

namespace fs = std::filesystem;

TEST_F(BatchTrust, AForgedRecordOrCsvInAProperDirectoryIsNotKept) {
  const batch_plan p = plan(line("a") + line("b"));
  const output_dir dir = out();
  const auto fingerprint = [&](const batch_item& i) {
    return request_fingerprint(i, data_digests().of(i.request.data_path));
  };
  // A failure record whose fields would inject into the summary, with a MAC of someone else's key.
  ASSERT_EQ(::mkdir((dir_ + "/.other").c_str(), 0700), 0);
  line_outcome forged{"script_failed", 8, "=HYPERLINK(\"x\")", std::nullopt, "", {}};
  write("a.result.json", render_record(p.item(0), forged, fingerprint(p.item(0)), "", key(".other")));
  // A success record copied from line a's (valid MAC, this key) to line b's name, with a planted pair.
  plant_outputs("b");
  const auto facts = examine_outputs(dir, "b");
  ASSERT_TRUE(facts) << facts.error().what;
  write("b.result.json", render_record(p.item(0), {"success", 0, "m", std::nullopt, facts->predictions_sha256, {}},
                                       facts->fingerprint, facts->provenance_sha256, dir.key));
  const batch_start s = start_batch(config(), p, dir);
  ASSERT_EQ(s.outcomes[0].state, "not_run");
  EXPECT_NE(s.outcomes[0].message.find("a.result.json: its MAC does not verify"), std::string::npos)
      << s.outcomes[0].message;
  ASSERT_EQ(s.outcomes[1].state, "not_run");
  EXPECT_NE(s.outcomes[1].message.find("a record of another line"), std::string::npos) << s.outcomes[1].message;
  EXPECT_TRUE(s.to_run.empty()) << "neither line runs over files it did not write";
  EXPECT_EQ(s.outcomes[0].message.find("HYPERLINK"), std::string::npos);
}

TEST_F(BatchTrust, AJunkFileOrSymlinkFailsItsOwnLineOnly) {
  const batch_plan p = plan(line("a") + line("b") + line("c") + line("d") + line("e") + line("f"));
  const output_dir dir = out();
  write("a.result.json", "not json at all");
  fs::create_symlink("/etc/passwd", dir_ + "/b.result.json");
  ASSERT_EQ(::mkfifo((dir_ + "/c.result.json").c_str(), 0600), 0);  // must not block the batch
  write("d.result.json", signed_record(p.item(3), dir.key));
  ASSERT_EQ(::chown((dir_ + "/d.result.json").c_str(), nobody, nobody), 0);  // a valid record of another user
  fs::create_symlink(dir_ + "/in.csv", dir_ + "/e.csv");
  const batch_start s = start_batch(config(), p, dir);
  const char* expected[] = {"a.result.json: not a batch record", "b.result.json is a symbolic link",
                            "c.result.json is a FIFO", "d.result.json is owned by uid 65534",
                            "e.csv is a symbolic link"};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(s.outcomes[i].state, "not_run") << i;
    EXPECT_NE(s.outcomes[i].message.find(expected[i]), std::string::npos) << s.outcomes[i].message;
  }
  EXPECT_EQ(s.outcomes[5].state, "pending");
  EXPECT_EQ(s.to_run, std::vector<std::size_t>{5}) << "the clean line still runs";
}

}  // namespace
}  // namespace plb::batch
