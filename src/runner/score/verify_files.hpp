// SPDX-License-Identifier: Apache-2.0
// The files verify reads, each through no symbolic link and no further than the size it may have
// (support/no_symlinks.hpp): the published predictions (by their sealed name and digest), the
// model (at most the recorded script limit) and the data (at most the recorded size). A file that
// is not the recorded one is said to differ; its own digest is never printed, so verify cannot be
// made to disclose a digest of a file it was pointed at (/etc/shadow, its own environment).
#pragma once

#include <cstddef>
#include <string>

#include "plb/sandbox/provenance.hpp"
#include "runner/score/verify.hpp"
#include "support/problem.hpp"

namespace plb::runner {

// The most bytes the predictions CSV of a run with the record's rows and ID column can have
// (render_predictions_csv: each row its label, a comma, at most 24 bytes of number, a newline).
std::size_t predictions_bound(const sandbox::provenance_record& record);

// The predictions beside the provenance (`c.original`): the file it was sealed for, by its
// absolute path, with the recorded digest; otherwise a predictions_changed problem.
void check_predictions(verify_checks& c);

// The model and the data at c.model_path and c.data_path against their recorded digests;
// otherwise a model_changed or data_changed problem; and a bundle run's bundle (check_bundle).
void check_inputs(verify_checks& c);

// The bundle at c.bundle_path walked without copying, within the recorded bounds, against the
// recorded digest; otherwise a bundle_changed problem.
void check_bundle(verify_checks& c);

// The published predictions' bytes, still the recorded ones (read again after the re-run: the
// file may have been changed while it ran); otherwise why not, in words that follow the path.
result<std::string> read_recorded_predictions(const verify_checks& c);

}  // namespace plb::runner
