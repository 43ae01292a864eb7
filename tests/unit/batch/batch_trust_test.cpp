// SPDX-License-Identifier: Apache-2.0
// What a batch trusts in its output directory, on real files: only a directory of its own user
// that nobody else can write, only records its key verifies, only regular files of its user
// (never through a symlink), a junk file failing its own line alone, a key file that is root's
// and secret, and a summary whose every cell is rendered from a validated value.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "batch/backend.hpp"
#include "batch/batch_records.hpp"
#include "batch/batch_resume.hpp"
#include "batch_fixture.hpp"
#include "support/failure.hpp"

namespace plb::batch {
namespace {

namespace fs = std::filesystem;
constexpr uid_t nobody = 65534;

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const failure& e) {
    return e.what();
  }
  return "accepted";
}

class BatchTrust : public BatchDir {
 protected:
  batch_plan plan(const std::string& manifest) {
    write("manifest.jsonl", manifest);
    return plan_batch(config());
  }
  // A record as a run of this tool writes it for `item`, signed with `k`.
  std::string signed_record(const batch_item& item, const host_key& k, const std::string& verdict = "script_failed") {
    line_outcome o{verdict, 8, "the script exited with status 3", sandbox::sandbox_usage{1.5, 0.5, 4096, 10, 3},
                   "",      {}};
    return render_record(item, o, request_fingerprint(item, ""), "", k);
  }
};

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

TEST_F(BatchTrust, OnlyARecordTheKeyVerifiesIsTrusted) {
  const batch_item item = plan(line("a")).item(0);
  const host_key k = key();
  const std::string text = signed_record(item, k);
  const auto good = parse_record(text, "a", k);
  ASSERT_TRUE(good) << good.error().what;
  EXPECT_EQ(good->outcome.state, "script_failed");
  EXPECT_EQ(good->outcome.usage->memory_peak_bytes, 4096u);
  // Any one byte changed anywhere, the MAC included, and the record is refused.
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::string bad = text;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_FALSE(parse_record(bad, "a", k)) << "byte " << i << " of " << text;
  }
  EXPECT_FALSE(parse_record(text + " ", "a", k)) << "a byte appended";
  EXPECT_FALSE(parse_record(text, "b", k)) << "another line's record";
  ASSERT_EQ(::mkdir((dir_ + "/.other").c_str(), 0700), 0);
  const auto other = parse_record(text, "a", key(".other"));
  ASSERT_FALSE(other) << "another key";
  EXPECT_NE(other.error().what.find("MAC does not verify"), std::string::npos) << other.error().what;
  // Signed, but with a field this tool never writes: refused all the same.
  const std::string body = text.substr(0, text.rfind(",\"mac\""));
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string b = body;
    b.replace(b.find(from), from.size(), to);
    return parse_record(seal_record(b, k), "a", k).has_value();
  };
  EXPECT_FALSE(with(R"("exit_code":8)", R"("exit_code":256)"));
  EXPECT_FALSE(with(R"("exit_code":8)", R"("exit_code":-1)"));
  EXPECT_FALSE(with(R"("verdict":"script_failed")", R"("verdict":"pwned")"));
  EXPECT_FALSE(with(R"("message":"the)", R"("message":"\u001b[2J)"));
  EXPECT_FALSE(with(R"("verdict":"script_failed")", R"("verdict":"success")")) << "a success without its digests";
  EXPECT_FALSE(with(R"("predictions_sha256":null)", R"("predictions_sha256":")" + std::string(64, 'A') + "\""));
  EXPECT_FALSE(with(R"("wall_seconds":1.5)", R"("wall_seconds":-1.5)"));
  EXPECT_TRUE(with(R"("exit_code":8)", R"("exit_code":9)")) << "the control case";
  // A record of the first version, which had no MAC: never trusted, and the message says why.
  const auto old = parse_record(R"({"schema":"plb-sandbox/batch-record/1","id":"a","verdict":"success"})", "a", k);
  ASSERT_FALSE(old);
  EXPECT_NE(old.error().what.find("older plb-sandbox, without a MAC"), std::string::npos) << old.error().what;
}

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

