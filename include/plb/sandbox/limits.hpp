// SPDX-License-Identifier: Apache-2.0
// SandboxLimits: every resource bound of one sandboxed run, with its unit, default, bounds and the
// reason for them. This is the only place that knows bounds and defaults; everything else asks it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace plb::sandbox {

// Every field is an unsigned count in the unit its name carries. A limit is never zero and never
// unbounded: validate() holds each field to [min, max] in limit_table below.
struct SandboxLimits {
  std::uint64_t wall_seconds = 30;         // the script's own run: from its container's start to its exit
  std::uint64_t start_seconds = 30;        // the host's share before that: the container created and
                                           // started (never charged to the script)
  std::uint64_t memory_mib = 512;          // --memory, and --memory-swap equal to it: no swap
  std::uint64_t cpu_millicores = 1000;     // --cpus, in thousandths of a CPU
  std::uint64_t guest_processes = 64;      // RLIMIT_NPROC inside gVisor (processes and threads)
  std::uint64_t host_runtime_tasks = 256;  // host PID cgroup allowance on top of guest_processes
                                           // (the spec's 128 held only sleeping guest processes:
                                           // 320 in all holds 64 busy ones; measured on systrap)
  std::uint64_t scratch_mib = 16;          // size of the noexec tmpfs at /tmp
  std::uint64_t output_mib = 4;            // stdout and stderr together
  std::uint64_t open_files = 256;          // RLIMIT_NOFILE
  std::uint64_t file_size_mib = 16;        // RLIMIT_FSIZE
  std::uint64_t input_values = 1'000'000;  // feature values sent to the script
  std::uint64_t input_json_mib = 64;       // encoded {"features": ...} document
  std::uint64_t script_mib = 8;            // the submitted script, embedded parameters included
  // The model bundle (--bundle, docs/bundles.md): bind only a run that has one.
  std::uint64_t bundle_mib = 2048;         // the bundle's regular files' bytes, all together
  std::uint64_t bundle_files = 10'000;     // its entries: regular files and directories together
  std::uint64_t bundle_depth = 16;         // path components of any entry ("a/b/c" is 3)
  std::uint64_t bundle_path_bytes = 1024;  // bytes of any entry's relative path

  friend constexpr bool operator==(const SandboxLimits&, const SandboxLimits&) = default;
};

enum class limit_field : std::uint8_t {
  wall_seconds,
  start_seconds,
  memory_mib,
  cpu_millicores,
  guest_processes,
  host_runtime_tasks,
  scratch_mib,
  output_mib,
  open_files,
  file_size_mib,
  input_values,
  input_json_mib,
  script_mib,
  bundle_mib,
  bundle_files,
  bundle_depth,
  bundle_path_bytes,
};

struct limit_info {
  limit_field field;
  std::string_view name;
  std::uint64_t SandboxLimits::*member;
  std::uint64_t min;
  std::uint64_t max;
  std::string_view unit;
  std::string_view reason;  // why the bounds are where they are
};

inline constexpr std::uint64_t mib = 1024 * 1024;

// The bounds. A reviewer reads this table, not the code that uses it.
// One row a line: it reads as the table it is.
// clang-format off
inline constexpr std::array<limit_info, 17> limit_table{{
    {limit_field::wall_seconds, "wall_seconds", &SandboxLimits::wall_seconds, 1, 3600, "s",
     "a run that cannot finish in an hour is not an evaluation; 0 would never start"},
    {limit_field::start_seconds, "start_seconds", &SandboxLimits::start_seconds, 5, 600, "s",
     "the daemon's create and gVisor's boot take 1-3 s here, several times that on a loaded host; "
     "past it the run is runtime_failed (the host's fault, retried), never a timeout"},
    {limit_field::memory_mib, "memory_mib", &SandboxLimits::memory_mib, 64, 65536, "MiB",
     "gVisor and the interpreter need about 64 MiB; 64 GiB caps a host of this class"},
    {limit_field::cpu_millicores, "cpu_millicores", &SandboxLimits::cpu_millicores, 100, 64000,
     "1/1000 CPU", "below 0.1 CPU the interpreter cannot start in time"},
    {limit_field::guest_processes, "guest_processes", &SandboxLimits::guest_processes, 4, 1024,
     "processes", "the interpreter and its BLAS threads need a few; gVisor counts threads too"},
    {limit_field::host_runtime_tasks, "host_runtime_tasks", &SandboxLimits::host_runtime_tasks, 64,
     8192, "host tasks",
     "gVisor's runtime threads (systrap platform) count against the container's PID cgroup; 64 "
     "busy guest processes need ~220 in all (measured: see SECURITY.md); at least busy_host_tasks()"},
    {limit_field::scratch_mib, "scratch_mib", &SandboxLimits::scratch_mib, 1, 1024, "MiB",
     "tmpfs pages are charged to the container's memory"},
    {limit_field::output_mib, "output_mib", &SandboxLimits::output_mib, 1, 256, "MiB",
     "the host buffers the output to parse it"},
    {limit_field::open_files, "open_files", &SandboxLimits::open_files, 16, 65536, "descriptors",
     "the interpreter needs stdio plus its modules; 65536 is the usual hard limit"},
    {limit_field::file_size_mib, "file_size_mib", &SandboxLimits::file_size_mib, 1, 1024, "MiB",
     "writes can only land in scratch, which is at most 1 GiB"},
    {limit_field::input_values, "input_values", &SandboxLimits::input_values, 1, 10'000'000,
     "values", "the host holds every selected value as a double"},
    {limit_field::input_json_mib, "input_json_mib", &SandboxLimits::input_json_mib, 1, 1024,
     "MiB", "the script holds the whole document in memory"},
    {limit_field::script_mib, "script_mib", &SandboxLimits::script_mib, 1, 64, "MiB",
     "the snapshot is read into host memory once"},
    {limit_field::bundle_mib, "bundle_mib", &SandboxLimits::bundle_mib, 1, 65536, "MiB",
     "copied once into the run directory (its free space is checked first); streamed, never held in "
     "host memory; 64 GiB is more than the largest memory limit can load"},
    {limit_field::bundle_files, "bundle_files", &SandboxLimits::bundle_files, 1, 100'000, "entries",
     "the host holds each file's path, size and digest until the listing is sorted"},
    {limit_field::bundle_depth, "bundle_depth", &SandboxLimits::bundle_depth, 1, 64, "components",
     "the walk holds one directory descriptor a level"},
    {limit_field::bundle_path_bytes, "bundle_path_bytes", &SandboxLimits::bundle_path_bytes, 16, 4096,
     "bytes", "4096 is PATH_MAX; the host holds every path until the listing is sorted"},
}};
// clang-format on

