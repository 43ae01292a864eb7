// SPDX-License-Identifier: Apache-2.0
// The sandbox policy: the one place that decides what the sandbox looks like.
//
// In the manner of sandbox2's PolicyBuilder, a builder collects the few values a caller may choose
// (image, script snapshot, run ID, limits, user, and a model bundle's snapshot) and yields an
// immutable spec; the first invalid value sticks and is reported by build(). Every control is
// always on: nothing here can drop one, add a flag or a variable, or name an image by tag. The only
// mounts are the script's and, for a run given a bundle, the bundle's: both read-only, each from a
// private snapshot in the run directory, at fixed targets. The rendered `docker run` arguments
// are a pure function of the spec, so a reviewer audits this file and its tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"

namespace plb::sandbox {

enum class policy_error : std::uint8_t {
  ok,
  missing_image,
  missing_script,
  missing_run_id,
  missing_owner,
  run_id_malformed,  // not 32 lowercase hex digits
  owner_malformed,   // not boot-id:pid:start-time
  script_path_relative,
  script_path_unsafe,  // a character the --mount syntax would reinterpret, or a ".." segment
  root_user,           // uid 0 or gid 0
  user_out_of_range,
  limits_out_of_bounds,
  cpuset_malformed,          // not a CPU list such as "0-3,6" of CPUs below max_cpu, ascending, without overlaps
  missing_cpuset,            // a run without one: the guest would see, and size its thread pools to, every host CPU
  cpuset_too_wide,           // more CPUs than the CPU limit rounds up to (guest_cpus)
  threads_exceed_processes,  // guest_threads_needed() is more than guest_processes
  bundle_path_relative,
  bundle_path_unsafe,  // as script_path_unsafe, for the bundle snapshot's directory
};

constexpr std::string_view message(policy_error e) noexcept {
  switch (e) {
    case policy_error::ok: return "ok";
    case policy_error::missing_image: return "no runtime image given";
    case policy_error::missing_script: return "no script snapshot given";
    case policy_error::missing_run_id: return "no run ID given";
    case policy_error::missing_owner: return "no owner given";
    case policy_error::run_id_malformed: return "run ID must be 32 lowercase hex digits";
    case policy_error::owner_malformed: return "owner must be <boot id>:<pid>:<start time>";
    case policy_error::script_path_relative: return "script snapshot path must be absolute";
    case policy_error::script_path_unsafe:
      return "script snapshot path holds a comma, quote, '=', control character or '..' segment";
    case policy_error::root_user: return "the sandbox user must not be root (uid 0 or gid 0)";
    case policy_error::user_out_of_range: return "uid or gid out of range";
    case policy_error::limits_out_of_bounds: return "a limit is outside its bounds";
    case policy_error::cpuset_malformed: return "the CPU set must be a list such as 0-3,6 in ascending order";
    case policy_error::missing_cpuset:
      return "no CPU set given: the guest would see every host CPU and size its thread pools to them";
    case policy_error::cpuset_too_wide: return "the CPU set holds more CPUs than the CPU limit rounds up to";
    case policy_error::threads_exceed_processes:
      return "the guest's thread pools (two a CPU, and the interpreter) need more than guest_processes allows";
    case policy_error::bundle_path_relative: return "bundle snapshot path must be absolute";
    case policy_error::bundle_path_unsafe:
      return "bundle snapshot path holds a comma, quote, '=', control character or '..' segment";
  }
  return "unknown error";
}

// Fixed parts of the sandbox. Not configurable on purpose.
namespace policy_constants {
inline constexpr std::string_view runtime = "runsc";
inline constexpr std::string_view name_prefix = "plb-sandbox-";
inline constexpr std::string_view run_label = "plb-sandbox.run";  // marks the tool's containers
// Which tool process owns the container: a sweep removes a container only once its owner is gone.
inline constexpr std::string_view owner_label = "plb-sandbox.owner";
// The backstop for every host process of the tool: the warden (a host service outside the tool's
// process tree and cgroups) removes a container of the tool's this many seconds after the daemon
// created it, whatever became of the tool, its reaper and the docker client: the start allowance
// (start_seconds: creation to start), the wall time (the script's own run) and a grace.
inline constexpr std::string_view deadline_label = "plb-sandbox.expires-after";
// Added to the start allowance and the wall time in that label: the tool's inspection and its
// removal of the container after the script's end fit well within it.
inline constexpr std::uint64_t deadline_grace_seconds = 10;
// The preflight's gVisor probe prints one line; its watchdog and its deadline use this wall time.
inline constexpr std::uint64_t probe_wall_seconds = 60;
inline constexpr std::string_view script_target = "/sandbox/model.py";
// Where a run given a model bundle (--bundle) finds it: one read-only directory, the bundle's
// snapshot. A run without a bundle has no such mount (nor the directory).
inline constexpr std::string_view bundle_target = "/sandbox/bundle";
inline constexpr std::string_view scratch_target = "/tmp";
inline constexpr std::string_view entrypoint = "/usr/bin/env";  // run with -i: empty environment
inline constexpr std::string_view python = "/usr/local/bin/python";
inline constexpr std::uint32_t default_uid = 65534;  // nobody
inline constexpr std::uint32_t default_gid = 65534;  // nogroup
inline constexpr std::uint32_t max_id = 2147483646;  // below the kernel's (uid_t)-1 sentinel range
inline constexpr std::size_t run_id_digits = 32;
inline constexpr std::string_view probe_code = "import os; print(os.uname().release)";
inline constexpr unsigned max_cpu = 4095;  // the highest CPU number a --cpuset-cpus list may name
}  // namespace policy_constants

// Only sandbox_policy_builder makes one: there is no public constructor.
class sandbox_policy {
 public:
  const image_id& image() const noexcept { return *image_; }
  const std::string& script_path() const noexcept { return script_path_; }
  // The bundle snapshot's directory on the host, "" for a run without a bundle (one mount only).
  const std::string& bundle_path() const noexcept { return bundle_path_; }
  const std::string& run_id() const noexcept { return run_id_; }
  const SandboxLimits& limits() const noexcept { return limits_; }
  std::uint32_t uid() const noexcept { return uid_; }
  std::uint32_t gid() const noexcept { return gid_; }
  // The host CPUs the sandbox may run on ("" when the caller pinned none): the host-wide allocator's
  // share for this run, rendered as --cpuset-cpus.
  const std::string& cpuset() const noexcept { return cpuset_; }

