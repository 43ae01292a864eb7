// SPDX-License-Identifier: Apache-2.0
#include "runner/host/runsc_identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>

#include <boost/json.hpp>

#include "plb/sandbox/digest.hpp"
#include "runner/state/cache_entry.hpp"
#include "support/command.hpp"
#include "support/file_io.hpp"

namespace plb::runner {
namespace {

std::string identity_of(const struct stat& st) {
  return std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' + std::to_string(st.st_size) + ':' +
         std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec) + ':' +
         std::to_string(st.st_ctim.tv_sec) + '.' + std::to_string(st.st_ctim.tv_nsec);
}

// The entry's file name: a digest of the runtime entry and the binary's identity.
std::string entry_name(const runtime_entry& rt, const std::string& binary) {
  std::string k = "runsc-identity/v1\n" + rt.path + '\n';
  for (const auto& a : rt.args) k += a + '\0';
  k += '\n' + binary + '\n';
  return sandbox::sha256_of(k).digest.hex() + ".json";
}

// The binary's SHA-256, unless it cannot be read whole or changed while it was read.
result<std::string> file_sha256(const std::string& path, const std::string& binary) {
  const unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || identity_of(st) != binary)
    return problem::says("not the regular file that was identified");
  sandbox::sha256_hasher h;
  std::array<char, 1 << 16> buf{};
  while (true) {
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_problem(errno);
    if (n == 0) break;
    h.update(std::string_view(buf.data(), static_cast<std::size_t>(n)));
  }
  if (::fstat(fd.get(), &st) != 0 || identity_of(st) != binary) return problem::says("changed while it was read");
  const auto d = h.finish();
  if (!d) return problem::says("cannot be hashed");
  return d.digest.hex();
}

bool printable(const std::string& s) {
  if (s.empty() || s.size() > 256) return false;
  for (const char c : s)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

// A stored identity, if it is whole and agrees with what it is derived from.
std::optional<runsc_identity> parse_entry(const std::string& text, const runtime_entry& rt) {
  boost::json::error_code ec;
  const auto v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  runsc_identity id;
  for (const auto& [key, field] : {std::pair{"version", &id.version}, std::pair{"release", &id.release},
                                   std::pair{"platform", &id.platform}, std::pair{"sha256", &id.sha256}}) {
    const auto* f = v.get_object().if_contains(key);
    if (!f || !f->is_string() || !printable(std::string(f->get_string()))) return std::nullopt;
    *field = std::string(f->get_string());
  }
  if (id.release != runsc_release(id.version) || id.platform != runsc_platform(rt.args) ||
      !sandbox::parse_sha256_hex(id.sha256))
    return std::nullopt;
  id.from_cache = true;
  return id;
}

}  // namespace

std::string runsc_release(const std::string& version_line) {
  const auto tilde = version_line.find('~');
  if (tilde == std::string::npos || version_line.size() < tilde + 9) return {};
  std::string date = version_line.substr(tilde + 1, 8);
  for (char ch : date)
    if (ch < '0' || ch > '9') return {};
  return date;
}

std::string runsc_platform(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].starts_with("--platform=")) return args[i].substr(11);
    if (args[i] == "--platform" && i + 1 < args.size()) return args[i + 1];
  }
  return required_platform;
}

std::string runtime_version(const std::string& runtime_path) {
  const auto text = capture_command(runtime_path, {"--version"}, std::chrono::seconds(10));
  return text.substr(0, text.find('\n'));
}

std::string binary_identity(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? identity_of(st) : std::string{};
}

runsc_identity identify_runsc(const runtime_entry& rt) {
  const std::string before = binary_identity(rt.path);
  const std::string name = entry_name(rt, before);
  if (!before.empty())
    if (const auto text = read_cache_entry(identity_subdir, name))
      if (auto cached = parse_entry(*text, rt)) return *cached;
  runsc_identity id;
  id.version = runtime_version(rt.path);
  id.release = runsc_release(id.version);
  id.platform = runsc_platform(rt.args);
  if (const auto hashed = file_sha256(rt.path, before)) id.sha256 = *hashed;
  // Stored only when the binary that answered is the one hashed and keyed: unchanged throughout.
  if (!before.empty() && !id.sha256.empty() && printable(id.version) && !id.release.empty() &&
      binary_identity(rt.path) == before)
    store_cache_entry(identity_subdir, name,
                      boost::json::serialize(boost::json::object{{"path", rt.path},
                                                                 {"version", id.version},
                                                                 {"release", id.release},
                                                                 {"platform", id.platform},
                                                                 {"sha256", id.sha256}}));
  return id;
}

}  // namespace plb::runner
