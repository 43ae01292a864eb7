// SPDX-License-Identifier: Apache-2.0
#include "batch/batch_claims.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "support/dir_files.hpp"
#include "support/failure.hpp"
#include "support/one_line.hpp"

namespace plb::batch {
namespace {

using sandbox::verdict;

constexpr std::size_t max_claim_bytes = 512;

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// "key=value" at the start of `text`, up to `end`; advances past `end`.
std::optional<std::string_view> take_field(std::string_view& text, std::string_view key, char end) {
  if (!text.starts_with(key) || text.size() <= key.size() || text[key.size()] != '=') return std::nullopt;
  const std::size_t stop = text.find(end, key.size() + 1);
  if (stop == std::string_view::npos) return std::nullopt;
  const std::string_view value = text.substr(key.size() + 1, stop - key.size() - 1);
  text.remove_prefix(stop + 1);
  return value;
}

// The directory the workers share. An earlier release kept it as `slurm/` (with the Slurm backend's
// own files); a batch directory it started is resumed there, since its workers may still be
// running and writing to it.
constexpr const char* shared_dir_name = "queue";
constexpr const char* earlier_shared_dir_name = "slurm";

const char* shared_dir_of(const output_dir& dir) {
  struct stat st {};
  const auto here = [&](const std::string& path) {
    return ::fstatat(dir.fd.get(), path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  };
  const bool earlier = !here(shared_dir_name) && here(std::string(earlier_shared_dir_name) + "/claims");
  return earlier ? earlier_shared_dir_name : shared_dir_name;
}

}  // namespace

bool is_safe_name(std::string_view s) {
  if (s.empty() || s.size() > 64 || !is_alnum(s.front())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_alnum(c) || c == '.' || c == '_' || c == '-'; });
}

std::string render_claim(const claim_info& c) {
  std::string out = "worker=";
  out.append(c.worker).append(" node=").append(c.node).append(" claimed_at=");
  out.append(std::to_string(c.claimed_at)).push_back('\n');
  return out;
}

std::optional<claim_info> parse_claim(std::string_view text) {
  claim_info c;
  const auto worker = take_field(text, "worker", ' ');
  const auto node = worker ? take_field(text, "node", ' ') : std::nullopt;
  const auto at = node ? take_field(text, "claimed_at", '\n') : std::nullopt;
  if (!at || !text.empty() || !is_safe_name(*worker) || !is_safe_name(*node) || at->empty() || at->size() > 18)
    return std::nullopt;
  const auto [end, ec] = std::from_chars(at->data(), at->data() + at->size(), c.claimed_at);
  if (ec != std::errc() || end != at->data() + at->size() || c.claimed_at < 0) return std::nullopt;
  c.worker = std::string(*worker);
  c.node = std::string(*node);
  return c;
}

std::string render_worker_report(const worker_report& w) {
  std::string out = "node=";
  out.append(w.node).append("\nstate=").append(w.state).append("\nmessage=").append(one_line(w.message));
  out.push_back('\n');
  return out;
}

std::optional<worker_report> parse_worker_report(std::string_view text, const std::string& worker) {
  const auto node = take_field(text, "node", '\n');
  const auto state = node ? take_field(text, "state", '\n') : std::nullopt;
  const auto message = state ? take_field(text, "message", '\n') : std::nullopt;
  if (!message || !text.empty() || !is_safe_name(worker) || !is_safe_name(*node)) return std::nullopt;
  if (*state != "running" && *state != "refused" && *state != "done") return std::nullopt;
  if (one_line(*message) != *message) return std::nullopt;
  return worker_report{worker, std::string(*node), std::string(*state), std::string(*message)};
}

std::vector<std::string> list_names(int fd) {
  std::vector<std::string> names;
  const int copy = ::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = copy >= 0 ? ::fdopendir(copy) : nullptr;
  if (!d) {
    if (copy >= 0) ::close(copy);
    fail(verdict::internal_error, std::string("cannot list a batch directory: ") + std::strerror(errno));
  }
  while (const dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

claim_dir::claim_dir(const output_dir& dir) : owner_(dir.owner) {
  const std::string name = shared_dir_of(dir);
  path_ = dir.path + "/" + name;
  shared_ = open_output_subdir(dir.fd.get(), dir.path, name);
  claims_ = open_output_subdir(shared_.get(), path_, "claims");
  lost_ = open_output_subdir(shared_.get(), path_, "lost");
  workers_ = open_output_subdir(shared_.get(), path_, "workers");
}

bool claim_dir::try_claim(const std::string& id, const claim_info& claim) const {
  std::array<unsigned char, 8> r{};
  if (::getrandom(r.data(), r.size(), 0) != static_cast<ssize_t>(r.size()))
    fail(verdict::internal_error, std::string("getrandom failed: ") + std::strerror(errno));
  std::string tmp = ".claim-";
  for (const unsigned char c : r) append_hex_escape(tmp, c, "");
  const unique_fd fd(::openat(claims_.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  int e = fd ? 0 : errno;
  if (const auto written = fd ? write_all(fd.get(), render_claim(claim)) : result<void>(); !written)
    e = written.error().errno_value;
  if (e != 0 || ::fsync(fd.get()) != 0) {
    ::unlinkat(claims_.get(), tmp.c_str(), 0);
    fail(verdict::internal_error, "cannot write a claim in " + path_ + "/claims: " + std::strerror(e ? e : errno));
  }
  const bool won = ::linkat(claims_.get(), tmp.c_str(), claims_.get(), id.c_str(), 0) == 0;
  const int link_errno = errno;
  ::unlinkat(claims_.get(), tmp.c_str(), 0);
  if (!won && link_errno != EEXIST)
    fail(verdict::internal_error, "cannot claim " + path_ + "/claims/" + id + ": " + std::strerror(link_errno));
  return won;
}

void claim_dir::release(const std::string& id) const { ::unlinkat(claims_.get(), id.c_str(), 0); }

bool claim_dir::exists(const std::string& id) const {
  return probe_entry(claims_.get(), id, owner_).kind != entry_kind::absent;
}

std::optional<claim_info> claim_dir::read(const std::string& id) const {
  const auto text = read_own_file(claims_.get(), id, owner_, max_claim_bytes);
  return text ? parse_claim(*text) : std::nullopt;
}

bool claim_dir::move_to_lost(const std::string& id, const claim_info& claim) const {
  std::string to = id;
  to.append(".").append(claim.worker).append(".").append(std::to_string(claim.claimed_at));
  return ::renameat(claims_.get(), id.c_str(), lost_.get(), to.c_str()) == 0;
}

void claim_dir::put(const std::string& name, const std::string& text) const {
  replace_file_at(shared_.get(), path_, name, text);
}

result<std::string> claim_dir::get(const std::string& name, std::size_t max_bytes) const {
  return read_own_file(shared_.get(), name, owner_, max_bytes);
}

void claim_dir::report(const worker_report& w) const {
  replace_file_at(workers_.get(), path_ + "/workers", w.worker, render_worker_report(w));
}

std::vector<worker_report> claim_dir::reports() const {
  std::vector<worker_report> out;
  for (const std::string& name : list_names(workers_.get())) {
    const auto text = read_own_file(workers_.get(), name, owner_, max_claim_bytes * 8);
    if (auto w = text ? parse_worker_report(*text, name) : std::nullopt) out.push_back(std::move(*w));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.worker < b.worker; });
  return out;
}

}  // namespace plb::batch
