// SPDX-License-Identifier: Apache-2.0
// The Engine transport against a stand-in socket (stand_in_daemon.hpp): every path under the API
// version with Host: docker, any status a reply, a streamed body handed over only for a 200 and
// stopped when the sink refuses it, no socket at all unreachable, and a request never answered
// unreachable with its answer lost.
#include "runner/engine/engine_transport.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "../../temp_dir.hpp"
#include "../../unix_listener.hpp"
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
  EXPECT_FALSE(r.error().answer_lost) << "nothing was sent: the daemon cannot have acted on it";
}

// A request the daemon took and never answered (its read timed out) may have been acted on: the
// warden logs such a removal's container as removed once it is gone (unconfirmed_removals.hpp).
TEST_F(EngineTransport, ARequestSentButNeverAnsweredHasItsAnswerLost) {
  const std::string path = dir_ + "/silent.sock";
  // The kernel accepts the connection; nothing ever reads or answers.
  const int listener = test::listen_on_unix(path, 4);
  ASSERT_GE(listener, 0);
  const engine_transport t(path, std::chrono::seconds(1));
  const auto r = t.del("/containers/x?force=1");
  ::close(listener);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().what, engine_error::kind::unreachable);
  EXPECT_TRUE(r.error().answer_lost) << r.error().message();
}

}  // namespace
}  // namespace plb::runner
