// SPDX-License-Identifier: Apache-2.0
// The typed Engine client's own logic: the URL encoding of its queries, and what each call makes
// of the daemon's statuses, against a stand-in socket (stand_in_daemon.hpp) that gives the ones
// the real daemon gives only in trouble (a 500, a 409). Each call against the real daemon:
// tests/integration/engine_client_test.cpp, label gvisor.
#include "runner/engine/docker_engine.hpp"

#include <gtest/gtest.h>

#include <string>

#include "../../temp_dir.hpp"
#include "stand_in_daemon.hpp"

namespace plb::runner {
namespace {

TEST(UrlEncode, OnlyUnreservedCharactersStay) {
  EXPECT_EQ(url_encode("plb-sandbox_0.9~"), "plb-sandbox_0.9~");
  EXPECT_EQ(url_encode(R"({"label":["a"]})"), "%7B%22label%22%3A%5B%22a%22%5D%7D");
  EXPECT_EQ(url_encode("a/../b?c=d&e"), "a%2F..%2Fb%3Fc%3Dd%26e");
}

class EngineStatuses : public test::temp_dir_test {
 protected:
  EngineStatuses() : temp_dir_test("plb-engine") {}
};

TEST_F(EngineStatuses, GoneOrNotRunningIsNoErrorAndAnythingElseUnexpected) {
  test::stand_in_daemon daemon(dir_, {{"POST /v1.41/containers/gone/kill?signal=KILL", {404, "{}"}},
                                      {"POST /v1.41/containers/idle/kill?signal=KILL", {409, "{}"}},
                                      {"POST /v1.41/containers/live/kill?signal=KILL", {204, ""}},
                                      {"POST /v1.41/containers/odd/kill?signal=KILL", {500, "{}"}},
                                      {"DELETE /v1.41/containers/live?force=1", {204, ""}},
                                      {"DELETE /v1.41/containers/odd?force=1", {409, "{}"}},
                                      {"GET /v1.41/_ping", {500, "no"}}});
  ASSERT_TRUE(daemon.ready());
  const docker_engine engine(daemon.socket_path(), std::chrono::seconds(5));
  EXPECT_TRUE(engine.kill("gone"));
  EXPECT_TRUE(engine.kill("idle"));
  EXPECT_TRUE(engine.kill("live"));
  const auto odd = engine.kill("odd");
  ASSERT_FALSE(odd);
  EXPECT_EQ(odd.error().what, engine_error::kind::unexpected_status);
  EXPECT_EQ(odd.error().status, 500);
  const auto removed = engine.remove("live"), unknown = engine.remove("never");
  ASSERT_TRUE(removed && unknown);
  EXPECT_TRUE(*removed);
  EXPECT_FALSE(*unknown) << "404: the daemon did not know it";
  EXPECT_FALSE(engine.remove("odd"));
  EXPECT_FALSE(engine.ping()) << "a ping is only 200";
  EXPECT_NE(daemon.requests().find("POST /v1.41/containers/gone/kill?signal=KILL docker\n"), std::string::npos)
      << "every request carries Host: docker, which dockerd requires:\n"
      << daemon.requests();
}

TEST_F(EngineStatuses, AnObjectTheDaemonDoesNotKnowIsNoneAndABadAnswerRefused) {
  test::stand_in_daemon daemon(dir_, {{"GET /v1.41/containers/half/json", {200, R"({"Id":)"}}});
  ASSERT_TRUE(daemon.ready());
  const docker_engine engine(daemon.socket_path(), std::chrono::seconds(5));
  const auto absent = engine.inspect_container("plb-sandbox-x");
  ASSERT_TRUE(absent) << absent.error().message();
  EXPECT_FALSE(*absent);
  const auto half = engine.inspect_container("half");
  ASSERT_FALSE(half);
  EXPECT_EQ(half.error().what, engine_error::kind::bad_reply);
  const auto info = engine.info();
  ASSERT_FALSE(info) << "/info must be there";
  EXPECT_EQ(info.error().what, engine_error::kind::unexpected_status);
}

TEST_F(EngineStatuses, NoDaemonIsUnreachableNamingTheSocket) {
  const docker_engine engine(dir_ + "/absent.sock", std::chrono::seconds(5));
  const auto r = engine.ping();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().what, engine_error::kind::unreachable);
  EXPECT_NE(r.error().message().find(dir_ + "/absent.sock"), std::string::npos) << r.error().message();
  EXPECT_THROW((void)engine.list_labelled().value(), std::runtime_error) << "value() of an error throws its words";
}

}  // namespace
}  // namespace plb::runner
