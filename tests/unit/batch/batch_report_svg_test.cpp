// SPDX-License-Identifier: Apache-2.0
// The report's charts read at a glance: the value axis fits the data (choose_scale, a pure
// function), the limit is a marked line when it is in range and said in the caption when not.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "batch/batch_report.hpp"

namespace plb::batch {
namespace {

TEST(ChooseScale, ARealRoundsFewSecondsAgainstAThirtySecondLimitFillTheChart) {
  // Bars of 3-6 % of a 30 s limit: the axis is the data's, the limit off it.
  const chart_scale s = choose_scale(1.8, 30.0);
  EXPECT_FALSE(s.limit_in_range);
  EXPECT_DOUBLE_EQ(s.step, 0.5);
  EXPECT_DOUBLE_EQ(s.top, 2.0);
  EXPECT_GE(1.8 / s.top, 0.75) << "the highest bar fills most of the chart";
}

TEST(ChooseScale, ALimitWithinReachIsOnTheScaleAndMarked) {
  const chart_scale s = choose_scale(20.0, 30.0);
  EXPECT_TRUE(s.limit_in_range);
  EXPECT_GE(s.top, 30.0);
  EXPECT_DOUBLE_EQ(s.step, 10.0);
  EXPECT_DOUBLE_EQ(s.top, 40.0);
  EXPECT_TRUE(choose_scale(15.0, 30.0).limit_in_range) << "half the limit is in range";
  EXPECT_FALSE(choose_scale(14.9, 30.0).limit_in_range);
  const chart_scale over = choose_scale(31.2, 30.0);  // a timeout's bar passes the limit
  EXPECT_TRUE(over.limit_in_range);
  EXPECT_GE(over.top, 31.2);
}

TEST(ChooseScale, StepsAreOneTwoTwoAndAHalfOrFiveTimesAPowerOfTenAtMostFourOfThem) {
  for (const double highest : {0.0004, 0.03, 0.7, 1.0, 3.3, 9.99, 47.0, 512.0, 3000.0, 70000.0}) {
    const chart_scale s = choose_scale(highest, std::nullopt);
    EXPECT_GE(s.top, highest) << highest;
    const double steps = s.top / s.step;
    EXPECT_LE(steps, 4.0 + 1e-9) << highest;
    EXPECT_GE(steps, 1.0 - 1e-9) << highest;
    const double mantissa = s.step / std::pow(10.0, std::floor(std::log10(s.step) + 1e-9));
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-6 || std::fabs(mantissa - 2) < 1e-6 || std::fabs(mantissa - 2.5) < 1e-6 ||
                std::fabs(mantissa - 5) < 1e-6)
        << highest << ": step " << s.step;
    EXPECT_GE(highest / s.top, highest > 0.001 ? 0.3 : 0.0) << highest << ": top " << s.top;
  }
}

TEST(ChooseScale, NoDataOrBadFiguresStillGiveAnAxis) {
  for (const double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    const chart_scale s = choose_scale(bad, std::nullopt);
    EXPECT_GT(s.top, 0) << bad;
    EXPECT_GT(s.step, 0) << bad;
  }
  EXPECT_FALSE(choose_scale(1, 0.0).limit_in_range);
  EXPECT_FALSE(choose_scale(1, std::nan("")).limit_in_range);
}

report_input round_of(double wall, std::uint64_t limit) {
  report_input in;
  report_row r;
  r.id = "a";
  r.line = 1;
  r.state = "success";
  r.wall = wall;
  r.wall_limit = limit;
  r.memory_peak = 20u << 20;
  r.memory_limit_mib = 512;
  in.rows.push_back(r);
  return in;
}

TEST(ReportCharts, AFarLimitIsSaidInTheCaptionAndTheAxisShowsTheSeconds) {
  const std::string svg = render_charts(round_of(1.8, 30));
  EXPECT_NE(svg.find("the limit, 30 s, is off this scale (the highest is 1.80 s)"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">2.0 s</text>"), std::string::npos) << "the axis tops at 2 s";
  EXPECT_NE(svg.find("the limit, 512 MiB, is off this scale"), std::string::npos);
  EXPECT_EQ(svg.find("class=\"limit\""), std::string::npos);
}

TEST(ReportCharts, ALimitInRangeIsAMarkedLine) {
  const std::string svg = render_charts(round_of(25, 30));
  EXPECT_NE(svg.find("the dashed line is the limit, 30 s"), std::string::npos);
  EXPECT_NE(svg.find("class=\"limit\"><title>limit 30 s</title>"), std::string::npos) << svg;
}

}  // namespace
}  // namespace plb::batch
