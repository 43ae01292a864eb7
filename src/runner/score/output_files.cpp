// SPDX-License-Identifier: Apache-2.0
#include "runner/score/output_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "plb/sandbox/stderr_diagnostics.hpp"
#include "runner/score/output_dir.hpp"
#include "support/failure.hpp"
#include "support/file_io.hpp"
#include "support/private_dir.hpp"

namespace plb::runner {
namespace {

// An unnamed file in the target's directory (O_TMPFILE): if the tool dies before publishing,
// there is nothing to clean up.
unique_fd create_unnamed(const std::string& dir, const std::string& contents) {
  unique_fd fd(::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
  if (!fd)
    fail(sandbox::verdict::internal_error, "cannot create an output file in " + dir + ": " + std::strerror(errno));
  if (const auto written = write_all(fd.get(), contents); !written)
    fail(sandbox::verdict::internal_error, "cannot write an output file in " + dir + ": " + written.error().what);
  if (::fsync(fd.get()) != 0)
    fail(sandbox::verdict::internal_error, "cannot sync an output file in " + dir + ": " + std::strerror(errno));
  return fd;
}

// linkat never replaces an existing name: EEXIST if someone took the path meanwhile.
result<void> link_as(const unique_fd& fd, const std::string& path) {
  const std::string proc = "/proc/self/fd/" + std::to_string(fd.get());
  if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) return {};
  return errno_problem(errno);
}

}  // namespace

void check_fresh_output(const std::string& path, const char* flag) {
  const auto refuse = [&](const std::string& why) {
    fail(sandbox::verdict::usage_error, std::string(flag) + " " + path + ": " + why);
  };
  if (path.empty()) fail(sandbox::verdict::usage_error, std::string(flag) + " is empty");
  if (path.size() >= PATH_MAX) refuse("path longer than the system allows");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) refuse("already exists: choose a fresh path");
  if (errno != ENOENT) refuse(std::strerror(errno));
  // The directory, or where a missing one would be created: the same file system either way.
  const std::string dir = check_output_dir(path, flag);
  struct statvfs fs {};
  const std::string name = std::filesystem::path(path).filename().string();
  if (name.empty() || name == "." || name == "..") refuse("names a directory, not a file");
  if (::statvfs(dir.c_str(), &fs) == 0 && name.size() > fs.f_namemax)
    refuse("file name longer than the " + std::to_string(fs.f_namemax) + " bytes its file system allows");
  // The same kind of file publishing creates, made and dropped now: an unwritable directory or a
  // file system without O_TMPFILE is refused before anything runs, not after.
  const unique_fd probe(::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
  if (!probe) {
    const int error = errno;
    refuse("cannot create files in " + dir + ": " + std::strerror(error) +
           (error == ENOSPC || error == EDQUOT
                ? ": free space there, or give an output path on a file system with room; nothing ran"
                : ""));
  }
}

std::string provenance_path_for(const std::string& output) { return output + ".sandbox.json"; }
std::string diagnostics_path_for(const std::string& output) { return output + ".stderr"; }

output_space output_space_needed(std::uint64_t input_values, const std::vector<std::string>& features,
                                 const std::string& id_column, std::uint64_t data_bytes, std::uint64_t text_bytes,
                                 std::uint64_t diagnostics_tail_bytes, std::uint64_t block) {
  constexpr std::uint64_t number = 24;  // the longest shortest round trip: -2.2250738585072014e-308
  constexpr std::uint64_t escaped = 6;  // a control byte in JSON: \u00XX
  const std::uint64_t columns = features.empty() ? 1 : features.size();
  const std::uint64_t rows = input_values / columns;  // the output cap grows with them (output_cap_bytes)
  std::uint64_t digits = 1;
  for (std::uint64_t r = rows; r >= 10; r /= 10) ++digits;
  // The header, then each row: its label, a comma, the number and a newline.
  std::uint64_t csv = 2 * id_column.size() + 2 + sizeof ",prediction\n" + rows * (number + 2);
  if (id_column.empty())
    csv += rows * digits;
  else  // each ID quoted, its quotes doubled: twice the column's bytes and two quotes a row
    csv += 2 * std::min<std::uint64_t>(data_bytes, sandbox::csv_options{}.max_id_bytes) + 2 * rows;
  // The provenance: its fixed fields (digests, image, host facts, usage, limits) well within 64 KiB,
  // and every name and path it records, each byte escaped at its longest.
  std::uint64_t names = text_bytes + id_column.size();
  for (const std::string& f : features) names += f.size() + 3;
  const std::uint64_t provenance = (64u << 10) + escaped * names;
  const std::uint64_t round = block ? block : 4096;
  if (diagnostics_tail_bytes == 0) return {csv + provenance + 2 * round, 2, true};
  return {csv + provenance + sandbox::max_diagnostics_file_bytes(diagnostics_tail_bytes) + 3 * round, 3, true};
}

result<void> space_fits(const output_space& needed, const output_space& free) {
  std::string why;
  if (free.bytes < needed.bytes)
    why = std::to_string(needed.bytes) + " bytes needed, " + std::to_string(free.bytes) + " free";
  if (free.inodes_counted && free.inodes < needed.inodes)
    why += (why.empty() ? "" : "; ") + std::to_string(needed.inodes) + " inodes needed, " +
           std::to_string(free.inodes) + " free";
  if (why.empty()) return {};
  return problem::says(std::move(why));
}

void check_output_space(const std::string& output, std::uint64_t input_values, const std::vector<std::string>& features,
                        const std::string& id_column, std::uint64_t data_bytes, std::uint64_t text_bytes,
                        std::uint64_t diagnostics_tail_bytes) {
  const std::string dir = existing_dir_of(output);
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0)
    fail(sandbox::verdict::usage_error, "output directory " + dir + ": " + std::strerror(errno));
  const std::uint64_t block = fs.f_frsize ? fs.f_frsize : fs.f_bsize;
  const output_space needed =
      output_space_needed(input_values, features, id_column, data_bytes, text_bytes, diagnostics_tail_bytes, block);
  const output_space free{static_cast<std::uint64_t>(fs.f_bavail) * block, fs.f_favail, fs.f_files != 0};
  if (const auto fits = space_fits(needed, free); !fits)
    fail(sandbox::verdict::usage_error,
         "output directory " + dir + ": its file system has no room for the outputs (" + fits.error().what +
             "): free space there, or give an output path on a file system with room; nothing ran");
}

