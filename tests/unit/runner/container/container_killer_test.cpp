// SPDX-License-Identifier: Apache-2.0
// The killer against a stand-in socket (../engine/stand_in_daemon.hpp): nothing is sent before a
// request, then SIGKILL by name again every 250 ms (a kill that came before the container existed
// is repeated), and nothing once stopped.
#include "runner/container/container_killer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "../../temp_dir.hpp"
#include "../engine/stand_in_daemon.hpp"

namespace plb::runner {
namespace {

class ContainerKiller : public test::temp_dir_test {
 protected:
  ContainerKiller() : temp_dir_test("plb-killer") {}
};

std::size_t kills(const std::string& log) {
  std::size_t n = 0;
  for (std::size_t at = 0;
       (at = log.find("POST /v1.41/containers/plb-sandbox-x/kill?signal=KILL docker\n", at)) != std::string::npos; ++at)
    ++n;
  return n;
}

TEST_F(ContainerKiller, KillsByNameUntilStoppedAndNotBeforeAsked) {
  test::stand_in_daemon daemon(dir_, {{"POST /v1.41/containers/plb-sandbox-x/kill?signal=KILL", {404, "{}"}}});
  ASSERT_TRUE(daemon.ready());
  const docker_engine engine(daemon.socket_path(), std::chrono::seconds(5));
  container_killer killer(engine, "plb-sandbox-x");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(kills(daemon.requests()), 0u) << "no kill before a request";
  killer.request();
  killer.request();  // a second request starts no second thread
  std::this_thread::sleep_for(std::chrono::milliseconds(650));
  killer.stop();
  const std::size_t sent = kills(daemon.requests());
  EXPECT_GE(sent, 2u) << "repeated until stopped";
  EXPECT_LE(sent, 4u) << "every 250 ms, from one thread";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(kills(daemon.requests()), sent) << "nothing after stop()";
  killer.request();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(kills(daemon.requests()), sent) << "a stopped killer stays stopped";
}

}  // namespace
}  // namespace plb::runner
