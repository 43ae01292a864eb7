// SPDX-License-Identifier: Apache-2.0
#include "runner/container/cpu_allocator.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>

#include <algorithm>
#include <charconv>
#include <thread>

#include "runner/state/state_dirs.hpp"
#include "support/dir_files.hpp"

namespace plb::runner {
namespace {

bool read_number(const std::string& text, std::size_t& at, unsigned& out) {
  const auto [p, ec] = std::from_chars(text.data() + at, text.data() + text.size(), out);
  if (ec != std::errc() || p == text.data() + at) return false;
  at = static_cast<std::size_t>(p - text.data());
  return true;
}

}  // namespace

std::string render_cpu_list(const std::vector<unsigned>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out.push_back(',');
    out.append(std::to_string(cpus[i]));
    if (j > i) out.append("-").append(std::to_string(cpus[j]));
    i = j + 1;
  }
  return out;
}

cpu_set_t cpu_mask(const std::string& list) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (const unsigned cpu : parse_cpu_list(list))
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &mask);
  return mask;
}

std::vector<unsigned> parse_cpu_list(const std::string& text) {
  std::vector<unsigned> cpus;
  std::size_t at = 0;
  const std::string t = text.substr(0, text.find_last_not_of(" \n") + 1);
  while (at < t.size()) {
    unsigned lo = 0, hi = 0;
    if (!read_number(t, at, lo)) return {};
    hi = lo;
    if (at < t.size() && t[at] == '-' && (!read_number(t, ++at, hi) || hi < lo)) return {};
    if ((!cpus.empty() && lo <= cpus.back()) || hi > 4095) return {};
    for (unsigned c = lo; c <= hi; ++c) cpus.push_back(c);
    if (at < t.size() && (t[at++] != ',' || at == t.size())) return {};
  }
  return cpus;
}

std::vector<unsigned> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<unsigned> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

cpu_need need_of(std::uint64_t millicores) {
  const std::uint64_t per_slot = 1000 / cpu_slots;
  return {static_cast<unsigned>(millicores / 1000),
          static_cast<unsigned>((millicores % 1000 + per_slot - 1) / per_slot)};
}

bool cpu_allocator::take_cpu(unsigned cpu, unsigned slots, std::vector<unique_fd>& out) const {
  std::vector<unique_fd> got;
  for (unsigned k = 0; k < cpu_slots && got.size() < slots; ++k) {
    const std::string name = std::to_string(cpu) + "." + std::to_string(k);
    unique_fd fd(::openat(dir_.get(), name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd && ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) got.push_back(std::move(fd));
  }
  if (got.size() < slots) return false;  // the locks taken go with `got`
  for (auto& fd : got) out.push_back(std::move(fd));
  return true;
}

cpu_lease cpu_allocator::try_acquire(std::uint64_t millicores) const {
  cpu_need need = need_of(millicores);
  if (need.whole + (need.slots ? 1 : 0) > cpus_.size()) need = {static_cast<unsigned>(cpus_.size()), 0};
  cpu_lease lease;
  std::vector<unsigned> used;
  for (const unsigned cpu : cpus_) {  // whole CPUs from the lowest up
    if (used.size() == need.whole) break;
    if (take_cpu(cpu, cpu_slots, lease.locks_)) used.push_back(cpu);
  }
  if (used.size() < need.whole) return {};
  bool part = need.slots == 0;
  for (auto it = cpus_.rbegin(); !part && it != cpus_.rend(); ++it)  // a fraction from the highest down
    if (std::find(used.begin(), used.end(), *it) == used.end() && take_cpu(*it, need.slots, lease.locks_)) {
      used.push_back(*it);
      part = true;
    }
  if (!part) return {};
  std::sort(used.begin(), used.end());
  lease.list_ = render_cpu_list(used);
  return lease;
}

cpu_lease cpu_allocator::acquire(std::uint64_t millicores, const cancellation& cancel) const {
  while (true) {
    cpu_lease lease = try_acquire(millicores);
    if (!lease.list().empty() || cpus_.empty()) return lease;
    cancel.check();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

cpu_allocator host_cpu_allocator() {
  const auto state = open_state_dir();
  if (!state) fail(state.error());
  auto cpus = open_private_subdir(state->get(), state_dir, "cpus");
  if (!cpus) fail(sandbox::verdict::host_refused, cpus.error().what);
  return cpu_allocator(std::move(*cpus), allowed_cpus());
}

}  // namespace plb::runner
