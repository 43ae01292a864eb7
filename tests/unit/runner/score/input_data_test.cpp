// SPDX-License-Identifier: Apache-2.0
// The operator's CSV read in chunks from a real file: only the selected columns kept, the whole
// file's bytes hashed and counted, a bad cell refused naming the file, row, column and its name,
// anything but a regular file refused, and a stop request honoured between chunks.
#include "runner/score/input_data.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "../../temp_dir.hpp"
#include "plb/sandbox/stop_source.hpp"
#include "support/failure.hpp"

namespace plb::runner {
namespace {

class InputData : public test::temp_dir_test {
 protected:
  InputData() : temp_dir_test("plb-input-data") {}
  std::string write(const std::string& text) const {
    std::ofstream(dir_ + "/in.csv", std::ios::binary) << text;
    return dir_ + "/in.csv";
  }
  // The refusal read_input gives, "" when it reads the file.
  static std::string refusal(const std::string& path, const cancellation* cancel = nullptr) {
    try {
      (void)read_input("--data", path, {"b", "a"}, "", {}, cancel);
      return "";
    } catch (const failure& f) {
      return (f.verdict() == sandbox::verdict::input_refused ? "" : "not input_refused: ") + std::string(f.what());
    }
  }
};

TEST_F(InputData, ManyChunksOnlyTheSelectedColumnsAndTheWholeFilesDigest) {
  std::string csv = "id,a,skip,b\n";
  // Appended piece by piece: GCC 12's -Wrestrict misfires on "r" + std::to_string(i) at -O3.
  for (int i = 0; i < 20000; ++i)
    csv.append("r")
        .append(std::to_string(i))
        .append(",")
        .append(std::to_string(i))
        .append(",x,")
        .append(std::to_string(-i))
        .append(".5\n");
  ASSERT_GT(csv.size(), 3u << 16) << "several reads";
  const input_data in = read_input("--data", write(csv), {"b", "a"}, "id", {});
  EXPECT_EQ(in.file_bytes, csv.size());
  EXPECT_EQ(in.digest.hex(), sandbox::sha256_of(csv).digest.hex());
  ASSERT_EQ(in.table.rows(), 20000u);
  EXPECT_EQ(in.table.columns(), 2u);
  EXPECT_EQ(in.table.values[0], 0.5);
  EXPECT_EQ(in.table.values[1], 0.0);
  EXPECT_EQ(in.table.values[2 * 19999], -19999.5);
  EXPECT_EQ(in.table.values[2 * 19999 + 1], 19999.0);
  ASSERT_EQ(in.table.ids.size(), 20000u);
  EXPECT_EQ(in.table.ids[19999], "r19999");
}

TEST_F(InputData, ABadCellIsNamedByFileRowColumnAndName) {
  const std::string path = write("a,b\n1,2\n3,x\n");  // row 1 is the header
  const std::string said = refusal(path);
  EXPECT_EQ(said.rfind("--data " + path + ": row 3, column 2 (b): ", 0), 0u) << said;
}

TEST_F(InputData, AMissingColumnOrNotARegularFileIsRefused) {
  EXPECT_NE(refusal(write("a,c\n1,2\n")), "");
  ASSERT_EQ(::mkfifo((dir_ + "/fifo.csv").c_str(), 0600), 0);
  EXPECT_EQ(refusal(dir_ + "/fifo.csv").rfind("--data " + dir_ + "/fifo.csv: ", 0), 0u) << "refused at once";
  EXPECT_NE(refusal(dir_ + "/absent.csv"), "");
}

TEST_F(InputData, AStopRequestEndsTheRead) {
  const std::string path = write("a,b\n1,2\n");
  sandbox::stop_source stop;
  stop.request_stop(15);
  const cancellation cancel(&stop);
  try {
    (void)read_input("--data", path, {"b", "a"}, "", {}, &cancel);
    FAIL() << "read past a stop request";
  } catch (const interrupted& i) {
    EXPECT_EQ(i.signal, 15);
  }
  EXPECT_EQ(refusal(path), "") << "without one the same file reads";
}

}  // namespace
}  // namespace plb::runner
