// SPDX-License-Identifier: Apache-2.0
// What a batch does once its lines reached their verdicts (or it was stopped): `--verify N`
// re-runs N of its successful lines through verify (verify.hpp) and writes batch-verify.csv, and
// the report (batch-report.html) is written unless `--no-report`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "batch/batch.hpp"
#include "batch/batch_report.hpp"

namespace plb::batch {

struct batch_finish_flags {
  bool no_report = false;
  std::size_t verify = 0;                  // lines to re-run
  std::string verify_by = "wall_seconds";  // the summary column whose top N are re-run
  bool verify_sample = false;              // a random sample instead, from verify_seed
  std::optional<std::uint64_t> verify_seed;
  bool allow_changed_runtime = false;
};

struct verify_candidate {
  std::string id;
  std::size_t line = 0;
  double wall = 0, cpu = 0;
  std::uint64_t memory = 0;
};

// The lines `--verify` re-runs: the top `count` successes by `by` (wall_seconds, cpu_seconds,
// memory_peak_bytes: largest first; line: first lines), or a sample drawn with `seed`.
std::vector<verify_candidate> choose_verified(std::vector<verify_candidate> successes, std::size_t count,
                                              const std::string& by, std::optional<std::uint64_t> seed);

// The selection in words, as batch-verify.csv records it: "top 3 by wall_seconds", "random sample
// of 3, seed 42".
std::string selection_text(std::size_t count, const std::string& by, std::optional<std::uint64_t> seed);

// Verify, then the report. A report that cannot be written is a warning: the batch's own
// outcome stands. Throws interrupted when stopped during a re-run. `release`, if given, is called
// between the two: the plan and the outcomes are not needed by the report (it reads the summary),
// so the caller may free them first.
void finish_batch(const batch_finish_flags& flags, const batch_config& config, const batch_plan& plan,
                  const outcome_list& outcomes, bool stopped, const sandbox::stop_source& stop,
                  const std::function<void()>& release = {});

}  // namespace plb::batch
