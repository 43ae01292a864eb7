// SPDX-License-Identifier: Apache-2.0
// Runs a trusted host command (the runtime's --version, Slurm's sbatch/squeue/scancel) and returns
// what it printed. The command gets no environment of the operator's: PATH only.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace plb {

struct command_output {
  std::string out, err;  // each at most 64 KiB
  int exit_code = -1;
};

// Throws failure(host_refused) if it cannot start or does not finish in time.
command_output run_command(const std::string& path, const std::vector<std::string>& args, std::chrono::seconds timeout);

// stdout only, whatever the exit status.
std::string capture_command(const std::string& path, const std::vector<std::string>& args,
                            std::chrono::seconds timeout);

}  // namespace plb
