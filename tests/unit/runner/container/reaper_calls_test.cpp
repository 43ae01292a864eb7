// SPDX-License-Identifier: Apache-2.0
// The reaper's raw Engine requests against a stand-in socket (../engine/stand_in_daemon.hpp): the
// request it prepares before fork reaches the daemon as the typed client's would (under the API
// version, with Host: docker), its status comes back, and no daemon is status 0; its log line is
// appended whole.
#include "runner/container/reaper_calls.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "../../temp_dir.hpp"
#include "../engine/stand_in_daemon.hpp"

namespace plb::runner {
namespace {

class ReaperCalls : public test::temp_dir_test {
 protected:
  ReaperCalls() : temp_dir_test("plb-reaper-calls") {}
  static sockaddr_un address(const std::string& path) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    path.copy(a.sun_path, sizeof a.sun_path - 1);
    return a;
  }
};

TEST_F(ReaperCalls, ARawRequestIsAnsweredWithItsStatus) {
  test::stand_in_daemon daemon(dir_, {{"POST /v1.41/containers/plb-sandbox-x/kill?signal=KILL", {204, ""}},
                                      {"DELETE /v1.41/containers/plb-sandbox-x?force=1", {409, "{}"}}});
  ASSERT_TRUE(daemon.ready());
  const auto at = address(daemon.socket_path());
  EXPECT_EQ(
      reaper_calls::engine_call(at, reaper_calls::engine_request("POST", "/containers/plb-sandbox-x/kill?signal=KILL")),
      204);
  EXPECT_EQ(reaper_calls::engine_call(at, reaper_calls::engine_request("DELETE", "/containers/plb-sandbox-x?force=1")),
            409);
  EXPECT_EQ(reaper_calls::engine_call(at, reaper_calls::engine_request("GET", "/other")), 404);
  EXPECT_EQ(daemon.requests(),
            "POST /v1.41/containers/plb-sandbox-x/kill?signal=KILL docker\n"
            "DELETE /v1.41/containers/plb-sandbox-x?force=1 docker\nGET /v1.41/other docker\n");
}

TEST_F(ReaperCalls, NoDaemonIsStatusZero) {
  EXPECT_EQ(reaper_calls::engine_call(address(dir_ + "/absent.sock"), reaper_calls::engine_request("GET", "/_ping")),
            0);
}

TEST_F(ReaperCalls, TheLogGetsEachLineWhole) {
  const std::string log = dir_ + "/reaper.log";
  reaper_calls::log_once(log, "first line\n");
  reaper_calls::log_once(log, "second line\n");
  std::ifstream in(log);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "first line\nsecond line\n");
  const auto t0 = reaper_calls::now_ms();
  reaper_calls::sleep_ms(30);
  EXPECT_GE(reaper_calls::now_ms() - t0, 30);
}

}  // namespace
}  // namespace plb::runner
