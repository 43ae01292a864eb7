// SPDX-License-Identifier: Apache-2.0
// Reads the operator's CSV through the core's reader in chunks, hashing the bytes as they pass, so
// only the selected values are ever held. Problems become failure(input_refused) naming the file,
// row, column and column name.
#pragma once

#include <string>
#include <vector>

#include "plb/sandbox/csv_reader.hpp"
#include "plb/sandbox/digest.hpp"
#include "support/cancellation.hpp"

namespace plb::runner {

struct input_data {
  sandbox::feature_table table;
  sandbox::sha256_digest digest;
  std::size_t file_bytes = 0;
};

// `field` names the file in messages as the caller knows it ("--data", "data_path"). `cancel` (may
// be null) is checked between chunks: a large file does not delay a stop request.
input_data read_input(const std::string& field, const std::string& path, const std::vector<std::string>& features,
                      const std::string& id_column, const sandbox::csv_options& options,
                      const cancellation* cancel = nullptr);

}  // namespace plb::runner
