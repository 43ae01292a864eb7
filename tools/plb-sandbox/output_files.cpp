#include "output_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "failure.hpp"
#include "file_io.hpp"

namespace plb::tool {
namespace {

std::string parent_of(const std::string& path) {
  const auto p = std::filesystem::path(path).parent_path();
  return p.empty() ? "." : p.string();
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

// An unnamed file in the target's directory (O_TMPFILE): if the tool dies before publishing,
// there is nothing to clean up.
int create_unnamed(const std::string& dir, const std::string& contents) {
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) fail(sandbox::verdict::internal_error, "cannot create an output file in " + dir + ": " + std::strerror(errno));
  if (const int e = write_all(fd, contents)) {
    ::close(fd);
    fail(sandbox::verdict::internal_error, "cannot write an output file in " + dir + ": " + std::strerror(e));
  }
  if (::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    fail(sandbox::verdict::internal_error, "cannot sync an output file in " + dir + ": " + std::strerror(e));
  }
  return fd;
}

// linkat never replaces an existing name: EEXIST if someone took the path meanwhile.
bool link_as(int fd, const std::string& path, int& error) {
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) return true;
  error = errno;
  return false;
}

}  // namespace

void check_fresh_output(const std::string& path, const char* flag) {
  struct stat st {};
  if (path.empty()) fail(sandbox::verdict::usage_error, std::string(flag) + " is empty");
  if (::lstat(path.c_str(), &st) == 0)
    fail(sandbox::verdict::usage_error, std::string(flag) + " " + path + " already exists: choose a fresh path");
  const std::string dir = parent_of(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    fail(sandbox::verdict::usage_error, std::string(flag) + " " + path + ": directory " + dir + " does not exist");
}

std::string provenance_path_for(const std::string& output) { return output + ".sandbox.json"; }

std::string render_predictions_csv(const sandbox::feature_table& table, const std::vector<double>& predictions) {
  std::string out;
  out.reserve(predictions.size() * 24 + 32);
  if (table.id_column.empty()) out += "row";
  else append_csv_field(out, table.id_column);
  out += ",prediction\n";
  char buf[32];
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    if (table.id_column.empty()) out += std::to_string(i);
    else append_csv_field(out, table.ids[i]);
    out += ',';
    const auto r = std::to_chars(buf, buf + sizeof buf, predictions[i]);
    out.append(buf, r.ptr);
    out += '\n';
  }
  return out;
}

void publish_outputs(const std::string& predictions_path, const std::string& predictions_csv,
                     const std::string& provenance_path, const std::string& provenance_json) {
  const int a = create_unnamed(parent_of(predictions_path), predictions_csv);
  const int b = create_unnamed(parent_of(provenance_path), provenance_json);
  int error = 0;
  const bool first = link_as(a, predictions_path, error);
  const bool second = first && link_as(b, provenance_path, error);
  ::close(a);
  ::close(b);
  if (!first) fail(sandbox::verdict::internal_error, "cannot publish " + predictions_path + ": " + std::strerror(error));
  if (!second) {
    ::unlink(predictions_path.c_str());  // ours: linked a moment ago, never both or neither broken
    fail(sandbox::verdict::internal_error, "cannot publish " + provenance_path + ": " + std::strerror(error));
  }
}

}  // namespace plb::tool
