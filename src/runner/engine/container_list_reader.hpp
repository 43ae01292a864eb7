// SPDX-License-Identifier: Apache-2.0
// GET /containers/json, read as it streams in. The daemon's answer has no size the tool can bound:
// it repeats every label of every container in full (POST /containers/create takes a 1.1 MB
// label), and thousands of leftover containers add up. A 4 MiB cap on the whole answer let four
// such labels blind the warden, so nothing of the answer is held but the fields the sweep and the
// warden use, each cut to its own bound, for at most max_listed containers:
//   - a kept field longer than its bound is cut there and the container is marked oversized
//     (a cut name or run label can never be the tool's: run_id_of wants exactly 32 hex digits;
//     a cut deadline label of digits still clamps to the longest deadline);
//   - past max_listed, those whose name and run label agree are kept first, the first due first
//     (creation + deadline label), then the oldest
//     (the first to be overdue); the others are only counted (left_out), and a later pass, once
//     these are removed, sees them.
// Memory stays under max_listed x (the bounds below), whatever the daemon sends; time grows with
// the answer, and a pass that takes too long shows as a stale warden (warden.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "runner/engine/engine_error.hpp"
#include "runner/engine/engine_json.hpp"

namespace plb::runner {

inline constexpr std::size_t max_listed_containers = 16384;
inline constexpr std::size_t max_name_bytes = 128;           // the tool's: plb-sandbox- + 32 hex digits
inline constexpr std::size_t max_run_label_bytes = 64;       // the tool's: 32 hex digits
inline constexpr std::size_t max_deadline_label_bytes = 32;  // the tool's: a few digits
inline constexpr std::size_t max_state_bytes = 32;           // "restarting" is the longest

class container_list_reader {
 public:
  explicit container_list_reader(std::size_t max_listed = max_listed_containers);
  ~container_list_reader();
  container_list_reader(const container_list_reader&) = delete;
  container_list_reader& operator=(const container_list_reader&) = delete;

  // The next bytes of the answer. false: it is refused (finish() says why); feed no more.
  bool feed(std::string_view chunk) noexcept;
  // After the last chunk: the list, or a bad_reply saying what was wrong.
  engine_result<container_list> finish() noexcept;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace plb::runner
