// SPDX-License-Identifier: Apache-2.0
// The host layer's one error type (support/problem.hpp lists each layer's): what is wrong with
// the host, and the fix an operator can apply. A host check, the gVisor proof, the state
// directories and the warden's judgement each return host_result<T>. It lives in state/, the
// lowest room that refuses a host, so that host/ and container/ both stand on it.
#pragma once

#include <stdexcept>
#include <string>

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include "support/failure.hpp"

namespace plb::runner {

// Two parts, always both: with its constructor taking two, a host_result<std::string> cannot
// mistake a check's passing detail for a refusal.
struct refusal {
  refusal() = default;
  refusal(std::string what, std::string mend) : detail(std::move(what)), fix(std::move(mend)) {}

  std::string detail;  // what is wrong, naming the file, binary or setting
  std::string fix;     // the command or change that mends it
};

template <class T>
using host_result = boost::system::result<T, refusal>;

[[noreturn]] inline void throw_exception_from_error(const refusal& r, const boost::source_location&) {
  throw std::runtime_error(r.detail + ": " + r.fix);
}

}  // namespace plb::runner

namespace plb {

// Where a refusal ends the run: failure(host_refused), its detail and its fix on one line. Beside
// failure.hpp's fail() in plb, so that an unqualified fail() in the runner finds both.
[[noreturn]] inline void fail(const runner::refusal& r) {
  fail(sandbox::verdict::host_refused, r.detail + ": " + r.fix);
}

}  // namespace plb
