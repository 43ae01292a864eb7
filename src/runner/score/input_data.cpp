// SPDX-License-Identifier: Apache-2.0
#include "runner/score/input_data.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "support/failure.hpp"
#include "support/file_io.hpp"
#include "support/no_symlinks.hpp"
#include "support/test_hold.hpp"

namespace plb::runner {

input_data read_input(const std::string& field, const std::string& path, const std::vector<std::string>& features,
                      const std::string& id_column, const sandbox::csv_options& options, const cancellation* cancel) {
  const std::string what = field + " " + path;
  const auto file = open_bounded_file(path, unbounded_size);  // through no link: what the reader bounds is its cells
  if (!file) fail(sandbox::verdict::input_refused, what + ": " + file.error().what);
  const int fd = file->fd.get();

  sandbox::csv_feature_reader reader(features, id_column, options);
  sandbox::sha256_hasher hasher;
  input_data in;
  std::array<char, 1 << 16> buf{};
  sandbox::csv_result r;
  while (true) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(sandbox::verdict::input_refused, what + ": " + std::strerror(errno));
    if (n == 0) break;
    if (cancel) cancel->check();
    const std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
    hasher.update(chunk);
    in.file_bytes += chunk.size();
    r = reader.feed(chunk);
    if (!r) break;
    if (in.file_bytes == chunk.size()) hold_at(hold_stage::reading_data);  // after the first block
  }
  if (r) r = reader.finish();
  if (!r) {
    std::string where = what;
    if (r.row) where += ": row " + std::to_string(r.row);
    if (r.column) where += ", column " + std::to_string(r.column);
    if (!r.column_name.empty()) where += " (" + r.column_name + ")";
    fail(sandbox::verdict::input_refused, where + ": " + std::string(sandbox::message(r.error)));
  }
  const auto d = hasher.finish();
  if (!d) fail(sandbox::verdict::internal_error, "SHA-256 of the data failed");
  in.digest = d.digest;
  in.table = std::move(reader).take_table();
  return in;
}

}  // namespace plb::runner
