// SPDX-License-Identifier: Apache-2.0
// A unix socket's address (unix_address.hpp): a path that fits is copied whole and terminated, one
// that does not is refused rather than cut into another path; the address binds and connects.

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "../temp_dir.hpp"
#include "support/file_io.hpp"
#include "support/unix_address.hpp"

namespace plb {
namespace {

constexpr std::size_t room = sizeof(sockaddr_un{}.sun_path);  // 108 on Linux, the NUL included

TEST(UnixAddress, APathThatFitsIsCopiedWholeAndTerminated) {
  const auto a = unix_address("/run/plb-sandbox/warden.sock");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->sun_family, AF_UNIX);
  EXPECT_STREQ(a->sun_path, "/run/plb-sandbox/warden.sock");

  const std::string longest(room - 1, 'a');
  const auto edge = unix_address(longest);
  ASSERT_TRUE(edge) << "room - 1 bytes and the NUL fit";
  EXPECT_EQ(std::string(edge->sun_path), longest);
}

TEST(UnixAddress, APathThatDoesNotFitIsRefusedNotTruncated) {
  EXPECT_FALSE(unix_address(std::string(room, 'a')));
  EXPECT_FALSE(unix_address("/tmp/" + std::string(200, 'x') + "/gate.sock"));
}

TEST(UnixAddress, TheAddressBindsAndConnects) {
  const std::string dir = test::make_temp_dir("plb-unix-address-test");
  ASSERT_FALSE(dir.empty());
  const auto a = unix_address(dir + "/s.sock");
  ASSERT_TRUE(a);
  const unique_fd server(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const unique_fd client(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const auto* sa = reinterpret_cast<const sockaddr*>(&*a);
  EXPECT_EQ(::bind(server.get(), sa, sizeof *a), 0) << std::strerror(errno);
  EXPECT_EQ(::listen(server.get(), 1), 0);
  EXPECT_EQ(::connect(client.get(), sa, sizeof *a), 0) << std::strerror(errno);
  EXPECT_TRUE(std::filesystem::is_socket(dir + "/s.sock")) << "bound at exactly the path given";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace plb
