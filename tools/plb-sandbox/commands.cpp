// SPDX-License-Identifier: Apache-2.0
// The one registration table of plb-sandbox's subcommands (command.hpp): name, synopsis, maker.
// Each maker is defined in its command's own file.
#include "command.hpp"

namespace plb::cli {

std::unique_ptr<command> make_score_command();
std::unique_ptr<command> make_explain_command();
std::unique_ptr<command> make_doctor_command();
std::unique_ptr<command> make_sweep_command();
std::unique_ptr<command> make_batch_command();
std::unique_ptr<command> make_report_command();
std::unique_ptr<command> make_verify_command();
std::unique_ptr<command> make_warden_command();
std::unique_ptr<command> make_bundle_digest_command();

namespace {

// clang-format off
const command_row table[] = {
    {"sandbox-score", "run the script in gVisor on the --feature columns of --data", make_score_command},
    {"explain", "check the sandbox-score flags, inputs and host, and print the exact docker argv and limits; "
                "runs nothing", make_explain_command},
    {"doctor", "check the host as the preflight does and print each requirement", make_doctor_command},
    {"sweep", "remove the stopped containers and run directories of runs whose plb-sandbox process died",
     make_sweep_command},
    {"batch", "score every line of a JSON Lines manifest, here (--jobs at once) or on a cluster's workers",
     make_batch_command},
    {"report", "write DIR/batch-report.html from a batch's summary and provenance files", make_report_command},
    {"verify", "check a run's recorded digests and runtime, re-run it and compare its predictions",
     make_verify_command},
    {"bundle-digest", "print a model bundle's digest (for --bundle-sha256), or with --list its canonical listing",
     make_bundle_digest_command},
    {"warden", "the host service that removes every run past its deadline, whatever became of the tool",
     make_warden_command, true},
};
// clang-format on

}  // namespace

std::span<const command_row> commands() { return table; }

const char* const help_footer =
    "The spec's command `plb sandbox-score` is this tool's `plb-sandbox sandbox-score`, with the same flags.\n"
    "Run it on a dedicated evaluation host. Exit codes, signals and limits: README.md; controls: SECURITY.md.";

}  // namespace plb::cli