TEST_F(BatchTrust, ForgedSummaryFieldsCannotAddARowAControlByteOrAFormula) {
  const batch_plan p = plan(line("a") + line("b") + line("c"));
  std::vector<line_outcome> outcomes(3);
  outcomes[0] = {"script_failed",
                 8,
                 "=cmd|' /C calc'!A0",
                 sandbox::sandbox_usage{-1, NAN, 0, 0, 0},
                 std::string(64, 'a') + "\nz,9,success,0,forged,,,,",
                 "=n1\nrow",
                 "-1,2"};
  outcomes[1] = {"success\nx", -5, "\x1b]0;owned\x07 +1 \r\nrow", std::nullopt, "@SUM(A1)"};
  outcomes[2] = {"success", 0, "-2+3", sandbox::sandbox_usage{1.25, 0.5, 7, 0, 0}, std::string(64, 'F')};
  const std::string csv = render_summary_csv(p, outcomes);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4) << csv;
  for (const char c : csv) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c <= 0x7e)) << int(c);
  std::size_t rows = 0;
  for (std::size_t start = 0; start < csv.size(); ++rows) {
    const std::size_t end = csv.find('\n', start);
    const std::string row = csv.substr(start, end - start);
    start = end + 1;
    bool quoted = false;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool cell_starts = i == 0 || (row[i - 1] == ',' && !quoted);
      if (row[i] == '"') quoted = !quoted;
      if (cell_starts && std::string_view("=+@-").find(row[i]) != std::string_view::npos)
        ADD_FAILURE() << "a formula cell in: " << row;
    }
  }
  EXPECT_EQ(rows, 4u);
  EXPECT_NE(csv.find("\na,1,script_failed,8,'=cmd|' /C calc'!A0,0.000,,,0,,,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nb,2,,,\\x1b]0;owned\\x07 +1 \\x0d\\x0arow,,,,,,,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nc,3,success,0,'-2+3,0.000,1.250,0.500,7,,,,\n"), std::string::npos)
      << "uppercase is not a digest";
  const std::string json = render_summary_json({"m", "s", dir_, "local", {}, {}, {}, {}}, p, outcomes);
  EXPECT_EQ(json.find("forged"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("verdict":"","exit_code":null)"), std::string::npos) << json;
}

TEST_F(BatchTrust, TheKeyIsMadeOnceRootOnlyAndRefusedWhenItIsNotSecret) {
  const std::string path = dir_ + "/.key/" + host_key_name;
  const host_key first = key();
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0400u);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_size, 32);
  EXPECT_EQ(first.mac("x"), key().mac("x")) << "the second use reads the first one's key";
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  EXPECT_EQ(first.mac("x"), key().mac("x")) << "0600 is accepted";
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  EXPECT_NE(refusal([&] { (void)key(); }).find("has mode 0644"), std::string::npos);
  ASSERT_EQ(::chmod(path.c_str(), 0400), 0);
  ASSERT_EQ(::chown(path.c_str(), nobody, nobody), 0);
  EXPECT_NE(refusal([&] { (void)key(); }).find("owned by uid 65534, not root"), std::string::npos);
  fs::remove(path);
  fs::create_symlink(dir_ + "/in.csv", path);
  EXPECT_NE(refusal([&] { (void)key(); }).find("not a regular file"), std::string::npos);
  fs::remove(path);
  write(".key/batch.key", "short");
  ASSERT_EQ(::chmod(path.c_str(), 0400), 0);
  EXPECT_NE(refusal([&] { (void)key(); }).find("5 bytes, not 32"), std::string::npos);
  fs::remove(path);
  EXPECT_NE(first.mac("x"), key().mac("x")) << "a removed key is made anew, from fresh random bytes";
}

// verify only checks what a key sealed: on a host without one it refuses and makes none, so a
// node not yet given the shared key cannot go on to seal its runs under a stray one.
TEST_F(BatchTrust, AReaderThatOnlyChecksNeverMakesAKey) {
  const std::string path = dir_ + "/.key/" + host_key_name;
  const unique_fd fd(::open((dir_ + "/.key").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  const std::string why = refusal([&] { (void)load_host_key(fd.get(), dir_ + "/.key", runner::key_absent::refuse); });
  EXPECT_NE(why.find("does not exist: this host has sealed nothing"), std::string::npos) << why;
  EXPECT_NE(why.find("install that host's key file"), std::string::npos) << why;
  struct stat st {};
  EXPECT_NE(::lstat(path.c_str(), &st), 0) << "no key was made";
  const host_key made = key();  // a scoring run makes it
  const host_key read = load_host_key(fd.get(), dir_ + "/.key", runner::key_absent::refuse);
  EXPECT_EQ(made.mac("x"), read.mac("x")) << "an existing key is read as before";
}

}  // namespace
}  // namespace plb::batch