// info() indexes the table by field: the rows must stay in the enum's order, checked at compile time.
static_assert(
    [] {
      for (std::size_t i = 0; i < limit_table.size(); ++i)
        if (static_cast<std::size_t>(limit_table[i].field) != i) return false;
      return true;
    }(),
    "limit_table rows must follow limit_field's order");

constexpr const limit_info& info(limit_field f) noexcept { return limit_table[static_cast<std::size_t>(f)]; }

constexpr std::uint64_t get(const SandboxLimits& l, limit_field f) noexcept { return l.*(info(f).member); }

// The bundle's bounds (docs/bundles.md): they bind only a run that has a bundle.
constexpr bool is_bundle_limit(limit_field f) noexcept {
  return f == limit_field::bundle_mib || f == limit_field::bundle_files || f == limit_field::bundle_depth ||
         f == limit_field::bundle_path_bytes;
}

constexpr std::uint64_t bytes(std::uint64_t mebibytes) noexcept { return mebibytes * mib; }

// The first field outside its bounds, with the value found. `least` is a lower bound the other
// fields set (busy_processes_fit below), when it is above the table's own.
struct limit_violation {
  limit_field field;
  std::uint64_t value;
  std::uint64_t least = 0;

  constexpr std::uint64_t min() const noexcept { return least > info(field).min ? least : info(field).min; }
  constexpr std::uint64_t max() const noexcept { return info(field).max; }
  friend constexpr bool operator==(const limit_violation&, const limit_violation&) = default;
};

// Total host tasks the container's PID cgroup allows: guest processes plus gVisor's own threads.
constexpr std::uint64_t pids_limit(const SandboxLimits& l) noexcept { return l.guest_processes + l.host_runtime_tasks; }

// ---- gVisor's host tasks: room for every guest process to run busy ---------------------------
//
// gVisor's own threads count against the container's PID cgroup, and a busy guest process costs
// more of them than a sleeping one, growing for over a minute before the count levels off. Measured
// on systrap (ci/bench/measure-pid-budget --busy, SECURITY.md "Host PID budget"): 64 guest
// processes spinning held up to 217 host tasks, an idle sandbox about 30, so about 3 a busy
// process. When gVisor meets the limit the whole sandbox dies and the script is charged for it
// (script_failed), though it stayed within its own process limit. So validate() refuses limits
// whose PID cgroup cannot hold every guest process busy: 4 host tasks a guest process (a third
// over the measured 3) plus the idle sandbox's 32.
inline constexpr std::uint64_t busy_host_tasks_per_process = 4;
inline constexpr std::uint64_t idle_sandbox_host_tasks = 32;

constexpr std::uint64_t busy_host_tasks(const SandboxLimits& l) noexcept {
  return busy_host_tasks_per_process * l.guest_processes + idle_sandbox_host_tasks;
}
constexpr bool busy_processes_fit(const SandboxLimits& l) noexcept { return pids_limit(l) >= busy_host_tasks(l); }

// The first field outside its bounds, then the host allowance too small for the guest's processes
// (its least value: busy_host_tasks() less the guest's own share of the PID limit).
constexpr std::optional<limit_violation> validate(const SandboxLimits& l) noexcept {
  for (const limit_info& i : limit_table) {
    const std::uint64_t v = l.*(i.member);
    if (v < i.min || v > i.max) return limit_violation{i.field, v};
  }
  if (!busy_processes_fit(l))
    return limit_violation{limit_field::host_runtime_tasks, l.host_runtime_tasks,
                           busy_host_tasks(l) - l.guest_processes};
  return std::nullopt;
}

