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
  const auto c = current_docker_cli_context();
  ASSERT_TRUE(c) << c.error().what;
  EXPECT_EQ(*c, "remote-host");
}

TEST_F(DockerCliContext, NoFileOrNoContextIsNone) {
  const auto none = [] {
    const auto c = current_docker_cli_context();
    return c && c->empty();
  };
  EXPECT_TRUE(none());
  config(R"({"auths":{}})");
  EXPECT_TRUE(none());
  config(R"({"currentContext":7})");
  EXPECT_TRUE(none());
  config("not json");
  EXPECT_TRUE(none());
}

TEST_F(DockerCliContext, AFifoOrAnOversizedFileIsAProblemNotAHang) {
  ASSERT_EQ(::mkfifo((dir_ + "/config.json").c_str(), 0600), 0);
  const auto fifo = current_docker_cli_context();
  ASSERT_FALSE(fifo);
  EXPECT_NE(fifo.error().what.find(dir_ + "/config.json is not a readable regular file"), std::string::npos)
      << fifo.error().what;
  ASSERT_EQ(::unlink((dir_ + "/config.json").c_str()), 0);
  config(R"({"currentContext":"big","pad":")" + std::string(64 * 1024, 'x') + "\"}");
  const auto big = current_docker_cli_context();
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().what, "");
}

}  // namespace
}  // namespace plb::runner
