// SPDX-License-Identifier: Apache-2.0
// The Engine's timestamps, read exactly: RFC 3339 with up to nine fractional digits and an
// offset, Docker's zero time as "never", anything else (or past 2262) refused.
#include "runner/engine/engine_time.hpp"

#include <gtest/gtest.h>

namespace plb::runner {
namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

TEST(EngineTime, ReadsWhatTheDaemonWrites) {
  EXPECT_EQ(parse_engine_time("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_engine_time("2026-12-02T05:30:01.123456789Z"), 1796189401LL * s_ns + 123456789);
  EXPECT_EQ(parse_engine_time("2026-12-02T05:30:01.5Z"), 1796189401LL * s_ns + 500'000'000);
  EXPECT_EQ(parse_engine_time("2026-12-02T06:30:01+01:00"), 1796189401LL * s_ns);
  EXPECT_EQ(parse_engine_time("2026-12-02T04:00:01-01:30"), 1796189401LL * s_ns);
  EXPECT_EQ(parse_engine_time("2024-02-29T00:00:00Z"), 1709164800LL * s_ns);
}

TEST(EngineTime, DockersZeroTimeMeansNever) { EXPECT_EQ(parse_engine_time("0001-01-01T00:00:00Z"), std::nullopt); }

TEST(EngineTime, AnythingElseIsRefused) {
  for (const char* bad :
       {"", "2026-12-02", "2026-12-02T05:30:01", "2026-12-02T05:30:01.Z", "2026-12-02 05:30:01Z",
        "2026-13-02T05:30:01Z", "2026-02-30T05:30:01Z", "2025-02-29T00:00:00Z", "2026-12-02T24:00:00Z",
        "2026-12-02T05:60:01Z", "2026-12-02T05:30:01.1234567890Z", "2026-12-02T05:30:01Zx", "2026-12-02T05:30:01+0100",
        "+026-12-02T05:30:01Z", "2026-12-02T05:30:01.12a3Z"})
    EXPECT_EQ(parse_engine_time(bad), std::nullopt) << bad;
}

// Nanoseconds since the epoch end in 2262: a later time is refused, never an overflow (the
// engine_info fuzzer found year 4024 overflowing under UBSan).
TEST(EngineTime, ATimePastWhatNanosecondsHoldIsRefused) {
  EXPECT_EQ(parse_engine_time("2262-04-11T23:47:15.999999999Z"), 9'223'372'035LL * s_ns + 999'999'999);
  EXPECT_EQ(parse_engine_time("2262-04-11T23:47:16Z"), std::nullopt);
  EXPECT_EQ(parse_engine_time("4024-12-02T05:30:01Z"), std::nullopt);
  EXPECT_EQ(parse_engine_time("9999-12-31T23:59:59.999999999Z"), std::nullopt);
}

}  // namespace
}  // namespace plb::runner