static_assert(!validate(SandboxLimits{}), "the default limits must hold every guest process busy");
static_assert(busy_processes_fit(SandboxLimits{.guest_processes = 1024, .host_runtime_tasks = 8192}),
              "the largest guest limit must have a host allowance that holds it");

// ---- The output cap of a run: output_mib, or room for a correct answer, whichever is more ----
//
// A correct answer is one number a row. json.dumps writes the longest double in 24 bytes
// ("-2.2250738585072014e-308") and its separator in 2: at the input limit with few features (one
// million values in four columns is 250,000 rows), that is more than the spec's 4 MiB, and the
// script would be charged output_cap_exceeded for answering correctly. So the cap grows with the
// rows: output_mib, or 26 bytes a row plus a mebibyte (the document's key, a newline, stderr),
// when that is more. The most input_values allows (one value a row) stays under output_mib's own
// upper bound, which is what the host is sized to buffer.
inline constexpr std::uint64_t output_bytes_per_row = 24 + 2;
inline constexpr std::uint64_t output_slack_bytes = mib;

constexpr std::uint64_t output_cap_bytes(const SandboxLimits& l, std::uint64_t rows) noexcept {
  const std::uint64_t answer = rows * output_bytes_per_row + output_slack_bytes;
  return answer > bytes(l.output_mib) ? answer : bytes(l.output_mib);
}

static_assert(info(limit_field::input_values).max * output_bytes_per_row + output_slack_bytes <=
                  bytes(info(limit_field::output_mib).max),
              "a correct answer to the largest input the limits accept must fit output_mib's bound");

// ---- The guest's threads: bounded by its process limit on a host of any size ----------------
//
// gVisor shows the guest only the CPUs of the sandbox's cpuset, and the libraries a submission
// imports size their thread pools to that count: torch's OpenMP pool and OpenBLAS's, one thread a
// CPU each, beside the interpreter's own. A run is pinned to at most guest_cpus() CPUs (the host's
// allocator; sandbox_policy_builder refuses a wider or missing cpuset), so its pools need at most
// guest_threads_needed() of its guest_processes, whatever the host's size. Limits where they would
// not fit are refused before anything runs: on a 64-CPU host without the bound, torch and BLAS
// would meet RLIMIT_NPROC at their first parallel region.
inline constexpr std::uint64_t thread_pools_per_cpu = 2;  // OpenMP's and BLAS's
inline constexpr std::uint64_t interpreter_threads = 1;

// The CPUs a run is pinned to: its CPU limit, rounded up to whole CPUs.
constexpr std::uint64_t guest_cpus(const SandboxLimits& l) noexcept { return (l.cpu_millicores + 999) / 1000; }
constexpr std::uint64_t guest_threads_needed(const SandboxLimits& l) noexcept {
  return thread_pools_per_cpu * guest_cpus(l) + interpreter_threads;
}
constexpr bool guest_threads_fit(const SandboxLimits& l) noexcept {
  return guest_threads_needed(l) <= l.guest_processes;
}

static_assert(guest_threads_fit(SandboxLimits{}), "the default limits must leave the guest's thread pools room");

// ---- Limit values as an operator types them (CLI flags) -------------------------------------

enum class limit_parse_error : std::uint8_t {
  ok,
  empty,
  not_a_whole_number,  // a sign, a point, a space, a letter, ...
  leading_zero,
  out_of_bounds,
};

constexpr std::string_view message(limit_parse_error e) noexcept {
  switch (e) {
    case limit_parse_error::ok: return "ok";
    case limit_parse_error::empty: return "empty value";
    case limit_parse_error::not_a_whole_number: return "not a whole decimal number";
    case limit_parse_error::leading_zero: return "leading zero";
    case limit_parse_error::out_of_bounds: return "outside the allowed bounds";
  }
  return "unknown error";
}

struct limit_parse_result {
  std::uint64_t value = 0;
  limit_parse_error error = limit_parse_error::ok;
  std::size_t offset = 0;  // byte where the text went wrong
  explicit constexpr operator bool() const noexcept { return error == limit_parse_error::ok; }
};

// Strict: decimal digits only, no sign, no leading zero, no surrounding space, within the bounds.
constexpr limit_parse_result parse_limit(limit_field f, std::string_view text) noexcept {
  if (text.empty()) return {0, limit_parse_error::empty, 0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return {0, limit_parse_error::not_a_whole_number, i};
  }
  if (text.size() > 1 && text[0] == '0') return {0, limit_parse_error::leading_zero, 0};
  std::uint64_t v = 0;
  for (char c : text) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return {0, limit_parse_error::out_of_bounds, 0};
    v = v * 10 + d;
  }
  if (v < info(f).min || v > info(f).max) return {v, limit_parse_error::out_of_bounds, 0};
  return {v, limit_parse_error::ok, 0};
}

}  // namespace plb::sandbox
