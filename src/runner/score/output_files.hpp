// SPDX-License-Identifier: Apache-2.0
// The run's results: the predictions CSV and its provenance. Both paths must be fresh (neither a
// file nor a symlink there), both files are created exclusively with mode 0600 and published only
// once both are complete: a failed run leaves nothing, and nothing is ever overwritten.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plb/sandbox/csv_reader.hpp"
#include "support/problem.hpp"

namespace plb::runner {

// Throws failure(usage_error) naming the flag unless the file could be published there: the path
// does not exist (lstat says ENOENT, nothing else), its directory exists and takes new files or may
// be created at publishing (output_dir.hpp), and its name fits the file system. Checked before
// anything runs, so a run is never wasted; it creates nothing.
void check_fresh_output(const std::string& path, const char* flag);

std::string provenance_path_for(const std::string& output);

// The operator's diagnostics file beside `output` (--keep-stderr): `<output>.stderr`.
std::string diagnostics_path_for(const std::string& output);

// Room on the outputs' file system: bytes and inodes. Inodes are not counted by every file system
// (statvfs gives f_files 0 there, btrfs say): then only the bytes are held to.
struct output_space {
  std::uint64_t bytes = 0;
  std::uint64_t inodes = 0;
  bool inodes_counted = true;
};

// What the two outputs of a run can need at most, known before the data is read: every row the
// limits admit (limits.input_values over the features: the output cap grows with them, so it
// bounds nothing here), each with its longest label (its number, or its ID quoted, the ID
// column's cells together no larger than the data file) and its longest number; the provenance
// with every name it records escaped at its longest; the operator's diagnostics file at its
// longest when its tail was asked for (`diagnostics_tail_bytes`, 0 when not); each file rounded up
// by a block of `block`.
output_space output_space_needed(std::uint64_t input_values, const std::vector<std::string>& features,
                                 const std::string& id_column, std::uint64_t data_bytes, std::uint64_t text_bytes,
                                 std::uint64_t diagnostics_tail_bytes, std::uint64_t block);

// The decision: whether `free` holds `needed`, or what is short (bytes, inodes or both), in words.
result<void> space_fits(const output_space& needed, const output_space& free);

// Throws failure(usage_error) naming the directory, the bytes and inodes needed and free, and the
// fix, unless the file system `output` is published on has room for every output (statvfs: the
// blocks and inodes an unprivileged writer may take). Checked before anything runs.
void check_output_space(const std::string& output, std::uint64_t input_values, const std::vector<std::string>& features,
                        const std::string& id_column, std::uint64_t data_bytes, std::uint64_t text_bytes,
                        std::uint64_t diagnostics_tail_bytes);

// Appends `s` as one CSV field: as is, or quoted (quotes doubled) when it holds , " CR or LF.
void append_csv_field(std::string& out, const std::string& s);

// `row,prediction` (rows numbered from 0 in input order) or `<id column>,prediction`; numbers in
// their shortest round-trip form.
std::string render_predictions_csv(const sandbox::feature_table& table, const std::vector<double>& predictions);

// Publishes both or neither (all three or none, with the operator's diagnostics file when
// `diagnostics_path` is given), first creating their directory if it is missing (make_output_dir);
// true if it did. Throws failure(internal_error) if it cannot, leaving no directory it created.
bool publish_outputs(const std::string& predictions_path, const std::string& predictions_csv,
                     const std::string& provenance_path, const std::string& provenance_json,
                     const std::string& diagnostics_path = {}, const std::string& diagnostics = {});

// One file published by the same rules (fresh, 0600, complete or absent; its directory made if
// missing and removed again if publishing fails): the diagnostics file of a run that failed.
// Throws failure(internal_error) if it cannot.
void publish_file(const std::string& path, const std::string& contents);

// Takes back what publish_outputs just linked (a stop request arrived while publishing), and the
// directory it made (`made_dir`, publish_outputs' answer).
void unpublish_outputs(const std::string& predictions_path, const std::string& provenance_path, bool made_dir,
                       const std::string& diagnostics_path = {}) noexcept;

}  // namespace plb::runner
