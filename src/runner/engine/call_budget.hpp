// SPDX-License-Identifier: Apache-2.0
// What one successful sandbox-score run may cost outside the sandbox, in one place: the programs
// the tool execs and the Docker Engine requests made by the tool (its threads and its reaper) and
// by the docker client it starts, one row per call with the reason for it. A batch pays the
// preflight rows once (the image row once per image) and the other rows once per line.
//
// The guard is a count, not a clock: tests/gvisor/call_budget.sh traces a real run (strace),
// counts every exec and every request line written to the daemon's socket or to the run's engine
// gate (the client's only way to the daemon, engine_gate.hpp: it splices the client's bytes
// through and adds none), and fails on any call beyond these rows or not in them. The client is
// launched during the preflight; its requests wait at the gate until the preflight has passed. It reads the rows from
// `explain --json` ("call_budget"), which prints this table, so the numbers live here and nowhere else. The deadline
// warden's ping (a unix socket of its own, not the Engine) is neither an exec nor an Engine request.
#pragma once

#include <array>
#include <chrono>

namespace plb::runner::budget {

// The docker watchdog samples the container this often (docker_run.cpp); the rows whose count
// grows with the run are bounded in samples.
inline constexpr std::chrono::milliseconds sample_period{100};
// Once the daemon has created the container, the watchdog looks for its start (the run's clock,
// run_clock.hpp) at every this-many-th sample until it has seen it.
inline constexpr unsigned start_look_samples = 5;

enum class phase {
  preflight,  // before the docker client's engine gate opens (the client is starting up meanwhile)
  run,        // from the gate's opening until the tool reaps the client: a sample under way as the
              // client exits is still the run's (the watchdog learns of the exit by the reap)
  cleanup,    // after the reap
};

// Where a row's allowance beyond `count` comes from: one call per `per_samples` samples of...
enum class window {
  none,           // nothing: the count is exact
  run,            // ...the run phase (the gate open to the client's reap)
  until_created,  // ...the time before the daemon has created the container (the client's create
                  // request, and one period for it to be answered)
  until_started,  // ...the time from the client's create request until the container started (the
                  // run's recorded startup_seconds after the gate's opening), and one look's
                  // period more for the watchdog to see it
};

struct exec_call {
  const char* program;  // "{runtime}": the daemon's runsc entry
  unsigned count;
  const char* reason;
};

struct engine_call {
  const char* who;  // "tool" or "client"
  phase when;
  const char* method;
  const char* path;  // after the /v1.41 prefix; {name} {id} {image} {query} stand for one segment.
                     // Rows of one caller, phase, method and path add up.
  unsigned count;
  window extra;
  unsigned per_samples;
  const char* reason;
};

inline constexpr std::array<exec_call, 2> execs{{
    {"/usr/bin/docker", 1, "the docker client that creates, attaches to and starts the container"},
    {"{runtime}", 0,
     "`runsc --version` only when the runsc identity is not cached (a new binary or runtime entry: "
     "runsc_identity.hpp)"},
}};

inline constexpr std::array<engine_call, 15> engine{{
    {"tool", phase::preflight, "GET", "/info", 1, window::none, 0,
     "daemon answers, Linux daemon, cgroup controllers, the runsc entry and the keys of both caches: one "
     "answer for all of them"},
    {"tool", phase::preflight, "GET", "/images/{image}/json", 1, window::none, 0,
     "image present (never pulled), the ID it resolves to, no declared volumes"},
    {"tool", phase::preflight, "GET", "/containers/json?{query}", 1, window::none, 0,
     "the sweep: what runs whose tool died left behind goes before anything new starts"},
    {"tool", phase::run, "GET", "/containers/{name}/json", 1, window::until_created, 1,
     "the container's ID for the cgroup monitor: asked once a sample until the daemon has created it"},
    {"tool", phase::run, "GET", "/containers/{name}/json", 0, window::until_started, start_look_samples,
     "its start for the run's clock (the wall time counts from there): asked every fifth sample until "
     "seen, then never again; once more at the start allowance's end if it was not seen by then"},
    {"tool", phase::run, "GET", "/containers/{name}/json", 1, window::none, 0,
     "whether the container had exited within its wall time, asked once at its end only if the client has "
     "not yet reported the exit (a late client, not a late script: docker_run.cpp); at most one, allowed in "
     "every run's count since the trace does not show whether the deadline came"},
    {"tool", phase::run, "GET", "/_ping", 0, window::run, 5,
     "whether the daemon still answers, every fifth sample (the watchdog, docker_run.cpp)"},
    {"tool", phase::cleanup, "GET", "/containers/{name}/json", 1, window::none, 0,
     "the exit code, OOM flag and the daemon's own error, read while the container still exists"},
    {"tool", phase::cleanup, "DELETE", "/containers/{name}?force=1", 1, window::none, 0,
     "removal (a run never uses --rm: the container is inspected first)"},
    {"tool", phase::cleanup, "GET", "/containers/{name}/json", 1, window::none, 0,
     "the removal confirmed: the daemon no longer knows the name (an answer of 204 is not taken for it)"},
    {"client", phase::run, "HEAD", "/_ping", 1, window::none, 0, "the client's API version negotiation"},
    {"client", phase::run, "POST", "/containers/create?{query}", 1, window::none, 0, "create"},
    {"client", phase::run, "POST", "/containers/{id}/attach?{query}", 1, window::none, 0,
     "attach stdin, stdout, stderr"},
    {"client", phase::run, "POST", "/containers/{id}/wait?{query}", 1, window::none, 0, "the exit status"},
    {"client", phase::run, "POST", "/containers/{id}/start", 1, window::none, 0, "start"},
}};

}  // namespace plb::runner::budget