void append_csv_field(std::string& out, const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string render_predictions_csv(const sandbox::feature_table& table, const std::vector<double>& predictions) {
  std::string out;
  out.reserve(predictions.size() * 24 + 32);
  if (table.id_column.empty())
    out += "row";
  else
    append_csv_field(out, table.id_column);
  out += ",prediction\n";
  char buf[32];
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    if (table.id_column.empty())
      out += std::to_string(i);
    else
      append_csv_field(out, table.ids[i]);
    out += ',';
    const auto r = std::to_chars(buf, buf + sizeof buf, predictions[i]);
    out.append(buf, r.ptr);
    out += '\n';
  }
  return out;
}

bool publish_outputs(const std::string& predictions_path, const std::string& predictions_csv,
                     const std::string& provenance_path, const std::string& provenance_json,
                     const std::string& diagnostics_path, const std::string& diagnostics) {
  const bool made_dir = make_output_dir(predictions_path);  // the provenance's directory is the same
  try {
    const unique_fd a = create_unnamed(directory_of(predictions_path), predictions_csv);
    const unique_fd b = create_unnamed(directory_of(provenance_path), provenance_json);
    const bool with_diagnostics = !diagnostics_path.empty();
    const unique_fd c = with_diagnostics ? create_unnamed(directory_of(diagnostics_path), diagnostics) : unique_fd();
    const auto first = link_as(a, predictions_path);
    if (!first)
      fail(sandbox::verdict::internal_error, "cannot publish " + predictions_path + ": " + first.error().what);
    const auto second = link_as(b, provenance_path);
    if (!second) {
      ::unlink(predictions_path.c_str());  // ours: linked a moment ago, never both or neither broken
      fail(sandbox::verdict::internal_error, "cannot publish " + provenance_path + ": " + second.error().what);
    }
    const auto third = with_diagnostics ? link_as(c, diagnostics_path) : result<void>();
    if (!third) {
      ::unlink(provenance_path.c_str());  // all or nothing, as the two above
      ::unlink(predictions_path.c_str());
      fail(sandbox::verdict::internal_error, "cannot publish " + diagnostics_path + ": " + third.error().what);
    }
  } catch (...) {
    if (made_dir) remove_output_dir(predictions_path);  // nothing was published in it
    throw;
  }
  return made_dir;
}

void publish_file(const std::string& path, const std::string& contents) {
  const bool made_dir = make_output_dir(path);
  try {
    const unique_fd fd = create_unnamed(directory_of(path), contents);
    if (const auto linked = link_as(fd, path); !linked)
      fail(sandbox::verdict::internal_error, "cannot publish " + path + ": " + linked.error().what);
  } catch (...) {
    if (made_dir) remove_output_dir(path);
    throw;
  }
}

}  // namespace plb::runner

namespace plb::runner {

void unpublish_outputs(const std::string& predictions_path, const std::string& provenance_path, bool made_dir,
                       const std::string& diagnostics_path) noexcept {
  if (!diagnostics_path.empty()) ::unlink(diagnostics_path.c_str());
  ::unlink(provenance_path.c_str());
  ::unlink(predictions_path.c_str());
  if (made_dir) remove_output_dir(predictions_path);
}

}  // namespace plb::runner
