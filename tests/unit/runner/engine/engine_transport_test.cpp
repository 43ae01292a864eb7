// SPDX-License-Identifier: Apache-2.0
// The Engine transport against a stand-in socket (stand_in_daemon.hpp): every path under the API
// version with Host: docker, any status a reply, a streamed body handed over only for a 200 and
// stopped when the sink refuses it, and no socket at all unreachable.
#include "runner/engine/engine_transport.hpp"

#include <gtest/gtest.h>

#include <string>

#include "../../temp_dir.hpp"
#include "stand_in_daemon.hpp"

namespace plb::runner {
namespace {

class EngineTransport : public test::temp_dir_test {
 protected:
  EngineTransport() : temp_dir_test("plb-transport") {}
};

TEST_F(EngineTransport, AnyStatusIsAReplyUnderTheApiVersion) {
  test::stand_in_daemon daemon(dir_, {{"GET /v1.41/info", {200, R"({"ID":"x"})"}}, {"POST /v1.41/x", {500, "bad"}}});
  ASSERT_TRUE(daemon.ready());
  const engine_transport t(daemon.socket_path(), std::chrono::seconds(5));
  const auto info = t.get("/info");
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_EQ(info->status, 200);
  EXPECT_EQ(info->body, R"({"ID":"x"})");
  const auto post = t.post("/x");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 500);
  EXPECT_EQ(post->body, "bad");
  const auto del = t.del("/y");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 404);
  EXPECT_EQ(daemon.requests(), "GET /v1.41/info docker\nPOST /v1.41/x docker\nDELETE /v1.41/y docker\n");
}

TEST_F(EngineTransport, AStreamedBodyReachesTheSinkOnlyForA200AndStopsWhenRefused) {
  const std::string big(1 << 20, 'x');
  test::stand_in_daemon daemon(dir_, {{"GET /v1.41/list", {200, big}}, {"GET /v1.41/error", {500, big}}});
  ASSERT_TRUE(daemon.ready());
  const engine_transport t(daemon.socket_path(), std::chrono::seconds(5));
  std::size_t got = 0;
  const auto whole = t.get_streamed("/list", [&](std::string_view chunk) {
    got += chunk.size();
    return true;
  });
  ASSERT_TRUE(whole);
  EXPECT_EQ(*whole, 200);
  EXPECT_EQ(got, big.size());
  got = 0;
  const auto error = t.get_streamed("/error", [&](std::string_view chunk) {
    got += chunk.size();
    return true;
  });
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, 500);
  EXPECT_EQ(got, 0u) << "another status's body is the daemon's message, never the sink's";
  const auto refused = t.get_streamed("/list", [&](std::string_view) { return false; });
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().what, engine_error::kind::bad_reply);
}

TEST_F(EngineTransport, NoSocketIsUnreachable) {
  const engine_transport t(dir_ + "/absent.sock", std::chrono::seconds(5));
  const auto r = t.get("/_ping");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().what, engine_error::kind::unreachable);
  EXPECT_NE(r.error().message().find("absent.sock"), std::string::npos);
}

}  // namespace
}  // namespace plb::runner
