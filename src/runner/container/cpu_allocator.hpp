// SPDX-License-Identifier: Apache-2.0
// The host-wide CPU allocator: concurrent runs on one host never share a CPU, whichever process
// started them (separate `batch` workers, Slurm nodes on one host, `sandbox-score` calls). Each CPU
// is ten slots of 100 millicores, each a lock file in /var/lib/plb-sandbox/cpus/ (`<cpu>.<slot>`)
// held with flock(2) for the run's life: the kernel frees a SIGKILLed holder's locks, so no CPU is
// ever lost to a dead process. A run whose CPU limit is whole takes every slot of that many CPUs;
// a fractional part takes slots of one more CPU, which only other fractional runs can share (from
// the highest CPU down, while whole CPUs are taken from the lowest up). The CPUs come from the
// process's own affinity (Cpus_allowed_list: under Slurm, the worker's allocation), since docker's
// containers run outside the job's cgroup and nothing else keeps them on those CPUs. When too few
// are free, the run waits.
#pragma once

#include <sched.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/cancellation.hpp"
#include "support/file_io.hpp"

namespace plb::runner {

inline constexpr unsigned cpu_slots = 10;  // 100 millicores each: the smallest CPU limit
inline constexpr const char* cpus_dir = "/var/lib/plb-sandbox/cpus";

// "0-2,5" from ascending CPU numbers; parse_cpu_list reads the same (and the kernel's lists), or
// returns empty on anything else.
std::string render_cpu_list(const std::vector<unsigned>& cpus);
std::vector<unsigned> parse_cpu_list(const std::string& text);
// The same list as an affinity mask (empty for "" or a list parse_cpu_list refuses).
cpu_set_t cpu_mask(const std::string& list);

// This process's CPUs (sched_getaffinity), ascending.
std::vector<unsigned> allowed_cpus();

// What a run of `millicores` needs: whole CPUs, and slots of one more CPU (0 when whole).
struct cpu_need {
  unsigned whole = 0, slots = 0;
};
cpu_need need_of(std::uint64_t millicores);

class cpu_lease {
 public:
  cpu_lease() = default;
  const std::string& list() const noexcept { return list_; }  // for --cpuset-cpus and the provenance

 private:
  friend class cpu_allocator;
  std::string list_;
  std::vector<unique_fd> locks_;  // released when the lease goes
};

class cpu_allocator {
 public:
  // `dir` holds the lock files (created 0700 if missing); `cpus` are the CPUs it may hand out.
  cpu_allocator(unique_fd dir, std::vector<unsigned> cpus) : dir_(std::move(dir)), cpus_(std::move(cpus)) {}

  // A lease if the CPUs are free now, else an empty one (list() == "").
  cpu_lease try_acquire(std::uint64_t millicores) const;
  // Waits (polling every 50 ms) until the CPUs are free; throws interrupted on a stop request.
  // A run that needs more CPUs than this process may use gets them all, shared with no whole run.
  cpu_lease acquire(std::uint64_t millicores, const cancellation& cancel) const;

 private:
  bool take_cpu(unsigned cpu, unsigned slots, std::vector<unique_fd>& out) const;
  unique_fd dir_;
  std::vector<unsigned> cpus_;
};

// The allocator over cpus_dir and this process's affinity. Throws failure(host_refused) when the
// directory is unsafe (the state directory's rules).
cpu_allocator host_cpu_allocator();

}  // namespace plb::runner