  std::string container_name() const { return std::string(policy_constants::name_prefix) + run_id_; }
  std::string run_label() const { return std::string(policy_constants::run_label) + "=" + run_id_; }
  std::string owner_label() const { return std::string(policy_constants::owner_label) + "=" + owner_; }
  const std::string& owner() const noexcept { return owner_; }
  // "plb-sandbox.expires-after=<seconds>": the start allowance, the wall time (the run's, or the
  // probe's) and the grace, after the container's creation.
  std::string deadline_label(bool probe) const {
    const std::uint64_t wall = probe ? policy_constants::probe_wall_seconds : limits_.wall_seconds;
    return std::string(policy_constants::deadline_label) + "=" +
           std::to_string(limits_.start_seconds + wall + policy_constants::deadline_grace_seconds);
  }

  // Arguments after the docker binary, starting with "run". One token per flag ("--flag=value")
  // so that no value can be read as a flag.
  std::vector<std::string> docker_run_arguments() const {
    std::vector<std::string> argv = controls(true);
    argv.emplace_back(policy_constants::script_target);
    return argv;
  }

  // The preflight's probe: the same sandbox with every control, but no script mount; the trusted
  // image's interpreter prints the kernel release it sees, which under gVisor is gVisor's own.
  std::vector<std::string> docker_probe_arguments() const {
    std::vector<std::string> argv = controls(false);
    argv.emplace_back("-c");
    argv.emplace_back(policy_constants::probe_code);
    return argv;
  }

  // "1", "0.25", "1.5": --cpus takes a decimal count of CPUs.
  static std::string cpus(std::uint64_t millicores) {
    std::string s = std::to_string(millicores / 1000);
    std::uint64_t frac = millicores % 1000;
    if (frac) {
      std::string f = std::to_string(1000 + frac).substr(1);
      while (f.back() == '0') f.pop_back();
      s += "." + f;
    }
    return s;
  }

 private:
  friend class sandbox_policy_builder;
  sandbox_policy() = default;  // the builder's draft; only a complete draft is handed out

