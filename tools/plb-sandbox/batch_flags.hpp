// The batch command's flags, parsed by CLI11 into a batch_config and the engine's options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "batch.hpp"
#include "batch_slurm.hpp"

namespace plb::tool {

struct batch_flags {
  std::string manifest, output_dir, engine = "local", retry;
  std::string runtime_image, data, task_type, id_column, seconds, memory_mb;
  std::vector<std::string> features;
  unsigned jobs = 0;
  bool verbose = false, no_wait = false, collect = false, worker = false;
  unsigned workers = 0;  // slurm: W worker tasks (0: what the lines and --jobs need, within MaxArraySize)
  std::optional<std::size_t> index;
  std::string manifest_sha256;  // with --index: the manifest as it was submitted
  std::string partition, account;
  std::vector<std::string> sbatch_options;
  CLI::Option *seconds_option = nullptr, *memory_option = nullptr, *retry_option = nullptr, *jobs_option = nullptr;
};

void add_batch_flags(CLI::App& command, batch_flags& flags);

// The configuration the flags describe, paths made absolute. Throws failure(usage_error) naming the flag.
batch_config batch_config_from(const batch_flags& flags);

// The flags a Slurm task repeats: the defaults and the retry policy, as given.
std::vector<std::string> task_flags_from(const batch_config& config);

}  // namespace plb::tool
