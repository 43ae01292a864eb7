// SPDX-License-Identifier: Apache-2.0
// The provenance's seal on its bytes alone: a sealed record verifies under its key, and an edited
// byte anywhere, another key, or a record never sealed is refused with the fix.
#include "runner/score/provenance_seal.hpp"

#include <gtest/gtest.h>

#include <string>

#include "plb/sandbox/provenance.hpp"

namespace plb::runner {
namespace {

namespace sb = plb::sandbox;

const host_key key_a(host_key::bytes_type{0x61, 0x6b, 0x65, 0x79});
const host_key key_b(host_key::bytes_type{0x62, 0x6b, 0x65, 0x79});

sb::provenance_record record() {
  sb::provenance_record r;
  r.tool_version = "0.1.0";
  r.model_sha256 = sb::sha256_of(std::string("print(1)\n")).digest;
  r.runtime_image = sb::parse_image_id("sha256:" + std::string(64, 'b')).id;
  r.runtime_name = "runsc";
  r.features = {"a", "b"};
  r.rows = 1;
  r.input_sha256 = sb::sha256_of(std::string("a,b\n1,2\n")).digest;
  r.predictions_sha256 = sb::sha256_of(std::string("row,prediction\n0,1\n")).digest;
  r.started_at = "2026-12-03T15:00:00Z";
  return r;
}

TEST(ProvenanceSeal, ASealedRecordVerifiesUnderItsKeyOnly) {
  const std::string sealed = sealed_provenance(record(), key_a);
  EXPECT_TRUE(check_provenance_seal(sealed, key_a));
  const auto other = check_provenance_seal(sealed, key_b);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().what.find("score"), std::string::npos) << "names the fix: " << other.error().what;
  EXPECT_EQ(sealed_provenance(record(), key_a), sealed) << "the same record, the same bytes";
}

TEST(ProvenanceSeal, AnEditedByteAnywhereIsRefused) {
  const std::string sealed = sealed_provenance(record(), key_a);
  for (std::size_t at = 0; at < sealed.size(); at += 7) {
    std::string edited = sealed;
    edited[at] = static_cast<char>(edited[at] ^ 0x01);
    EXPECT_FALSE(check_provenance_seal(edited, key_a)) << "byte " << at;
  }
  EXPECT_FALSE(check_provenance_seal(sealed + " ", key_a)) << "a byte added";
  EXPECT_FALSE(check_provenance_seal(sealed.substr(0, sealed.size() - 1), key_a)) << "a byte cut";
}

TEST(ProvenanceSeal, ARecordNeverSealedIsRefused) {
  EXPECT_FALSE(check_provenance_seal(sb::render_json(record()), key_a));
  EXPECT_FALSE(check_provenance_seal("", key_a));
}

}  // namespace
}  // namespace plb::runner
