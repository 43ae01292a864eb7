// SPDX-License-Identifier: Apache-2.0
// A run's inputs before any host is involved: the script verified against its reviewed digest,
// the features read (from the CSV, or the in-memory API's matrix) and encoded within their limit.
#include "plb/sandbox/features_encoder.hpp"
#include "runner/score/output_files.hpp"
#include "runner/score/score.hpp"
#include "support/failure.hpp"
#include "support/file_io.hpp"
#include "support/no_symlinks.hpp"

namespace plb::runner {

using sandbox::verdict;

verified_script check_local_inputs(const score_request& request) {
  const std::size_t script_limit = sandbox::bytes(request.limits.script_mib);
  verified_script script =
      request.script_bytes
          ? verify_script(*request.script_bytes, request.model_sha256, script_limit, "script_bytes", request.names)
          : read_script(request.model, request.model_sha256, script_limit, request.names);
  std::uint64_t data_bytes = 0;
  if (!request.table) {  // the data file opens as a regular file; reading it is prepare_inputs' work
    const auto data = open_bounded_file(request.data, unbounded_size);  // through no link; its size is not bounded
    if (!data) fail(verdict::input_refused, request.names.data + (" " + request.data) + ": " + data.error().what);
    data_bytes = static_cast<std::uint64_t>(data->size);
  }
  // A full disk is found now, not after the run: the outputs' file system must have room for the
  // most they can take.
  if (request.publish)
    check_output_space(request.output, request.limits.input_values, request.features, request.id_column, data_bytes,
                       request.model.size() + request.data.size() + request.output.size(), request.stderr_tail_bytes);
  return script;
}

prepared_inputs prepare_inputs(const score_request& request, verified_script script, const cancellation* cancel) {
  prepared_inputs p;
  p.script = std::move(script);
  if (request.table) {
    p.input.table = *request.table;  // checked against limits.input_values by check_in_memory_request
  } else {
    sandbox::csv_options csv;
    csv.max_values = request.limits.input_values;
    p.input = read_input(request.names.data, request.data, request.features, request.id_column, csv, cancel);
  }

  sandbox::encode_options enc;
  enc.max_bytes = sandbox::bytes(request.limits.input_json_mib);
  // The bound, not the exact size: computing that would format every value twice. Pages of the
  // reservation that the document never reaches are never touched.
  p.document.reserve(
      std::min(sandbox::encoded_size_bound(p.input.table.values.size(), p.input.table.columns()), enc.max_bytes));
  const auto encoded =
      sandbox::encode_features_to_string(p.input.table.values, p.input.table.columns(), p.document, enc);
  if (!encoded)
    fail(verdict::input_refused, request.names.data + (request.table ? std::string() : " " + request.data) +
                                     ": the encoded input would be " + std::to_string(encoded.bytes) +
                                     " bytes: " + std::string(sandbox::message(encoded.error)) + " (" +
                                     std::to_string(request.limits.input_json_mib) + " MiB)");
  if (request.table) {
    // No file to name: the provenance's input digest is that of the exact bytes the script read.
    const auto digest = sandbox::sha256_of(p.document);
    if (!digest) fail(verdict::internal_error, "SHA-256 of the features document failed");
    p.input.digest = digest.digest;
  }
  return p;
}

}  // namespace plb::runner
