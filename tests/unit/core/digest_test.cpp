// SPDX-License-Identifier: Apache-2.0
#include "plb/sandbox/digest.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace sb = plb::sandbox;

TEST(Digest, KnownVectors) {
  // FIPS 180-2 test vectors.
  EXPECT_EQ(sb::sha256_of(std::string_view("")).digest.hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sb::sha256_of(std::string_view("abc")).digest.hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Digest, IncrementalEqualsOneShot) {
  std::string data(100'000, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 % 251);
  sb::sha256_hasher h;
  for (std::size_t i = 0; i < data.size(); i += 4097) h.update(std::string_view(data).substr(i, 4097));
  const auto a = h.finish();
  const auto b = sb::sha256_of(data);
  ASSERT_TRUE(a);
  ASSERT_TRUE(b);
  EXPECT_TRUE(constant_time_equal(a.digest, b.digest));
  EXPECT_FALSE(h.finish()) << "a spent hasher must not hand out a second digest";
}

TEST(Digest, ParseRoundTripsEitherCase) {
  const std::string hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  const auto lower = sb::parse_sha256_hex(hex);
  ASSERT_TRUE(lower);
  EXPECT_EQ(lower.digest.hex(), hex);
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto up = sb::parse_sha256_hex(upper);
  ASSERT_TRUE(up);
  EXPECT_TRUE(constant_time_equal(lower.digest, up.digest));
}

TEST(Digest, ComparisonSeesEveryByte) {
  const auto base = sb::sha256_of(std::string_view("abc")).digest;
  for (std::size_t i = 0; i < sb::sha256_digest::size; ++i) {
    auto bytes = base.bytes();
    bytes[i] ^= 1;
    EXPECT_FALSE(constant_time_equal(base, sb::sha256_digest{bytes})) << i;
  }
  EXPECT_TRUE(constant_time_equal(base, sb::sha256_digest{base.bytes()}));
}

struct Bad {
  std::string text;
  sb::digest_error error;
  std::size_t offset;
};
void PrintTo(const Bad& c, std::ostream* os) { *os << ::testing::PrintToString(std::string(c.text)); }

class DigestRejects : public ::testing::TestWithParam<Bad> {};
TEST_P(DigestRejects, SaysWhatIsWrong) {
  const auto r = sb::parse_sha256_hex(GetParam().text);
  EXPECT_EQ(r.error, GetParam().error) << GetParam().text;
  EXPECT_EQ(r.offset, GetParam().offset);
}
using DE = sb::digest_error;
const std::string h64 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
INSTANTIATE_TEST_SUITE_P(Table, DigestRejects,
                         ::testing::Values(Bad{"", DE::empty, 0}, Bad{h64.substr(0, 63), DE::too_short, 63},
                                           Bad{h64 + "0", DE::too_long, 64}, Bad{"sha256:" + h64, DE::not_hex, 0},
                                           Bad{" " + h64, DE::not_hex, 0},
                                           Bad{h64.substr(0, 10) + "g" + h64.substr(11), DE::not_hex, 10},
                                           Bad{h64 + "  model.py", DE::not_hex, 64}));
