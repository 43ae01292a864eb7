// SPDX-License-Identifier: Apache-2.0
#include "batch_finish_flags.hpp"

namespace plb::cli {

void add_batch_finish_flags(CLI::App& c, batch_finish_flags& f) {
  c.add_flag("--no-report", f.no_report, "do not write batch-report.html at the end");
  auto* verify =
      c.add_option("--verify", f.verify, "then re-run N successful lines with verify and write batch-verify.csv")
          ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  c.add_option("--verify-by", f.verify_by, "--verify's lines: the top N by this summary column (default wall_seconds)")
      ->check(CLI::IsMember({"wall_seconds", "cpu_seconds", "memory_peak_bytes", "line"}))
      ->needs(verify);
  c.add_flag("--verify-sample", f.verify_sample, "--verify's lines: a random sample (its seed is recorded)")
      ->needs(verify);
  c.add_option("--verify-seed", f.verify_seed, "the sample's seed (implies --verify-sample)")->needs(verify);
  c.add_flag("--allow-changed-runtime", f.allow_changed_runtime,
             "--verify: re-run even where the host's runsc release or platform differs from the recorded one")
      ->needs(verify);
}

}  // namespace plb::cli
