// SPDX-License-Identifier: Apache-2.0
// Times as the Docker Engine writes them: RFC 3339 with up to nine fractional digits, as Go's
// time.RFC3339Nano renders them ("2026-12-02T05:30:01.123456789Z", an offset instead of Z allowed).
// The daemon runs on this host, so its clock is the host's: the run's clock (run_clock.hpp) takes
// the container's State.StartedAt and FinishedAt from here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace plb::runner {

// Nanoseconds since the Unix epoch; nullopt for Docker's zero time (year 1: "never happened") and
// for anything that is not exactly that form. Never throws.
std::optional<std::int64_t> parse_engine_time(std::string_view text) noexcept;

}  // namespace plb::runner
