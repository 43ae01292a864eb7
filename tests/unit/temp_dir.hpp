// SPDX-License-Identifier: Apache-2.0
// A fresh private directory under the system's temporary directory, for a unit test's files.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace plb::test {

// "" when none could be made (the caller asserts on it).
inline std::string make_temp_dir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  return ::mkdtemp(tmpl.data()) != nullptr ? tmpl : std::string();
}

// A fixture whose every test gets a fresh private directory, `dir_`, removed with all it holds after
// the test. A fixture that prepares more in it calls this SetUp() first and stops on its failure.
class temp_dir_test : public ::testing::Test {
 protected:
  explicit temp_dir_test(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    dir_ = make_temp_dir(prefix_);
    ASSERT_FALSE(dir_.empty()) << "no temporary directory for " << prefix_;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::string dir_;

 private:
  std::string prefix_;
};

}  // namespace plb::test
