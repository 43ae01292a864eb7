// SPDX-License-Identifier: Apache-2.0
// The script read once within its limit and held to its reviewed digest, refused otherwise in the
// caller's words (on real files in a temporary directory); and its snapshot written into a run's
// directory (in a private mount namespace) as the sandbox user's only, read-only file.
#include "runner/score/snapshot.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "../../temp_dir.hpp"
#include "../state/private_state.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

const std::string script = "print('{\"predictions\": [1]}')\n";
const sandbox::sha256_digest reviewed = sandbox::sha256_of(script).digest;

class Snapshot : public test::temp_dir_test {
 protected:
  Snapshot() : temp_dir_test("plb-snapshot") {}
  // "" when read_script accepts `path`, else the verdict's refusal.
  std::string refusal(const std::string& path, const sandbox::sha256_digest& digest = reviewed,
                      std::size_t limit = 1 << 20) const {
    try {
      const verified_script s = read_script(path, digest, limit, api_field_names());
      return s.bytes == script && s.digest.hex() == reviewed.hex() ? "" : "accepted other bytes";
    } catch (const failure& f) {
      return (f.verdict() == sandbox::verdict::input_refused ? "" : "not input_refused: ") + std::string(f.what());
    }
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
    return dir_ + "/" + name;
  }
};

TEST_F(Snapshot, TheReviewedScriptIsReadWhole) { EXPECT_EQ(refusal(write("model.py", script)), ""); }

TEST_F(Snapshot, AnotherScriptIsRefusedNamingBothDigestsAndTheField) {
  const std::string path = write("model.py", script + "# edited\n");
  const std::string said = refusal(path);
  EXPECT_EQ(said.rfind("model_path " + path + " has SHA-256 ", 0), 0u) << said;
  EXPECT_NE(said.find("not the reviewed " + reviewed.hex() + " given by model_sha256"), std::string::npos) << said;
}

TEST_F(Snapshot, PastTheLimitOrNotARegularFileIsRefused) {
  const std::string big = write("big.py", std::string((1 << 20) + 1, '#'));
  EXPECT_NE(refusal(big).find("larger than the 1 MiB script limit"), std::string::npos) << refusal(big);
  ASSERT_EQ(::mkfifo((dir_ + "/fifo.py").c_str(), 0600), 0);
  EXPECT_NE(refusal(dir_ + "/fifo.py"), "") << "a FIFO is refused, without waiting for a writer";
  EXPECT_NE(refusal(dir_), "") << "a directory";
  EXPECT_NE(refusal(dir_ + "/absent.py").find("model_path " + dir_ + "/absent.py: "), std::string::npos);
}

TEST_F(Snapshot, BytesInMemoryAreHeldToTheSameRules) {
  EXPECT_EQ(verify_script(script, reviewed, 1 << 20, "script_bytes", api_field_names()).bytes, script);
  EXPECT_THROW(verify_script(script + " ", reviewed, 1 << 20, "script_bytes", api_field_names()), failure);
  EXPECT_THROW(verify_script(script, reviewed, script.size() - 1, "script_bytes", api_field_names()), failure);
}

TEST(SnapshotFile, IsTheSandboxUsersOnlyAndReadOnly) {
  if (::geteuid() != 0) GTEST_SKIP() << "the run directories are root's";
  EXPECT_EQ(test::in_private_state([] {
              const run_directory dir(std::string(32, 'd'));
              const script_snapshot snap = write_snapshot({script, reviewed}, dir, 65534, 65534);
              if (snap.path != dir.path() + "/" + snapshot_file_name || snap.bytes != script.size())
                return "snapshot at " + snap.path;
              struct stat st {};
              if (::stat(snap.path.c_str(), &st) != 0) return std::string("no snapshot");
              if (st.st_uid != 65534 || st.st_gid != 65534 || (st.st_mode & 07777) != 0400)
                return "owner " + std::to_string(st.st_uid) + ", mode " + std::to_string(st.st_mode & 07777);
              std::ifstream in(snap.path, std::ios::binary);
              if (std::string(std::istreambuf_iterator<char>(in), {}) != script) return std::string("other bytes");
              try {
                write_snapshot({script, reviewed}, dir, 65534, 65534);
                return std::string("a second snapshot replaced the first");
              } catch (const failure&) {
                return std::string();
              }
            }),
            "");
}

}  // namespace
}  // namespace plb::runner
