// SPDX-License-Identifier: Apache-2.0
// The docker CLI's current context from a real configuration file in a temporary directory
// ($DOCKER_CONFIG, restored after each test): its name, none, or a problem for a file that is not
// a small regular one (a FIFO must not hang the tool).
#include "runner/host/docker_cli_context.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "../../temp_dir.hpp"

namespace plb::runner {
namespace {

class DockerCliContext : public test::temp_dir_test {
 protected:
  DockerCliContext() : temp_dir_test("plb-cli-context") {}
  void SetUp() override {
    temp_dir_test::SetUp();
    if (HasFatalFailure()) return;
    if (const char* old = std::getenv("DOCKER_CONFIG")) saved_ = old;
    ASSERT_EQ(::setenv("DOCKER_CONFIG", dir_.c_str(), 1), 0);
  }
  void TearDown() override {
    if (saved_)
      ::setenv("DOCKER_CONFIG", saved_->c_str(), 1);
    else
      ::unsetenv("DOCKER_CONFIG");
    temp_dir_test::TearDown();
  }
  void config(const std::string& text) const { std::ofstream(dir_ + "/config.json") << text; }
  std::optional<std::string> saved_;
};

TEST_F(DockerCliContext, TheCurrentContextIsNamed) {
  config(R"({"auths":{},"currentContext":"remote-host"})");
  const docker_cli_context c = current_docker_cli_context();
  EXPECT_EQ(c.name, "remote-host");
  EXPECT_EQ(c.problem, "");
}

TEST_F(DockerCliContext, NoFileOrNoContextIsNone) {
  EXPECT_EQ(current_docker_cli_context().name, "");
  config(R"({"auths":{}})");
  EXPECT_EQ(current_docker_cli_context().name, "");
  config(R"({"currentContext":7})");
  EXPECT_EQ(current_docker_cli_context().name, "");
  config("not json");
  EXPECT_EQ(current_docker_cli_context().problem, "");
}

TEST_F(DockerCliContext, AFifoOrAnOversizedFileIsAProblemNotAHang) {
  ASSERT_EQ(::mkfifo((dir_ + "/config.json").c_str(), 0600), 0);
  const docker_cli_context fifo = current_docker_cli_context();
  EXPECT_NE(fifo.problem.find(dir_ + "/config.json is not a readable regular file"), std::string::npos) << fifo.problem;
  ASSERT_EQ(::unlink((dir_ + "/config.json").c_str()), 0);
  config(R"({"currentContext":"big","pad":")" + std::string(64 * 1024, 'x') + "\"}");
  const docker_cli_context big = current_docker_cli_context();
  EXPECT_EQ(big.name, "");
  EXPECT_NE(big.problem, "");
}

}  // namespace
}  // namespace plb::runner
