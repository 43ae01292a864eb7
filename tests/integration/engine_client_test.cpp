// SPDX-License-Identifier: Apache-2.0
// The typed Engine client against the real daemon, one row per call: what each answers for an
// object that exists and for one that does not. A new Engine call adds its row here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

#include "runner/engine/docker_engine.hpp"
#include "sandbox_fixture.hpp"

namespace plb::test {
namespace {

class EngineClient : public SandboxTest {
 protected:
  // A stopped container of our own, made with the docker CLI (not through the client under test).
  std::string make_container() {
    const std::string name = "plb-engine-test-" + std::to_string(::getpid());
    EXPECT_EQ(std::system(("docker create --name " + name + " " + image_ + " /bin/true >/dev/null").c_str()), 0);
    return name;
  }
};

struct engine_call {
  const char* name;
  std::function<void(const runner::docker_engine&, const std::string& image, const std::string& container)> check;
};

class EngineCalls : public EngineClient, public ::testing::WithParamInterface<engine_call> {};

TEST_P(EngineCalls, AnswerForPresentAndAbsentObjects) {
  const runner::docker_engine engine;
  const std::string container = make_container();
  GetParam().check(engine, image_, container);
  (void)engine.remove(container);
}

const engine_call calls[] = {
    {"ping", [](const auto& e, const auto&, const auto&) { EXPECT_TRUE(e.ping()); }},
    {"info",
     [](const auto& e, const auto&, const auto&) {
       const auto info = e.info();
       ASSERT_TRUE(info) << info.error().message();
       EXPECT_EQ(info->os_type, "linux");
       EXPECT_TRUE(info->runtimes.count("runsc"));
     }},
    {"inspect_image",
     [](const auto& e, const auto& image, const auto&) {
       const auto present = e.inspect_image(*sandbox::parse_image_id(image).id);
       ASSERT_TRUE(present && *present) << (present ? "absent" : present.error().message());
       EXPECT_EQ((*present)->id, image);
       const auto absent = e.inspect_image(*sandbox::parse_image_id("sha256:" + std::string(64, '0')).id);
       ASSERT_TRUE(absent);
       EXPECT_FALSE(*absent) << "a missing image is nullopt, not an error";
     }},
    {"inspect_container",
     [](const auto& e, const auto&, const auto& name) {
       const auto present = e.inspect_container(name);
       ASSERT_TRUE(present && *present);
       EXPECT_EQ((*present)->status, "created");
       const auto absent = e.inspect_container("plb-no-such-container");
       ASSERT_TRUE(absent);
       EXPECT_FALSE(*absent);
     }},
    {"list_labelled",
     [](const auto& e, const auto& image, const auto& name) {
       // A second container, labelled as the spec says the tool labels its own ("plb-sandbox.run"),
       // named outside the tool's prefix: the list must hold it, with its value, and not `name`.
       const std::string labelled = name + "-labelled";
       ASSERT_EQ(std::system(("docker create --name " + labelled + " --label plb-sandbox.run=engine-test " + image +
                              " /bin/true >/dev/null")
                                 .c_str()),
                 0);
       const auto listed = e.list_labelled();
       (void)e.remove(labelled);  // before any assertion can return: the fixture counts leftovers
       ASSERT_TRUE(listed) << listed.error().message();
       int found = 0;
       for (const auto& c : listed->containers) {
         EXPECT_NE(c.name, name) << "an unlabelled container was listed";
         if (c.name == labelled) {
           ++found;
           EXPECT_EQ(c.run_label, "engine-test");
         }
       }
       EXPECT_EQ(found, 1) << "the labelled container was not listed (" << listed->containers.size() << " listed)";
     }},
    {"kill",
     [](const auto& e, const auto&, const auto& name) {
       EXPECT_TRUE(e.kill(name)) << "not running is not an error";
       EXPECT_TRUE(e.kill("plb-no-such-container")) << "gone is not an error";
     }},
    {"remove",
     [](const auto& e, const auto&, const auto& name) {
       const auto first = e.remove(name);
       ASSERT_TRUE(first);
       EXPECT_TRUE(*first) << "removed by this call";
       const auto second = e.remove(name);
       ASSERT_TRUE(second);
       EXPECT_FALSE(*second) << "already gone";
     }},
    {"unreachable",
     [](const auto&, const auto&, const auto&) {
       const runner::docker_engine nowhere("/nonexistent/docker.sock", std::chrono::seconds(1));
       const auto r = nowhere.ping();
       ASSERT_FALSE(r);
       EXPECT_EQ(r.error().what, runner::engine_error::kind::unreachable);
     }},
};

INSTANTIATE_TEST_SUITE_P(Real, EngineCalls, ::testing::ValuesIn(calls),
                         [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace plb::test