  // Everything up to the interpreter's arguments.
  std::vector<std::string> controls(bool with_script) const {
    namespace k = policy_constants;
    const auto n = [](std::uint64_t v) { return std::to_string(v); };
    const std::string memory = n(limits_.memory_mib) + "m";
    const std::string file_size = n(bytes(limits_.file_size_mib));
    std::vector<std::string> argv{
        "run",
        "--interactive",  // the features arrive on stdin
        "--name=" + container_name(),
        "--label=" + run_label(),
        "--label=" + owner_label(),
        "--label=" + deadline_label(!with_script),
        "--runtime=" + std::string(k::runtime),
        "--pull=never",
        "--user=" + n(uid_) + ":" + n(gid_),
        "--cap-drop=ALL",
        "--security-opt=no-new-privileges",
        "--network=none",
        "--ipc=none",
        "--read-only",
    };
    if (with_script) {
      argv.push_back("--mount=type=bind,source=" + script_path_ + ",target=" + std::string(k::script_target) +
                     ",readonly");
      if (!bundle_path_.empty())  // the second mount, for a bundle run only: read-only like the script's
        argv.push_back("--mount=type=bind,source=" + bundle_path_ + ",target=" + std::string(k::bundle_target) +
                       ",readonly");
    }
    const std::vector<std::string> rest{
        "--tmpfs=" + std::string(k::scratch_target) + ":rw,size=" + n(limits_.scratch_mib) +
            "m,noexec,nosuid,nodev,mode=1777",
        "--memory=" + memory,
        "--memory-swap=" + memory,  // equal to --memory: no swap
        "--cpus=" + cpus(limits_.cpu_millicores),
        "--cpuset-cpus=" + cpuset_,
        "--pids-limit=" + n(pids_limit(limits_)),
        "--ulimit=nproc=" + n(limits_.guest_processes) + ":" + n(limits_.guest_processes),
        "--ulimit=nofile=" + n(limits_.open_files) + ":" + n(limits_.open_files),
        "--ulimit=fsize=" + file_size + ":" + file_size,
        "--ulimit=core=0:0",
        "--log-driver=none",
        "--no-healthcheck",
        "--entrypoint=" + std::string(k::entrypoint),
        image_->str(),
        "-i",  // env -i: neither the host's nor the image's variables reach the script
        std::string(k::python),
        "-I",  // isolated: no PYTHON* variables, no user site, script dir not on sys.path
        "-B",  // no bytecode writes to the read-only mount
    };
    argv.insert(argv.end(), rest.begin(), rest.end());
    if (cpuset_.empty()) argv.erase(std::find(argv.begin(), argv.end(), "--cpuset-cpus="));
    return argv;
  }

  std::optional<image_id> image_;  // always set in a built policy
  std::string script_path_;
  std::string bundle_path_;
  std::string run_id_;
  std::string owner_;
  SandboxLimits limits_;
  std::string cpuset_;
  std::uint32_t uid_ = policy_constants::default_uid;
  std::uint32_t gid_ = policy_constants::default_gid;
};

// A default-constructed result is a failure: nothing but the builder hands out a policy.
struct policy_result {
  std::optional<sandbox_policy> spec;  // set exactly when error is ok
  policy_error error = policy_error::missing_image;
  limit_violation violation{};  // set with limits_out_of_bounds
  explicit operator bool() const noexcept { return error == policy_error::ok; }
};

class sandbox_policy_builder {
 public:
  sandbox_policy_builder& image(const image_id& id) {
    spec_.image_ = id;
    have_image_ = true;
    return *this;
  }

  sandbox_policy_builder& script(std::string_view host_path) {
    if (const auto e = mount_source_error(host_path, policy_error::script_path_relative,
                                          policy_error::script_path_unsafe);
        e != policy_error::ok)
      return fail(e);
    spec_.script_path_.assign(host_path);
    have_script_ = true;
    return *this;
  }

  // The bundle snapshot's directory: the run's second mount, at bundle_target, read-only. Held to
  // the script path's rules (absolute; nothing --mount would reinterpret; no ".." segment).
  sandbox_policy_builder& bundle(std::string_view host_dir) {
    if (const auto e = mount_source_error(host_dir, policy_error::bundle_path_relative,
                                          policy_error::bundle_path_unsafe);
        e != policy_error::ok)
      return fail(e);
    spec_.bundle_path_.assign(host_dir);
    return *this;
  }

  // Why `host_path` cannot be a --mount source (`relative` or `unsafe`), or ok.
  static constexpr policy_error mount_source_error(std::string_view host_path, policy_error relative,
                                                   policy_error unsafe) noexcept {
    if (host_path.empty() || host_path.front() != '/') return relative;
    for (char c : host_path) {
      const auto u = static_cast<unsigned char>(c);
      if (c == ',' || c == '"' || c == '=' || c == ':' || u < 0x20 || u == 0x7f) return unsafe;
    }
    if (host_path.find("/../") != std::string_view::npos || host_path.ends_with("/..")) return unsafe;
    return policy_error::ok;
  }

  sandbox_policy_builder& run_id(std::string_view id) {
    if (id.size() != policy_constants::run_id_digits) return fail(policy_error::run_id_malformed);
    for (char c : id)
      if (!detail::is_lower_hex(c)) return fail(policy_error::run_id_malformed);
    spec_.run_id_.assign(id);
    have_run_id_ = true;
    return *this;
  }

