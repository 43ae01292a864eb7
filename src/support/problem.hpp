// SPDX-License-Identifier: Apache-2.0
// The error rule of the compiled layers, in two halves.
//
// Where the caller decides what a failure means, a call returns boost::system::result<T, E>, with
// one error type per layer, whose words the caller may prefix with its own (the field or path as
// its caller knows it) before passing it up:
//   support (plb::)          problem: what went wrong, in words, and the errno behind it if any
//   runner engine            engine_error (runner/engine/engine_error.hpp): unreachable, status, bad reply
//   runner state, host       refusal (runner/state/refusal.hpp): what is wrong with the host, and the fix
// Never an empty string or a struct of its own for "failed", never an out-parameter for the
// reason; an optional means only "there may be none" (a cache miss, a counter a kernel lacks). A
// struct that gathers many facts and must carry one step's failure beside them holds it as a
// result<void, E> member (completed_run's removal: confirmed, or why not), never as a string that
// is empty when all went well.
//
// Where the run must end, the code throws failure(verdict, line) instead (failure.hpp): it is
// caught only where an outcome is made (the runner API's result, the CLI's main, a batch's line).
// The engine layer never throws it. ci/checks/check-error-rule refuses what a script can see of
// this: the out-parameters, a struct's members that carry a failure, and the engine's throws.
//
// Each error type has a throw_exception_from_error, so result::value() on an error throws a
// std::runtime_error with its words (a programming error: callers test the result first).
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

namespace plb {

// Made only by its two constructors' forms below, never from a bare string, so that a
// result<std::string> is unambiguous: a string is its value, a problem its error.
struct problem {
  problem() = default;  // result::error() of a value: no problem
  problem(std::string words, int errno_of) : what(std::move(words)), errno_value(errno_of) {}
  static problem says(std::string words) { return {std::move(words), 0}; }

  std::string what;     // in the tool's words, e.g. "a symbolic link", "owned by uid 1000"
  int errno_value = 0;  // the system's reason, when there is one
};

template <class T>
using result = boost::system::result<T, problem>;

inline problem errno_problem(int e) { return {std::strerror(e), e}; }  // a failed system call

[[noreturn]] inline void throw_exception_from_error(const problem& p, const boost::source_location&) {
  throw std::runtime_error(p.what);
}

}  // namespace plb