  // "<boot id>:<pid>:<start time>" of the process that will wait for the container.
  sandbox_policy_builder& owner(std::string_view id) {
    std::size_t colons = 0;
    bool ok = !id.empty() && id.size() <= 128 && id.front() != ':' && id.back() != ':';
    for (char c : id) {
      colons += c == ':';
      ok &= detail::is_lower_hex(c) || c == '-' || c == ':';
    }
    if (!ok || colons != 2 || id.find("::") != std::string_view::npos) return fail(policy_error::owner_malformed);
    spec_.owner_.assign(id);
    have_owner_ = true;
    return *this;
  }

  sandbox_policy_builder& limits(const SandboxLimits& l) {
    if (const auto v = validate(l)) {
      if (error_ == policy_error::ok) violation_ = *v;
      return fail(policy_error::limits_out_of_bounds);
    }
    if (!guest_threads_fit(l)) return fail(policy_error::threads_exceed_processes);
    spec_.limits_ = l;
    return *this;
  }

  // "0-1,3": ascending CPU numbers and ranges, each at most max_cpu, no CPU twice. A run needs one
  // (build() refuses a run without), of at most guest_cpus() CPUs: the CPUs the guest sees.
  sandbox_policy_builder& cpuset(std::string_view list) {
    if (!is_cpu_list(list)) return fail(policy_error::cpuset_malformed);
    spec_.cpuset_.assign(list);
    return *this;
  }

  // How many CPUs a list that is_cpu_list() accepts names.
  static std::uint64_t cpu_count(std::string_view list) noexcept {
    std::uint64_t count = 0;
    std::size_t i = 0;
    const auto number = [&] {
      std::uint64_t v = 0;
      while (i < list.size() && list[i] >= '0' && list[i] <= '9')
        v = v * 10 + static_cast<std::uint64_t>(list[i++] - '0');
      return v;
    };
    while (i < list.size()) {
      const std::uint64_t lo = number();
      std::uint64_t hi = lo;
      if (i < list.size() && list[i] == '-') {
        ++i;
        hi = number();
      }
      count += hi - lo + 1;
      if (i < list.size()) ++i;  // the comma
    }
    return count;
  }

  static bool is_cpu_list(std::string_view list) {
    if (list.empty() || list.size() > 256) return false;
    long last = -1;
    std::size_t i = 0;
    const auto number = [&](long& out) {
      const std::size_t from = i;
      out = 0;
      while (i < list.size() && list[i] >= '0' && list[i] <= '9' && i - from < 5) out = out * 10 + (list[i++] - '0');
      return i > from && (i - from == 1 || list[from] != '0') && out <= long{policy_constants::max_cpu};
    };
    while (i < list.size()) {
      long lo = 0, hi = 0;
      if (!number(lo) || lo <= last) return false;
      hi = lo;
      if (i < list.size() && list[i] == '-') {
        ++i;
        if (!number(hi) || hi <= lo) return false;
      }
      last = hi;
      if (i == list.size()) return true;
      if (list[i] != ',') return false;
      ++i;
      if (i == list.size()) return false;  // a trailing comma
    }
    return true;
  }

  sandbox_policy_builder& user(std::uint32_t uid, std::uint32_t gid) {
    if (uid == 0 || gid == 0) return fail(policy_error::root_user);
    if (uid > policy_constants::max_id || gid > policy_constants::max_id) return fail(policy_error::user_out_of_range);
    spec_.uid_ = uid;
    spec_.gid_ = gid;
    return *this;
  }

  policy_result build() const { return finish(true); }

  // A spec for docker_probe_arguments() only: no script snapshot is needed.
  policy_result build_probe() const { return finish(false); }

 private:
  policy_result finish(bool need_script) const {
    policy_result r;
    r.error = error_;
    r.violation = violation_;
    if (r.error == policy_error::ok) {
      if (!have_image_)
        r.error = policy_error::missing_image;
      else if (need_script && !have_script_)
        r.error = policy_error::missing_script;
      else if (!have_run_id_)
        r.error = policy_error::missing_run_id;
      else if (!have_owner_)
        r.error = policy_error::missing_owner;
      else if (need_script && spec_.cpuset_.empty())
        r.error = policy_error::missing_cpuset;
      else if (!spec_.cpuset_.empty() && cpu_count(spec_.cpuset_) > guest_cpus(spec_.limits_))
        r.error = policy_error::cpuset_too_wide;
    }
    if (r.error == policy_error::ok) r.spec = spec_;
    return r;
  }

  sandbox_policy_builder& fail(policy_error e) {
    if (error_ == policy_error::ok) error_ = e;  // the first error sticks
    return *this;
  }

  sandbox_policy spec_;
  policy_error error_ = policy_error::ok;
  limit_violation violation_{};
  bool have_image_ = false, have_script_ = false, have_run_id_ = false, have_owner_ = false;
};

}  // namespace plb::sandbox
